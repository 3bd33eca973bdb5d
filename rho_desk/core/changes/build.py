"""Building a session's changes: Rho's checkpoint journal first, the tool calls otherwise.

:func:`session_changes` reads the transcript (the active path's display history, which
compaction never shortens) and, for a folder session, its checkpoint journal:

* A turn with a journal record gets its files from the record: the exact bytes before the turn,
  the digest after. The after content is found by that digest among what is known: a later
  record's original, the content the tool calls reconstruct, the file on disk.
* A turn without one is reconstructed from its tool calls: ``write`` gives the whole content;
  ``edit`` applies Rho's hashline operations to the content known before it (an earlier write,
  or a complete ``read_file`` result whose tag matches); when none is known the change is listed
  with its content unknown. ``bash`` calls are listed as changes not visible, with the command.
* A record whose node is not in the session is a turn that failed before it was saved: it is
  listed last, marked as such.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..stores.rho_files import NodeKind, RevisionNode, SessionTree, read_session
from ..tools import hashline
from ..tools.text import TRUNCATION_MARKER, file_hash
from ..wire.model import Message, ToolCall
from .checkpoint import (
    Absent,
    CapturedRegularFile,
    FileCheckpoint,
    ObservedRegular,
    Unsupported,
    WorkspaceCheckpoint,
    journal_path,
    read_journal,
    sha256_hex,
)
from .model import ChangeAction, ChangeSource, FileChange, HiddenChange, SessionChanges, TurnChanges

__all__ = ["changes_of_tree", "display_path", "session_changes"]

_WRITE_TOOLS = frozenset({"write", "write_file"})
_EDIT_TOOLS = frozenset({"edit"})
_REPLACE_TOOLS = frozenset({"edit_file", "str_replace", "replace"})
"""Older Rho builds' ``edit_file``: ``path`` plus an ``old`` text replaced by a ``new`` one."""
_SHELL_TOOLS = frozenset({"bash", "shell", "powershell", "process"})
_ROW = re.compile(r"(\d+):(.*)\Z", re.DOTALL)
_HEADER = re.compile(r"\[(.+)#([0-9A-Fa-f]{4})\]\Z")


def display_path(abs_path: str, workspace: str | None) -> str:
    """``abs_path`` relative to ``workspace`` with ``/`` separators when inside it, else as is."""
    if workspace:
        try:
            rel = os.path.relpath(abs_path, workspace)
        except ValueError:
            return abs_path
        if rel != os.curdir and not rel.startswith(os.pardir + os.sep) and rel != os.pardir:
            return rel.replace(os.sep, "/")
    return abs_path


def _absolute(path: str, workspace: str | None) -> str:
    if os.path.isabs(path) or not workspace:
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(workspace, path))


def _full_text_of_read(result: str) -> str | None:
    """The whole file a complete hashline ``read_file`` result shows, verified by its tag."""
    head, _, body = result.partition("\n")
    match = _HEADER.match(head.strip())
    if match is None:
        # Older builds returned the file's text as it is; a cut one says so.
        return None if TRUNCATION_MARKER in result or result.startswith("[") else result
    tag = match.group(2).upper()
    lines = []
    expected = 1
    for row in body.split("\n") if body else []:
        m = _ROW.match(row)
        if m is None or int(m.group(1)) != expected:
            return None  # a window, an elision or a footer: not the whole file
        lines.append(m.group(2))
        expected += 1
    joined = "\n".join(lines)
    for candidate in (joined + "\n", joined) if lines else ("",):
        if file_hash(candidate) == tag:
            return candidate
    return None


@dataclass(slots=True)
class _Known:
    content: bytes | None
    """``None``: known to be absent."""


def _calls(message: Message) -> tuple[ToolCall, ...]:
    blocks: Any = ()
    if message.enriched_assistant is not None:
        blocks = message.enriched_assistant.content
    elif message.assistant is not None:
        blocks = message.assistant
    elif message.aborted_assistant is not None:
        blocks = message.aborted_assistant.content
    return tuple(b.tool_call for b in blocks if b.tool_call is not None)


def _prompt(message: Message) -> str:
    for block in message.user or ():
        if block.text is not None and block.text.strip():
            return block.text.strip().splitlines()[0][:200]
    return ""


def _projected(tree: SessionTree, path: list[RevisionNode]) -> Iterator[tuple[int, RevisionNode, Message | None]]:
    """``(index in tree.display(trimmed=False), node, message)``; ``None`` for a compaction marker."""
    index = 0
    for node in path:
        for entry in node.display:
            yield index, node, entry.message
            index += 1
        if node.kind is NodeKind.COMPACTION:
            yield index, node, None
            index += 1


class _Builder:
    def __init__(self, workspace: str | None) -> None:
        self.workspace = workspace
        self.known: dict[str, _Known] = {}
        self.reads: dict[str, str] = {}
        """The latest complete-looking ``read_file`` result per path, parsed only when needed."""
        self.results: dict[str, tuple[bool, str]] = {}
        self.turns: dict[int, TurnChanges] = {}
        self.derived_after: dict[str, bytes] = {}
        """Content reconstructed from tool calls, by SHA-256 (checkpoint after-states look here)."""

    def turn(self, number: int, prompt: str, index: int | None) -> TurnChanges:
        turn = self.turns.get(number)
        if turn is None:
            turn = self.turns[number] = TurnChanges(number, prompt, index)
        return turn

    def _base(self, abs_path: str) -> _Known | None:
        known = self.known.get(abs_path)
        if known is not None:
            return known
        raw = self.reads.pop(abs_path, None)
        if raw is not None:
            text = _full_text_of_read(raw)
            if text is not None:
                known = self.known[abs_path] = _Known(text.encode("utf-8"))
        return known

    def _record(self, turn: TurnChanges, abs_path: str, before: _Known | None, after: bytes | None, call_id: str, tool: str) -> None:
        path = display_path(abs_path, self.workspace)
        for change in turn.files:
            if change.abs_path == abs_path:
                change.after = after
                change.after_known = after is not None
                change.call_ids = (*change.call_ids, call_id)
                change.action = _action(change.before_known, change.before, change.after_known, after)
                return
        before_known = before is not None
        before_bytes = before.content if before is not None else None
        change = FileChange(
            path,
            abs_path,
            turn.turn,
            _action(before_known, before_bytes, after is not None, after),
            ChangeSource.TOOL_CALLS,
            before=before_bytes,
            after=after,
            before_known=before_known,
            after_known=after is not None,
            call_ids=(call_id,),
            note="" if before_known else f"the content before this {tool} is not in the session",
        )
        turn.files.append(change)

    def call(self, turn: TurnChanges, call: ToolCall) -> None:
        args = call.arguments if isinstance(call.arguments, dict) else {}
        name = call.name
        result = self.results.get(call.id)
        if name in _SHELL_TOOLS:
            command = args.get("command")
            turn.hidden.append(HiddenChange(name, command if isinstance(command, str) else str(args), call.id))
            return
        if name == "read_file":
            path = args.get("path")
            if isinstance(path, str) and result is not None and result[0] and args.get("offset") in (None, 1) and args.get("limit") is None:
                abs_path = _absolute(path, self.workspace)
                if abs_path not in self.known:
                    self.reads[abs_path] = result[1]
            return
        if result is None or not result[0]:
            return  # failed, refused or never answered: the tool wrote nothing
        if name in _WRITE_TOOLS:
            path, content = args.get("path"), args.get("content")
            if not isinstance(path, str) or not isinstance(content, str):
                return
            abs_path = _absolute(path, self.workspace)
            before = self._base(abs_path)
            if before is None and result[1].startswith("created "):
                before = _Known(None)
            after = content.encode("utf-8")
            self.known[abs_path] = _Known(after)
            self.reads.pop(abs_path, None)
            self.derived_after[sha256_hex(after)] = after
            self._record(turn, abs_path, before, after, call.id, "write")
        elif name in _REPLACE_TOOLS:
            path = args.get("path")
            old = next((args[k] for k in ("old", "old_string", "old_text") if isinstance(args.get(k), str)), None)
            new_text = next((args[k] for k in ("new", "new_string", "new_text") if isinstance(args.get(k), str)), None)
            if not isinstance(path, str) or old is None or new_text is None:
                return
            abs_path = _absolute(path, self.workspace)
            before = self._base(abs_path)
            replaced: bytes | None = None
            if before is not None and before.content is not None:
                text = before.content.decode("utf-8", "surrogateescape")
                if text.count(old) == 1:
                    replaced = text.replace(old, new_text).encode("utf-8", "surrogateescape")
            if replaced is None:
                before = None
                self.known.pop(abs_path, None)
            else:
                self.known[abs_path] = _Known(replaced)
                self.derived_after[sha256_hex(replaced)] = replaced
            self.reads.pop(abs_path, None)
            self._record(turn, abs_path, before, replaced, call.id, name)
        elif name in _EDIT_TOOLS:
            document = args.get("input")
            if not isinstance(document, str):
                return
            try:
                sections = hashline.parse_hashline(document)
            except hashline.ApplyError:
                return
            for section in sections:
                abs_path = _absolute(section.path, self.workspace)
                before = self._base(abs_path)
                new: bytes | None = None
                if before is not None and before.content is not None:
                    try:
                        text, _focus = hashline.apply_ops(before.content.decode("utf-8"), section.tag, section.ops)
                        new = text.encode("utf-8")
                    except (hashline.ApplyError, UnicodeDecodeError):
                        before = None
                else:
                    before = None
                self.reads.pop(abs_path, None)
                if new is None:
                    self.known.pop(abs_path, None)
                else:
                    self.known[abs_path] = _Known(new)
                    self.derived_after[sha256_hex(new)] = new
                self._record(turn, abs_path, before, new, call.id, "edit")


def _action(before_known: bool, before: bytes | None, after_known: bool, after: bytes | None) -> ChangeAction:
    if not before_known or not after_known:
        return ChangeAction.UNKNOWN
    if before is None and after is not None:
        return ChangeAction.CREATED
    if after is None and before is not None:
        return ChangeAction.DELETED
    return ChangeAction.UNCHANGED if before == after else ChangeAction.MODIFIED


def _checkpoint_change(
    file: FileCheckpoint, turn: int | None, workspace: str | None, lookup: dict[str, bytes], derived: FileChange | None
) -> FileChange:
    original, after = file.original, file.expected_after
    before: bytes | None = None
    before_known = True
    mode = None
    if isinstance(original, CapturedRegularFile):
        before = original.bytes
        mode = original.metadata.unix_mode
    elif isinstance(original, Unsupported):
        before_known = False
    after_bytes: bytes | None = None
    after_known = True
    digest = None
    if isinstance(after, ObservedRegular):
        digest = after.digest
        mode = after.metadata.unix_mode if after.metadata.unix_mode is not None else mode
        after_bytes = lookup.get(after.digest)
        if after_bytes is None and derived is not None and derived.after is not None and sha256_hex(derived.after) == after.digest:
            after_bytes = derived.after
        if after_bytes is None:
            after_bytes = _disk_content(file.path, after)
        after_known = after_bytes is not None
    elif isinstance(after, Unsupported):
        after_known = False
    if isinstance(original, Unsupported) or isinstance(after, Unsupported):
        action = ChangeAction.UNSUPPORTED
        reason = original.reason if isinstance(original, Unsupported) else after.reason  # type: ignore[union-attr]
        note = f"Rho could not capture it: {reason.describe()}"
    else:
        if isinstance(original, Absent):
            action = ChangeAction.UNCHANGED if isinstance(after, Absent) else ChangeAction.CREATED
        elif isinstance(after, Absent):
            action = ChangeAction.DELETED
        else:
            assert isinstance(original, CapturedRegularFile) and isinstance(after, ObservedRegular)
            same = original.digest == after.digest and len(original.bytes) == after.size
            action = ChangeAction.UNCHANGED if same else ChangeAction.MODIFIED
        note = "" if after_known else "the content after this turn is no longer anywhere (only its digest is recorded)"
    return FileChange(
        display_path(file.path, workspace),
        file.path,
        turn,
        action,
        ChangeSource.CHECKPOINT,
        before=before,
        after=after_bytes,
        before_known=before_known,
        after_known=after_known,
        after_digest=digest,
        mode=mode,
        call_ids=derived.call_ids if derived is not None else (),
        note=note,
        checkpoint=file,
    )


def _disk_content(path: str, expected: ObservedRegular) -> bytes | None:
    try:
        st = os.lstat(path)
        if st.st_size != expected.size:
            return None
        with open(path, "rb") as handle:
            data = handle.read(expected.size + 1)
    except OSError:
        return None
    return data if sha256_hex(data) == expected.digest else None


def changes_of_tree(tree: SessionTree, session_path: Path, checkpoints: tuple[WorkspaceCheckpoint, ...] = (), journal: Path | None = None) -> SessionChanges:
    """The changes of an already read session (see the module docstring)."""
    header = tree.header
    workspace = header.cwd if header is not None else None
    builder = _Builder(workspace)
    path = tree.path() if tree.active_leaf is not None else []
    node_turn: dict[str, int] = {}
    number = 0
    current: TurnChanges | None = None
    prompt_index: dict[int, tuple[str, int]] = {}
    pending: list[tuple[int, ToolCall]] = []
    for index, node, message in _projected(tree, path):
        if message is not None:
            if message.user is not None:
                number += 1
                prompt_index[number] = (_prompt(message), index)
                current = None
            elif message.tool_result is not None:
                result = message.tool_result
                builder.results[result.id] = (result.ok, result.content)
            else:
                calls = _calls(message)
                if calls:
                    turn_number = max(number, 1)
                    prompt, at = prompt_index.get(turn_number, ("", None))  # type: ignore[arg-type]
                    current = builder.turn(turn_number, prompt, at)
                    pending.extend((turn_number, c) for c in calls)
        node_turn[node.id] = number
    # Results follow their calls; resolve every call once all results are known.
    for turn_number, call in pending:
        builder.call(builder.turns[turn_number], call)
    del current
    turns = {n: t for n, t in builder.turns.items() if t.files or t.hidden}

    on_path = {n.id for n in path}
    lookup: dict[str, bytes] = dict(builder.derived_after)
    for checkpoint in checkpoints:
        for file in checkpoint.files:
            if isinstance(file.original, CapturedRegularFile):
                lookup.setdefault(file.original.digest, file.original.bytes)
    extra: list[TurnChanges] = []
    for checkpoint in checkpoints:
        node = tree.nodes.get(checkpoint.node_id)
        if node is not None and node.id in on_path:
            number = max(node_turn.get(node.id, 0), 1)
            prompt, at = prompt_index.get(number, ("", None))  # type: ignore[arg-type]
            turn = turns.get(number)
            if turn is None:
                turn = turns[number] = TurnChanges(number, prompt, at)
        else:
            turn = TurnChanges(None, "", None)
            turn.committed = node is not None
            turn.on_path = False
            extra.append(turn)
        turn.node_id, turn.revision, turn.outcome = checkpoint.node_id, checkpoint.revision, checkpoint.outcome
        turn.limitations = checkpoint.limitations
        derived = {c.abs_path: c for c in turn.files if c.source is ChangeSource.TOOL_CALLS}
        recorded = [
            _checkpoint_change(f, turn.turn, workspace, lookup, derived.pop(os.path.normpath(f.path), None))
            for f in checkpoint.files
        ]
        turn.files = [c for c in turn.files if c.source is ChangeSource.CHECKPOINT] + recorded + list(derived.values())
    ordered = [turns[n] for n in sorted(turns)]
    ordered.extend(t for t in extra if t.committed)
    ordered.extend(t for t in extra if not t.committed)
    return SessionChanges(
        session_path,
        tree.session_id,
        workspace,
        journal,
        ordered,
        number,
    )


def session_changes(path: str | os.PathLike[str]) -> SessionChanges:
    """The changes of the session at ``path`` (its ``session.jsonl``, its folder, or a flat file).

    Raises:
        InputError: the transcript or the journal is malformed (file, line and reason).
        StorageError: a file cannot be read.
    """
    session = read_session(Path(path))
    journal: Path | None = None
    checkpoints: tuple[WorkspaceCheckpoint, ...] = ()
    if session.path.name == "session.jsonl":
        candidate = journal_path(session.path.parent)
        if os.path.lexists(candidate):
            journal = candidate
            checkpoints = read_journal(candidate).checkpoints
    return changes_of_tree(session.tree, session.path, checkpoints, journal)
