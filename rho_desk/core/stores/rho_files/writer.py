"""Appending to a Rho session transcript: in the file's own grammar, checked, durable, undoable.

architecture.md ("Session file grammar") and storage.md §8, with these rules:

* A v1-v3 file (not upgraded) grows with schema-3 records: a ``snapshot_delta`` when the save is
  a pure append with identical compaction state (§5.5), else a new complete ``snapshot``. A v4
  (or upgraded) file grows with ``node`` records (§8.2) and ``set_leaf``. New sessions are
  written as header version 3 in Rho's folder layout. A fork is a new node under an older node
  in a v4 file, and a new session file for v1-v3 files.
* Every record is first applied to a copy-free *plan* of the in-memory tree with the reader's
  own rules (``SessionTree.plan``); only a record that passes is written, and it joins the tree
  only once it is on disk.
* Before each append the file must still end where this process last read or wrote it (same
  inode, size and last 4 KiB); otherwise ``RevisionConflict`` and nothing is written. The check
  and the append happen under an exclusive ``flock`` on the transcript, so two rho-desk writers
  cannot interleave (Rho itself takes no such lock; see storage.md open question 2).
* One ``write`` per record group, then ``fdatasync``. On failure the file is cut back to its
  previous length. A torn last line is removed (truncated) only here, when appending (§8.5).
  Earlier bytes are never touched.
"""

from __future__ import annotations

import functools
import os
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Final

from msgspec.structs import replace

from ...compaction.api import CompactionOutcome
from ...errors import InputError, RevisionConflict, StorageError
from ...system.fsio import ensure_private_dir, fsync_dir, write_all
from ...wire.codec import encode
from ...wire.model import Message
from ...wire.snapshot import SessionSnapshot
from .errors import NoSessionState, SessionWriteError
from .layout import SESSION_FILE, SessionUnit, UnitLayout, lease_path, workspace_dir
from .lease import SessionLease
from .reader import TAIL_BYTES, FileEnd, SessionFile, parse_session
from .records import (
    CompactionFacts,
    DeltaTransition,
    HeaderRecord,
    NodeKind,
    NodeRecord,
    Record,
    SetLeafRecord,
    SnapshotDeltaRecord,
    SnapshotRecord,
    SnapshotTransition,
    StoredDisplayMessage,
    StoredSnapshotDelta,
)
from .tree import RevisionNode, SessionTree
from .views import default_prompt_cache_key

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["NEW_SESSION_VERSION", "SessionWriter", "create_session", "fork_session", "same_prefix"]

NEW_SESSION_VERSION: Final = 3
"""Header version of sessions rho-desk creates (the seed's "current" schema 3)."""

Clock = Callable[[], float]


# -- the pure-append test ---------------------------------------------------------------------

_POINTER: Final = tuple.__itemsize__
"""The size of a tuple's element: a pointer on CPython (what ``_same_items`` compares)."""


def _libc_memcmp() -> Any:
    """libc's ``memcmp`` through ``ctypes``, or ``None`` (not CPython's tuple layout, no C library)."""
    import ctypes  # loaded with the first save that compares histories, not with the writer

    if sys.implementation.name != "cpython" or tuple.__itemsize__ != ctypes.sizeof(ctypes.c_void_p):
        return None
    try:
        memcmp = ctypes.CDLL(None).memcmp
        memcmp.restype = ctypes.c_int
        memcmp.argtypes = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
    except (OSError, AttributeError):  # pragma: no cover - no C library symbols
        return None
    return memcmp


def _same_items(
    memcmp: Any, history: tuple[object, ...], prefix: tuple[object, ...], n: int
) -> bool:
    """Whether the first ``n`` element pointers of two tuples are identical (CPython layout)."""
    base = tuple.__basicsize__  # the element array follows the fixed part of the object
    return bool(memcmp(id(history) + base, id(prefix) + base, n * _POINTER) == 0)


def _layout_holds(memcmp: Any) -> bool:
    # The pointer comparison relies on CPython's tuple layout. Prove it on this interpreter
    # before trusting it: equal prefixes compare equal, and any difference is seen.
    a, b, c = object(), object(), object()
    try:
        return (
            _same_items(memcmp, (a, b, c), (a, b), 2)
            and not _same_items(memcmp, (a, c, b), (a, b), 2)
            and not _same_items(memcmp, (b, a, c), (a, b), 2)
        )
    except Exception:  # pragma: no cover - any surprise disables the fast path
        return False


@functools.cache
def _fast_compare() -> Any:
    """The proven ``memcmp`` of the pointer comparison, set up once; ``None``: compare values."""
    memcmp = _libc_memcmp()
    return memcmp if memcmp is not None and _layout_holds(memcmp) else None


def same_prefix(history: Sequence[Message], prefix: Sequence[Message]) -> bool:
    """Whether ``history`` starts with ``prefix`` (value equality).

    The engine builds each new history as ``old + appended``, so the prefix usually holds the
    very same objects. Comparing the two tuples' element pointers with ``memcmp`` proves that in
    ~20 µs for 100k messages, where tuple equality takes ~400 µs: that difference is what keeps
    an append to a 100k-message session as cheap as one to a 1k-message session. When the
    pointers differ (or the interpreter is not CPython) the exact value comparison decides.
    """
    n = len(prefix)
    if len(history) < n:
        return False
    if n == 0:
        return True
    if (
        type(history) is tuple
        and type(prefix) is tuple
        and (memcmp := _fast_compare()) is not None
        and _same_items(memcmp, history, prefix, n)
    ):
        return True
    return tuple(history[:n]) == tuple(prefix)


# -- the writer ---------------------------------------------------------------------------------


class SessionWriter:
    """Appends saves to one transcript. Holds the session's shared lease until :meth:`close`.

    Args:
        session: the transcript as read (its tree becomes this writer's; keep using
            ``writer.tree`` afterwards).
        clock: Unix time source for record timestamps.
        take_lease: take the shared lease (``.<id>.active.lock``) beside the session unit.

    Raises:
        NoSessionState: the file has no header (an empty file).
        SessionBeingDeleted: another process is deleting the session.
    """

    def __init__(
        self, session: SessionFile, *, clock: Clock = time.time, take_lease: bool = True
    ) -> None:
        header = session.tree.header
        if header is None:
            raise NoSessionState(
                "cannot append to a file without a session header", source=str(session.path)
            )
        if session.damage is not None:
            raise InputError(
                f"the session is damaged at line {session.damage.line} ({session.damage.reason}) "
                "and opened read-only; repair it first",
                source=str(session.path),
            )
        if session.newer is not None:
            raise InputError(
                f"line {session.newer.line} holds a record a newer Rho wrote ({session.newer.reason}); "
                "the session is read-only here so that no change contradicts it: continue it with that Rho",
                source=str(session.path),
            )
        self.session = session
        self.path = session.path
        self._clock = clock
        self._lease: SessionLease | None = None
        if take_lease:
            self._lease = SessionLease.shared(lease_path(session.unit.workspace, header.id))
        self._end = session.end

    @property
    def tree(self) -> SessionTree:
        return self.session.tree

    @property
    def size(self) -> int:
        """The file size this writer expects (what it last read or wrote); -1: unknown."""
        return self._end.size

    @property
    def end(self) -> FileEnd:
        """Where the file ends as this writer last read or wrote it."""
        return self._end

    def is_current(self) -> bool:
        """Whether the file still is as this writer last read or wrote it (one ``stat``).

        Cheaper and weaker than the check before an append (no tail comparison).
        """
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        end = self._end
        return (
            end.same_file(st)
            and st.st_size == end.size
            and (not end.mtime_ns or st.st_mtime_ns == end.mtime_ns)
        )

    # -- public operations ------------------------------------------------------------------

    def save(
        self,
        snapshot: SessionSnapshot,
        *,
        parent: RevisionNode | None = None,
        display: Sequence[Message] | None = None,
        outcome: CompactionOutcome | None = None,
    ) -> RevisionNode:
        """Append ``snapshot`` as the next revision; returns the node holding it.

        Args:
            parent: (tree files) the node to save under; default the active leaf. Saving under
                another node forks the tree there. Legacy (v1-v3) files only grow at their end:
                fork those with :func:`fork_session`.
            display: the display tail of this save; default the messages the save appended
                (none for a compaction), as Rho stores a turn's slice of model history.
            outcome: the compaction that produced ``snapshot``, for a compaction node's facts.

        Raises:
            InputError: the snapshot belongs to another session, or breaks the file's rules
                (e.g. a changed state without a revision increase).
            RevisionConflict: the file changed since it was read or last written; nothing written.
            SessionWriteError: the disk refused; the file is back to its previous length.
        """
        tree = self.tree
        if snapshot.session_id != tree.session_id:
            raise InputError(
                f"cannot save session {snapshot.session_id!r} into session {tree.session_id!r}",
                source=str(self.path),
            )
        timestamp = str(int(self._clock()))
        if tree.is_tree:
            base = tree.active_leaf if parent is None else parent
            record: Record = self._node_record(base, snapshot, timestamp, display, outcome)
        else:
            if parent is not None and parent is not tree.legacy_leaf:
                raise InputError(
                    f"a version {tree.header_version} session is a line and only grows at its end; "
                    "fork it into a new session instead",
                    source=str(self.path),
                )
            record = self._legacy_record(snapshot, timestamp, display, outcome)
        node = self._append_record(record)
        if node is None:
            node = tree.legacy_leaf
            assert node is not None
        # The saved snapshot's history *is* the new node's history: remember it, so the next
        # save compares against it without materialising anything.
        if node.length == len(snapshot.history):
            tree._remember(node, snapshot.history)
        return node

    def set_leaf(self, node: RevisionNode) -> bool:
        """Make ``node`` the active revision (a ``set_leaf`` record). False if it already is.

        Raises:
            InputError: the file is a v1-v3 line (no tree records before an upgrade).
        """
        tree = self.tree
        if not tree.is_tree:
            raise InputError(
                f"a version {tree.header_version} session has no tree to navigate; "
                "fork the revision into a new session instead",
                source=str(self.path),
            )
        if tree.nodes.get(node.id) is not node:
            raise InputError(f"node {node.id!r} is not part of this session", source=str(self.path))
        if node is tree.active_leaf:
            return False  # Rho writes nothing when the leaf is selected again
        self._append_record(SetLeafRecord(str(int(self._clock())), node.id))
        return True

    def append(self, record: NodeRecord | SetLeafRecord) -> RevisionNode | None:
        """Append a tree record built elsewhere (an imported session's next revision), checked
        by the reader's rules like every save; returns the node it added (``None`` for a
        ``set_leaf``).

        Raises:
            IllegalRecord: the record does not fit the tree (unknown parent, duplicate id...).
            RevisionConflict: the file changed since it was read or last written.
            SessionWriteError: the disk refused; the file is back to its previous length.
        """
        return self._append_record(record)

    def fork(
        self,
        node: RevisionNode,
        snapshot: SessionSnapshot,
        *,
        display: Sequence[Message] | None = None,
        outcome: CompactionOutcome | None = None,
    ) -> RevisionNode:
        """Save ``snapshot`` as a new child of the older ``node`` (tree files only).

        The new node becomes the active leaf; the old branch stays in the file. Legacy (v1-v3)
        files cannot branch: use :func:`fork_session`.
        """
        if not self.tree.is_tree:
            raise InputError(
                f"a version {self.tree.header_version} session cannot branch; use fork_session",
                source=str(self.path),
            )
        return self.save(snapshot, parent=node, display=display, outcome=outcome)

    def close(self) -> None:
        """Release the lease. The writer must not be used afterwards."""
        if self._lease is not None:
            self._lease.release()
            self._lease = None

    def __enter__(self) -> SessionWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- building records ---------------------------------------------------------------------

    def _node_record(
        self,
        parent: RevisionNode | None,
        snapshot: SessionSnapshot,
        timestamp: str,
        display: Sequence[Message] | None,
        outcome: CompactionOutcome | None,
    ) -> NodeRecord:
        """§8.2: compaction node / delta commit / full commit."""
        node_id = str(uuid.uuid4())
        history = snapshot.history
        if parent is None:
            return NodeRecord(
                id=node_id,
                timestamp=timestamp,
                kind=NodeKind.COMMIT,
                transition=SnapshotTransition(snapshot),
                display_messages=_display(timestamp, display, history),
            )
        base = self.tree.history(parent)
        if snapshot.compaction != parent.compaction:
            if outcome is not None:
                facts = CompactionFacts(
                    outcome.previous_messages,
                    outcome.current_messages,
                    outcome.previous_tokens,
                    outcome.current_tokens,
                    outcome.cost_usd_micros,
                )
            else:
                state = snapshot.compaction
                facts = CompactionFacts(
                    len(base),
                    len(history),
                    state.last_previous_tokens or 0,
                    state.last_current_tokens or 0,
                    None,
                )
            return NodeRecord(
                id=node_id,
                parent_id=parent.id,
                timestamp=timestamp,
                kind=NodeKind.COMPACTION,
                compaction_facts=facts,
                transition=SnapshotTransition(snapshot),
                display_messages=_display(timestamp, display, _compacted_tail(outcome, base)),
            )
        if (
            parent.meta is not None
            and parent.meta.session_id == snapshot.session_id
            and parent.revision <= snapshot.revision
            and same_prefix(history, base)
        ):
            appended = history[len(base) :]
            return NodeRecord(
                id=node_id,
                parent_id=parent.id,
                timestamp=timestamp,
                kind=NodeKind.COMMIT,
                transition=DeltaTransition(_delta(parent.revision, snapshot, appended)),
                display_messages=_display(timestamp, display, appended),
            )
        return NodeRecord(
            id=node_id,
            parent_id=parent.id,
            timestamp=timestamp,
            kind=NodeKind.COMMIT,
            transition=SnapshotTransition(snapshot),
            display_messages=_display(timestamp, display, history[_common_prefix(history, base) :]),
        )

    def _legacy_record(
        self,
        snapshot: SessionSnapshot,
        timestamp: str,
        display: Sequence[Message] | None,
        outcome: CompactionOutcome | None = None,
    ) -> Record:
        """Schema 3: a delta on the latest state when that is a pure append, else a full snapshot."""
        tree = self.tree
        leaf, meta = tree.legacy_leaf, tree.legacy_meta
        history = snapshot.history
        if leaf is None:
            return SnapshotRecord(timestamp, snapshot, _display(timestamp, display, history))
        base = tree.history(leaf)
        if (
            meta is not None
            and meta.session_id == snapshot.session_id
            and leaf.revision <= snapshot.revision
            and snapshot.compaction == leaf.compaction
            and same_prefix(history, base)
        ):
            appended = history[len(base) :]
            return SnapshotDeltaRecord(
                timestamp,
                _delta(leaf.revision, snapshot, appended),
                _display(timestamp, display, appended),
            )
        shown: tuple[Message, ...] = ()
        if snapshot.compaction == leaf.compaction:
            shown = history[_common_prefix(history, base) :]
        else:
            shown = _compacted_tail(outcome, base)
        return SnapshotRecord(timestamp, snapshot, _display(timestamp, display, shown))

    # -- appending ------------------------------------------------------------------------------

    def _append_record(self, record: Record) -> RevisionNode | None:
        end = self._end
        prefix = b"" if end.ends_with_newline else b"\n"
        offset = end.valid_end + len(prefix)
        change = self.tree.plan(record, line=end.next_line, offset=offset)
        data = encode(record) + b"\n"
        self._append(prefix + data)
        change.commit()
        self._record_in_index()
        return change.node

    def _record_in_index(self) -> None:
        """Rho's index row follows every write, as Rho's own save keeps it (storage.md §10.4)."""
        from .summary import record_written  # with Rho's SQLite index: not needed until a write

        record_written(self.tree, self.session.unit, self.path, self._end.size, self._end.mtime_ns)

    def _append(self, data: bytes) -> None:
        """Check, repair a torn tail, write, sync; or cut back and raise."""
        path = self.path
        try:
            fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        except FileNotFoundError:
            raise RevisionConflict(
                f"{path}: the session file is gone; nothing was written"
            ) from None
        except OSError as exc:
            raise SessionWriteError(
                f"{path}: cannot open for appending: {exc.strerror or exc}"
            ) from exc
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            self._check_unchanged(fd)
            if self._end.torn:
                self._cut_torn_tail(fd)
            start = self._end.size
            try:
                write_all(fd, data)
                _datasync(fd)
            except OSError as exc:
                self._cut_back(fd, start)
                raise SessionWriteError(
                    f"{path}: cannot append ({exc.strerror or exc}); the file was cut back to "
                    f"{start} bytes and its previous state stands"
                ) from exc
            st = os.fstat(fd)
            if st.st_mode & 0o777 != 0o600 and hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)
        finally:
            os.close(fd)  # also releases the flock
        self._end = self._end.appended(data, st.st_mtime_ns)

    def _check_unchanged(self, fd: int) -> None:
        st = os.fstat(fd)
        end = self._end
        found = None
        if not end.same_file(st):
            found = "the file was replaced"
        elif st.st_size != end.size:
            found = f"it is {st.st_size} bytes, not the {end.size} last seen"
        elif end.mtime_ns and st.st_mtime_ns != end.mtime_ns:
            found = "it was modified"
        else:
            tail = os.pread(fd, len(end.tail), end.size - len(end.tail))
            if tail != end.tail:
                found = "its last bytes differ"
        if found is not None:
            raise RevisionConflict(
                f"{self.path}: the session changed on disk since it was read ({found}); "
                "nothing was written: reload it, or fork your changes into a new session"
            )

    def _cut_torn_tail(self, fd: int) -> None:
        """§8.5: drop an unfinished last line before appending (the reader ignored it too)."""
        keep = self._end.valid_end
        try:
            os.ftruncate(fd, keep)
            _datasync(fd)
        except OSError as exc:
            raise SessionWriteError(
                f"{self.path}: cannot remove the torn last line: {exc.strerror or exc}"
            ) from exc
        self._end = replace(
            self._end,
            size=keep,
            mtime_ns=os.fstat(fd).st_mtime_ns,
            tail=os.pread(fd, min(TAIL_BYTES, keep), keep - min(TAIL_BYTES, keep)),
            line_count=self._end.line_count - 1,  # the fragment's line is gone
        )

    def _cut_back(self, fd: int, length: int) -> None:
        try:
            os.ftruncate(fd, length)
            _datasync(fd)
            self._end = replace(self._end, mtime_ns=os.fstat(fd).st_mtime_ns)  # our own truncation
        except OSError:
            # The file may keep a partial record now; readers treat it as a torn tail and our
            # next append fails its revision check (the size differs), so nothing is lost.
            self._end = replace(self._end, size=-1)


def _datasync(fd: int) -> None:
    """``fdatasync`` where the platform has it (Linux), else ``fsync`` (macOS, Windows).

    Looked up at each call, so tests can inject faults into ``os.fdatasync``.
    """
    sync = getattr(os, "fdatasync", None) or os.fsync
    sync(fd)


def _delta(
    base_revision: int, snapshot: SessionSnapshot, appended: tuple[Message, ...]
) -> StoredSnapshotDelta:
    return StoredSnapshotDelta(
        base_revision=base_revision,
        session_id=snapshot.session_id,
        revision=snapshot.revision,
        appended_history=appended,
        provider=snapshot.provider,
        compaction=snapshot.compaction,
        metadata=snapshot.metadata,
        prompt_cache_key=snapshot.prompt_cache_key,
    )


def _display(
    timestamp: str, explicit: Sequence[Message] | None, derived: Sequence[Message]
) -> tuple[StoredDisplayMessage, ...]:
    """The display tail: the caller's, else the save's new messages without system prompts."""
    messages = explicit if explicit is not None else [m for m in derived if m.system is None]
    return tuple(StoredDisplayMessage(timestamp, m) for m in messages)


def _compacted_tail(
    outcome: CompactionOutcome | None, base: tuple[Message, ...]
) -> tuple[Message, ...]:
    """What a compaction's save shows: the messages the compacted history had beyond ``base``.

    An automatic compaction runs inside a turn, on the committed history plus the user's prompt
    (and the steps so far); the replacement may digest them. They were never saved, so the
    compaction's display tail carries them (as Rho's does the pending prompt), and the display
    history keeps every prompt. A manual compaction compacts the saved history: nothing to show.
    """
    compacted = None if outcome is None else outcome.compacted_history
    if not compacted:
        return ()
    start = len(base) if same_prefix(compacted, base) else _common_prefix(compacted, base)
    return compacted[start:]


def _common_prefix(a: Sequence[Message], b: Sequence[Message]) -> int:
    limit = min(len(a), len(b))
    i = 0
    while i < limit and (a[i] is b[i] or a[i] == b[i]):
        i += 1
    return i


# -- creating and forking sessions ----------------------------------------------------------------


def _check_new_id(session_id: str) -> None:
    bad = (
        not session_id
        or "_" in session_id
        or "/" in session_id
        or "\\" in session_id
        or "\0" in session_id
        or session_id in (".", "..")
        or session_id != session_id.strip()
        or len(session_id.encode("utf-8")) > 200
    )
    if bad:
        raise InputError(
            f"session id {session_id!r} cannot name a session folder "
            "(it must be non-empty, at most 200 bytes, without `_`, `/`, `\\` or NUL)"
        )


def create_session(
    home: Path,
    cwd: str,
    snapshot: SessionSnapshot,
    *,
    created: int | None = None,
    agent_id: str | None = None,
    agent_fingerprint: str | None = None,
    display: Sequence[Message] | Sequence[StoredDisplayMessage] | None = None,
    clock: Clock = time.time,
    take_lease: bool = True,
) -> SessionWriter:
    """Create ``<home>/sessions/<workspace-key>/<created>_<id>/session.jsonl`` (header version 3).

    The header and a complete first ``snapshot`` record are written together and synced, so the
    file is never a header-only session (which Rho could not continue, §8.6). Folders get mode
    0700 and the transcript 0600.

    Args:
        home: the Rho data directory.
        cwd: absolute working directory of the session (its workspace).
        snapshot: the first state; its ``session_id`` names the session.
        created: creation time (Unix seconds); default now.
        agent_id, agent_fingerprint: the agent identity Rho checks on resume (optional; without
            them Rho reads the session but refuses to continue it).
        display: display history of the first record (messages, or entries with timestamps);
            default the snapshot's history without its system prompt.

    Raises:
        InputError: the id cannot name a folder, or the session already exists.
        StorageError: the folders or the file cannot be created.
    """
    session_id = snapshot.session_id
    _check_new_id(session_id)
    now = int(clock())
    created = now if created is None else created
    workspace = workspace_dir(home, cwd)
    folder = workspace / f"{created}_{session_id}"
    transcript = folder / SESSION_FILE
    header = HeaderRecord(
        NEW_SESSION_VERSION, session_id, str(created), cwd, agent_id, agent_fingerprint
    )
    first = SnapshotRecord(str(now), snapshot, _stored_display(str(now), display, snapshot.history))
    data = encode(header) + b"\n" + encode(first) + b"\n"
    # Validate what we are about to write with the reader itself.
    parsed = parse_session(data, source=str(transcript), name_id=session_id)
    try:
        ensure_private_dir(workspace.parent)
        ensure_private_dir(workspace)
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            raise InputError(
                "a session with this id and creation time already exists", source=str(folder)
            ) from None
        fd = os.open(transcript, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            write_all(fd, data)
            _datasync(fd)
            st = os.fstat(fd)
        finally:
            os.close(fd)
        fsync_dir(folder)
        fsync_dir(workspace)
    except OSError as exc:
        raise StorageError(
            f"{transcript}: cannot create the session: {exc.strerror or exc}"
        ) from exc
    parsed.path = transcript
    parsed.unit = SessionUnit(UnitLayout.FOLDER, transcript, folder.name, session_id, created)
    parsed.end = replace(parsed.end, identity=(st.st_dev, st.st_ino), mtime_ns=st.st_mtime_ns)
    writer = SessionWriter(parsed, clock=clock, take_lease=take_lease)
    writer._record_in_index()
    return writer


def _stored_display(
    timestamp: str,
    display: Sequence[Message] | Sequence[StoredDisplayMessage] | None,
    history: Sequence[Message],
) -> tuple[StoredDisplayMessage, ...]:
    if display is None:
        return _display(timestamp, None, history)
    return tuple(
        entry if isinstance(entry, StoredDisplayMessage) else StoredDisplayMessage(timestamp, entry)
        for entry in display
    )


def fork_session(
    tree: SessionTree,
    node: RevisionNode,
    home: Path,
    *,
    new_id: str | None = None,
    clock: Clock = time.time,
    take_lease: bool = True,
) -> SessionWriter:
    """Copy revision ``node`` of a session into a new session (how a v1-v3 file forks).

    The new session (header version 3, same workspace and agent identity) starts from the
    node's resume snapshot under a new id, with the node's display history (no markers). A
    prompt-cache key that was the app default for the old id becomes the new id's default.
    """
    header = tree.header
    if header is None:
        raise NoSessionState("cannot fork a file without a session header", source=tree.source)
    old = tree.snapshot(node)
    new_id = new_id or str(uuid.uuid4())
    key = old.prompt_cache_key
    if key == default_prompt_cache_key(old.session_id):
        key = default_prompt_cache_key(new_id)
    snapshot = old.replace(session_id=new_id, prompt_cache_key=key)
    return create_session(
        home,
        header.cwd,
        snapshot,
        agent_id=header.agent_id,
        agent_fingerprint=header.agent_fingerprint,
        display=tree.display(node, markers=False),
        clock=clock,
        take_lease=take_lease,
    )
