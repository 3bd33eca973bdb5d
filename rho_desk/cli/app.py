"""``rho-desk [open PATH]``: the desktop app, on a session file, a data dir, or the default."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..core.system.collector import collection_paused
from ..core.system.stops import StopSignals


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "open",
        help="open the app (default: $RHO_HOME or ~/.rho, else the bundled demo library)",
    )
    parser.add_argument("path", nargs="?", type=Path, help="a session file or a Rho data dir")
    parser.add_argument("--screenshot", type=Path, help=argparse.SUPPRESS)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Ctrl+C and SIGTERM are noted from here on: Qt and the window take seconds to load on a busy
    # machine, and a signal meanwhile closes the window once it exists (no traceback, no kill).
    stops = StopSignals().install()
    headless = use_offscreen_without_display()
    # Importing the app (Qt and its own modules) ran some 40 cyclic collections that found
    # nothing: paused, and what it made frozen (modules, classes and functions live as long as
    # the process), so that no later collection walks it; main() pauses them until the first paint.
    with collection_paused(freeze=True):
        from ..qt.app import main

    demo = bool(getattr(args, "demo", False))
    return main(args.path, screenshot=args.screenshot, demo=demo, headless=headless, stops=stops)


def use_offscreen_without_display(environ: dict[str, str] | None = None) -> bool:
    """On Linux with no X or Wayland display and no platform chosen, run the window offscreen (a
    server, a container) and say so on stderr, rather than let Qt abort. Only the app does this:
    the other commands need no display and print nothing about one."""
    env = os.environ if environ is None else environ
    if not sys.platform.startswith("linux") or any(
        env.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    ):
        return False
    print(
        "rho-desk: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window runs offscreen, "
        "where nobody can see it: set DISPLAY to see it. Ctrl+C quits. Commands that need no display "
        "are listed by rho-desk --help.",
        file=sys.stderr,
    )
    env["QT_QPA_PLATFORM"] = "offscreen"
    return True
