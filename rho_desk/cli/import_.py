"""``rho-desk import PATH [--into RHO_HOME | -o FILE] [--json]``: another agent's session as a Rho session.

PATH is a session of Claude Code, Codex CLI, Gemini CLI, Pi (its file) or opencode
(``<opencode.db>#<session id>``). The session is written in Rho's own layout under the Rho
home (default ``$RHO_HOME``, else ``~/.rho``), or as FILE; Rho's index is updated as after
Rho's own save, and an import receipt is written beside it: the source's digest, what was kept,
every field left out by JSON path with its count. Importing an unchanged source again writes
nothing and says so; a source that grew gets only its new revisions appended.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .status import EXIT_OK

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameters (malloc.h)."""


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "import",
        help="another agent's session as a Rho session, with a loss report",
        description="Write a Claude Code, Codex, Gemini CLI, opencode or Pi session as a Rho session "
        "(header version 4), with a receipt of what was kept and what was left out.",
    )
    parser.add_argument(
        "path",
        type=Path,
        help="the session: a Claude Code, Codex, Gemini CLI or Pi file, or <opencode.db>#<id>",
    )
    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--into",
        type=Path,
        metavar="RHO_HOME",
        default=None,
        help="the Rho home to import into (default: $RHO_HOME, else ~/.rho)",
    )
    target.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        default=None,
        help="write the Rho session to FILE instead (outside any home)",
    )
    parser.add_argument("--json", action="store_true", help="print the receipt as JSON")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import msgspec

    from ..core.agents.importer import import_session
    from ..core.stores.rho_files.layout import rho_home
    from ..core.system.collector import collection_paused

    home = None if args.output is not None else (args.into if args.into is not None else rho_home())
    _keep_freed_memory()
    # What the reading made is kept until the process ends: frozen when the pause ends, out of
    # the cyclic collector's sight, which would otherwise scan all of it (as ``snapshot`` does).
    with collection_paused(freeze=True):
        result = import_session(args.path, home=home, output=args.output)
    receipt = result.receipt
    if args.json:
        import json

        document = {
            "transcript": str(result.transcript),
            "receipt_file": str(result.receipt_path),
            "created": result.created,
            "added_revisions": result.added,
            "unchanged": result.noop,
            "receipt": msgspec.to_builtins(receipt),
        }
        json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return EXIT_OK
    source = receipt.source
    if result.noop:
        print(
            f"already imported, nothing new: {source.agent} session {source.session_id} is {result.transcript}"
        )
        return EXIT_OK
    if result.created:
        print(
            f"imported {source.agent} session {source.session_id} as Rho session {receipt.session_id}"
        )
    else:
        print(
            f"{source.agent} session {source.session_id} grew: {result.added} new revision(s) added "
            f"to Rho session {receipt.session_id}"
        )
    print(f"  transcript {result.transcript}")
    print(f"  receipt    {result.receipt_path}")
    kept = receipt.kept
    print(
        f"  kept       {kept.revisions} revisions, {kept.branches} branch points, {kept.compactions} compactions, "
        f"{kept.messages} messages, {kept.tool_calls} tool calls, {kept.tool_results} results, "
        f"{kept.images} images, {kept.reasoning} with reasoning, {kept.provider_context} provider blocks"
    )
    for what, count in receipt.made.items():
        print(f"  made       {count} × {what}")
    for what, count in receipt.not_carried.items():
        print(f"  not kept   {count} × {what}")
    if receipt.dropped:
        print(
            f"  dropped    {sum(receipt.dropped.values())} fields (by JSON path; all in the receipt):"
        )
        for path, count in sorted(receipt.dropped.items(), key=lambda item: (-item[1], item[0]))[
            :12
        ]:
            print(f"    {count:>6} × {path}")
        if len(receipt.dropped) > 12:
            print(f"    … and {len(receipt.dropped) - 12} more paths")
    return EXIT_OK


def _keep_freed_memory() -> None:
    """Have glibc's malloc keep what this process frees for its next allocations.

    The transcript is encoded a chunk at a time into buffers of about a megabyte, each emptied
    once written: by default glibc hands such a block back to the kernel when it shrinks and
    maps a new one, page by page, as the next chunk grows (a 100 MB Claude Code import: 84,000
    page faults against 39,000 with this, the same bytes written). The process ends after the
    import, so nothing else is affected. Elsewhere than on Linux, or without glibc, a no-op.
    """
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # no C library to ask, or one without mallopt
        return
    mallopt(_M_MMAP_THRESHOLD, 8 * 1024 * 1024)  # blocks below this come from the heap...
    mallopt(_M_TRIM_THRESHOLD, 128 * 1024 * 1024)  # ...which keeps this much free at its top
