"""One keyring adapter with one set of refusals, and a keyring that does not answer counts as no
keyring (issue 22, S2).

The S2 tests run rho-desk on a real D-Bus session bus (``dbus-run-session``, package
dbus-daemon) where keyring picks its SecretService backend and then gets no usable answer: a
service that owns ``org.freedesktop.secrets`` and never replies (the probe must give up within
2 s), and gnome-keyring activated with no way to create its collection (``InitError``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest

from rho_desk.core.errors import CredentialsUnavailable

from .helpers import REPO, environment


class PlaintextKeyring(keyring.backend.KeyringBackend):
    """Stands in for keyrings.alt.file.PlaintextKeyring (judged by module and class name)."""

    priority = 1  # type: ignore[assignment]

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


def test_every_keyring_user_refuses_a_plaintext_backend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.core.secrets.keys import FINGERPRINT_KEY
    from rho_desk.keys import KeyringKeySource
    from rho_desk.providers.credentials import set_api_key
    from rho_desk.team.db import keep_password_in_keyring

    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(tmp_path / "config"))
    backend = PlaintextKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        with pytest.raises(CredentialsUnavailable, match="plain text"):
            set_api_key("work", "sk-test-0001")
        with pytest.raises(CredentialsUnavailable, match="plain text"):
            KeyringKeySource().key(FINGERPRINT_KEY)
        with pytest.raises(CredentialsUnavailable, match=r"plain text.*~/\.pgpass") as caught:
            keep_password_in_keyring("host=db.example user=alice dbname=team password=hunter2-team")
        assert "hunter2" not in caught.value.text()
    finally:
        keyring.set_keyring(previous)
    assert backend.stored == {}


def test_only_keys_imports_keyring() -> None:
    """The three users (provider keys, team password, own keys) reach keyring through keys/."""
    package = REPO / "rho_desk"
    importers = sorted(
        str(p.relative_to(package))
        for p in package.rglob("*.py")
        if any(
            line.strip().startswith(("import keyring", "from keyring"))
            for line in p.read_text(encoding="utf-8").splitlines()
        )
    )
    assert importers == ["keys/_keyring.py"]


def test_a_backend_that_does_not_answer_is_no_keyring(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from rho_desk.keys import NoKeyringBackend, keyring_status, read_secret, reset_keyring_probe

    release = threading.Event()
    asked: list[str] = []

    class Hanging(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def get_password(self, service: str, username: str) -> str | None:
            asked.append(username)
            release.wait(30)
            return None

        def set_password(self, service: str, username: str, password: str) -> None:
            raise AssertionError("never called")

        def delete_password(self, service: str, username: str) -> None:
            raise AssertionError("never called")

    previous = keyring.get_keyring()
    keyring.set_keyring(Hanging())
    reset_keyring_probe()
    try:
        started = time.monotonic()
        status = keyring_status()
        assert time.monotonic() - started < 2.5
        assert not status.available and "did not answer within 2 s" in status.problem
        probes = len(asked)
        with pytest.raises(NoKeyringBackend, match="not usable: it did not answer"):
            read_secret("profile:x", what="the API key of profile 'x'")
        assert len(asked) == probes  # cached: the next call does not ask (nor wait) again
    finally:
        release.set()
        keyring.set_keyring(previous)
        reset_keyring_probe()


# --- S2 on a real session bus -----------------------------------------------------------------

SILENT_SECRET_SERVICE = textwrap.dedent(
    """
    import sys, time
    from jeepney.bus_messages import message_bus
    from jeepney.io.blocking import open_dbus_connection

    conn = open_dbus_connection(bus="SESSION")
    conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.secrets"))
    open(sys.argv[1], "w").close()
    time.sleep(300)  # owns the name, never answers
    """
)

CHILD = textwrap.dedent(
    """
    set -e
    {service}
    {python} -m rho_desk keys > keys.out 2> keys.err; echo "keys=$?" >> status
    {python} -m rho_desk export "$SESSION" --include all -o out.json > export.out 2> export.err; echo "export=$?" >> status
    {python} -c 'import keyring; print(type(keyring.get_keyring()).__module__)' > backend.out
    """
)


def _run_on_session_bus(tmp_path: Path, rho_fixtures: Path, service: str) -> dict[str, str]:
    if shutil.which("dbus-run-session") is None:
        pytest.skip(
            "needs dbus-run-session (apt-get install dbus-daemon; ./run-tests installs it as root)"
        )
    session = tmp_path / "session-v1.jsonl"
    session.write_bytes((rho_fixtures / "session-v1.jsonl").read_bytes())
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    env = environment(tmp_path, HOME=str(home), XDG_RUNTIME_DIR=str(runtime), SESSION=str(session))
    for name in ("PYTHON_KEYRING_BACKEND", "DISPLAY", "WAYLAND_DISPLAY"):
        env.pop(name, None)
    script = tmp_path / "child.sh"
    script.write_text(CHILD.format(service=service, python=sys.executable))
    started = time.monotonic()
    result = subprocess.run(
        ["dbus-run-session", "--", "bash", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr[-2000:]
    status = dict(line.split("=", 1) for line in (tmp_path / "status").read_text().split())
    status["elapsed"] = f"{elapsed:.2f}"
    for name in ("keys.out", "keys.err", "export.err", "backend.out"):
        status[name] = (tmp_path / name).read_text()
    return status


def test_s2_a_secret_service_that_never_answers_is_no_keyring(
    tmp_path: Path, rho_fixtures: Path
) -> None:
    (tmp_path / "service.py").write_text(SILENT_SECRET_SERVICE)
    service = (
        f"{sys.executable} service.py ready >/dev/null 2>&1 & service=$!; trap 'kill $service' EXIT; "
        "for i in $(seq 100); do [ -e ready ] && break; sleep 0.1; done; [ -e ready ]"
    )
    status = _run_on_session_bus(tmp_path, rho_fixtures, service)
    assert status["backend.out"].strip() == "keyring.backends.SecretService", status
    assert status["keys"] == "0", status["keys.err"]
    assert status["export"] == "0", status["export.err"]
    assert "did not answer within 2 s" in status["keys.out"], status["keys.out"]
    assert (tmp_path / "out.json").is_file() and (tmp_path / "config" / "keys").is_file()
    # two processes, each waiting at most 2 s for the keyring, plus their start-up
    assert float(status["elapsed"]) < 40


def test_s2_a_secret_service_that_cannot_make_its_collection_is_no_keyring(
    tmp_path: Path, rho_fixtures: Path
) -> None:
    if shutil.which("gnome-keyring-daemon") is None:
        pytest.skip(
            "needs gnome-keyring (activated by D-Bus and failing with InitError without a prompter)"
        )
    status = _run_on_session_bus(tmp_path, rho_fixtures, "true")
    assert status["backend.out"].strip() == "keyring.backends.SecretService", status
    assert status["keys"] == "0", status["keys.err"]
    assert status["export"] == "0", status["export.err"]
    assert "InitError" in status["keys.out"] and "Unlock the keyring" not in status["export.err"]
    assert (tmp_path / "out.json").is_file()


def test_keyless_profiles_never_touch_the_keyring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """S2: the built-in local profile needs no key: resolving it and collecting the secrets to
    redact (what export and publish do) make no keyring call at all."""
    from rho_desk.providers.credentials import resolve_api_key
    from rho_desk.providers.export_secrets import stored_secrets
    from rho_desk.providers.profiles import DEFAULT_PROFILE

    calls: list[str] = []

    class Recording(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def get_password(self, service: str, username: str) -> str | None:
            calls.append(username)
            raise keyring.errors.InitError("Failed to create the collection: Prompt dismissed..")

        def set_password(self, service: str, username: str, password: str) -> None:
            calls.append(username)

        def delete_password(self, service: str, username: str) -> None:
            calls.append(username)

    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(tmp_path / "config"))
    previous = keyring.get_keyring()
    keyring.set_keyring(Recording())
    try:
        assert not DEFAULT_PROFILE.requires_key
        assert resolve_api_key(DEFAULT_PROFILE) is None
        assert stored_secrets() == []
    finally:
        keyring.set_keyring(previous)
    assert calls == []


def test_the_team_password_lookup_does_not_wait_on_a_silent_keyring(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    from rho_desk.keys import reset_keyring_probe
    from rho_desk.team.db import keyring_password

    release = threading.Event()

    class Hanging(keyring.backend.KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def get_password(self, service: str, username: str) -> str | None:
            release.wait(30)
            return None

        def set_password(self, service: str, username: str, password: str) -> None:
            pass

        def delete_password(self, service: str, username: str) -> None:
            pass

    previous = keyring.get_keyring()
    keyring.set_keyring(Hanging())
    reset_keyring_probe()
    try:
        started = time.monotonic()
        assert keyring_password("host=db.example user=alice dbname=team") is None
        assert time.monotonic() - started < 2.5
    finally:
        release.set()
        keyring.set_keyring(previous)
        reset_keyring_probe()
