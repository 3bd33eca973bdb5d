"""Running rho-desk as an attacked user runs it: a subprocess with its own config folder, no
keyring unless a test brings one, and a timeout (an attack that hangs the process fails the
test instead of hanging the suite)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534
"""Another local user's uid (``nobody`` on Debian)."""

as_root = pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0,
    reason="simulating another local user needs root (chown)",
)


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    """A user with the config folder ``tmp_path/config`` and no keyring (keyring's fail backend)."""
    base = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DBUS_SESSION_BUS_ADDRESS", "RHO_DESK_KEY_FILE")
    }
    return {
        **base,
        "PYTHONPATH": str(REPO),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"),
        **extra,
    }


def rho(
    env: dict[str, str], cwd: Path, *args: str, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``rho-desk ARGS``; a ``TimeoutExpired`` (the attack hung it) fails the test."""
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    """The refusal: exit 2, no traceback (key-creation notices may come first)."""
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr, out.stderr
    return out.stderr


def on_a_terminal(
    env: dict[str, str], cwd: Path, *argv: str, timeout: float = 120
) -> tuple[int, bytes]:
    """``rho-desk ARGV`` with its standard output and error on one pseudo-terminal: its exit status
    and what it wrote there (one still running at ``timeout`` is killed: the test sees -9)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "rho_desk", *argv],
        stdout=follower,
        stderr=follower,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=cwd,
    )
    os.close(follower)
    out = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 1)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the child closed its end
                    break
                if not chunk:
                    break
                out += chunk
            elif process.poll() is not None:
                break
    finally:
        os.close(leader)
        if process.poll() is None and time.monotonic() >= deadline:
            process.kill()
        process.wait(timeout=30)
    return process.returncode, out
