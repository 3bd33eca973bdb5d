"""``rho-desk check PATH... [--json]``: validate session files; exit 1 when anything is found.

Each PATH may be a transcript, a session folder, a workspace folder, a Rho home or a snapshot
document. Reports files that do not load (corrupt lines, unsupported versions, illegal records;
with file, line and reason) and what loads only by tolerance (torn last lines). The checks are
registered in ``rho_desk.core.stores.rho_files.check``; more (such as index drift) plug in there.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .status import EXIT_OK, EXIT_PROBLEMS


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "check", help="validate session files; report torn tails and corrupt lines"
    )
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="session files or folders, workspace folders, a Rho home, snapshot documents",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.stores import library  # noqa: F401 - registers the index-drift check
    from ..core.stores.rho_files.check import check_paths

    targets = check_paths(args.paths)
    findings = [f for t in targets for f in t.findings]
    problems = [f for f in findings if f.problem]
    if args.json:
        report = {
            "checked": len(targets),
            "problems": len(problems),
            "files": [
                {
                    "path": str(t.path),
                    "kind": t.kind,
                    "ok": not any(f.problem for f in t.findings),
                    "session_id": t.summary.id if t.summary is not None else None,
                    "findings": [f.to_json() for f in t.findings],
                }
                for t in targets
            ],
        }
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        for target in targets:
            if not any(f.problem for f in target.findings):
                print(f"{target.path}: ok")
            for finding in target.findings:
                print(finding.text())
        bad = sum(1 for t in targets if any(f.problem for f in t.findings))
        print(f"checked {len(targets)} file(s): {bad} with problems, {len(findings)} finding(s)")
    return EXIT_PROBLEMS if problems else EXIT_OK
