"""The app starts no D-Bus session bus behind the user's back (walkthrough N25): on an X display
with no ``DBUS_SESSION_BUS_ADDRESS``, libdbus's autolaunch ran ``dbus-launch --autolaunch`` at
start-up (Qt's accessibility bridge asks for the bus), and its ``dbus-daemon`` outlived the app.

The real case needs an X server and ``dbus-launch`` (Debian: xvfb, dbus-x11); without them only
the rule itself is checked."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rho_desk.qt.app import NO_SESSION_BUS, no_bus_autolaunch


def test_no_address_means_no_bus_and_a_set_one_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    env: dict[str, str] = {}
    no_bus_autolaunch(env)
    assert env["DBUS_SESSION_BUS_ADDRESS"] == NO_SESSION_BUS == "disabled:"
    env = {"DBUS_SESSION_BUS_ADDRESS": " "}
    no_bus_autolaunch(env)
    assert env["DBUS_SESSION_BUS_ADDRESS"] == NO_SESSION_BUS
    env = {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"}
    no_bus_autolaunch(env)
    assert env == {"DBUS_SESSION_BUS_ADDRESS": "unix:path=/run/user/1000/bus"}


def _autolaunched(display: str) -> list[int]:
    """Processes that libdbus's autolaunch started for ``display`` (their environment names it)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if (
            b"dbus-launch" in cmd or b"dbus-daemon" in cmd
        ) and f"DISPLAY={display}".encode() in environ.split(b"\0"):
            found.append(int(proc.name))
    return found


@pytest.mark.skipif(
    not (shutil.which("Xvfb") and shutil.which("dbus-launch")),
    reason="needs an X server (Xvfb) and dbus-launch (Debian: xvfb, dbus-x11)",
)
def test_the_app_on_a_bare_x_display_starts_no_session_bus(tmp_path: Path) -> None:
    read, write = os.pipe()
    xvfb = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", "1024x700x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    started: list[int] = []
    try:
        with os.fdopen(read) as displayfd:
            display = ":" + displayfd.readline().strip()
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DBUS_SESSION_BUS_ADDRESS", "QT_QPA_PLATFORM", "WAYLAND_DISPLAY")
        }
        env.update(
            DISPLAY=display,
            HOME=str(tmp_path),
            XDG_CONFIG_HOME=str(tmp_path / "config"),
            XDG_CACHE_HOME=str(tmp_path / "cache"),
            XDG_DATA_HOME=str(tmp_path / "data"),
            RHO_DESK_CACHE_DIR=str(tmp_path / "cache"),
        )
        shot = tmp_path / "shot.png"
        app = subprocess.run(
            [sys.executable, "-m", "rho_desk", "--demo", "open", "--screenshot", str(shot)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert app.returncode == 0, app.stderr[-2000:]
        assert shot.is_file()  # the window was up: Qt ran on the X display
        time.sleep(1.0)  # an autolaunched daemon forks away from its launcher
        started = _autolaunched(display)
        assert started == []
    finally:
        for pid in started:  # (only when the check failed: what this test's app started)
            with contextlib.suppress(OSError):
                os.kill(pid, 15)
        xvfb.terminate()
        xvfb.wait(10)
