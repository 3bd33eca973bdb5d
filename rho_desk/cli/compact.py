"""``rho-desk compact PATH [--compactor local|provider] [--dry-run] [--json]``: compact a session.

PATH is a Rho session (a ``session.jsonl`` or its folder) or an SDK snapshot document. The
active revision is compacted through the engine's manual compaction (``Session.compact``), so
revision and compaction accounting follow the spec exactly, and the result is written as a new
complete base: a ``snapshot`` record (v1-v3 files) or a ``node`` (v4 files), appended after the
optimistic check that the file still ends where it was read (``RevisionConflict`` otherwise,
exit status 1). A compaction that would not shrink the context is refused with the reason
(exit status 1; ``--dry-run`` says so first). A snapshot document is replaced atomically (or written to ``-o FILE``).

``--compactor local`` (default) needs no network. ``--compactor provider`` asks the model of a
provider profile (``--profile``, else the default profile) for the summary; its key comes from
the keyring (or the profile's opted-in environment variable).

``--dry-run`` writes nothing and contacts no provider: it reports what would be removed and
kept, and the token estimates before and after (for ``provider`` the "after" figure uses the
local digest as a stand-in for the summary not yet written, and is marked as an estimate).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from .status import EXIT_OK, EXIT_PROBLEMS, fail


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "compact",
        help="compact a session's history (writes a new complete revision)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "path",
        type=Path,
        metavar="PATH",
        help="a session.jsonl, a session folder, or a snapshot JSON",
    )
    parser.add_argument(
        "--compactor",
        choices=("local", "provider"),
        default="local",
        help="how older history is replaced (default: local)",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="report what would change; write nothing"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument(
        "--profile",
        metavar="NAME",
        help="provider profile for --compactor provider (default: the default profile)",
    )
    parser.add_argument(
        "--keep-messages",
        type=int,
        metavar="N",
        default=24,
        help="most recent messages kept verbatim (default 24; 0 for no limit)",
    )
    parser.add_argument(
        "--keep-tokens",
        type=int,
        metavar="N",
        default=8000,
        help="largest estimate of the kept recent part (default 8000; 0 for no limit)",
    )
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="snapshot documents only: write here instead of replacing PATH",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.keep_messages < 0 or args.keep_tokens < 0:
        return fail("--keep-messages and --keep-tokens must not be negative")
    if args.keep_messages == 0 and args.keep_tokens == 0:
        return fail("--keep-messages and --keep-tokens cannot both be 0 (no limit at all)")
    return asyncio.run(_compact(args))


def _budget(args: argparse.Namespace) -> Any:
    from ..core.compaction.local import RecentBudget

    return RecentBudget(
        max_tokens=args.keep_tokens or None, max_messages=args.keep_messages or None
    )


def _describe(message: Any) -> str:
    text = str(message.text()).replace("\n", " ").strip()
    return text[:77] + "…" if len(text) > 78 else text


async def _compact(args: argparse.Namespace) -> int:
    from ..core.compaction.local import LocalCompactor
    from ..core.compaction.manual import CompactionRefused, ManualCompaction, save_compaction
    from ..core.errors import InputError
    from ..core.revisions.edits import stored_state
    from ..core.stores.open import is_session_file, open_snapshot

    path: Path = args.path
    if not path.exists():
        raise InputError("no such file or folder", source=str(path))
    session_file = None
    if is_session_file(path):
        from ..core.stores.rho_files import read_session

        session_file = read_session(path)
        snapshot = stored_state(session_file.tree)
        if args.output is not None:
            return fail("-o/--output applies to snapshot documents; a session file grows in place")
    else:
        snapshot = open_snapshot(path)

    budget = _budget(args)
    provider = args.compactor == "provider"
    if args.profile and not provider:
        return fail("--profile applies to --compactor provider")
    preview = LocalCompactor(budget).preview(snapshot.history)  # the summarizer partitions alike
    what = "the local stand-in for the summary" if provider else "the digest"
    report: dict[str, Any] = {
        "path": str(session_file.path if session_file else path),
        "session_id": snapshot.session_id,
        "revision": snapshot.revision,
        "compactor": args.compactor,
        "profile": None,
        "dry_run": bool(args.dry_run),
        "nothing_to_compact": preview.nothing_to_compact,
        "refused": None,
        "previous_messages": preview.previous_messages,
        "current_messages": preview.current_messages,
        "removed_messages": max(preview.previous_messages - preview.current_messages, 0),
        "replaced_messages": len(preview.removed),
        "previous_tokens": preview.previous_tokens,
        "current_tokens": preview.current_tokens,
        "removed_tokens": preview.removed_tokens,
        "replacement_tokens": None,
        "estimate": provider,
        "kept_system_messages": len(preview.partition.system),
        "kept_recent_messages": len(preview.partition.recent),
        "removed": [
            {"index": len(preview.partition.system) + i, "kind": m.kind.value, "text": _describe(m)}
            for i, m in enumerate(preview.removed)
        ],
        "replacement": preview.replacement_message.text() if preview.replacement_message else None,
        "new_revision": None,
        "cost_usd_micros": None,
        "written": None,
    }
    if args.dry_run or preview.nothing_to_compact:
        if not preview.nothing_to_compact and not preview.shrinks:
            report["refused"] = preview.refusal(what)
        _print(report, args.json)
        return EXIT_OK
    if not provider and not preview.shrinks:
        report["refused"] = preview.refusal(what)
        _print(report, args.json)
        return EXIT_PROBLEMS

    from ..providers.compactors import open_compactor

    profile: Any = None
    if provider:
        from ..providers.profiles import ProfileStore

        store = ProfileStore()
        profile = store.get(args.profile) if args.profile else store.default()
        if profile is None:
            return fail("no provider profile is configured; add one or use --compactor local")
        report["profile"] = profile.name
    from ..core.usage.writer import recording_for_session

    usage = recording_for_session(
        session_file.path if session_file else None,
        workspace=session_file.tree.header.cwd
        if session_file and session_file.tree.header
        else None,
    )
    opened = await open_compactor(profile, budget, recording=usage)
    try:
        result = await ManualCompaction(snapshot, opened.compactor).run()
    except CompactionRefused as exc:
        report["refused"] = exc.text()
        _print(report, args.json)
        return EXIT_PROBLEMS
    finally:
        await opened.aclose()
        if usage is not None and usage.diagnostics:
            report["usage_not_recorded"] = usage.diagnostics[-1]

    outcome = result.outcome
    report.update(
        estimate=False,
        current_messages=outcome.current_messages,
        removed_messages=outcome.removed_messages,
        current_tokens=outcome.current_tokens,
        removed_tokens=outcome.removed_tokens,
        replacement=result.replacement.text() if result.replacement is not None else None,
        replacement_tokens=result.replacement_tokens,
        new_revision=outcome.revision,
        cost_usd_micros=outcome.cost_usd_micros,
    )
    if session_file is not None:
        # the one way to write a revision, as the compaction dialog writes it (acommit)
        from ..core.revisions.edits import FileSession, acommit

        base = session_file.tree.active_leaf
        assert base is not None
        target_file = await asyncio.to_thread(FileSession, session_file.path, read=session_file)
        try:
            await acommit(
                target_file, None, lambda writer: save_compaction(writer, base.id, result)
            )
            report["written"] = "node" if target_file.tree.is_tree else "snapshot record"
        finally:
            await asyncio.to_thread(target_file.close)
    else:
        from ..core.wire.codec import encode_pretty

        target: Path = args.output or path
        await asyncio.to_thread(
            _write_document, path, target, snapshot, encode_pretty(result.snapshot)
        )
        report["written"] = f"snapshot document {target}"
    _print(report, args.json)
    return EXIT_OK


def _write_document(source: Path, target: Path, snapshot: Any, data: bytes) -> None:
    """Replace the document, unless it changed since it was read (then RevisionConflict)."""
    from ..core.errors import RevisionConflict
    from ..core.system.fsio import atomic_write
    from ..core.wire.codec import decode_snapshot

    if target == source:
        current = decode_snapshot(source.read_bytes(), source=str(source))
        if current != snapshot:
            raise RevisionConflict(
                f"{source}: the snapshot changed while it was being compacted; nothing written"
            )
    atomic_write(target, data)


def _print(report: dict[str, Any], as_json: bool) -> None:
    out = sys.stdout
    if as_json:
        json.dump(report, out, ensure_ascii=False, indent=2)
        out.write("\n")
        return
    verb = "would" if report["dry_run"] else "did"
    where = f"{report['path']} (session {report['session_id']}, revision {report['revision']})"
    if report["nothing_to_compact"]:
        out.write(f"Nothing to compact in {where}: the history fits the recent budget.\n")
        return
    if report["refused"] and not report["dry_run"]:
        out.write(f"Refused, nothing written to {where}: {report['refused']}\n")
        return
    head = "Dry run: " if report["dry_run"] else ""
    out.write(f"{head}{report['compactor']} compaction of {where} {verb}:\n")
    kinds: dict[str, int] = {}
    for item in report["removed"]:
        kinds[item["kind"]] = kinds.get(item["kind"], 0) + 1
    breakdown = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    first, last = report["removed"][0]["index"], report["removed"][-1]["index"]
    what = "summary" if report["compactor"] == "provider" else "digest"
    out.write(
        f"  replace  {len(report['removed'])} messages (#{first}-#{last}: {breakdown}) with one {what}\n"
    )
    out.write(
        f"  keep     {report['kept_system_messages']} system prompt message(s) and "
        f"{report['kept_recent_messages']} recent message(s)\n"
    )
    out.write(f"  messages {report['previous_messages']} -> {report['current_messages']}\n")
    approx = " (estimate: the summary is not written yet)" if report["estimate"] else ""
    out.write(
        f"  tokens   {report['previous_tokens']} -> {report['current_tokens']} "
        f"({report['removed_tokens']} removed){approx}\n"
    )
    if report["cost_usd_micros"] is not None:
        out.write(f"  cost     ${report['cost_usd_micros'] / 1_000_000:.6f}\n")
    if report["new_revision"] is not None:
        out.write(
            f"  revision {report['revision']} -> {report['new_revision']}, written as a new {report['written']}\n"
        )
    if report["refused"]:
        out.write(f"  refused  {report['refused']}\n")
    if report.get("usage_not_recorded"):
        sys.stderr.write(
            f"rho-desk: the usage ledger was not written: {report['usage_not_recorded']}\n"
        )
    if report["replacement_tokens"] is not None:
        out.write(f"  written  a {what} of {report['replacement_tokens']} estimated tokens\n")
    label = "Draft digest" if report["dry_run"] else "Replacement"
    if report["replacement"]:
        out.write(f"\n{label}:\n")
        for line in report["replacement"].splitlines():
            out.write(f"  {line}\n")
