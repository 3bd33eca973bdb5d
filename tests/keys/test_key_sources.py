"""rho-desk's own keys: the key file, the keyring (secure backends only), the default source that
chooses between them, and the one wording shared with provider API keys."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.backends.fail import Keyring as NoKeyring

from rho_desk.core.errors import CredentialsUnavailable
from rho_desk.core.export import fingerprint_key, key_id, public_key_text, signing_key
from rho_desk.core.secrets.keys import (
    FINGERPRINT_KEY,
    SIGNING_KEY,
    KeySource,
    durable_store_key,
    encode_key,
)
from rho_desk.keys import (
    SERVICE,
    DefaultKeySource,
    FileKeySource,
    InsecureKeyring,
    KeyringKeySource,
    MemoryKeySource,
    default_key_file,
    default_key_source,
)


@pytest.fixture(autouse=True)
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("RHO_DESK_KEY_FILE", raising=False)
    return tmp_path / "config"


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    yield
    keyring.set_keyring(previous)


class PlaintextKeyring(keyring.backend.KeyringBackend):
    """Stands in for keyrings.alt.file.PlaintextKeyring (judged by module and class name)."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()
        self.stored: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.stored.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.stored[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        del self.stored[(service, username)]


PlaintextKeyring.__module__ = "keyrings.alt.file"


@pytest.fixture
def plaintext() -> Iterator[PlaintextKeyring]:
    backend = PlaintextKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_every_source_is_a_key_source(tmp_path: Path) -> None:
    for source in (
        FileKeySource(tmp_path / "k"),
        KeyringKeySource(),
        MemoryKeySource(),
        default_key_source(),
    ):
        assert isinstance(source, KeySource)


def test_the_key_file_is_private_created_once_with_a_notice_and_stable(tmp_path: Path) -> None:
    said: list[str] = []
    path = tmp_path / "deep" / "keys"
    source = FileKeySource(path, notice=said.append)
    key = source.key(FINGERPRINT_KEY)
    assert len(key) == 32 and source.key(FINGERPRINT_KEY) == key
    assert (
        oct(path.stat().st_mode & 0o777) == "0o600"
        and oct(path.parent.stat().st_mode & 0o777) == "0o700"
    )
    assert said == [f"Created rho-desk's key {FINGERPRINT_KEY} in {path} (readable only by you)."]
    other = FileKeySource(path).key(SIGNING_KEY)
    assert other != key and FileKeySource(path).key(FINGERPRINT_KEY) == key  # both kept
    assert encode_key(key) in path.read_text() and repr(source) == f"FileKeySource({str(path)!r})"


def test_the_key_file_is_never_silently_replaced(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    path.write_text(f"{FINGERPRINT_KEY} not-a-key\n")
    path.chmod(0o600)
    with pytest.raises(CredentialsUnavailable, match="is not a rho-desk key"):
        FileKeySource(path).key(FINGERPRINT_KEY)
    assert path.read_text() == f"{FINGERPRINT_KEY} not-a-key\n"
    path.write_text("what is this\n")
    with pytest.raises(CredentialsUnavailable, match=r"keys:1 is not a line NAME BASE64"):
        FileKeySource(path).key(FINGERPRINT_KEY)


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "keys"
    key = FileKeySource(path).key(SIGNING_KEY)
    path.chmod(0o640)
    with pytest.raises(CredentialsUnavailable, match=r"readable by others \(mode 0640\)") as caught:
        FileKeySource(path).key(SIGNING_KEY)
    assert encode_key(key) not in caught.value.text() and "chmod 600" in caught.value.text()


def test_missing_keys_are_not_created_when_only_reading(tmp_path: Path) -> None:
    with pytest.raises(CredentialsUnavailable, match="it is not in the key file"):
        FileKeySource(tmp_path / "keys").key(durable_store_key("laptop"), create=False)
    assert not (tmp_path / "keys").exists()


def test_with_a_secure_keyring_new_keys_go_there(memory_keyring, config: Path) -> None:  # type: ignore[no-untyped-def]
    source = default_key_source()
    assert isinstance(source, DefaultKeySource)
    key = fingerprint_key(source)
    assert memory_keyring.entries == {(SERVICE, FINGERPRINT_KEY): encode_key(key)}
    assert not default_key_file().exists()
    where = source.locate(FINGERPRINT_KEY)
    assert where is not None and "keyring" in where


def test_without_a_keyring_new_keys_go_to_the_key_file(no_keyring: None, config: Path) -> None:
    said: list[str] = []
    source = default_key_source(notice=said.append)
    key = fingerprint_key(source)
    signer = signing_key(source)
    assert default_key_file() == config / "keys" and default_key_file().is_file()
    assert fingerprint_key(default_key_source()) == key
    assert public_key_text(signing_key(default_key_source())) == public_key_text(signer)
    assert len(said) == 2 and key_id(key).startswith("kid:")
    assert "no secure keyring" in source.describe()


def test_a_plaintext_keyring_is_refused_for_rho_desks_own_keys(
    plaintext: PlaintextKeyring, config: Path
) -> None:
    fingerprint_key(default_key_source())
    signing_key(default_key_source())
    assert plaintext.stored == {}  # nothing of ours written in plain text
    assert FINGERPRINT_KEY in default_key_file().read_text()
    with pytest.raises(InsecureKeyring, match="stores secrets in plain text"):
        KeyringKeySource().store(FINGERPRINT_KEY, bytes(32))


def test_a_key_an_older_version_left_in_a_plaintext_keyring_stays_readable(
    plaintext: PlaintextKeyring,
) -> None:
    # refusing to read it would lose what it protects (an encrypted store); it is never rewritten
    old = bytes(range(32))
    plaintext.stored[(SERVICE, durable_store_key("default"))] = encode_key(old)
    assert default_key_source().key(durable_store_key("default")) == old


def test_the_key_file_wins_once_it_holds_a_key(memory_keyring) -> None:  # type: ignore[no-untyped-def]
    in_file = FileKeySource(default_key_file()).key(FINGERPRINT_KEY)
    memory_keyring.entries[(SERVICE, FINGERPRINT_KEY)] = encode_key(bytes(32))
    assert fingerprint_key(default_key_source()) == in_file  # keys never move silently


def test_an_explicit_key_file_replaces_the_default(
    tmp_path: Path, memory_keyring, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    chosen = tmp_path / "ci.keys"
    key = fingerprint_key(default_key_source(chosen))
    assert memory_keyring.entries == {} and FileKeySource(chosen).key(FINGERPRINT_KEY) == key
    monkeypatch.setenv("RHO_DESK_KEY_FILE", str(chosen))
    assert fingerprint_key(default_key_source()) == key


def test_one_wording_for_own_keys_and_api_keys(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.providers.credentials import get_api_key

    def locked(service: str, username: str) -> str:
        raise keyring.errors.KeyringLocked(
            "collection /org/freedesktop/secrets/aliases/default is locked"
        )

    monkeypatch.setattr(keyring, "get_password", locked)
    with pytest.raises(CredentialsUnavailable) as own:
        fingerprint_key(default_key_source())
    with pytest.raises(CredentialsUnavailable) as api:
        get_api_key("work")
    assert own.value.text() == (
        f"Cannot read rho-desk's key {FINGERPRINT_KEY}: the keyring reported KeyringLocked. "
        "Unlock the keyring and try again."
    )
    assert api.value.text() == (
        "Cannot read the API key of profile 'work': the keyring reported KeyringLocked. "
        "Unlock the keyring and try again."
    )
    assert "secrets/aliases" not in own.value.text() + api.value.text()
    assert not default_key_file().exists()  # a locked keyring is not a reason to fork the keys


def test_api_keys_stay_keyring_only(no_keyring: None, config: Path) -> None:
    from rho_desk.providers.credentials import NoKeyringBackend, set_api_key

    with pytest.raises(
        NoKeyringBackend,
        match=r"^Cannot store the API key of profile 'work': no system keyring is available\. Install",
    ):
        set_api_key("work", "sk-live-123456")
    assert not default_key_file().exists()


def test_concurrent_first_use_creates_one_key(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "keys"
    script = (
        "import sys; from pathlib import Path; from rho_desk.keys import FileKeySource; "
        "print(FileKeySource(Path(sys.argv[1])).key('export-signing-key').hex())"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True, env=env
        )
        for _ in range(4)
    ]
    keys = {run.communicate(timeout=60)[0].strip() for run in runs}
    assert len(keys) == 1 and FileKeySource(path).key(SIGNING_KEY).hex() in keys
