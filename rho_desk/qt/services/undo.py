"""Edit ▸ Undo's one stack: the open file's revision changes, and everything else the window did.

The revisions of the open session are undone by writing the earlier state again
(:class:`~rho_desk.core.revisions.undo.RevisionHistory`, shared with the command line). Other actions
change other things: Move to Trash moves another session away, a restore in the Changes tab
writes a file of the workspace, Rename writes Rho's index, Publish sends an export to a team.
Undo must never reach past one of them to a compaction made before it: after Move to Trash,
``Ctrl+Z`` undoes the move, or nothing, never the compaction.

So each such action is recorded here, in order with the revision changes (a :class:`Step`
remembers how many revision changes were done when it was recorded):

* an action with an undo of its own **joins the stack** (``record(label, undo)``): while it is
  the last thing done, Edit ▸ Undo names it (*Undo Move to Trash “…”*) and runs its undo;
* an action that cannot be undone **ends the stack** (``record(label)``): what came before it
  can no longer be undone, and while it is the last thing done the menu says so, disabled
  (*Can't Undo Publish to team …*).

A new action clears Redo. Opening another file drops that file's revision changes but keeps the
window's steps (a trashed session can still be put back).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, Signal

from ...core.revisions.undo import RevisionHistory

__all__ = ["Step", "UndoStack"]


@dataclass(eq=False)
class Step:
    """One action of the window that is not a revision of the open file."""

    label: str
    """What the menu names: ``Move to Trash “Flaky test”``."""
    undo: Callable[[], Awaitable[Any]] | None
    """Takes the action back (raising when it cannot any more); ``None``: it cannot be undone."""
    depth: int = field(default=0)
    """How many revision changes were done when it was recorded."""


class UndoStack(QObject):
    """The revision history of the open file and the window's other steps, in one order.

    Signals:
        sig_changed(): what Undo or Redo would do may have changed.
    """

    sig_changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.history = RevisionHistory()
        self.steps: list[Step] = []

    def record(self, label: str, undo: Callable[[], Awaitable[Any]] | None = None) -> Step:
        """An action just done: it joins the stack with ``undo``, or ends it (``undo=None``)."""
        if undo is None:  # nothing before it can be reached by Undo any more
            self.history.done.clear()
            self.steps.clear()
        self.history.undone.clear()
        step = Step(label, undo, len(self.history.done))
        self.steps.append(step)
        self.sig_changed.emit()
        return step

    def top(self) -> Step | None:
        """The step Undo acts on now: the last one, while no revision change was done after it."""
        if self.steps and self.steps[-1].depth == len(self.history.done):
            return self.steps[-1]
        return None

    def done_with(self, step: Step) -> None:
        """``step`` was taken back (by Undo, or by its own view's button): it leaves the stack."""
        if step in self.steps:
            self.steps.remove(step)
            self.history.undone.clear()
            self.sig_changed.emit()

    def reset(self, path: Any) -> None:
        """Another file is open: its revision history starts empty; the window's steps stay."""
        self.history.reset(path)
        for step in self.steps:
            step.depth = 0
        self.sig_changed.emit()
