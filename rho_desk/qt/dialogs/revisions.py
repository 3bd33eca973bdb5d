"""Changes to the open session as new revisions, and their undo and redo.

Every edit the dialogs make (a compaction, deleted or edited messages, new metadata, stripped
provider blocks) is a new revision appended through the document's writer, never a rewrite
(architecture.md "Rules that keep it real"). :func:`astore_revision` is that one write path: it
takes the stored state of the active revision, applies the change, bumps the revision and
appends it (a complete base, or a node in a v4 tree), then tells the views.

Undo is revision history, not a ``QUndoStack`` (style.md practice 4). :class:`RevisionHistory`
remembers which revision each change left and which it came from, by node id:

* **undo** makes the previous revision active again: a ``set_leaf`` record in a v4 tree, or, in
  a v1-v3 line (which cannot point back), the previous state appended again as a new complete
  base with the next revision number;
* **redo** does the same towards the revision the undo left.

Both refuse (:class:`NothingToUndo`, which the UI ignores) when the session moved on since: a
newer revision written by Rho, by a continued conversation or by another change is never
silently thrown away. :meth:`RevisionHistory.status` gives the actions their enabled state and
text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...core.compaction.api import CompactionOutcome
from ...core.errors import InputError
from ...core.stores.rho_files import RevisionNode, SessionTree
from ...core.wire import Message, SessionSnapshot
from ..bridge import in_thread
from ..changes import OpResult

__all__ = ["Entry", "NothingToUndo", "RevisionHistory", "UndoStatus", "astore_revision", "stored_state", "under_lock"]


class NothingToUndo(InputError):
    """There is no change to undo or redo (or the session moved on since); the UI ignores it."""


def stored_state(tree: SessionTree, node: RevisionNode | None = None) -> SessionSnapshot:
    """The state exactly as stored at ``node`` (default the active leaf): untrimmed, with the
    stored prompt-cache key (or none), so an edit changes only what it means to change."""
    return tree.snapshot(node, trim=False, prompt_cache_key=None)


def under_lock(document: Any, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` holding the document's tree lock (run it in a worker thread).

    Reading a revision materialises histories into the tree's shared cache and a write adds a
    node to it; the lock keeps that from interleaving with other workers and with the GUI
    applying appended records.
    """
    lock = getattr(document, "tree_lock", None)
    with lock if lock is not None else contextlib.nullcontext():
        return fn(*args, **kwargs)


async def astore_revision(
    document: Any,
    change: Callable[[SessionSnapshot], SessionSnapshot],
    *,
    outcome: CompactionOutcome | None = None,
    display: tuple[Message, ...] | None = (),
) -> tuple[RevisionNode, RevisionNode]:
    """Append ``change(active state)`` as the next revision of the open session.

    ``change`` receives the stored state of the active revision and returns the new state (its
    revision is set here: the active one plus one). Runs under the document's writer (one write
    at a time, lease held, optimistic check against the file).

    Args:
        outcome: the compaction that produced the state (a compaction node's facts).
        display: the display tail of the new revision. An edit adds nothing the user saw:
            ``()`` keeps Rho's display history as it was; ``None`` lets the writer derive it.

    Returns:
        ``(before, after)``: the revision that was active, and the new one (now active).

    Raises:
        InputError: nothing is open, the state cannot be changed that way.
        RevisionConflict: the file changed on disk since it was read (nothing written).
    """
    async with document.writing() as writer:
        tree: SessionTree = writer.tree
        before = tree.active_leaf
        if before is None:
            raise InputError("the session has no revision to change", source=str(document.path))
        state = await in_thread(under_lock, document, stored_state, tree, before)
        new = change(state).replace(revision=before.revision + 1)
        after = await in_thread(under_lock, document, _save, writer, new, outcome, display)
    return before, after


def _save(writer: Any, snapshot: SessionSnapshot, outcome: CompactionOutcome | None,
          display: tuple[Message, ...] | None) -> RevisionNode:  # fmt: skip
    return writer.save(snapshot, outcome=outcome, display=display)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class Entry:
    """One undoable change: the revision it came from and the one it made."""

    label: str
    """What the change was, for the menu: "Compaction", "Delete 3 Messages"..."""
    before: str
    """Node id of the revision that was active before."""
    after: str
    """Node id of the revision the change made."""


@dataclass(frozen=True, slots=True)
class UndoStatus:
    """What the Undo and Redo actions offer now."""

    undo: str | None = None
    """Label of the change undo would revert (``None``: nothing)."""
    redo: str | None = None


@dataclass
class RevisionHistory:
    """The undo and redo stacks of one session file (cleared when another file opens)."""

    path: Any = None
    done: list[Entry] = field(default_factory=list)
    undone: list[Entry] = field(default_factory=list)

    def reset(self, path: Any = None) -> None:
        self.path = path
        self.done.clear()
        self.undone.clear()

    def record(self, label: str, before: RevisionNode, after: RevisionNode) -> None:
        """Remember a change just written (a new change clears the redo stack)."""
        self.done.append(Entry(label, before.id, after.id))
        self.undone.clear()

    def status(self, tree: SessionTree | None) -> UndoStatus:
        leaf = tree.active_leaf if tree is not None else None
        if leaf is None:
            return UndoStatus()
        undo = self.done[-1].label if self.done and self.done[-1].after == leaf.id else None
        # after an undo the active revision is the entry's ``before`` (in a line: the copy of
        # the earlier state that the undo appended; aundo records that copy's id)
        redo = self.undone[-1].label if self.undone and self.undone[-1].before == leaf.id else None
        return UndoStatus(undo, redo)

    async def aundo(self, document: Any) -> OpResult[str]:
        """Revert the last change (see the module docstring).

        Raises:
            NothingToUndo: nothing to undo, or the session moved on since the change.
            RevisionConflict: the file changed on disk (nothing written).
        """
        tree = document.tree
        if not self.done or tree is None or tree.active_leaf is None or tree.active_leaf.id != self.done[-1].after:
            raise NothingToUndo("nothing to undo")
        entry = self.done[-1]
        target = await _amove(document, entry.before, entry.after)
        self.done.pop()
        self.undone.append(Entry(entry.label, target.id, entry.after))
        return OpResult(entry.label, document.note_written(target))

    async def aredo(self, document: Any) -> OpResult[str]:
        """Make the revision the last undo left active again.

        Raises:
            NothingToUndo: nothing to redo, or the session moved on since the undo.
            RevisionConflict: the file changed on disk (nothing written).
        """
        tree = document.tree
        if not self.undone or tree is None or tree.active_leaf is None or tree.active_leaf.id != self.undone[-1].before:
            raise NothingToUndo("nothing to redo")
        entry = self.undone[-1]
        target = await _amove(document, entry.after, entry.before)
        self.undone.pop()
        self.done.append(Entry(entry.label, entry.before, target.id))
        return OpResult(entry.label, document.note_written(target))


async def _amove(document: Any, to_id: str, from_id: str) -> RevisionNode:
    """Make the state of node ``to_id`` the active one (the active node is ``from_id``)."""
    async with document.writing() as writer:
        tree: SessionTree = writer.tree
        leaf = tree.active_leaf
        if leaf is None or leaf.id != from_id:
            raise NothingToUndo("the session changed since; nothing to undo")
        target = tree.nodes.get(to_id)
        if target is None:
            raise NothingToUndo("the revision to return to is no longer in the file")
        if tree.is_tree:
            await in_thread(under_lock, document, writer.set_leaf, target)
            return target
        # A v1-v3 line only grows at its end: append the earlier state as a new complete base.
        state = await in_thread(under_lock, document, stored_state, tree, target)
        copy = state.replace(revision=leaf.revision + 1)
        return await in_thread(under_lock, document, _save, writer, copy, None, ())
