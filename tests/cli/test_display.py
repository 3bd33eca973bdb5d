"""Without a display: the app runs offscreen and says so once; no other command mentions a display."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

NOTICE = "rho-desk: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window runs offscreen"


def _env(home: Path) -> dict[str, str]:
    kept = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    return {
        **kept,
        "HOME": str(home),
        "RHO_HOME": str(home / "no-rho"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_DATA_HOME": str(home / "data"),
        "RHO_DESK_CONFIG_DIR": str(home / "rho-desk"),
    }


def _run(argv: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(home),
        cwd=home,
        check=False,
    )


def test_commands_other_than_the_app_say_nothing_about_a_display(tmp_path: Path) -> None:
    for argv in (
        ["--version"],
        ["sessions", "--home", str(tmp_path)],
        ["check", str(tmp_path / "none.jsonl")],
    ):
        assert NOTICE not in _run(argv, tmp_path).stderr, argv


def test_the_app_runs_offscreen_without_a_display_and_says_so(tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    done = _run(["open", "--screenshot", str(shot)], tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count(NOTICE) == 1 and shot.stat().st_size > 0
