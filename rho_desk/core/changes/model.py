"""What the agent changed in a session's workspace: per session, per turn, per file.

Plain values built by :func:`~rho_desk.core.changes.build.session_changes`. A turn is the user
message that opened it and everything up to the next one (numbered from 1 along the active
path's display history). A :class:`FileChange` is one file as one turn left it: its content
before and after when known, where the knowledge comes from (Rho's checkpoint journal, or the
tool calls), and, for journal changes, the :class:`~.checkpoint.FileCheckpoint` a restore needs.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .checkpoint import CheckpointOutcome, FileCheckpoint, UntrackedEffect
from .patch import is_binary, unified_diff

__all__ = [
    "ChangeAction",
    "ChangeSource",
    "Content",
    "FileChange",
    "HiddenChange",
    "SessionChanges",
    "TurnChanges",
]


class ChangeAction(enum.Enum):
    CREATED = "created"
    MODIFIED = "modified"
    DELETED = "deleted"
    UNCHANGED = "unchanged"
    """The turn wrote the file but left it as it found it."""
    UNSUPPORTED = "unsupported"
    """Rho could not capture it (a symlink, not a regular file, too large, unreadable)."""
    UNKNOWN = "unknown"
    """A tool call changed it, but its content before the call is not in the session."""


class ChangeSource(enum.Enum):
    CHECKPOINT = "checkpoint"
    """Rho's (or rho-desk's) workspace checkpoint journal: exact bytes before, digest after."""
    TOOL_CALLS = "tool_calls"
    """Reconstructed from the ``write`` and ``edit`` calls in the transcript."""


@dataclass(frozen=True, slots=True)
class Content:
    """What is known of one side of a change."""

    action: ChangeAction
    before: bytes | None
    after: bytes | None
    before_known: bool
    after_known: bool
    note: str = ""


class FileChange:
    """One file as one turn left it.

    The content of a change reconstructed from tool calls is worked out on first use (the
    action, both sides and the diff), so listing a long session's changes costs no file
    reconstruction until a change is looked at.
    """

    __slots__ = (
        "_content",
        "_resolve",
        "abs_path",
        "after_digest",
        "call_ids",
        "checkpoint",
        "mode",
        "path",
        "replay",
        "source",
        "turn",
    )

    def __init__(
        self,
        path: str,
        abs_path: str,
        turn: int | None,
        source: ChangeSource,
        content: Content | Callable[[], Content],
        *,
        after_digest: str | None = None,
        mode: int | None = None,
        call_ids: tuple[str, ...] = (),
        checkpoint: FileCheckpoint | None = None,
    ) -> None:
        self.path = path
        """Relative to the workspace (``/`` separators) when inside it, else absolute."""
        self.abs_path = abs_path
        self.turn = turn
        self.source = source
        self.after_digest = after_digest
        self.mode = mode
        self.call_ids = call_ids
        """The tool calls of the turn that wrote the file (for navigation)."""
        self.checkpoint = checkpoint
        """The journal entry (restores use it); ``None`` for reconstructed changes."""
        self.replay: Callable[[bytes | None], object] | None = None
        """For a reconstructed change: the turn's tool calls applied to a given original (a
        journal's exact bytes), for the after-state a journal records only as a digest."""
        if isinstance(content, Content):
            self._content: Content | None = content
            self._resolve: Callable[[], Content] | None = None
        else:
            self._content, self._resolve = None, content

    @property
    def content(self) -> Content:
        if self._content is None:
            assert self._resolve is not None
            self._content, self._resolve = self._resolve(), None
        return self._content

    @property
    def action(self) -> ChangeAction:
        return self.content.action

    @property
    def before(self) -> bytes | None:
        """The content before the turn; ``None`` when absent or unknown (see ``action``)."""
        return self.content.before

    @property
    def after(self) -> bytes | None:
        """The content the turn left; ``None`` when deleted or unknown."""
        return self.content.after

    @property
    def before_known(self) -> bool:
        return self.content.before_known

    @property
    def after_known(self) -> bool:
        return self.content.after_known

    @property
    def note(self) -> str:
        return self.content.note

    @property
    def binary(self) -> bool:
        return is_binary(self.before) or is_binary(self.after)

    @property
    def diffable(self) -> bool:
        """Whether both sides are known, so a diff (and ``git apply``) can be made."""
        return (
            self.before_known
            and self.after_known
            and self.action not in (ChangeAction.UNKNOWN, ChangeAction.UNSUPPORTED)
        )

    def patch(self) -> str:
        """The git-style unified diff, or ``""`` when a side is unknown or nothing changed."""
        if not self.diffable:
            return ""
        return unified_diff(self.path, self.before, self.after, mode=self.mode)

    def line_counts(self) -> tuple[int, int]:
        """Lines added and removed (0, 0 when unknown or binary)."""
        added = removed = 0
        for line in self.patch().splitlines():
            if line.startswith("+") and not line.startswith("+++"):
                added += 1
            elif line.startswith("-") and not line.startswith("---"):
                removed += 1
        return added, removed

    def __repr__(self) -> str:
        return f"FileChange({self.path!r}, turn={self.turn}, {self.source.value})"


@dataclass(frozen=True, slots=True)
class HiddenChange:
    """A call whose effects on files are not visible (a shell command)."""

    tool: str
    command: str
    call_id: str | None = None


@dataclass(slots=True)
class TurnChanges:
    turn: int | None
    """1-based turn number on the active path; ``None`` for a turn that is not on it."""
    prompt: str
    """The first line of the user message that opened the turn."""
    message_index: int | None
    """Index of that user message in the projected display history (``tree.display()``)."""
    node_id: str | None = None
    revision: int | None = None
    committed: bool = True
    """False for a turn whose record names no node of the session: it failed before it was saved."""
    outcome: CheckpointOutcome | None = None
    """From the journal; ``None`` for a turn known from its tool calls only."""
    on_path: bool = True
    """False for a checkpoint of a node on another branch."""
    files: list[FileChange] = field(default_factory=list)
    hidden: list[HiddenChange] = field(default_factory=list)
    limitations: tuple[UntrackedEffect, ...] = ()

    @property
    def label(self) -> str:
        if not self.committed:
            return "unsaved turn (failed)"
        if not self.on_path:
            return f"revision {self.revision} (another branch)"
        return f"turn {self.turn}"


@dataclass(slots=True)
class SessionChanges:
    session_path: Path
    session_id: str | None
    workspace: str | None
    journal: Path | None
    """The checkpoint journal read, if the session has one."""
    turns: list[TurnChanges]
    """Turns with changes (files or hidden), in order; unsaved turns last."""
    turn_count: int = 0
    """All turns on the active path, with or without changes."""

    def files(self) -> dict[str, list[FileChange]]:
        """Every touched path with its changes across turns, in order."""
        out: dict[str, list[FileChange]] = {}
        for turn in self.turns:
            for change in turn.files:
                out.setdefault(change.path, []).append(change)
        return out

    def turn(self, number: int) -> TurnChanges | None:
        return next((t for t in self.turns if t.turn == number), None)
