"""The checkpoint journal of continued turns: every write recorded in Rho's format before it is made.

:class:`CheckpointRecorder` is the :class:`~rho_desk.core.tools.observed.WorkspaceMutationObserver`
of a continued conversation (``tool_setup(..., observer=recorder)``). Per turn:

* ``begin_turn(session_path, session_id, revision)`` opens a record under a fresh node id;
* before each ``write``/``edit`` the target's original content is captured (once per path per
  turn, up to 2 MiB, as upstream's ``capture_path``) and the turn's record is written to
  ``<session folder>/workspace-checkpoints/checkpoints.jsonl`` *before* the tool runs; after the
  call its state is observed again and the record rewritten with that ``expected_after``;
* ``bind(node_id, revision)`` after each save of the turn moves the record onto the node the turn
  committed (as upstream finalizes against the active leaf);
* ``end_turn(outcome)`` writes the final outcome and says which files the turn changed.

Until ``end_turn`` the record says ``failed``: a process that dies mid-turn leaves a true record.
A turn that fails before anything is saved keeps its fresh node id, which no node of the session
has: readers show it as *not committed*.

The record is always a valid version-1 line that Rho reads (``rho`` lists it, and its rewind of
that node works by Rho's own rules). Upstream appends one line per turn at its end; recording
before each change means the turn's line is rewritten as the turn goes, so the journal is
replaced whole (synced temporary file, rename, folder sync) under Rho's lock on the journal, and
a crash leaves the old journal or the new one. Only folder sessions have a journal (as upstream);
for a legacy flat file the changes are tracked in memory only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

from ..errors import StorageError
from ..system.fsio import fsync_dir, write_all
from .checkpoint import (
    CHECKPOINT_DIR_NAME,
    CHECKPOINT_JOURNAL_NAME,
    DEFAULT_MAX_CHECKPOINT_FILE_BYTES,
    DEFAULT_MAX_CHECKPOINT_SESSION_BYTES,
    Absent,
    CheckpointOutcome,
    FileCheckpoint,
    ObservedFileState,
    OriginalFileState,
    Unsupported,
    UntrackedEffect,
    WorkspaceCheckpoint,
    capture_original,
    decode_record,
    encode_record,
    observe_path,
    observed_of_original,
    read_journal_bytes,
)

__all__ = [
    "CheckpointRecorder",
    "RecordedFile",
    "RecordedTurn",
    "changed_files_text",
    "session_folder",
]

try:  # POSIX advisory lock, as upstream's fs2::lock_exclusive
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


def session_folder(session_path: str | os.PathLike[str]) -> Path | None:
    """The folder session unit of ``session_path`` (its ``session.jsonl`` or the folder), else ``None``."""
    path = Path(session_path)
    if path.is_dir():
        return path if (path / "session.jsonl").is_file() else None
    return path.parent if path.name == "session.jsonl" else None


class RecordedFile(msgspec.Struct, frozen=True):
    path: str
    original: OriginalFileState
    expected_after: ObservedFileState

    @property
    def changed(self) -> bool:
        return observed_of_original(self.original) != self.expected_after

    @property
    def action(self) -> str:
        """``created``, ``deleted``, ``modified``, ``unchanged`` or ``unsupported``."""
        if isinstance(self.original, Unsupported) or isinstance(self.expected_after, Unsupported):
            return "unsupported"
        if not self.changed:
            return "unchanged"
        if isinstance(self.original, Absent):
            return "created"
        if isinstance(self.expected_after, Absent):
            return "deleted"
        return "modified"


class RecordedTurn(msgspec.Struct, frozen=True):
    """What one turn's record holds once the turn ended."""

    node_id: str
    committed: bool
    """Whether a save of the turn bound the record to a node of the session."""
    outcome: CheckpointOutcome
    journal: Path | None
    """Where the record is (``None``: a legacy flat session, kept in memory only)."""
    files: tuple[RecordedFile, ...]
    limitations: tuple[UntrackedEffect, ...]

    @property
    def changed(self) -> tuple[RecordedFile, ...]:
        return tuple(f for f in self.files if f.changed or f.action == "unsupported")


class _Open:
    __slots__ = (
        "bound",
        "expected",
        "fresh",
        "journal",
        "limitations",
        "node_id",
        "originals",
        "revision",
        "session_id",
        "started_at",
        "written_id",
    )

    def __init__(
        self, journal: Path | None, session_id: str, revision: int, started_at: int
    ) -> None:
        self.journal = journal
        self.session_id = session_id
        self.node_id = str(uuid.uuid4())
        self.written_id: str | None = None
        """The node id the journal holds this turn's record under, once written."""
        self.revision = revision
        self.bound = False
        self.started_at = started_at
        self.originals: dict[str, OriginalFileState] = {}
        self.expected: dict[str, ObservedFileState] = {}
        self.limitations: list[UntrackedEffect] = []
        self.fresh: set[str] = set()
        """Paths captured by the call under way: dropped again if the call leaves them as they were."""


class CheckpointRecorder:
    """Records the file changes of each continued turn in the session's checkpoint journal.

    Args:
        max_file_bytes: content captured per file (upstream: 2 MiB; larger files are recorded
            as unsupported, ``too_large``).
        max_session_bytes: the journal's cap (upstream: 64 MiB); a record past it is refused,
            and with it the change.
        clock: Unix seconds (tests pass a fixed one).
    """

    def __init__(
        self,
        *,
        max_file_bytes: int = DEFAULT_MAX_CHECKPOINT_FILE_BYTES,
        max_session_bytes: int = DEFAULT_MAX_CHECKPOINT_SESSION_BYTES,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.max_file_bytes = max_file_bytes
        self.max_session_bytes = max_session_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._open: _Open | None = None

    # -- turn lifecycle ----------------------------------------------------------------------------

    def begin_turn(
        self, session_path: str | os.PathLike[str], session_id: str, revision: int
    ) -> None:
        """Open the record of a turn continuing ``session_path`` from ``revision``."""
        folder = session_folder(session_path)
        journal = None if folder is None else folder / CHECKPOINT_DIR_NAME / CHECKPOINT_JOURNAL_NAME
        with self._lock:
            self._open = _Open(journal, session_id, revision, int(self._clock()))

    @property
    def active(self) -> bool:
        return self._open is not None

    def bind(self, node_id: str, revision: int) -> None:
        """The turn's changes were saved as ``node_id``: move the record onto it.

        Raises:
            StorageError: the journal could not be rewritten (the record keeps its old node).
        """
        with self._lock:
            turn = self._open
            if turn is None:
                return
            previous = (turn.node_id, turn.revision, turn.bound)
            turn.node_id, turn.revision, turn.bound = node_id, revision, True
            if turn.written_id is not None:
                try:
                    self._write(turn, CheckpointOutcome.FAILED)
                except StorageError:
                    turn.node_id, turn.revision, turn.bound = previous
                    raise

    def end_turn(self, outcome: CheckpointOutcome) -> RecordedTurn | None:
        """Close the turn; its record gets ``outcome``. ``None`` when no turn was open.

        Raises:
            StorageError: the final rewrite failed (the journal keeps the record as ``failed``).
        """
        with self._lock:
            turn, self._open = self._open, None
            if turn is None:
                return None
            if turn.written_id is not None:
                self._write(turn, outcome)
            return RecordedTurn(
                turn.node_id,
                turn.bound,
                outcome,
                turn.journal,
                tuple(self._files(turn)),
                tuple(turn.limitations),
            )

    def close_turn(
        self, saved: tuple[str, int] | None, outcome: CheckpointOutcome
    ) -> RecordedTurn | None:
        """End the turn after the host's last save: ``saved`` is the ``(node_id, revision)`` it
        left as the active leaf, or ``None`` when the turn saved nothing. Never raises: a record
        that cannot be finished stays in the journal as it was last written (``failed``)."""
        if saved is not None:
            with contextlib.suppress(StorageError):
                self.bind(*saved)
        try:
            return self.end_turn(outcome)
        except StorageError:
            return None

    def changed_files(self) -> list[RecordedFile]:
        """The files the open turn has changed so far."""
        with self._lock:
            turn = self._open
            return [] if turn is None else [f for f in self._files(turn) if f.changed]

    # -- the observer --------------------------------------------------------------------------------

    async def before_mutation(self, paths: Sequence[Path]) -> None:
        await asyncio.to_thread(self._before, paths)

    async def after_mutation(self, paths: Sequence[Path]) -> None:
        await asyncio.to_thread(self._after, paths)

    async def mark_untracked_effect(self, kind: str, source: str) -> None:
        await asyncio.to_thread(self._mark, kind, source)

    def _before(self, paths: Sequence[Path]) -> None:
        with self._lock:
            turn = self._open
            if turn is None:
                return
            new = [str(p) for p in paths if str(p) not in turn.originals]
            if not new:
                return
            for key in new:
                turn.originals[key] = capture_original(key, self.max_file_bytes)
            turn.fresh.update(new)
            try:
                self._write(turn, CheckpointOutcome.FAILED)
            except StorageError:
                for key in new:
                    del turn.originals[key]
                    turn.fresh.discard(key)
                raise

    def _after(self, paths: Sequence[Path]) -> None:
        with self._lock:
            turn = self._open
            if turn is None:
                return
            for p in paths:
                key = str(p)
                if key in turn.originals:
                    state = observe_path(key, self.max_file_bytes)
                    if key in turn.fresh and state == observed_of_original(turn.originals[key]):
                        # refused, failed or a no-op: the call left the file as it was
                        del turn.originals[key]
                        turn.expected.pop(key, None)
                    else:
                        turn.expected[key] = state
                turn.fresh.discard(key)
            if turn.written_id is not None:
                with contextlib.suppress(StorageError):
                    # The change is made; a failure to note its after-state leaves the record that
                    # was written before it (a later rewrite or end_turn tries again).
                    self._write(turn, CheckpointOutcome.FAILED)

    def _mark(self, kind: str, source: str) -> None:
        with self._lock:
            turn = self._open
            if turn is None:
                return
            effect = UntrackedEffect(kind, source)
            if effect in turn.limitations:
                return
            turn.limitations.append(effect)
            with contextlib.suppress(StorageError):
                self._write(turn, CheckpointOutcome.FAILED)

    # -- writing -----------------------------------------------------------------------------------

    def _files(self, turn: _Open) -> list[RecordedFile]:
        out = []
        for key in sorted(turn.originals):  # upstream keeps a BTreeMap: sorted by path
            after = turn.expected.get(key)
            if after is None:
                after = observe_path(key, self.max_file_bytes)
            out.append(RecordedFile(key, turn.originals[key], after))
        return out

    def _checkpoint(self, turn: _Open, outcome: CheckpointOutcome) -> WorkspaceCheckpoint:
        return WorkspaceCheckpoint(
            session_id=turn.session_id,
            node_id=turn.node_id,
            revision=turn.revision,
            started_at=turn.started_at,
            finalized_at=int(self._clock()),
            outcome=outcome,
            files=tuple(
                FileCheckpoint(f.path, f.original, f.expected_after) for f in self._files(turn)
            ),
            limitations=tuple(turn.limitations),
        )

    def _write(self, turn: _Open, outcome: CheckpointOutcome) -> None:
        empty = not turn.originals and not turn.limitations
        if turn.journal is None:
            turn.written_id = None if empty else turn.node_id
            return
        line = b"" if empty else encode_record(self._checkpoint(turn, outcome))
        try:
            _replace_record(
                turn.journal, turn.written_id, turn.node_id, line, self.max_session_bytes
            )
        except OSError as exc:
            raise StorageError(f"{turn.journal}: {exc.strerror or exc}") from None
        turn.written_id = None if empty else turn.node_id


def _ensure_dir(folder: Path) -> None:
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise StorageError(f"checkpoint storage path is not a safe directory: {folder}")
    if os.name == "posix":
        os.chmod(folder, 0o700)


def _replace_record(
    journal: Path, old_id: str | None, node_id: str, line: bytes, quota: int
) -> None:
    """Put ``line`` in place of the record of ``old_id`` (or append it; ``b""`` removes it),
    atomically, under the lock."""
    folder = journal.parent
    _ensure_dir(folder)
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISLNK(os.lstat(journal).st_mode):
            raise StorageError(f"checkpoint journal cannot be a symlink: {journal}")
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(journal, flags, 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        data = b"".join(chunks)
        try:
            current = read_journal_bytes(data, str(journal))
        except Exception as exc:
            raise StorageError(f"the checkpoint journal cannot take a record: {exc}") from None
        kept: list[bytes] = []
        for raw in data[: current.valid_len].split(b"\n")[:-1]:
            record = decode_record(raw)
            if record.node_id == old_id:
                continue
            if record.node_id == node_id:
                raise StorageError(f"workspace checkpoint for node '{node_id}' already exists")
            kept.append(raw + b"\n")
        kept.append(line)
        body = b"".join(kept)
        if len(body) > quota:
            raise StorageError(
                f"checkpoint session quota exceeded: {len(body)} bytes would exceed {quota} bytes"
            )
        temp = folder / f".{journal.name}.rho-desk-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tfd = os.open(
            temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600
        )
        try:
            try:
                write_all(tfd, body)
                os.fsync(tfd)
            finally:
                os.close(tfd)
            os.replace(temp, journal)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise
        fsync_dir(folder)
    finally:
        os.close(fd)  # releases the lock


def changed_files_text(
    turn: RecordedTurn | None, workspace: str | os.PathLike[str] | None = None
) -> str:
    """One sentence naming the files a turn changed, for the message of a failed turn ("" if none)."""
    if turn is None or not turn.changed:
        return ""
    names = []
    for f in turn.changed:
        shown = f.path
        if workspace:
            with contextlib.suppress(ValueError):
                rel = os.path.relpath(f.path, workspace)
                if not rel.startswith(os.pardir):
                    shown = rel
        names.append(f"{shown} ({f.action})")
    where = f"; recorded in {turn.journal}" if turn.journal is not None else ""
    count = f"{len(names)} file" + ("s" if len(names) != 1 else "")
    return f"the turn changed {count}, which stay changed: {', '.join(names)}{where}"
