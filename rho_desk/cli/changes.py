"""``rho-desk changes PATH [--turn N] [--file F] [--patch] [--json]``: what the agent changed.

Per turn, the files a session's turns changed: from Rho's workspace checkpoint journal when the
session has one, else reconstructed from the ``write`` and ``edit`` calls; shell calls are listed
as ``changes not visible: <command>``. ``--patch`` prints unified diffs that ``git apply``
accepts (``a/`` and ``b/`` paths relative to the workspace), in turn order; a change whose content
is not known is named in a line of its own, which ``git apply`` skips. Control characters in a
file show as text, as everywhere; ``--patch --raw | git apply`` takes the bytes as they are.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .status import EXIT_OK

if TYPE_CHECKING:
    from ..core.changes import FileChange, SessionChanges, TurnChanges


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "changes", help="list the files a session's turns changed, or print them as a patch"
    )
    parser.add_argument(
        "path",
        type=Path,
        help="a session file or folder, or another agent's session (opencode: <opencode.db>#<id>)",
    )
    parser.add_argument(
        "--turn", type=int, metavar="N", help="only turn N (1 is the first user message)"
    )
    parser.add_argument(
        "--file", metavar="F", help="only this file (relative to the workspace, or absolute)"
    )
    parser.add_argument(
        "--patch",
        action="store_true",
        help="print unified diffs that `git apply` accepts (with --raw: byte for byte)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def _select(
    changes: SessionChanges, turn: int | None, file: str | None
) -> list[tuple[TurnChanges, list[FileChange]]]:
    from ..core.errors import InputError

    source = str(changes.session_path)
    if turn is not None and not 1 <= turn <= changes.turn_count:
        raise InputError(
            f"--turn {turn}: the session has {changes.turn_count} turn(s)", source=source
        )
    wanted: set[str] | None = None
    if file is not None:
        absolute = os.path.normpath(
            file
            if os.path.isabs(file) or not changes.workspace
            else os.path.join(changes.workspace, file)
        )
        wanted = {file.replace(os.sep, "/").removeprefix("./"), absolute}
    out = []
    for t in changes.turns:
        if turn is not None and t.turn != turn:
            continue
        files = [f for f in t.files if wanted is None or f.path in wanted or f.abs_path in wanted]
        if wanted is not None and not files:
            continue
        out.append((t, files))
    if wanted is not None and not out:
        raise InputError(f"--file {file}: no turn of this session changed it", source=source)
    return out


_LETTER = {
    "created": "A",
    "modified": "M",
    "deleted": "D",
    "unchanged": "=",
    "unsupported": "!",
    "unknown": "?",
}


def _turn_title(t: TurnChanges) -> str:
    title = t.label
    if t.outcome is not None and t.committed:
        title += f" ({t.outcome.value})"
    return f"{title}  {t.prompt}" if t.prompt else title


def run(args: argparse.Namespace) -> int:
    from ..core.changes import session_changes
    from ..core.errors import InputError
    from ..core.stores.open import exists

    if not exists(args.path):
        raise InputError("no such file or folder", source=str(args.path))
    changes = session_changes(args.path)
    selected = _select(changes, args.turn, args.file)
    out = sys.stdout
    if args.json:
        json.dump(_json(changes, selected, args.patch), out, ensure_ascii=False, indent=2)
        out.write("\n")
        return EXIT_OK
    if args.patch:
        for t, files in selected:
            for f in files:
                diff = f.patch()
                if diff:
                    out.write(diff)
                elif not f.diffable:
                    out.write(
                        f"changes not shown ({t.label}): {f.path}: {f.note or f.action.value}\n"
                    )
            if args.file is None:
                for h in t.hidden:
                    out.write(f"changes not visible: {h.command}\n")
        return EXIT_OK
    where = (
        f"checkpoint journal {changes.journal}"
        if changes.journal
        else "no checkpoint journal: changes reconstructed from the tool calls"
    )
    turns = f"{changes.turn_count} turn" + ("s" if changes.turn_count != 1 else "")
    out.write(f"session {changes.session_id or '?'}  ({turns}; {where})\n")
    if changes.workspace:
        out.write(f"workspace {changes.workspace}\n")
    if not selected:
        out.write("no changes\n")
    for t, files in selected:
        out.write(f"\n{_turn_title(t)}\n")
        for f in files:
            added, removed = f.line_counts()
            counts = f"  +{added} -{removed}" if f.diffable and not f.binary else ""
            note = f"  ({f.note})" if f.note else ""
            out.write(f"  {_LETTER[f.action.value]} {f.path}{counts}{note}\n")
        if args.file is None:
            for h in t.hidden:
                out.write(f"  changes not visible: {h.command}\n")
            for effect in t.limitations:
                if not any(h.tool == effect.source for h in t.hidden):
                    out.write(
                        f"  changes not visible: {effect.kind.replace('_', ' ')} ({effect.source})\n"
                    )
    return EXIT_OK


def _json(
    changes: SessionChanges, selected: list[tuple[TurnChanges, list[FileChange]]], with_diff: bool
) -> dict[str, Any]:
    turns = []
    for t, files in selected:
        entries = []
        for f in files:
            added, removed = f.line_counts()
            entry: dict[str, Any] = {
                "path": f.path,
                "abs_path": f.abs_path,
                "action": f.action.value,
                "source": f.source.value,
                "before_known": f.before_known,
                "after_known": f.after_known,
                "binary": f.binary,
                "added": added,
                "removed": removed,
                "call_ids": list(f.call_ids),
                "note": f.note,
            }
            if with_diff:
                entry["diff"] = f.patch()
            entries.append(entry)
        turns.append(
            {
                "turn": t.turn,
                "prompt": t.prompt,
                "message_index": t.message_index,
                "node_id": t.node_id,
                "revision": t.revision,
                "committed": t.committed,
                "on_active_path": t.on_path,
                "outcome": None if t.outcome is None else t.outcome.value,
                "files": entries,
                "not_visible": [
                    {"tool": h.tool, "command": h.command, "call_id": h.call_id} for h in t.hidden
                ],
                "limitations": [{"kind": e.kind, "source": e.source} for e in t.limitations],
            }
        )
    return {
        "session": str(changes.session_path),
        "session_id": changes.session_id,
        "workspace": changes.workspace,
        "journal": None if changes.journal is None else str(changes.journal),
        "turn_count": changes.turn_count,
        "turns": turns,
    }
