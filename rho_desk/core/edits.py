"""Changes to an open session as new revisions, and their undo and redo (restores).

Every edit (a compaction, deleted or edited messages, new metadata, stripped provider blocks) is
a new revision appended through the session's writer, never a rewrite (architecture.md "Rules
that keep it real"). :func:`astore_revision` is that one write path: it takes the stored state
of the active revision, applies the change, bumps the revision and appends it (a complete base
in a v1-v3 line, a node in a v4 tree).

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
silently thrown away.

The service is written against :class:`EditableSession` (the app's document implements it;
:class:`FileSession` is the same over a plain file, for the command line and tests). There is one
way to write a revision: :func:`acommit` takes the session's writer, checks that the active
revision is still the one the change was made from (else :class:`RevisionConflict`, the one
"session changed" error; nothing is written), and runs the write holding the tree lock
(:meth:`EditableSession.run_locked`, the one way to hold it).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, ParamSpec, Protocol, TypeVar

from .compaction.api import CompactionOutcome
from .errors import InputError, RevisionConflict
from .stores.rho_files import RevisionNode, SessionTree, SessionWriter, read_session
from .wire import Message, SessionSnapshot
from .wire.codec import encode

__all__ = [
    "LARGE_RESTORE_BYTES",
    "EditableSession",
    "Entry",
    "FileSession",
    "NothingToUndo",
    "RevisionHistory",
    "Step",
    "ThreadHop",
    "UndoStatus",
    "acommit",
    "astore_revision",
    "restore",
    "restore_size",
    "store_revision",
    "stored_state",
    "under_lock",
]

T = TypeVar("T")
P = ParamSpec("P")

LARGE_RESTORE_BYTES: Final = 8 * 1024 * 1024
"""A restore that would append more than this (a v1-v3 line's copy of a big state) is confirmed first."""

_SET_LEAF_BYTES: Final = 120
"""About the size of a ``set_leaf`` record."""


class ThreadHop(Protocol):
    """How a blocking call leaves the caller's event-loop thread (``asyncio.to_thread`` by
    default; the app passes its bridge's ``in_thread``, its one thread hop)."""

    def __call__(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Awaitable[T]: ...


class NothingToUndo(InputError):
    """There is no change to undo or redo (or the session moved on since); the UI ignores it."""


class EditableSession(Protocol):
    """An open session the edit service writes to (the app's document, or :class:`FileSession`)."""

    @property
    def tree(self) -> SessionTree | None: ...

    @property
    def tree_lock(self) -> Any:
        """A lock held while a worker reads or changes the tree (or ``None``)."""

    def writing(self) -> AbstractAsyncContextManager[SessionWriter]:
        """The session's writer for one write (one write at a time)."""

    def run_locked(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` holding the tree lock (blocking: call it in a worker thread).

        How a worker reads the tree or has a writer add a node to it."""


class FileSession:
    """A session file opened for editing outside the app: read once, written through one writer."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer = SessionWriter(read_session(path))
        self.tree_lock = threading.RLock()

    @property
    def tree(self) -> SessionTree:
        return self._writer.tree

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[SessionWriter]:
        yield self._writer

    def run_locked(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        with self.tree_lock:
            return fn(*args, **kwargs)

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> FileSession:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def stored_state(tree: SessionTree, node: RevisionNode | None = None) -> SessionSnapshot:
    """The state exactly as stored at ``node`` (default the active leaf): untrimmed, with the
    stored prompt-cache key (or none), so an edit changes only what it means to change."""
    return tree.snapshot(node, trim=False, prompt_cache_key=None)


def under_lock(session: Any, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``session.run_locked(fn, *args, **kwargs)`` (a worker's spelling of it; run it in a worker
    thread): reading a revision materialises histories into the tree's shared cache and a write
    adds a node to it; the lock keeps that from interleaving with other workers and with the GUI
    applying appended records."""
    return session.run_locked(fn, *args, **kwargs)  # type: ignore[no-any-return]


async def acommit(
    session: EditableSession,
    base: str | None,
    produce: Callable[[SessionWriter], T],
    *,
    hop: ThreadHop = asyncio.to_thread,
) -> T:
    """Write one revision: ``produce(writer)`` (``writer.save``, ``fork``, ``set_leaf``...), run
    in a worker thread holding the tree lock, under the session's writer (one write at a time,
    lease held, the writer's own check against the file).

    Args:
        base: node id of the revision the change was made from: the active revision must still
            be that one (``None``: whichever is active).

    Raises:
        RevisionConflict: the active revision is no longer ``base``, or the file changed on disk
            since it was read; nothing was written.
    """
    async with session.writing() as writer:
        if base is not None:
            leaf = writer.tree.active_leaf
            if leaf is None or leaf.id != base:
                raise RevisionConflict(
                    f"{writer.path}: the session changed since this change was made from it; nothing was "
                    "written: reload it, or fork the change into a branch"
                )
        return await hop(session.run_locked, produce, writer)


async def astore_revision(
    session: EditableSession,
    change: Callable[[SessionSnapshot], SessionSnapshot],
    *,
    outcome: CompactionOutcome | None = None,
    display: tuple[Message, ...] | None = (),
    hop: ThreadHop = asyncio.to_thread,
) -> tuple[RevisionNode, RevisionNode]:
    """Append ``change(active state)`` as the next revision of ``session``.

    ``change`` receives the stored state of the active revision and returns the new state (its
    revision is set here: the active one plus one). Runs under the session's writer (one write
    at a time, lease held, optimistic check against the file).

    Args:
        outcome: the compaction that produced the state (a compaction node's facts).
        display: the display tail of the new revision. An edit adds nothing the user saw:
            ``()`` keeps Rho's display history as it was; ``None`` lets the writer derive it.
        hop: how the blocking reads and writes leave the event-loop thread.

    Returns:
        ``(before, after)``: the revision that was active, and the new one (now active).

    Raises:
        InputError: nothing is open, the state cannot be changed that way.
        RevisionConflict: the file changed on disk since it was read (nothing written).
    """
    return await acommit(session, None, lambda writer: store_revision(writer, change, outcome=outcome, display=display),
                         hop=hop)  # fmt: skip


def store_revision(
    writer: SessionWriter,
    change: Callable[[SessionSnapshot], SessionSnapshot],
    *,
    outcome: CompactionOutcome | None = None,
    display: tuple[Message, ...] | None = (),
) -> tuple[RevisionNode, RevisionNode]:
    """Append ``change(active state)`` through ``writer`` (blocking: :func:`acommit`'s ``produce``,
    run holding the tree lock). Returns ``(before, after)``; see :func:`astore_revision`."""
    tree = writer.tree
    before = tree.active_leaf
    if before is None:
        raise InputError("the session has no revision to change", source=str(writer.path))
    new = change(stored_state(tree, before)).replace(revision=before.revision + 1)
    return before, writer.save(new, outcome=outcome, display=display)


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
            raise NothingToUndo(f"the revision to return to is no longer in the file; nothing to {word}")
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
        entry = self.done[-1] if self.done else None
        node = await self._amove(session, False, hop)
        assert entry is not None
        self.done.pop()
        self.undone.append(Entry(entry.label, node.id, entry.after))
        return Step(entry.label, node)

    async def aredo(self, session: EditableSession, *, hop: ThreadHop = asyncio.to_thread) -> Step:
        """Restore the revision the last undo left.

        Raises:
            NothingToUndo: nothing to redo, or the session moved on since the undo.
            RevisionConflict: the file changed on disk (nothing written).
        """
        entry = self.undone[-1] if self.undone else None
        node = await self._amove(session, True, hop)
        assert entry is not None
        self.undone.pop()
        self.done.append(Entry(entry.label, entry.before, node.id))
        return Step(entry.label, node)

    async def _amove(self, session: EditableSession, redo: bool, hop: ThreadHop) -> RevisionNode:
        self.target(session.tree, redo=redo)  # refuse before taking the writer
        async with session.writing() as writer:
            target = self.target(writer.tree, redo=redo)  # and again, under the writer
            return await hop(session.run_locked, restore, writer, target)
