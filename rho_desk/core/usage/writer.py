"""rho-desk's own requests in Rho's usage ledger: one Rho-shaped row per physical request.

Rho records every provider request it sends in ``<Rho home>/usage.sqlite3``
(``crates/rho/src/usage/``, ``docs/usage-ledger.md``). When rho-desk continues a session, it
is the agent sending those requests, so it records them the same way, or its spend would be
invisible to Rho, to ``rho-desk usage`` and to the Usage window.

How a row is written, as Rho's ``SqliteUsageRecorder`` and ``OwnerOnlySqlite`` write it:

* the file is created (if missing) with mode 0600 in an existing Rho home, never anywhere else;
* each write opens a short-lived connection (5 s busy timeout, ``synchronous = NORMAL``, a
  512 KiB page cache), so rho-desk and any number of Rho processes write side by side;
* the first open switches the file to WAL and migrates it inside ``BEGIN IMMEDIATE`` (the
  version is read after the write lock is taken, so two processes never both create the
  table); a ledger whose ``user_version`` is newer than :data:`~.ledger.SUPPORTED_LEDGER_VERSION`
  is refused and left untouched;
* each row is one ``INSERT OR IGNORE`` inside ``BEGIN IMMEDIATE``: all of it is there after
  the commit, or none of it (SQLite's journal), and ``event_id`` keeps a retried write from
  counting twice;
* the ``-wal`` and ``-shm`` side files are made 0600 before and after.

What a row holds is upstream's: ``schema_version`` 1, ``occurred_at_ms`` UTC milliseconds, the
session, parent session and run ids, the 1-based step and attempt, the workspace, the provider
and model identity, ``purpose`` (``agent``, ``compaction``), ``request_outcome``
(``completed``, ``failed``, ``cancelled``), the token counts the server reported (``NULL``
where it reported none, never recomputed) and ``cost_usd_micros`` only where a price is known:
reported by the server, or given by the profile's prices. ``rho_version`` is
``rho-desk/<version>`` so a reader can tell rho-desk's rows from Rho's. Never a prompt, a
reply, a tool argument or a key.

A recorder's failure never stops a turn: the engine keeps it as a bounded diagnostic
(:class:`UsageRecording`) and the front ends say once that spend could not be recorded.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal, Protocol

import msgspec

from ... import __version__
from ..errors import StorageError
from ..wire.ids import new_id
from ..wire.model import ModelUsage
from ._schema import BUSY_TIMEOUT_S, LEDGER_FILE, MIGRATION_1, SUPPORTED_LEDGER_VERSION

if TYPE_CHECKING:
    import sqlite3

__all__ = [
    "EVENT_SCHEMA_VERSION",
    "WRITER_VERSION",
    "LedgerWriter",
    "RequestOutcome",
    "RequestUsage",
    "UsageRecorder",
    "UsageRecording",
    "ledger_for_session",
    "recording_for_session",
]

EVENT_SCHEMA_VERSION: Final = 1
"""The semantics version of each row (upstream's ``EVENT_SCHEMA_VERSION``)."""
WRITER_VERSION: Final = f"rho-desk/{__version__}"
"""What rho-desk writes as ``rho_version``."""
SQLITE_MAX: Final = 2**63 - 1

RequestOutcome = Literal["completed", "failed", "cancelled"]

_INSERT: Final = """INSERT OR IGNORE INTO usage_events (
    event_id, schema_version, occurred_at_ms, session_id, parent_session_id,
    run_id, step_index, attempt_index, workspace_path, provider, model,
    purpose, request_outcome, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, total_tokens, cost_usd_micros, rho_version
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""

MAX_DIAGNOSTICS: Final = 16
MAX_DIAGNOSTIC_CHARS: Final = 1024


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class RequestUsage(msgspec.Struct, frozen=True):
    """One physical provider request, as the ledger records it (upstream's ``UsageEvent``)."""

    provider: str
    model: str
    purpose: str
    """``agent`` (a continued turn), ``compaction`` (a summary request), or another open string."""
    outcome: RequestOutcome
    usage: ModelUsage
    """What the server reported (plus the cost the profile's prices give); ``context_window``
    is not stored."""
    session_id: str | None = None
    parent_session_id: str | None = None
    run_id: str | None = None
    step_index: int | None = None
    """1-based model step of the run."""
    attempt_index: int | None = None
    """1-based physical request within the step (retries count)."""
    workspace_path: str | None = None
    event_id: str = msgspec.field(default_factory=new_id)
    occurred_at_ms: int = msgspec.field(default_factory=_now_ms)


class UsageRecorder(Protocol):
    """Where the engine reports each physical request. ``record`` may block (it runs in a
    worker thread) and may raise: the error becomes a diagnostic, the run goes on."""

    def record(self, event: RequestUsage) -> None: ...


class UsageRecording:
    """A recorder and the bounded diagnostics of its failures (spec/engine.md §16.3: at most 16,
    each cut to 1,024 characters, the oldest dropped)."""

    def __init__(self, recorder: UsageRecorder) -> None:
        self.recorder = recorder
        self._diagnostics: collections.deque[str] = collections.deque(maxlen=MAX_DIAGNOSTICS)
        self._lock = threading.Lock()
        self.on_failure: Callable[[str], None] | None = None
        """Called (from the recording thread) with each failure's text."""

    def record(self, event: RequestUsage) -> None:
        """Record ``event``; a failure is kept as a diagnostic and never raised."""
        try:
            self.recorder.record(event)
        except Exception as exc:  # accounting never fails a turn
            text = (
                exc.text() if isinstance(exc, StorageError) else f"{type(exc).__name__}: {exc}"
            )[:MAX_DIAGNOSTIC_CHARS]
            with self._lock:
                self._diagnostics.append(text)
            if self.on_failure is not None:
                with contextlib.suppress(Exception):
                    self.on_failure(text)

    @property
    def diagnostics(self) -> list[str]:
        with self._lock:
            return list(self._diagnostics)


def _column(name: str, value: int | None) -> int | None:
    if value is not None and value > SQLITE_MAX:
        raise StorageError(
            f"usage field {name} value {value} exceeds SQLite's signed integer range"
        )
    return value


class LedgerWriter:
    """Appends rows to one ledger file, as Rho does (see the module docstring).

    Args:
        path: the ledger, ``<Rho home>/usage.sqlite3``. Its folder must exist: rho-desk records
            only into a Rho home that is there.
        workspace: the workspace of rows that name none (a manual compaction's).
    """

    def __init__(self, path: Path, *, workspace: str | None = None) -> None:
        self.path = Path(path)
        self.workspace = workspace
        self._ready = False
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LedgerWriter({str(self.path)!r})"

    def record(self, event: RequestUsage) -> None:
        """Insert ``event`` (a second insert of the same ``event_id`` does nothing).

        Raises:
            LedgerTooNew: the ledger's schema is newer than this rho-desk writes (untouched).
            StorageError: the folder is missing, the file cannot be written, or it stayed locked
                longer than the busy timeout.
        """
        usage = event.usage
        values = (
            event.event_id,
            EVENT_SCHEMA_VERSION,
            event.occurred_at_ms,
            event.session_id,
            event.parent_session_id,
            event.run_id,
            _column("step_index", event.step_index),
            _column("attempt_index", event.attempt_index),
            event.workspace_path or self.workspace,
            event.provider,
            event.model,
            event.purpose,
            event.outcome,
            _column("input_tokens", usage.input_tokens),
            _column("output_tokens", usage.output_tokens),
            _column("cache_read_tokens", usage.cache_read_tokens),
            _column("cache_write_tokens", usage.cache_write_tokens),
            _column("total_tokens", usage.total_tokens),
            _column("cost_usd_micros", usage.cost_usd_micros),
            WRITER_VERSION,
        )
        with self._lock:
            if not self._ready:
                self._retrying(self._initialize)
                self._ready = True
            self._retrying(lambda: self._insert(values))

    # -- as upstream's OwnerOnlySqlite ---------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        import sqlite3

        uri = f"{self.path.absolute().as_uri()}?mode=rw"
        db = sqlite3.connect(
            uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        try:
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA cache_size = -512")
        except BaseException:
            db.close()
            raise
        return db

    def _initialize(self) -> None:
        from .ledger import LedgerTooNew

        folder = self.path.parent
        if not folder.is_dir():
            raise StorageError(
                f"{folder}: no such Rho home; the request was not recorded in a usage ledger"
            )
        if self.path.is_symlink():
            raise StorageError(
                f"{self.path}: the usage ledger is a symbolic link; nothing was recorded"
            )
        try:
            fd = os.open(
                self.path,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                0o600,
            )
            os.close(fd)
        except FileExistsError:
            pass
        self._private(self.path)
        db = self._connect()
        try:
            db.execute("PRAGMA journal_mode = WAL")
            self._private_sidecars()
            db.execute("BEGIN IMMEDIATE")
            try:
                # read after the write lock: two processes may both have seen an empty file
                version = int(db.execute("PRAGMA user_version").fetchone()[0])
                if version > SUPPORTED_LEDGER_VERSION:
                    raise LedgerTooNew(self.path, version)
                if version < 1:
                    for statement in MIGRATION_1.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute("PRAGMA user_version = 1")
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._private_sidecars()
        finally:
            db.close()

    def _insert(self, values: tuple[object, ...]) -> None:
        db = self._connect()
        try:
            self._private_sidecars()
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(_INSERT, values)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            self._private_sidecars()
        finally:
            db.close()

    def _retrying(self, action: Callable[[], None]) -> None:
        """Run ``action``, retried every 10 ms for up to the busy timeout while SQLite reports
        the file busy or locked (upstream's open loop); SQLite errors become ``StorageError``."""
        import sqlite3

        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                action()
                return
            except sqlite3.OperationalError as exc:
                text = str(exc)
                contended = "locked" in text or "busy" in text
                if contended and time.monotonic() < deadline:
                    time.sleep(0.01)
                    continue
                if contended:
                    raise StorageError(
                        f"{self.path}: the usage ledger stayed locked for {BUSY_TIMEOUT_S:.0f} s"
                    ) from exc
                raise StorageError(f"{self.path}: cannot write the usage ledger ({text})") from exc
            except sqlite3.DatabaseError as exc:
                raise StorageError(f"{self.path}: not a usage ledger ({exc})") from exc
            except OSError as exc:
                raise StorageError(
                    f"{self.path}: cannot write the usage ledger ({exc.strerror or exc})"
                ) from exc

    def _private_sidecars(self) -> None:
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                self._private(Path(f"{self.path}{suffix}"))

    @staticmethod
    def _private(path: Path) -> None:
        if os.name == "posix" and not path.is_symlink():
            os.chmod(path, 0o600)


_WORKSPACE_KEY: Final = re.compile(r".*-[0-9a-f]{16}")
"""A workspace folder's name in ``sessions/`` (``layout.workspace_key``)."""


def ledger_for_session(transcript: Path | None, fallback_home: Path | None = None) -> Path | None:
    """The ledger a session's requests belong in: ``usage.sqlite3`` of the Rho home whose
    ``sessions/<workspace key>/`` holds ``transcript``; else ``fallback_home``'s (Rho records
    into its own home, wherever the session lives) when that folder exists; else ``None``."""
    if transcript is not None:
        path = Path(transcript).absolute()
        for below, parent in zip(path.parents, path.parents[1:], strict=False):
            if parent.name == "sessions" and _WORKSPACE_KEY.fullmatch(below.name):
                return parent.parent / LEDGER_FILE
    if fallback_home is not None and Path(fallback_home).is_dir():
        return Path(fallback_home) / LEDGER_FILE
    return None


def recording_for_session(
    transcript: Path | None, *, workspace: str | None = None, fallback_home: Path | None = None
) -> UsageRecording | None:
    """A recording into the ledger of ``transcript``'s Rho home (see :func:`ledger_for_session`;
    the fallback defaults to Rho's own home, ``$RHO_HOME`` or ``~/.rho``), with ``workspace``
    for rows that name none; ``None`` when there is no home to record in."""
    if fallback_home is None:
        from ..errors import InputError
        from ..stores.rho_files.layout import rho_home

        with contextlib.suppress(InputError):
            fallback_home = rho_home()
    path = ledger_for_session(transcript, fallback_home)
    return None if path is None else UsageRecording(LedgerWriter(path, workspace=workspace))
