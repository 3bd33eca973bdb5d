"""``rho-desk repair PATH [-o FILE | --in-place] [--json]``: write a repaired copy of a session.

The copy keeps every record up to the last good revision, plus later records that still chain
onto what was kept; the report names each dropped line and why. Without ``-o`` the copy goes
beside the original (``session.repaired.jsonl``); ``--in-place`` replaces the original after
keeping a backup (``<name>.<time>.bak``) and updates Rho's index. Exit 0 when the file was
repaired or needed nothing; 2 when PATH is not a Rho session file (or cannot be read).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .status import EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("repair", help="write a repaired copy of a damaged session file")
    parser.add_argument("path", type=Path, metavar="PATH", help="a session file or folder")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        default=None,
        help="where to write the repaired copy (default: beside PATH, *.repaired.jsonl)",
    )
    where.add_argument(
        "--in-place",
        action="store_true",
        help="replace PATH itself, keeping the original as PATH.<time>.bak",
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.stores.rho_files.repair import repair_session

    report = repair_session(args.path, args.output, in_place=args.in_place)
    if args.json:
        json.dump(report.to_json(), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print(report.text())
    return EXIT_OK
