"""The open session as one object that every view and every action shares.

A :class:`SessionDocument` holds what is open (the path, the :class:`SessionFile` with its
revision tree), what the user is looking at (the selected revision, display or model history),
and what is needed to change it (the file's :class:`SessionWriter`, opened lazily with its
lease; an engine ``Session`` and store while a conversation is continued; the conflict state
when another program wrote first). It announces every change with a signal; views never poll
it and never change it behind its back.

Loading and re-reading run in worker threads through the bridge; the document only swaps in
finished results on the GUI thread. Live updates (the watcher in :mod:`rho_desk.qt.services.live`, the
file layer's tail reader) apply only the appended records when the file merely grew, and keep
the user's place: the selection stays on the revision it was on, or follows the newest
revision when it was on the active one.

For the actions that change the session (compact, export, continue, edit), the contract is:

* read with :meth:`snapshot`, :meth:`history`, :attr:`selected`, :attr:`tree`;
* write through :func:`~rho_desk.core.revisions.edits.acommit` (``produce(writer)`` under
  :meth:`writing`: serialised with every other write, lease taken, ``RevisionConflict`` recorded
  in :attr:`conflict` and re-raised; in a worker holding the tree lock), then call
  :meth:`note_written` so the views learn about the new revision;
* attach a continued conversation with :meth:`attach_engine` / :meth:`detach_engine`.

Concurrency: which lock guards what
-----------------------------------

* **The tree lock** (``SessionDocument.tree_lock``, an ``RLock``) guards the open session's
  revision tree: its nodes and the small cache of materialised histories that every read
  fills (``SessionTree.history``, ``display``, ``snapshot``). The GUI thread holds it while it
  applies appended records; a worker thread holds it while it reads the tree or while a
  writer's ``save``/``set_leaf``/``fork`` adds a node. Nobody holds it for anything else (no
  I/O but the append itself, no waiting on other locks), so it is only ever held briefly.
* **How a worker reads the tree:** through :meth:`SessionDocument.arun_locked` (from a
  coroutine: runs the function in a worker thread holding the lock) or
  :meth:`SessionDocument.run_locked` (already in a worker thread), never by taking
  ``tree_lock`` by hand. :meth:`SessionDocument.entries` takes it itself.
* **The bridge's exclusive lock** (``bridge.exclusive()``, an ``asyncio.Lock`` on the GUI
  thread's loop) serialises writes and re-reads: :meth:`SessionDocument.writing` holds it for a
  whole write (open the writer, check, append, move the file's end past our record) and
  :meth:`SessionDocument.areload` for a whole look at the file, so two actions never interleave
  their records and a live look never reads our own record back as someone else's. Take it
  before the tree lock, never while holding the tree lock; it is not re-entrant.
* **The library's lock** guards the session index (rho-desk's cache database); it never
  touches an open document's tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
import os
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

from PySide6.QtCore import QObject, Signal

from ...core.errors import InputError, KnownError, RevisionConflict
from ...core.revisions.edits import acommit
from ...core.stores.open import open_document
from ...core.stores.rho_files import (
    RecoveryNote,
    RevisionNode,
    SessionFile,
    SessionTree,
    SessionWriter,
    fork_session,
)
from ...core.stores.rho_files.records import StoredDisplayMessage
from ...core.stores.rho_files.summary import summary_of
from ...core.stores.rho_files.tail import Appended, NeedsFullReload, apply_appended, read_appended
from ...core.stores.summary import SessionSummary
from ...core.wire import Message, SessionSnapshot
from .bridge import EngineBridge, in_thread
from .live import LiveWatcher
from .outcomes import OpChanges, OpResult
from .workers import bulk_load

if TYPE_CHECKING:
    from ...core.agents import AgentLog
    from ...core.session import Session
    from ...core.stores.base import SessionStore

__all__ = ["HistoryMode", "ReloadInfo", "SessionDocument", "load_path"]

P = ParamSpec("P")
T = TypeVar("T")


class HistoryMode(enum.Enum):
    """Which of a revision's two histories the views show."""

    DISPLAY = "display"  # what the user saw (Rho's display history, with compaction markers)
    MODEL = "model"  # what the model was sent (the snapshot history)


@dataclass(frozen=True, slots=True)
class ReloadInfo:
    """What a re-read of the open file brought."""

    full: bool
    """The whole file was read again (else only the appended records were applied)."""
    records: int
    """Records applied by an incremental update (0 for a full re-read)."""
    new_nodes: tuple[RevisionNode, ...]
    leaf_moved: bool


def load_path(path: Path) -> tuple[SessionFile, bool]:
    """:func:`~rho_desk.core.stores.open.open_document` (blocking), its tree kept out of the
    cyclic GC (``workers.bulk_load``)."""
    with bulk_load():
        return open_document(Path(path))


def release(file: SessionFile | None) -> None:
    """Free a tree no one shows any more (``SessionFile.release``).

    A loaded tree is frozen out of the cyclic GC (``workers.bulk_load``), so without this a
    closed session's nodes, and every message they hold, would never be freed.
    """
    if file is not None:
        file.release()


def rho_home_of(path: Path) -> Path | None:
    """The Rho home a transcript lives in (``<home>/sessions/<workspace>/...``), if it does."""
    for parent in Path(path).absolute().parents:
        if parent.name == "sessions" and (parent.parent / "sessions") == parent:
            return parent.parent
    return None


def _catch_up(file: SessionFile, writer: SessionWriter) -> None:
    """Move ``file``'s end past what ``writer`` appended (already in the tree).

    Without this the live watcher reads our own records back as another program's and fails
    to apply them twice (a full re-read that drops the writer, and a spurious conflict for the
    next save).
    """
    end = writer.end
    if writer.session is not file or end.size < 0 or end == file.end:
        return
    file.end = end


class SessionDocument(QObject):
    """The open session, its selection, and how to change it.

    Signals:
        sig_loading_changed(bool): a load or re-read started (True) or ended (False).
        sig_opening(object): a path is about to be read to be opened.
        sig_loaded(): a file was opened (views reset).
        sig_reloaded(ReloadInfo): the open file was re-read (views keep their place).
        sig_tree_changed(): nodes were added or the active revision moved.
        sig_revision_selected(object): the selected :class:`RevisionNode` changed.
        sig_history_mode_changed(object): display/model history toggled (:class:`HistoryMode`).
        sig_conflict_changed(object): a :class:`RevisionConflict` was hit, or cleared (None).
        sig_engine_changed(): an engine session was attached or detached.
        sig_closed(): the document closed (no file open).
        sig_load_failed(object, str): opening a path failed (the path, one line saying why).

    Args:
        bridge: runs loads and writes.
        fork_home: the Rho home where forks of files outside any Rho home go.
    """

    sig_loading_changed = Signal(bool)
    """A load or re-read started (True) or ended (False)."""
    sig_opening = Signal(object)
    """A file is about to be read to be opened (its path, as given); ``sig_loaded`` or
    ``sig_load_failed`` follows, unless another open supersedes it."""
    sig_loaded = Signal()
    """A file was opened: views reset."""
    sig_reloaded = Signal(object)
    """The open file was re-read (:class:`ReloadInfo`): views keep their place."""
    sig_tree_changed = Signal()
    """Nodes were added or the active revision moved."""
    sig_revision_selected = Signal(object)
    """The selected :class:`RevisionNode` changed."""
    sig_history_mode_changed = Signal(object)
    """Display or model history (:class:`HistoryMode`)."""
    sig_conflict_changed = Signal(object)
    """A :class:`RevisionConflict`, or ``None`` when cleared."""
    sig_engine_changed = Signal()
    """An engine session was attached or detached."""
    sig_closed = Signal()
    """No file is open any more."""
    sig_load_failed = Signal(object, str)
    """Opening a path failed: the path, and one line saying why (the views leave "Loading…")."""

    def __init__(
        self,
        bridge: EngineBridge,
        *,
        fork_home: Path | None = None,
        poll_ms: int = 1000,
        follow_live: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.fork_home = fork_home
        self.file: SessionFile | None = None
        self.is_snapshot_document = False
        self.published_at: float | None = None
        """When the open document was published to the team library (epoch seconds): the time a
        published model context, which records none of its own, is known by."""
        self.selected: RevisionNode | None = None
        self.mode = HistoryMode.DISPLAY
        self.conflict: RevisionConflict | None = None
        self.engine_session: Session | None = None
        """The engine ``Session`` while the conversation is continued in the window."""
        self.engine_store: SessionStore | None = None
        self.open_guard: Callable[[Path | None], None] | None = None
        """Called before another file opens (its path), or before a person closes this one
        (``None``); raises (``InputError``) to refuse."""
        """The ``SessionStore`` that engine session saves through."""
        self.follow_live = follow_live
        self.tree_lock = threading.RLock()
        """Guards the tree (see the module docstring). Workers do not take it by hand: they go
        through :meth:`arun_locked` or :meth:`run_locked`."""
        self._writer: SessionWriter | None = None
        self._loading = 0
        self._generation = 0
        self._reload_task: asyncio.Task[Any] | None = None
        self._reload_again = False
        self.watcher = LiveWatcher(poll_ms, self)
        self.watcher.sig_file_changed.connect(self._on_watcher_file_changed)

    # -- what is open ------------------------------------------------------------------------

    @property
    def path(self) -> Path | None:
        return None if self.file is None else self.file.path

    @property
    def tree(self) -> SessionTree | None:
        return None if self.file is None else self.file.tree

    @property
    def is_open(self) -> bool:
        return self.file is not None

    @property
    def loading(self) -> bool:
        return self._loading > 0

    @property
    def damage(self) -> RecoveryNote | None:
        """The first bad line of a damaged file (opened read-only up to its last good revision)."""
        return None if self.file is None else self.file.damage

    @property
    def torn(self) -> RecoveryNote | None:
        """The unfinished last line the reader ignored, if the file has one."""
        if self.file is None:
            return None
        return next((note for note in self.file.notes if note.kind == "torn-tail"), None)

    @property
    def newer(self) -> RecoveryNote | None:
        """The first record a newer Rho wrote (the file is read, and kept read-only)."""
        return None if self.file is None else self.file.newer

    @property
    def agent(self) -> str | None:
        """The other agent whose session is open (``claude-code``, ``codex``...; ``None``: Rho's
        transcript or a snapshot document). Such a session is shown whole, read-only."""
        return getattr(self.file, "agent", None) or None

    @property
    def agent_log(self) -> AgentLog | None:
        """The other agent's log the open session was read from (its title, subagents, losses)."""
        return getattr(self.file, "log", None) if self.agent else None

    @property
    def read_only(self) -> bool:
        """Nothing is ever written to it: a snapshot document, or another agent's session."""
        return self.is_snapshot_document or self.agent is not None

    @property
    def writable(self) -> bool:
        """Changes can be saved: a Rho transcript (not a snapshot document, nor another agent's
        session) that is not damaged and holds no record of a newer Rho's."""
        return self.is_open and not self.read_only and self.damage is None and self.newer is None

    @property
    def home(self) -> Path | None:
        """The Rho home the open transcript lives in, if any."""
        return None if self.path is None or self.read_only else rho_home_of(self.path)

    @property
    def title(self) -> str:
        if self.file is None:
            return ""
        tree = self.file.tree
        return (tree.session_id or self.file.path.name)[:8]

    def history(
        self, node: RevisionNode | None = None, mode: HistoryMode | None = None
    ) -> Sequence[Message]:
        """The messages of ``node`` (default: the selection) in ``mode`` (default: the current)."""
        entries = self.entries(node, mode)
        if isinstance(entries, tuple):
            return entries
        return [e.message for e in entries]

    def entries(
        self, node: RevisionNode | None = None, mode: HistoryMode | None = None
    ) -> tuple[Message, ...] | list[StoredDisplayMessage]:
        """Model history (a tuple of messages) or display history (entries with timestamps).

        Nothing is trimmed: the views show everything the file holds and mark what a resume
        would drop. Display history includes the compaction markers Rho shows.
        """
        tree = self._tree_or_fail()
        node = node or self.selected or tree.active_leaf
        if node is None:
            return ()
        with self.tree_lock:
            if (mode or self.mode) is HistoryMode.MODEL:
                return tree.history(node)
            return tree.display(node, markers=True, trimmed=False)

    def snapshot(self, node: RevisionNode | None = None) -> SessionSnapshot:
        """The complete snapshot Rho would resume ``node`` (default: the selection) with."""
        tree = self._tree_or_fail()
        return tree.snapshot(node or self.selected)

    def current_summary(self, transcript: Path) -> SessionSummary | None:
        """The index summary of ``transcript`` from the open tree, when it is the open file as it
        is on disk now (same file, size and mtime) and reading it again would give this very tree
        (read whole and under its own name); else ``None``. Blocking: for the library's worker
        thread, which then need not read a session the user has open a second time.
        """
        with self.tree_lock:
            file = self.file
            if file is None or self.read_only or file.damage is not None:
                return None
            name_id = file.unit.session_id
            if name_id is not None and file.tree.session_id != name_id:
                return None  # opened under another name: the library's strict read refuses it
            try:
                st = os.stat(transcript)
            except OSError:
                return None
            end = file.end
            if not end.same_file(st) or (st.st_size, st.st_mtime_ns) != (end.size, end.mtime_ns):
                return None
            return summary_of(file)

    def run_locked(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` holding the tree lock (blocking: call it in a worker thread).

        How a worker reads the tree or has a writer add to it (``writer.save``...).
        """
        with self.tree_lock:
            return fn(*args, **kwargs)

    async def arun_locked(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """``fn(*args, **kwargs)`` in a worker thread, holding the tree lock only while it runs."""
        return await in_thread(functools.partial(self.run_locked, fn, *args, **kwargs))

    def _tree_or_fail(self) -> SessionTree:
        if self.file is None:
            raise InputError("no session is open")
        return self.file.tree

    # -- opening and closing -------------------------------------------------------------------

    def open(self, path: Path, *, initiator: object = None) -> asyncio.Task[Any]:
        """Open ``path`` (a transcript, session folder or snapshot document) in a bridge task."""
        return self.bridge.run(
            self.aopen(path), initiator=initiator, context=f"Opening {Path(path).name}"
        )

    async def aopen(self, path: Path, *, published_at: float | None = None) -> OpChanges:
        """Read ``path`` off the GUI thread and make it the open document (``published_at``:
        a version of the team library, when it was published).

        Raises:
            InputError: :attr:`open_guard` refused (a continued turn is running on this one).
        """
        if self.open_guard is not None:
            self.open_guard(Path(path))
        self._generation += 1
        generation = self._generation
        self._set_loading(True)
        self.sig_opening.emit(Path(path))
        try:
            file, is_snapshot = await in_thread(load_path, Path(path))
        except KnownError as exc:
            if generation == self._generation:
                self.sig_load_failed.emit(Path(path), exc.text())
            raise
        finally:
            self._set_loading(False)
        if generation != self._generation:
            return OpChanges()  # a newer open superseded this one
        await self._drop_writer()
        old, self.file = self.file, file
        self.is_snapshot_document = is_snapshot
        self.published_at = published_at
        self.selected = file.tree.active_leaf
        self._set_conflict(None)
        self.watcher.watch(self._watched(file, is_snapshot))
        self.sig_loaded.emit()
        self.sig_tree_changed.emit()
        self.sig_revision_selected.emit(self.selected)
        release(old)  # every view has let go of it now
        return OpChanges(document=True, revisions=True, messages=True, stats=True)

    async def aclose(self, *, guarded: bool = False) -> None:
        """Close the document: release the writer and its lease, stop watching.

        Args:
            guarded: ask :attr:`open_guard` first (a person closing it; not at shutdown).
        """
        if guarded and self.open_guard is not None and self.file is not None:
            self.open_guard(None)
        self._generation += 1
        self.watcher.watch(None)
        await self._drop_writer()
        self.detach_engine()
        old = self.file
        self.file = None
        self.selected = None
        self.is_snapshot_document = False
        self.published_at = None
        self._set_conflict(None)
        if old is not None:
            self.sig_closed.emit()
            release(old)

    async def _drop_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            await in_thread(writer.close)

    # -- selection -----------------------------------------------------------------------------

    def select(self, node: RevisionNode | None) -> None:
        """Show ``node`` (default: the active revision)."""
        tree = self._tree_or_fail()
        node = node or tree.active_leaf
        if node is not None and tree.nodes.get(node.id) is not node:
            raise InputError(
                f"revision {node.id} is not part of this session", source=str(self.path)
            )
        if node is self.selected:
            return
        self.selected = node
        self.sig_revision_selected.emit(node)

    def select_relative(self, step: int) -> RevisionNode | None:
        """Select the revision ``step`` places before (<0) or after (>0) the selection on its path.

        Moves along the selection's path to the root; forward from the selection follows the
        child on the active path, else the newest child.
        """
        tree = self._tree_or_fail()
        node = self.selected or tree.active_leaf
        if node is None:
            return None
        active = set(map(id, tree.path()))
        for _ in range(abs(step)):
            if step < 0:
                if node.parent is None:
                    break
                node = node.parent
            else:
                if not node.children:
                    break
                on_path = [c for c in node.children if id(c) in active]
                node = on_path[0] if on_path else node.children[-1]
        self.select(node)
        return node

    def set_mode(self, mode: HistoryMode) -> None:
        if mode is self.mode:
            return
        self.mode = mode
        self.sig_history_mode_changed.emit(mode)

    # -- live updates and re-reading ---------------------------------------------------------

    def reload(self, *, full: bool = False) -> asyncio.Task[Any]:
        """Re-read the open file in a bridge task (see :meth:`areload`)."""
        return self.bridge.run(self.areload(full=full), context="Reloading the session")

    async def areload(self, *, full: bool = False) -> OpResult[ReloadInfo | None]:
        """Bring the document up to date with the file: appended records only, when possible.

        The selection stays on its revision; if it was the active revision and the leaf moved,
        it follows the new leaf (when ``follow_live`` is on). Runs between writes, never during
        one (it takes the bridge's exclusive lock, as :meth:`writing` does): a look while our
        own record is on disk but not yet accounted for would read it back as someone else's
        and add it to the tree a second time.
        """
        async with self.bridge.exclusive():
            return await self._areload(full)

    async def _areload(self, full: bool) -> OpResult[ReloadInfo | None]:
        file = self.file
        if file is None or self.is_snapshot_document:
            return OpResult(None, OpChanges())
        full = full or self.agent is not None  # another agent's log is read whole again
        generation = self._generation
        before_leaf = file.tree.active_leaf
        before_nodes = len(file.tree.nodes)
        appended: Appended | None = None
        if not full:
            try:
                appended = await in_thread(read_appended, file)
            except NeedsFullReload:
                appended = None
            except FileNotFoundError:
                raise InputError("the session file is gone", source=str(file.path)) from None
            if appended is not None and appended.empty and appended.size == file.size:
                file.end = appended.end  # a new mtime, or a torn fragment not read yet
                return OpResult(None, OpChanges())
        if generation != self._generation or file is not self.file:
            return OpResult(None, OpChanges())
        info: ReloadInfo
        if appended is not None:
            try:
                count = self.run_locked(apply_appended, file, appended)
            except InputError:
                appended = None
            else:
                new_nodes = tuple(list(file.tree.nodes.values())[before_nodes:])
                info = ReloadInfo(False, count, new_nodes, file.tree.active_leaf is not before_leaf)
        if appended is None:
            self._set_loading(True)
            try:
                fresh, _ = await in_thread(load_path, file.path)
            finally:
                self._set_loading(False)
            if generation != self._generation or file is not self.file:
                return OpResult(None, OpChanges())
            old_ids = set(file.tree.nodes)
            replaced = file
            self.file = fresh
            new_nodes = tuple(n for n in fresh.tree.nodes.values() if n.id not in old_ids)
            leaf_moved = (fresh.tree.active_leaf.id if fresh.tree.active_leaf else None) != (
                before_leaf.id if before_leaf else None
            )
            info = ReloadInfo(True, 0, new_nodes, leaf_moved)
        # The writer read the file before this change: it must not append on a stale view.
        await self._drop_writer()
        self._set_conflict(None)
        tree = self.file.tree
        previous = self.selected
        if previous is None or (previous is before_leaf and self.follow_live):
            target = tree.active_leaf
        else:
            target = tree.nodes.get(previous.id, tree.active_leaf)
        self.selected = target
        self.sig_reloaded.emit(info)
        self.sig_tree_changed.emit()
        if target is not previous:
            self.sig_revision_selected.emit(target)
        if info.full:
            release(replaced)
        changed = bool(info.new_nodes) or info.leaf_moved or info.full
        return OpResult(
            info,
            OpChanges(
                revisions=changed,
                messages=target is not previous or info.full,
                stats=changed,
                library=changed,
            ),
        )

    @staticmethod
    def _watched(file: SessionFile, is_snapshot: bool) -> Path | None:
        """The file live updates watch: a sound transcript, or another agent's log file (an
        opencode session lives in a database, whose writes go to its journal: not watched)."""
        if is_snapshot or file.damage is not None:
            return None
        path = file.path
        return path if not getattr(file, "agent", None) or path.is_file() else None

    def _on_watcher_file_changed(self) -> None:
        if self.file is None or self.is_snapshot_document or self.bridge.closed:
            return
        if self._reload_task is not None and not self._reload_task.done():
            self._reload_again = True  # look once more when the current look ends
            return
        self._reload_task = self.bridge.run(
            self.areload(), context="Live update", on_success=self._on_live_reload_done
        )

    def _on_live_reload_done(self, _result: object) -> None:
        if self._reload_again:
            self._reload_again = False
            self._on_watcher_file_changed()

    # -- writing -------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[SessionWriter]:
        """Hold the document's writer for one write (serialised with all other writes).

        Use its methods through ``in_thread`` (the bridge) (they fsync). A ``RevisionConflict``
        raised inside is recorded in :attr:`conflict` (the UI offers reload or fork) and
        re-raised.

        Raises:
            InputError: nothing is open, or the open file is a snapshot document or another
                agent's session.
            RevisionConflict: see above.
        """
        async with self.bridge.exclusive():
            file = self.file
            if file is None:
                raise InputError("no session is open")
            if self.is_snapshot_document:
                raise InputError(
                    "a snapshot document is read-only here; export it or open a session file",
                    source=str(file.path),
                )
            if self.agent is not None:
                raise InputError(
                    "another agent's session is read-only here; continue it as a Rho session (Ctrl+L) "
                    "or import it with `rho-desk import`",
                    source=str(file.path),
                )
            if self._writer is None or self._writer.session is not file:
                await self._drop_writer()
                self._writer = await in_thread(SessionWriter, file)
            writer = self._writer
            try:
                yield writer
            except RevisionConflict as exc:
                self._set_conflict(exc)
                raise
            finally:
                _catch_up(file, writer)

    def note_written(self, node: RevisionNode | None, *, select: bool = True) -> OpChanges:
        """Tell the views that a write added ``node`` or moved the active revision.

        Returns the OpChanges to hand back to the bridge.
        """
        self.sig_tree_changed.emit()
        if select and node is not None and node is not self.selected:
            self.selected = node
            self.sig_revision_selected.emit(node)
        return OpChanges(revisions=True, messages=True, stats=True, library=True)

    async def amake_active(self, node: RevisionNode) -> OpResult[bool]:
        """Make ``node`` the active revision (a ``set_leaf`` record; v4 and upgraded files).

        Raises:
            InputError: the file is a v1-v3 line (fork such a revision instead).
        """
        written = await acommit(self, None, lambda writer: writer.set_leaf(node), hop=in_thread)
        if not written:
            return OpResult(False, OpChanges())
        return OpResult(True, self.note_written(node))

    async def afork(self, node: RevisionNode) -> OpResult[Path | RevisionNode]:
        """Fork from ``node``: a new branch in a v4 file, a new session file otherwise.

        In a tree file the new node is a copy of ``node``'s state under it (the branch point a
        continued conversation grows from) and becomes the active revision. For a v1-v3 file a
        new session (header version 3, same workspace) is created in the Rho home the file
        lives in (or :attr:`fork_home`); its path is returned.
        """
        tree = self._tree_or_fail()
        if tree.is_tree:
            # The stored state exactly (no trimming, no app default cache key): an unchanged
            # state may keep its revision (§5.6 rule 7).
            snapshot = tree.snapshot(node, trim=False, prompt_cache_key=None)
            new = await acommit(
                self, None, lambda writer: writer.fork(node, snapshot), hop=in_thread
            )
            return OpResult(new, self.note_written(new))
        home = self.home or self.fork_home
        if home is None:
            raise InputError("no Rho data directory to create the fork in", source=str(self.path))
        async with self.bridge.exclusive():

            def create() -> Path:
                writer = fork_session(tree, node, home)
                try:
                    return writer.path
                finally:
                    writer.close()

            path = await in_thread(create)
        return OpResult(path, OpChanges(library=True))

    # -- conflicts and the engine ---------------------------------------------------------------

    def _set_conflict(self, conflict: RevisionConflict | None) -> None:
        if conflict is self.conflict:
            return
        self.conflict = conflict
        self.sig_conflict_changed.emit(conflict)

    def clear_conflict(self) -> None:
        self._set_conflict(None)

    def attach_engine(self, session: Session, store: SessionStore | None = None) -> None:
        """Record the engine session (and store) continuing this conversation."""
        self.engine_session = session
        self.engine_store = store
        self.sig_engine_changed.emit()

    def detach_engine(self) -> None:
        if self.engine_session is None and self.engine_store is None:
            return
        self.engine_session = None
        self.engine_store = None
        self.sig_engine_changed.emit()

    # -- internals -----------------------------------------------------------------------------

    def _set_loading(self, on: bool) -> None:
        was = self.loading
        self._loading += 1 if on else -1
        if self.loading != was:
            self.sig_loading_changed.emit(self.loading)
