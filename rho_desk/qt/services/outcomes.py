"""What an operation changed in the app's state (:class:`OpChanges`): the typed value every
mutation returns and the bridge fans out. (What the agent changed in files is
:mod:`rho_desk.core.changes`.)

An operation (rename, delete, fork, set the active revision, compact, continue...) returns a
:class:`OpChanges` (or an :class:`OpResult` carrying one with its value). The bridge emits it once
as ``sig_operation_finished(changes, initiator)`` and each view decides for itself whether to
refresh (style.md practice 3; as Anki's ``OpChanges``). Plain Python: no Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Generic, TypeVar

__all__ = ["OpChanges", "OpResult"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class OpChanges:
    """Which parts of the app's state an operation touched."""

    library: bool = False
    """Session list rows: titles, deletions, new sessions (refresh the browser)."""
    document: bool = False
    """A different file was opened, or the open one was re-read from disk."""
    revisions: bool = False
    """The open session's revision tree: a node was added or the active leaf moved."""
    messages: bool = False
    """The history shown for the selected revision changed."""
    stats: bool = False
    """Compaction counters or token estimates changed."""
    settings: bool = False
    """Preferences (theme, data directory, provider profiles...)."""

    def __or__(self, other: OpChanges) -> OpChanges:
        return OpChanges(
            **{f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self)}
        )

    @property
    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    @classmethod
    def everything(cls) -> OpChanges:
        return cls(**{f.name: True for f in fields(cls)})


@dataclass(frozen=True, slots=True)
class OpResult(Generic[T]):
    """An operation's value together with what it changed."""

    value: T
    changes: OpChanges

    def __repr__(self) -> str:
        return f"OpResult({type(self.value).__name__}, {self.changes})"


def op_changes_of(result: Any) -> OpChanges | None:
    """The :class:`OpChanges` an operation result carries, if any."""
    if isinstance(result, OpChanges):
        return result
    if isinstance(result, OpResult):
        return result.changes
    return None
