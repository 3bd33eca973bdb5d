"""Changes to an open session as new revisions, and the one way to write a revision.

Every edit (a compaction, deleted or edited messages, new metadata, stripped provider blocks) is
a new revision appended through the session's writer, never a rewrite (architecture.md "Rules
that keep it real"). :func:`astore_revision` is that one write path: it takes the stored state
of the active revision, applies the change, bumps the revision and appends it (a complete base
in a v1-v3 line, a node in a v4 tree).

The service is written against :class:`EditableSession` (the app's document implements it;
:class:`FileSession` is the same over a plain file, for the command line and tests). There is one
way to write a revision: :func:`acommit` takes the session's writer, checks that the active
revision is still the one the change was made from (else :class:`RevisionConflict`, the one
"session changed" error; nothing is written), and runs the write holding the tree lock
(:meth:`EditableSession.run_locked`, the one way to hold it). Undo and redo are restores of an
earlier revision, written the same way (:mod:`.undo`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

from ..compaction.api import CompactionOutcome
from ..errors import InputError, RevisionConflict
from ..stores.rho_files import RevisionNode, SessionFile, SessionTree, SessionWriter, read_session
from ..wire import Message, SessionSnapshot

__all__ = [
    "EditableSession",
    "FileSession",
    "ThreadHop",
    "acommit",
    "astore_revision",
    "store_revision",
    "stored_state",
]

T = TypeVar("T")
P = ParamSpec("P")


class ThreadHop(Protocol):
    """How a blocking call leaves the caller's event-loop thread (``asyncio.to_thread`` by
    default; the app passes its bridge's ``in_thread``, its one thread hop)."""

    def __call__(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Awaitable[T]: ...


class EditableSession(Protocol):
    """An open session the edit service writes to (the app's document, or :class:`FileSession`)."""

    @property
    def tree(self) -> SessionTree | None: ...

    def writing(self) -> AbstractAsyncContextManager[SessionWriter]:
        """The session's writer for one write (one write at a time)."""

    def run_locked(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` holding the tree lock (blocking: call it in a worker thread).

        How a worker reads the tree or has a writer add a node to it: the one way to hold the
        lock (the lock itself is the session's own)."""


class FileSession:
    """A session file opened for editing outside the app: read once, written through one writer."""

    def __init__(self, path: Path, *, read: SessionFile | None = None) -> None:
        """``read``: the file as already read from ``path`` (else it is read here)."""
        self.path = path
        self._writer = SessionWriter(read if read is not None else read_session(path))
        self._lock = threading.RLock()

    @property
    def tree(self) -> SessionTree:
        return self._writer.tree

    @asynccontextmanager
    async def writing(self) -> AsyncIterator[SessionWriter]:
        yield self._writer

    def run_locked(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        with self._lock:
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
    return await acommit(
        session,
        None,
        lambda writer: store_revision(writer, change, outcome=outcome, display=display),
        hop=hop,
    )


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
