"""One session as the memory server sees it: read through the export source, redacted by the gate.

:func:`read_view` opens a transcript the way ``rho-desk export`` does
(:func:`~rho_desk.core.export.read_export_source`: the conversation as shown, the display
history; whatever format the library lists), runs it through :meth:`Gate.session` with every
class included, and keeps both: the source, for answers with another class selection, and the
redacted snapshot, from which the index, the outlines and the file lists are made. Nothing here
reads a session's text except through the gate.

Turns are numbered as ``rho-desk changes`` numbers them: the user message that opened a turn
and everything up to the next one, from 1 along the display history.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import msgspec

from ..core.errors import InputError, KnownError, StorageError
from ..core.export import (
    ALL_CLASSES,
    ContentClass,
    ExportResult,
    ExportSource,
    Selection,
    read_export_source,
)
from ..core.wire.model import Message, MessageKind
from ..core.wire.snapshot import SessionSnapshot
from ._gate import Gate, Redacted

__all__ = [
    "MAX_FIELD_CHARS",
    "SessionView",
    "Touch",
    "Transcript",
    "first_line",
    "read_view",
    "turns_of",
]

MAX_FIELD_CHARS: Final = 200_000
"""Characters of one indexed field (prompts, replies, tool calls) per session: a session longer
than that is searchable in its first 200,000 characters of each."""

_PATH_KEYS: Final = (
    "path",
    "file_path",
    "filepath",
    "file",
    "filename",
    "notebook_path",
    "target_file",
)
_CHANGING: Final = (
    "write",
    "edit",
    "patch",
    "create",
    "delete",
    "remove",
    "move",
    "rename",
    "replace",
)
_ENTRY: Final = re.compile(r"\$\.messages\[(\d+)\]")
_SELECTIONS: Final = 3
"""Transcripts kept per open session (one per class selection asked for)."""


@dataclass(frozen=True, slots=True)
class Touch:
    """One file a turn read or changed."""

    file: str
    """Absolute, normalised."""
    shown: str
    """Relative to the workspace when inside it."""
    turn: int | None
    kind: str
    """``changed`` or ``read``."""


@dataclass(frozen=True, slots=True)
class Transcript:
    """A session's display history as one export made it: its entries (``message`` in Rho's wire
    form, ``timestamp``), and where each redaction is (entry index, rule)."""

    entries: list[dict[str, Any]]
    redactions: tuple[tuple[int, str], ...]

    def rules(self, start: int, end: int) -> Counter[str]:
        """Redactions by rule in the entries ``start:end``."""
        return Counter(rule for index, rule in self.redactions if start <= index < end)


def _transcript(result: ExportResult) -> Transcript:
    document = msgspec.json.decode(result.data)
    entries = document.get("messages", []) if isinstance(document, dict) else []
    where = []
    for r in result.redactions:
        found = _ENTRY.match(r.path)
        where.append((int(found.group(1)) if found else -1, r.rule))
    return Transcript(entries, tuple(where))


@dataclass(slots=True)
class SessionView:
    """A session read once: the source (unredacted, for other selections) and its redaction."""

    path: str
    source: ExportSource
    redacted: SessionSnapshot
    """The display history with every class, secrets redacted (what the index holds)."""
    tally: Redacted
    cwd: str
    title: str | None = None
    touches: list[Touch] = field(default_factory=list)
    exported: ExportResult | None = None
    """The export with every class that made ``redacted`` (its bytes were audited)."""
    _transcripts: dict[frozenset[ContentClass], Transcript] = field(default_factory=dict)

    def transcript(self, selection: Selection, gate: Gate) -> Transcript:
        """The whole display history exported with ``selection``, made once per selection: every
        page of it is a slice of one audited export (the every-class one is the view's own)."""
        key = selection.included
        found = self._transcripts.get(key)
        if found is None:
            whole = (
                self.exported
                if self.exported is not None and key == frozenset(ALL_CLASSES)
                else None
            )
            found = _transcript(
                whole if whole is not None else gate.session(self.source, selection)
            )
            if len(self._transcripts) >= _SELECTIONS:
                self._transcripts.pop(next(iter(self._transcripts)))
            self._transcripts[key] = found
        return found

    @property
    def session_id(self) -> str:
        return self.redacted.session_id

    @property
    def messages(self) -> tuple[Message, ...]:
        """The redacted display history, without the instructions put first for the export."""
        return tuple(m for m in self.redacted.history if m.kind is not MessageKind.SYSTEM)

    def fields(self) -> dict[str, str]:
        """The searchable text: title, prompts, replies, tool calls, files (each bounded)."""
        prompts: list[str] = []
        replies: list[str] = []
        tools: list[str] = []
        for message in self.messages:
            kind = message.kind
            if kind is MessageKind.USER:
                prompts.append(message.text())
            elif kind is not MessageKind.TOOL_RESULT:
                replies.append(message.text())
                tools.extend(
                    f"{call.name} {_arguments(call.arguments)}" for call in message.tool_calls()
                )
        files = sorted({t.shown for t in self.touches} | {t.file for t in self.touches})
        return {
            "title": self.title or "",
            "prompts": _bounded("\n".join(prompts)),
            "replies": _bounded("\n".join(replies)),
            "tools": _bounded("\n".join(tools)),
            "files": _bounded("\n".join(files)),
        }


def _bounded(text: str) -> str:
    return text if len(text) <= MAX_FIELD_CHARS else text[:MAX_FIELD_CHARS]


def _arguments(arguments: object) -> str:
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(arguments)


def turns_of(messages: tuple[Message, ...]) -> list[int]:
    """The turn of each message (1-based; messages before the first prompt belong to turn 1)."""
    turn, out = 0, []
    for message in messages:
        if message.kind is MessageKind.USER:
            turn += 1
        out.append(max(turn, 1))
    return out


def _absolute(path: str, cwd: str) -> str:
    joined = path if os.path.isabs(path) else os.path.join(cwd or "/", path)
    return os.path.normpath(joined)


def _shown(abs_path: str, cwd: str) -> str:
    if cwd and (abs_path == cwd or abs_path.startswith(cwd.rstrip("/") + "/")):
        return os.path.relpath(abs_path, cwd)
    return abs_path


def _call_touches(messages: tuple[Message, ...], cwd: str) -> Iterator[Touch]:
    """Files named by tool calls: ``path``-like arguments, read or changed by the tool's name."""
    for message, turn in zip(messages, turns_of(messages), strict=True):
        for call in message.tool_calls():
            args = call.arguments
            if not isinstance(args, dict):
                continue
            kind = "changed" if any(word in call.name.lower() for word in _CHANGING) else "read"
            for key in _PATH_KEYS:
                value = args.get(key)
                if (
                    isinstance(value, str)
                    and value.strip()
                    and len(value) < 4096
                    and "\n" not in value
                ):
                    file = _absolute(value.strip(), cwd)
                    yield Touch(file, _shown(file, cwd), turn, kind)


def _journal_touches(path: Path) -> list[Touch]:
    """The files each turn changed, from the checkpoint journal and the tool calls (as ``rho-desk
    changes`` lists them), for a session that has a journal; nothing when it has none (its tool
    calls tell the same) or is not a Rho transcript it can read."""
    from ..core.changes import journal_path, session_changes

    if path.name != "session.jsonl" or not os.path.lexists(journal_path(path.parent)):
        return []
    try:
        changes = session_changes(path)
    except (KnownError, ValueError, OSError):
        return []
    return [
        Touch(os.path.normpath(change.abs_path), change.path, turn.turn, "changed")
        for turn in changes.turns
        if turn.on_path and turn.committed
        for change in turn.files
    ]


def read_view(
    path: str, gate: Gate, *, cwd: str, title: str | None = None, revision: int | None = None
) -> SessionView:
    """Read the session at ``path`` (at ``revision``, default the latest) and redact it (every
    class) through ``gate``. Files a turn changed come from the checkpoint journal too, for the
    latest revision; from the tool calls alone for an earlier one.

    Raises:
        InputError: the file cannot be parsed (the file, the line and the reason), or has no
            such revision.
        StorageError: it cannot be read.
        Refused: the audit flags it after redaction.
    """
    try:
        source = read_export_source(Path(path), revision, "display")
    except RecursionError:
        raise InputError("JSON nesting is too deep", source=path) from None
    except (MemoryError, ValueError) as exc:
        raise StorageError(f"{path}: cannot be read: {type(exc).__name__}") from None
    tally = Redacted()
    result = gate.session(source, Selection.everything())
    tally.add(result)
    view = SessionView(
        path, source, result.snapshot, tally, cwd, title or source.title, exported=result
    )
    journal = _journal_touches(Path(path)) if revision is None else []
    touches = {(t.file, t.turn, t.kind): t for t in journal}
    for touch in _call_touches(view.messages, cwd):
        touches.setdefault((touch.file, touch.turn, touch.kind), touch)
    view.touches = sorted(touches.values(), key=lambda t: (t.file, t.turn or 0, t.kind))
    return view


def first_line(message: Message, limit: int = 200) -> str:
    """The first non-empty line of a message's text, at most ``limit`` characters."""
    for line in message.text().splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""
