"""Undo and redo of the changes to an open session: restores of an earlier revision.

Undo is revision history, not a stack of inverse operations. :class:`RevisionHistory` remembers
which revision each change left and which it came from, by node id. Undo and redo are
*restores* of an earlier revision, never new changes:

* in a v4 tree (or an upgraded file) a restore is a ``set_leaf`` record, as Rho's ``/tree``
  writes it: a few dozen bytes, whatever the session's size;
* a v1-v3 line cannot point back: the earlier state is appended again as a new complete
  ``snapshot`` record with the next revision number. Readers recognise that copy as a restore
  (:attr:`~rho_desk.core.stores.rho_files.RevisionNode.restores`), so counts, cards and
  statistics read it as one. The copy costs the size of the whole state:
  :meth:`RevisionHistory.restore_size` says how much before anything is written, so the app
  can ask first (:data:`LARGE_RESTORE_BYTES`).

Both refuse (:class:`NothingToUndo`, which the UI ignores) when the session moved on since: a
newer revision written by Rho, by a continued conversation or by another change is never
silently thrown away. Restores are written through the session's writer, as every revision is
(:mod:`.edits`).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Final

from ..errors import InputError
from ..stores.rho_files import RevisionNode, SessionTree, SessionWriter
from ..wire.codec import encode
from .edits import EditableSession, ThreadHop, stored_state

__all__ = [
    "LARGE_RESTORE_BYTES",
    "Entry",
    "NothingToUndo",
    "RevisionHistory",
    "Step",
    "UndoStatus",
    "restore",
    "restore_size",
]

LARGE_RESTORE_BYTES: Final = 8 * 1024 * 1024
"""A restore that would append more than this (a v1-v3 line's copy of a big state) is confirmed first."""

_SET_LEAF_BYTES: Final = 120
"""About the size of a ``set_leaf`` record."""


class NothingToUndo(InputError):
    """There is no change to undo or redo (or the session moved on since); the UI ignores it."""


def restore_size(tree: SessionTree, target: RevisionNode) -> int:
    """About how many bytes restoring ``target`` appends (run it in a worker thread).

    A ``set_leaf`` in a tree; in a v1-v3 line the encoded copy of the whole state.
    """
    if tree.is_tree:
        return _SET_LEAF_BYTES
    return len(encode(stored_state(tree, target))) + _SET_LEAF_BYTES


def restore(writer: SessionWriter, target: RevisionNode) -> RevisionNode:
    """Make ``target``'s state the active one (blocking; under the tree lock). Returns the node
    that is active afterwards: ``target`` itself in a tree, its copy in a v1-v3 line."""
    tree = writer.tree
    if tree.is_tree:
        writer.set_leaf(target)
        return target
    leaf = tree.active_leaf
    if leaf is None:
        raise InputError("the session has no revision to restore from", source=str(writer.path))
    copy = stored_state(tree, target).replace(revision=leaf.revision + 1)
    return writer.save(copy, display=())


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


@dataclass(frozen=True, slots=True)
class Step:
    """An undo or redo that was written."""

    label: str
    node: RevisionNode
    """The revision active afterwards."""


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

    def target(self, tree: SessionTree | None, *, redo: bool = False) -> RevisionNode:
        """The revision undo (or redo) would make active.

        Raises:
            NothingToUndo: nothing to undo or redo, or the session moved on since.
        """
        word = "redo" if redo else "undo"
        stack = self.undone if redo else self.done
        leaf = tree.active_leaf if tree is not None else None
        if not stack or tree is None or leaf is None:
            raise NothingToUndo(f"nothing to {word}")
        entry = stack[-1]
        if leaf.id != (entry.before if redo else entry.after):
            raise NothingToUndo(f"the session changed since; nothing to {word}")
        target = tree.nodes.get(entry.after if redo else entry.before)
        if target is None:
            raise NothingToUndo(
                f"the revision to return to is no longer in the file; nothing to {word}"
            )
        return target

    async def arestore_size(
        self, session: EditableSession, *, redo: bool = False, hop: ThreadHop = asyncio.to_thread
    ) -> int:
        """About how many bytes the next undo (or redo) appends (see :func:`restore_size`)."""
        tree = session.tree
        target = self.target(tree, redo=redo)
        assert tree is not None  # target() checked it
        return await hop(session.run_locked, restore_size, tree, target)

    async def aundo(self, session: EditableSession, *, hop: ThreadHop = asyncio.to_thread) -> Step:
        """Restore the revision before the last change.

        Raises:
            NothingToUndo: nothing to undo, or the session moved on since the change.
            RevisionConflict: the file changed on disk (nothing written).
        """
        return await self._astep(session, False, hop)

    async def aredo(self, session: EditableSession, *, hop: ThreadHop = asyncio.to_thread) -> Step:
        """Restore the revision the last undo left.

        Raises:
            NothingToUndo: nothing to redo, or the session moved on since the undo.
            RevisionConflict: the file changed on disk (nothing written).
        """
        return await self._astep(session, True, hop)

    async def _astep(self, session: EditableSession, redo: bool, hop: ThreadHop) -> Step:
        """Undo (or redo) the top entry, then move it to the other stack: an undone entry goes
        back from the restored node to the change's revision; a redone one from the revision
        it came from to the restored node."""
        source, other = (self.undone, self.done) if redo else (self.done, self.undone)
        entry = source[-1] if source else None
        node = await self._amove(session, redo, hop)
        assert entry is not None  # _amove refused an empty stack
        source.pop()
        other.append(
            Entry(entry.label, entry.before, node.id)
            if redo
            else Entry(entry.label, node.id, entry.after)
        )
        return Step(entry.label, node)

    async def _amove(self, session: EditableSession, redo: bool, hop: ThreadHop) -> RevisionNode:
        self.target(session.tree, redo=redo)  # refuse before taking the writer
        async with session.writing() as writer:
            target = self.target(writer.tree, redo=redo)  # and again, under the writer
            return await hop(session.run_locked, restore, writer, target)
