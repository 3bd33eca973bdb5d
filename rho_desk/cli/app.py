"""``rho-desk [open PATH]``: the desktop app, on a session file, a data dir, or the default."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "open",
        help="open the app (default: $RHO_HOME or ~/.rho, else the bundled demo library)",
    )
    parser.add_argument("path", nargs="?", type=Path, help="a session file or a Rho data dir")
    parser.add_argument("--screenshot", type=Path, help=argparse.SUPPRESS)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..qt.app import main

    return main(args.path, screenshot=args.screenshot)
