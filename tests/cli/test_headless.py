"""``rho-desk`` (what ``./run-app`` starts) with no display: it says what it does and what to do,
prints nothing a user cannot act on, and quits on Ctrl+C (the walkthrough's R4: it ran an
invisible app until killed, with Qt's "propagateSizeHints" warnings on stderr)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest


@pytest.mark.parametrize("wait", [0.0, 4.0], ids=["while-starting", "started"])
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_without_a_display_the_app_says_so_and_quits_when_asked(
    tmp_path: Path, stop: signal.Signals, wait: float
) -> None:
    """Asked to quit at once (Qt still loading, the window not built: on a busy machine that
    takes seconds) or once the window is up, the app closes cleanly with 128 + the signal."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "RHO_HOME")
    }
    env.update(
        HOME=str(tmp_path),
        RHO_DESK_CACHE_DIR=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        RHO_DESK_CONFIG_DIR=str(tmp_path / "rho-desk-config"),
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "rho_desk"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        first = process.stderr.readline()
        assert "no display found" in first and "runs offscreen, where nobody can see it" in first
        assert "set DISPLAY to see it" in first and "Ctrl+C quits" in first
        time.sleep(wait)  # 4 s: the window is up, on the demo library
        assert process.poll() is None
        process.send_signal(stop)
        out, rest = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + stop
    assert rest.strip() == "", rest  # no traceback, no propagateSizeHints
    assert out == ""
