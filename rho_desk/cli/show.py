"""``rho-desk show PATH [--revision N] [--display] [--json]``: what a session file holds.

PATH is a transcript, a session folder, an SDK snapshot document, or another agent's session
(Claude Code, Codex, Gemini CLI, Pi: its file; opencode: ``<opencode.db>#<id>``), read into the
same revision tree. Prints the session's facts, its revisions (a tree for v4 files and other
agents' sessions, a line for v1-v3) and, with ``--display``, the projected display history of
the active revision (or of ``--revision N``). For another agent's session it also names the
agent, its subagents' sessions, and what the reading left out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .status import EXIT_OK

if TYPE_CHECKING:
    from ..core.agents import AgentLog
    from ..core.stores.rho_files import RevisionNode, SessionFile
    from ..core.wire import Message, SessionSnapshot


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("show", help="show a session file's revisions and history")
    parser.add_argument(
        "path", type=Path, help="a session file or folder, or a snapshot JSON document"
    )
    parser.add_argument(
        "--revision", type=int, metavar="N", help="show revision N instead of the active one"
    )
    parser.add_argument("--display", action="store_true", help="print the display history")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..core.stores.open import exists, is_session_file

    if not exists(args.path):
        from ..core.errors import InputError

        raise InputError("no such file or folder", source=str(args.path))
    if is_session_file(args.path):
        from ..core.stores.open import read_transcript

        session = read_transcript(args.path)
        if session.header is None:
            from ..core.stores.rho_files.errors import NoSessionState

            # the same kind of bad input as for `snapshot` and `export`: exit 2
            raise NoSessionState(
                "the file is empty: it has no session header", source=str(session.path)
            )
        tree = session.tree
        node = tree.find_revision(args.revision) if args.revision is not None else None
        if args.json:
            _print_json(_transcript_json(session, node, args.display))
        else:
            _print_transcript(session, node, args.display)
        return EXIT_OK
    from ..core.stores.open import open_snapshot

    snapshot = open_snapshot(args.path, args.revision)
    if args.json:
        _print_json(_snapshot_json(args.path, snapshot, args.display))
    else:
        _print_snapshot(args.path, snapshot, args.display)
    return EXIT_OK


# -- text --------------------------------------------------------------------------------------


def _print_json(value: object) -> None:
    import json

    json.dump(value, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def _when(seconds: int | None) -> str:
    if seconds is None:
        return "unknown"
    from datetime import UTC, datetime

    try:
        return f"{seconds} ({datetime.fromtimestamp(seconds, UTC):%Y-%m-%d %H:%M:%S} UTC)"
    except (OverflowError, OSError, ValueError):
        return str(seconds)


def message_line(message: Message) -> str:
    """One message as ``Role: text`` (tool calls and results spelled out), for terminals."""
    from ..core.wire import encode

    role = message.kind.value
    if message.tool_result is not None:
        r = message.tool_result
        return f"{role} {r.id} ({'ok' if r.ok else 'error'}): {r.content}"
    if message.system is not None:
        return f"{role}: {message.system}"
    parts = []
    for block in message.content:
        if block.text is not None:
            parts.append(block.text)
        elif block.image is not None:
            parts.append(f"[image {block.image.mime_type}, {len(block.image.data)} base64 chars]")
        elif block.tool_call is not None:
            call = block.tool_call
            parts.append(f"[tool call {call.id}: {call.name} {encode(call.arguments).decode()}]")
    return f"{role}: {' '.join(parts)}"


def _indent(text: str) -> str:
    return text.replace("\n", "\n    ")


def _label(session: SessionFile, node: RevisionNode) -> str:
    """As Rho's /tree picker: a turn's first user text, or a compaction's facts."""
    from ..core.stores.rho_files import NodeKind
    from ..core.stores.rho_files.views import user_text

    if node.restores is not None:
        return f"restores r{node.restores.revision} (undo or redo)"
    if node.kind is NodeKind.COMPACTION:
        facts = node.compaction_facts
        if facts is not None:
            return f"compacted {facts.previous_messages} → {facts.current_messages} messages"
        state = node.compaction
        if state.last_previous_tokens is not None and state.last_current_tokens is not None:
            return f"compacted {state.last_previous_tokens} → {state.last_current_tokens} tokens"
        return "compacted context"
    for entry in node.display:
        text = user_text(entry.message)
        if text:
            first = text.splitlines()[0]
            return f'"{first[:60]}…"' if len(first) > 60 else f'"{first}"'
    return "completed turn"


def _agent_log(session: SessionFile) -> AgentLog | None:
    """The other agent's log ``session`` was built from (``None``: a Rho file)."""
    from ..core.agents.build import AgentSessionFile

    return session.log if isinstance(session, AgentSessionFile) else None


def _print_transcript(session: SessionFile, selected: RevisionNode | None, display: bool) -> None:
    from ..core.stores.rho_files.summary import message_count

    tree = session.tree
    header = tree.header
    out = sys.stdout.write
    if header is None:
        out(f"{session.path}: empty file (no session header)\n")
        return
    leaf = tree.active_leaf
    node = selected or leaf
    out(f"session   {header.id}\n")
    log = _agent_log(session)
    if log is not None:
        out(
            f"agent     {log.agent}{' ' + log.version if log.version else ''} (read-only; `rho-desk import` "
            "makes it a Rho session)\n"
        )
        out(f"file      {session.path} ({session.size} bytes)\n")
        if log.title:
            out(f"title     {log.title}\n")
        if log.parent_session:
            out(f"parent    {log.parent_session} (this is a subagent's session)\n")
    else:
        out(
            f"file      {session.path} ({session.size} bytes, header version {header.version}, "
            f"format {tree.format_version})\n"
        )
    out(f"cwd       {header.cwd}\n")
    if header.agent_id is not None:
        out(f"agent     {header.agent_id}\n")
    out(f"created   {_when(tree.created_at)}\n")
    out(f"updated   {_when(tree.updated_at)}\n")
    if node is None:
        out("no saved state yet\n")
    else:
        state = "active" if node is leaf else "selected"
        provider = node.provider or "none (message-only v1 state)"
        out(f"revision  {node.revision} (node {node.id}, {state})\n")
        out(f"provider  {provider}\n")
        out(
            f"history   {node.length} model messages, "
            f"{message_count(tree, node)} display messages, "
            f"{node.compaction.completed_compactions} compactions\n"
        )
    shape = "tree" if tree.is_tree else "line"
    out(f"revisions {tree.node_count} nodes, {tree.branch_count} branches ({shape})\n")
    on_path = {id(n) for n in tree.path()}
    for n, depth in tree.walk():
        mark = "*" if n is leaf else ("+" if id(n) in on_path else " ")
        mark = ">" if selected is not None and n is selected and n is not leaf else mark
        indent = "  " * depth if tree.is_tree else ""
        out(
            f"{mark} {indent}r{n.revision:<5} {n.kind.value:<10} {n.id}  {n.timestamp}  {_label(session, n)}\n"
        )
    for note in session.notes:
        out(f"note: {note.text()}\n")
    if log is not None:
        for ref in log.subagents:
            out(
                f"subagent  {ref.session_id}{' (' + ref.title + ')' if ref.title else ''}: {ref.path}\n"
            )
        requests = log.requests
        if requests:
            tokens_in = sum(r.usage.total_input_tokens() or 0 for r in requests)
            tokens_out = sum(r.usage.output_tokens or 0 for r in requests)
            out(
                f"usage     {len(requests)} model requests, {tokens_in} input and {tokens_out} output tokens\n"
            )
        for what, count in sorted(log.loss.made.items()):
            out(f"made      {count} × {what}\n")
        if log.loss.dropped:
            out(
                f"dropped   {sum(log.loss.dropped.values())} fields at {len(log.loss.dropped)} JSON paths "
                "(`rho-desk show --json` lists them)\n"
            )
    if display and node is not None:
        out("display:\n")
        for entry in tree.display(node):
            out(f"  [{entry.timestamp}] {_indent(message_line(entry.message))}\n")


def _print_snapshot(path: Path, snapshot: SessionSnapshot, display: bool) -> None:
    out = sys.stdout.write
    out(f"session   {snapshot.session_id}\n")
    out(f"file      {path} (snapshot document, schema {snapshot.schema_version})\n")
    out(f"revision  {snapshot.revision}\n")
    out(f"provider  {snapshot.provider}\n")
    out(
        f"history   {len(snapshot.history)} model messages, "
        f"{snapshot.compaction.completed_compactions} compactions\n"
    )
    if snapshot.metadata:
        out(f"metadata  {', '.join(sorted(snapshot.metadata))}\n")
    if display:
        out("history:\n")
        for message in snapshot.history:
            out(f"  {_indent(message_line(message))}\n")


# -- JSON --------------------------------------------------------------------------------------


def _node_json(n: RevisionNode) -> dict[str, Any]:
    from ..core.wire import to_builtins

    return {
        "id": n.id,
        "parent": n.parent.id if n.parent is not None else None,
        "children": [c.id for c in n.children],
        "revision": n.revision,
        "kind": n.kind.value,
        "timestamp": n.timestamp,
        "time": n.time,
        "transition": n.transition,
        "virtual": n.virtual,
        "line": n.line,
        "history_length": n.length,
        "display_count": len(n.display),
        "restores": n.restores.id if n.restores is not None else None,
        "provider": str(n.provider) if n.provider is not None else None,
        "compaction": to_builtins(n.compaction),
        "compaction_facts": to_builtins(n.compaction_facts),
    }


def _transcript_json(
    session: SessionFile, selected: RevisionNode | None, display: bool
) -> dict[str, Any]:
    from ..core.wire import to_builtins

    tree = session.tree
    header = tree.header
    leaf = tree.active_leaf
    node = selected or leaf
    result: dict[str, Any] = {
        "path": str(session.path),
        "kind": "transcript",
        "session_id": tree.session_id,
        "header_version": tree.header_version,
        "format_version": tree.format_version,
        "cwd": header.cwd if header is not None else None,
        "created_at": tree.created_at,
        "updated_at": tree.updated_at,
        "file_size": session.size,
        "active_leaf": leaf.id if leaf is not None else None,
        "selected": node.id if node is not None else None,
        "revision": node.revision if node is not None else None,
        "node_count": tree.node_count,
        "branch_count": tree.branch_count,
        "nodes": [_node_json(n) for n in tree.nodes.values()],
        "notes": [
            {
                "kind": n.kind,
                "line": n.line,
                "offset": n.offset,
                "length": n.length,
                "reason": n.reason,
            }
            for n in session.notes
        ],
    }
    log = _agent_log(session)
    if log is not None:
        result["agent"] = {
            "name": log.agent,
            "version": log.version,
            "session_id": log.session_id,
            "title": log.title,
            "parent_session": log.parent_session,
            "subagents": [
                {
                    "session_id": r.session_id,
                    "path": str(r.path),
                    "title": r.title,
                    "call_id": r.call_id,
                }
                for r in log.subagents
            ],
            "requests": len(log.requests),
            **log.loss.as_json(),
        }
    if display:
        result["display"] = [to_builtins(e) for e in tree.display(node)] if node is not None else []
    return result


def _snapshot_json(path: Path, snapshot: SessionSnapshot, display: bool) -> dict[str, Any]:
    from ..core.wire import to_builtins

    result: dict[str, Any] = {
        "path": str(path),
        "kind": "snapshot",
        "session_id": snapshot.session_id,
        "schema_version": snapshot.schema_version,
        "revision": snapshot.revision,
        "provider": str(snapshot.provider),
        "history_length": len(snapshot.history),
        "compaction": to_builtins(snapshot.compaction),
        "metadata_keys": sorted(snapshot.metadata),
        "has_prompt_cache_key": snapshot.prompt_cache_key is not None,
    }
    if display:
        result["history"] = [to_builtins(m) for m in snapshot.history]
    return result
