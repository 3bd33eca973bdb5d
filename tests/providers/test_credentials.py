"""Credentials: keyring entries per profile, the no-backend error, environment opt-in, redaction list."""

from __future__ import annotations

import threading
from pathlib import Path

import keyring
import keyring.backend
import keyring.backends.fail
import keyring.errors
import pytest

from rho_desk.core.errors import CredentialsUnavailable
from rho_desk.core.secrets.scrub import SecretString
from rho_desk.providers import credentials
from rho_desk.providers.credentials import (
    SERVICE,
    InsecureKeyring,
    KeyringFailure,
    MissingApiKey,
    NoKeyringBackend,
    aget_api_key,
    aresolve_api_key,
    aset_api_key,
    delete_api_key,
    get_api_key,
    keyring_status,
    resolve_api_key,
    set_api_key,
)
from rho_desk.providers.export_secrets import stored_secrets
from rho_desk.providers.profiles import DEFAULT_PROFILE, ProfileKind, ProfileStore, ProviderProfile

OPENAI = ProviderProfile(
    name="openai",
    kind=ProfileKind.OPENAI_COMPATIBLE,
    base_url="https://api.openai.com/v1",
    model="gpt-4.1",
)


@pytest.fixture
def no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    previous = keyring.get_keyring()
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.set_keyring(previous)


def test_round_trip_one_entry_per_profile(config_dir: Path, memory_keyring) -> None:  # type: ignore[no-untyped-def]
    set_api_key(OPENAI, "sk-one")
    set_api_key("anthropic", SecretString("sk-two"))
    assert memory_keyring.entries == {
        (SERVICE, "profile:openai"): "sk-one",
        (SERVICE, "profile:anthropic"): "sk-two",
    }
    key = get_api_key(OPENAI)
    assert isinstance(key, SecretString) and key.expose_secret() == "sk-one"
    assert repr(key) == "SecretString([REDACTED])"
    assert delete_api_key(OPENAI) is True
    assert delete_api_key(OPENAI) is False
    assert get_api_key(OPENAI) is None


def test_rejects_blank_or_padded_keys(config_dir: Path) -> None:
    for bad in ("", " sk ", "sk\n"):
        with pytest.raises(ValueError):
            set_api_key(OPENAI, bad)


def test_no_backend_is_a_typed_error_with_advice(config_dir: Path, no_keyring: None) -> None:
    with pytest.raises(NoKeyringBackend) as caught:
        get_api_key(OPENAI)
    assert isinstance(caught.value, CredentialsUnavailable)
    text = caught.value.text()
    assert (
        "profile 'openai'" in text and "Secret Service" in text and "environment variable" in text
    )
    assert caught.value.__context__ is None
    with pytest.raises(NoKeyringBackend):
        set_api_key(OPENAI, "sk-x")
    assert keyring_status().available is False


def test_keyring_failure_reports_only_the_exception_type(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def locked(service: str, username: str) -> str:
        raise keyring.errors.KeyringLocked(
            "collection /secret/aliases/default SECRET-PATH is locked"
        )

    monkeypatch.setattr(keyring, "get_password", locked)
    with pytest.raises(KeyringFailure) as caught:
        get_api_key(OPENAI)
    assert "KeyringLocked" in str(caught.value) and "SECRET-PATH" not in str(caught.value)


def test_environment_only_by_explicit_opt_in(config_dir: Path) -> None:
    env = {"OPENAI_API_KEY": "sk-from-env"}
    with pytest.raises(MissingApiKey) as caught:
        resolve_api_key(OPENAI, environ=env)
    assert "profile 'openai'" in str(caught.value)
    opted = OPENAI.replace(api_key_env="OPENAI_API_KEY")
    resolved = resolve_api_key(opted, environ=env)
    assert resolved is not None
    assert resolved.secret.expose_secret() == "sk-from-env"
    assert resolved.source == "environment variable OPENAI_API_KEY"
    # the keyring wins when it has a key
    set_api_key(opted, "sk-from-keyring")
    resolved = resolve_api_key(opted, environ=env)
    assert resolved is not None and resolved.source == "keyring"
    assert resolved.secret.expose_secret() == "sk-from-keyring"


def test_environment_opt_in_works_without_a_keyring(config_dir: Path, no_keyring: None) -> None:
    opted = OPENAI.replace(api_key_env="OPENAI_API_KEY")
    resolved = resolve_api_key(opted, environ={"OPENAI_API_KEY": "sk-env"})
    assert resolved is not None and resolved.source.startswith("environment")
    with pytest.raises(NoKeyringBackend):
        resolve_api_key(opted, environ={})


def test_local_ollama_needs_no_key(config_dir: Path, no_keyring: None) -> None:
    assert resolve_api_key(DEFAULT_PROFILE, environ={}) is None


def test_insecure_plaintext_backend_is_refused_without_opt_in(config_dir: Path) -> None:
    class PlaintextKeyring(keyring.backend.KeyringBackend):
        priority = 0.5  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.stored: dict[str, str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.stored.get(username)

        def set_password(self, service: str, username: str, password: str) -> None:
            self.stored[username] = password

        def delete_password(self, service: str, username: str) -> None:
            del self.stored[username]

    PlaintextKeyring.__module__ = "keyrings.alt.file"
    backend = PlaintextKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        assert keyring_status().secure is False
        with pytest.raises(InsecureKeyring):
            set_api_key(OPENAI, "sk-x")
        set_api_key(OPENAI, "sk-x", allow_insecure=True)
        assert backend.stored == {"profile:openai": "sk-x"}
    finally:
        keyring.set_keyring(previous)


def test_stored_secrets_covers_profiles_index_and_opted_env(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ProfileStore()
    store.save([OPENAI, OPENAI.replace(name="router", api_key_env="ROUTER_KEY")])
    set_api_key(OPENAI, "sk-openai")
    set_api_key("orphan", "sk-orphan")  # no profile any more, but the index remembers it
    monkeypatch.setenv("ROUTER_KEY", "sk-router-env")
    monkeypatch.setenv("UNRELATED_KEY", "not-ours")
    assert sorted(stored_secrets()) == ["sk-openai", "sk-orphan", "sk-router-env"]
    assert "credential-index.json" in {p.name for p in config_dir.iterdir()}
    assert "sk-" not in (config_dir / "credential-index.json").read_text()
    delete_api_key("orphan")
    assert "sk-orphan" not in stored_secrets()


def test_stored_secrets_without_backend_is_empty(config_dir: Path, no_keyring: None) -> None:
    assert stored_secrets() == []


@pytest.mark.asyncio
async def test_async_twins_run_off_the_event_loop_thread(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_thread = threading.get_ident()
    seen: list[int] = []
    real = keyring.get_password

    def spy(service: str, username: str) -> str | None:
        seen.append(threading.get_ident())
        return real(service, username)

    monkeypatch.setattr(keyring, "get_password", spy)
    await aset_api_key(OPENAI, "sk-async")
    key = await aget_api_key(OPENAI)
    assert key is not None and key.expose_secret() == "sk-async"
    resolved = await aresolve_api_key(OPENAI)
    assert resolved is not None
    assert seen and all(t != loop_thread for t in seen)


def test_the_export_entry_point_exists() -> None:
    import inspect

    from rho_desk.providers import export_secrets

    assert "stored_secrets" in export_secrets.__all__
    signature = inspect.signature(export_secrets.stored_secrets)
    assert list(signature.parameters) == [] and signature.return_annotation in (
        "list[str]",
        list[str],
    )
    assert all(hasattr(credentials, name) for name in credentials.__all__)


def test_keyless_profile_never_touches_a_failing_keyring(
    config_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def locked(service: str, username: str) -> str:
        raise keyring.errors.KeyringLocked("locked")

    with monkeypatch.context() as scoped:
        scoped.setattr(keyring, "get_password", locked)
        assert resolve_api_key(DEFAULT_PROFILE, environ={}) is None
    # once a key was stored for it, the keyring is consulted
    set_api_key(DEFAULT_PROFILE, "sk-ollama-proxy")
    resolved = resolve_api_key(DEFAULT_PROFILE, environ={})
    assert resolved is not None and resolved.secret.expose_secret() == "sk-ollama-proxy"


def test_a_damaged_profile_file_still_redacts_what_the_index_knows(config_dir: Path) -> None:
    set_api_key("p", "sk-indexed")
    (config_dir / "providers.json").write_text("{not json", encoding="utf-8")
    assert stored_secrets() == ["sk-indexed"]


def test_profile_keys_cannot_replace_rho_desks_own_keyring_entries(memory_keyring) -> None:
    # Profiles live under their own "profile:" prefix, so a profile named like one of
    # rho-desk's internal keys stores beside it instead of over it.
    from rho_desk.core.export import fingerprint_key
    from rho_desk.keys import KeyringKeySource
    from rho_desk.providers.credentials import get_api_key, keyring_user, set_api_key

    own = fingerprint_key(KeyringKeySource())
    set_api_key("export-fingerprint-key", "sk-not-the-fingerprint-key")
    assert fingerprint_key(KeyringKeySource()) == own
    assert get_api_key("export-fingerprint-key").expose_secret() == "sk-not-the-fingerprint-key"
    assert keyring_user("durable-store:default") == "profile:durable-store:default"
