"""Opt-in: credentials through a real SecretService keyring (gnome-keyring under dbus-run-session).

Runs when ``dbus-run-session`` and ``gnome-keyring-daemon`` exist (``./run-tests`` installs them
when run as root); skipped with the reason otherwise. The child process gets a fresh HOME and
XDG_RUNTIME_DIR in a temp dir and a non-empty unlock password (with an empty one the default
collection is never created: environment.md §3). It is not the in-memory test keyring: the
child selects the platform's default backend.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CHILD = textwrap.dedent(
    """
    import json, keyring
    from rho_desk.providers import credentials as c
    from rho_desk.providers.profiles import ProfileKind, ProfileStore, ProviderProfile

    profile = ProviderProfile(name="itest", kind=ProfileKind.ANTHROPIC,
                              base_url="https://api.anthropic.com/v1", model="claude-x")
    ProfileStore().save([profile])
    status = c.keyring_status()
    c.set_api_key(profile, "sk-integration-0001")
    read = c.get_api_key(profile).expose_secret()
    raw = keyring.get_password("rho-desk", "profile:itest")
    from rho_desk.providers.export_secrets import stored_secrets
    listed = stored_secrets()
    deleted = c.delete_api_key(profile)
    after = c.get_api_key(profile)
    print(json.dumps({"backend": status.backend, "secure": status.secure, "read": read, "raw": raw,
                      "listed": listed, "deleted": deleted, "after": after}))
    """
)


@pytest.mark.keyring_integration
def test_round_trip_through_secret_service(tmp_path: Path) -> None:
    missing = [
        tool for tool in ("dbus-run-session", "gnome-keyring-daemon") if shutil.which(tool) is None
    ]
    if missing:
        pytest.skip(
            f"real-keyring test needs {' and '.join(missing)} "
            "(apt-get install -y --no-install-recommends gnome-keyring dbus-daemon)"
        )
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir(mode=0o700)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_RUNTIME_DIR": str(runtime),
        "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
    }
    command = (
        "printf 'rho-desk-test-pw' | gnome-keyring-daemon --daemonize --unlock --components=secrets >/dev/null"
        f" && exec {sys.executable} {script}"
    )
    result = subprocess.run(
        ["dbus-run-session", "--", "bash", "-c", command],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["backend"] == "keyring.backends.SecretService.Keyring"
    assert outcome["secure"] is True
    assert outcome["read"] == outcome["raw"] == "sk-integration-0001"
    assert outcome["listed"] == ["sk-integration-0001"]
    assert outcome["deleted"] is True and outcome["after"] is None
