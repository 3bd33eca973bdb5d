"""Rho's usage ledger, ``<Rho home>/usage.sqlite3``, opened read-only while Rho may be writing.

Upstream (``crates/rho/src/usage/``, ``docs/usage-ledger.md``) writes one immutable row per
physical provider request into ``usage_events``, in WAL mode with a 5 s busy timeout, from many
processes at once. ``PRAGMA user_version`` versions the schema (1 today); readers must ignore
columns they do not know and refuse a newer version. We never write the file, nor anything
beside it, and read it correctly while Rho writes:

* Rho writes each row through a short-lived connection, so its ``-wal`` and ``-shm`` side files
  exist only while a write is under way. When both exist, the ledger is attached as Rho's own
  reader opens it (``mode=ro``): SQLite's locks give every read one consistent snapshot, and
  nothing is created. (Rho's reader does the same on a quiet ledger too, and so leaves side files
  behind; we do not.)
* Otherwise it is attached ``immutable=1``: SQLite opens no side file and takes no lock. Every
  read is then checked against the file's stamp (device, inode, size, times, and no ``-wal``):
  a write that began meanwhile changes it, and the read is done again (from one snapshot, the
  side files then existing). A roll-up refresh checks it before its commit. Committed rows still
  in a ``-wal`` that a crashed writer left without its ``-shm`` are not seen until Rho next opens
  the ledger.
* The ledger is a regular file: a symbolic link (to any other SQLite file) is refused, and a
  database without Rho's ``usage_events`` table is "not a usage ledger" (only a database with
  no table at all, as Rho leaves it for a moment before its first migration, is an empty one).
* Every statement waits up to 5 s on a busy database, and a ledger of a newer ``user_version``
  raises :class:`LedgerTooNew` before anything else is read.

:class:`UsageLedger` owns one connection: rho-desk's roll-up cache (``rollup``), or an
in-memory database when there is none, with the ledger attached as ``ledger``. Reports read
the roll-up; a session's own requests come from the ledger through its session index.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVar

from ..errors import InputError, KnownError, StorageError
from ._schema import (
    BUSY_TIMEOUT_S,
    LEDGER_FILE,
    REQUIRED_COLUMNS,
    SUPPORTED_LEDGER_VERSION,
    LedgerChanged,
)

__all__ = [
    "BUSY_TIMEOUT_S",
    "LEDGER_FILE",
    "SUPPORTED_LEDGER_VERSION",
    "LedgerChanged",
    "LedgerRequest",
    "LedgerTooNew",
    "UsageLedger",
    "ledger_path",
]

_EMPTY_V1: Final = """
CREATE TABLE ledger.usage_events (
    event_id TEXT PRIMARY KEY, schema_version INTEGER NOT NULL, occurred_at_ms INTEGER NOT NULL,
    session_id TEXT, parent_session_id TEXT, run_id TEXT, step_index INTEGER, attempt_index INTEGER,
    workspace_path TEXT, provider TEXT NOT NULL, model TEXT NOT NULL, purpose TEXT NOT NULL,
    request_outcome TEXT NOT NULL, input_tokens INTEGER, output_tokens INTEGER,
    cache_read_tokens INTEGER, cache_write_tokens INTEGER, total_tokens INTEGER,
    cost_usd_micros INTEGER, rho_version TEXT
);
CREATE INDEX ledger.usage_events_session ON usage_events (session_id, occurred_at_ms);
"""


CATCH_UP_SHARE: Final = 0.45
"""While the roll-up is behind, closing the ledger spends at most this share of the time its
reports took folding more of the ledger in (``benchmarks/bench_usage.py`` holds a first look to
1.5 plain scans)."""
CATCH_UP_ROWS: Final = 8_192
"""Rows folded per transaction while catching up (a few hundredths of a second each)."""


_T = TypeVar("_T")


def ledger_path(home: Path) -> Path:
    """Where Rho keeps the ledger of ``home`` (``$RHO_HOME/usage.sqlite3``)."""
    return home / LEDGER_FILE


class LedgerTooNew(InputError):
    """The ledger's ``user_version`` is newer than this rho-desk reads; it is left untouched."""

    def __init__(self, path: Path, found: int) -> None:
        self.found = found
        super().__init__(
            f"usage ledger schema version {found} is newer than supported version "
            f"{SUPPORTED_LEDGER_VERSION}; update rho-desk to read it (the file was not changed)",
            source=str(path),
        )


@dataclass(frozen=True, slots=True)
class LedgerRequest:
    """One row of ``usage_events``: one provider request. Every token and cost field is ``None``
    when the provider did not report it (distinct from zero)."""

    event_id: str
    occurred_at_ms: int
    """UTC Unix time in milliseconds."""
    session_id: str | None
    parent_session_id: str | None
    run_id: str | None
    step_index: int | None
    attempt_index: int | None
    workspace_path: str | None
    provider: str
    model: str
    purpose: str
    """Why the model was called: ``agent``, ``subagent``, ``compaction``, ``title``, ``goal``,
    ``advisor``, or another open string."""
    outcome: str
    """``completed``, ``failed`` or ``cancelled``."""
    input_tokens: int | None
    """Uncached input tokens."""
    output_tokens: int | None
    cache_read_tokens: int | None
    cache_write_tokens: int | None
    total_tokens: int | None
    """As the provider reported it; never recomputed."""
    cost_usd_micros: int | None
    rho_version: str | None

    @property
    def tokens(self) -> int | None:
        """The request's total tokens as the reports count them: the provider's total where it
        reported one, else the sum of the parts it reported (``rollup.TOTAL``)."""
        if self.total_tokens is not None:
            return self.total_tokens
        parts = [
            n
            for n in (
                self.input_tokens,
                self.output_tokens,
                self.cache_read_tokens,
                self.cache_write_tokens,
            )
            if n is not None
        ]
        return sum(parts) if parts else None

    @property
    def prompt_tokens(self) -> int | None:
        """The request's whole prompt: uncached input plus cache reads and writes (the parts the
        provider reported), or ``None`` when it reported none of them."""
        parts = [
            n
            for n in (self.input_tokens, self.cache_read_tokens, self.cache_write_tokens)
            if n is not None
        ]
        return sum(parts) if parts else None


_ROW_SQL: Final = (
    "SELECT event_id, occurred_at_ms, session_id, parent_session_id, run_id, step_index, attempt_index, "
    "workspace_path, provider, model, purpose, request_outcome, input_tokens, output_tokens, "
    "cache_read_tokens, cache_write_tokens, total_tokens, cost_usd_micros, rho_version "
    "FROM ledger.usage_events"
)


def ledger_uri(path: Path, *, live: bool) -> str:
    """A read-only SQLite URI for ``path`` (percent-encoded: any file name works): ``mode=ro``
    while a writer's side files exist (``live``), else ``immutable=1`` too (see the module)."""
    uri = f"{path.absolute().as_uri()}?mode=ro"
    return uri if live else f"{uri}&immutable=1"


def _side_files(path: Path) -> tuple[Path, Path]:
    return path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")


def _stamp(path: Path) -> tuple[object, ...]:
    """What changes when anyone writes the ledger: its identity, size and times, and its ``-wal``."""
    try:
        info = os.stat(path)
    except OSError:
        return ("missing",)
    wal = _side_files(path)[0]
    return (
        info.st_dev,
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        wal.exists(),
    )


_RETRIES: Final = 8


class UsageLedger:
    """One open ledger (read-only) and the connection its reports run on.

    Args:
        path: the ledger file.
        cache_dir: where rho-desk keeps its roll-up of this ledger (default: ``usage/`` in the
            cache folder, ``$RHO_DESK_CACHE_DIR`` or the platform's); ``False``: no roll-up,
            every report scans the ledger itself.

    Raises:
        InputError: no such file, not a SQLite database, or not a usage ledger.
        LedgerTooNew: its ``user_version`` is newer than :data:`SUPPORTED_LEDGER_VERSION`.
        StorageError: the file stayed locked longer than the busy timeout.
    """

    def __init__(self, path: Path, *, cache_dir: Path | bool | None = None) -> None:
        from . import rollup

        self.path = Path(path)
        if self.path.is_symlink():
            raise InputError(
                "not a usage ledger: a symbolic link (Rho's ledger is a file of its own)",
                source=str(self.path),
            )
        if not self.path.is_file():
            raise InputError(
                "no usage ledger here (Rho writes one from its first model request)",
                source=str(self.path),
            )
        self._live = False
        self._seen: tuple[object, ...] = ()
        self._attached = False
        self._lock = threading.RLock()
        self.version = 0
        self.rollup_path: Path | None = None
        self.complete = False
        """The roll-up covers the whole ledger (while it catches up, reports scan the ledger)."""
        self._reading = 0.0
        """Seconds spent in queries (what a catch-up's time is measured against)."""
        connection: sqlite3.Connection | None = None
        if cache_dir is not False:
            target = rollup.rollup_file(
                self.path, None if cache_dir is None or cache_dir is True else Path(cache_dir)
            )
            connection = rollup.open_rollup(target)
            if connection is not None:
                self.rollup_path = target
        if connection is None:
            connection = sqlite3.connect(
                ":memory:", uri=True, check_same_thread=False, isolation_level=None
            )
            connection.execute("PRAGMA temp_store = MEMORY")
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        self._db = connection
        try:
            self.version = self._read(self._check_schema)
            if self.rollup_path is not None:
                self.complete = self._read(
                    lambda: rollup.refresh(connection, eager=True, unchanged=self._unchanged)
                )
        except BaseException:
            connection.close()
            raise

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Close the ledger; a roll-up still behind is first brought closer (see :meth:`catch_up`)."""
        with self._lock:
            try:
                self.catch_up(CATCH_UP_SHARE * self._reading)
            except KnownError:
                pass  # the roll-up is a cache: it catches up next time
            finally:
                self._db.close()

    def catch_up(self, seconds: float) -> bool:
        """Fold ledger rows into a roll-up that is behind, for at most about ``seconds`` (one
        batch at least); whether it covers the whole ledger now. A first look at a big ledger
        reads the ledger itself and builds the roll-up a part per look, so that no look costs
        much more than a plain scan (``docs/usage.md``, "Speed")."""
        from . import rollup

        if self.rollup_path is None or self.complete:
            return self.complete
        started = time.perf_counter()
        with self._lock:
            while not self.complete:
                before = time.perf_counter()
                self.complete = self._read(
                    lambda: rollup.refresh(self._db, limit=CATCH_UP_ROWS, unchanged=self._unchanged)
                )
                now = time.perf_counter()
                if now + (now - before) > started + seconds:  # the next batch would not fit
                    break
        return self.complete

    def __enter__(self) -> UsageLedger:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @property
    def cached(self) -> bool:
        """Reports read rho-desk's roll-up (else they scan the ledger)."""
        return self.rollup_path is not None and self.complete

    def refresh(self) -> None:
        """Fold the rows Rho wrote since the last look into the roll-up (no-op without one)."""
        from . import rollup

        if self.rollup_path is None:
            return
        with self._lock:
            self.complete = self._read(
                lambda: rollup.refresh(self._db, eager=True, unchanged=self._unchanged)
            )

    def refresh_prices(self) -> None:
        """Fold the price-fit sums up to what the roll-up holds (before reading ``main.moments``)."""
        from . import rollup

        if self.cached:
            with self._lock:
                self._read(lambda: rollup.refresh_moments(self._db, unchanged=self._unchanged))

    @property
    def source(self) -> str:
        """SQL for the relation the reports aggregate (columns of ``rollup.ROLLUP_COLUMNS``)."""
        from . import rollup

        return "main.rollup" if self.cached else rollup.RAW_SOURCE

    # -- queries -----------------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        """Run one read-only statement (the ledger attached as ``ledger``) and fetch all rows."""
        with self._lock:
            started = time.perf_counter()
            try:
                return self._read(lambda: self._db.execute(sql, tuple(params)).fetchall())
            finally:
                self._reading += time.perf_counter() - started

    def session_requests(self, session_id: str, *, children: bool = True) -> list[LedgerRequest]:
        """Every request of a session, oldest first; with ``children``, also those of the
        sessions it started (subagents: rows whose ``parent_session_id`` is this session)."""
        ids = [session_id]
        if children:
            ids += self.child_sessions(session_id)
        marks = ",".join("?" * len(ids))
        rows = self.query(
            f"{_ROW_SQL} WHERE session_id IN ({marks}) ORDER BY occurred_at_ms, rowid", ids
        )
        return [LedgerRequest(*row) for row in rows]  # type: ignore[arg-type]

    def child_sessions(self, session_id: str) -> list[str]:
        """Sessions whose requests name ``session_id`` as their parent."""
        if self.cached:
            sql = "SELECT DISTINCT session_id FROM main.rollup WHERE parent_session_id = ? AND session_id NOT IN ('', ?)"
        else:
            sql = (
                "SELECT DISTINCT session_id FROM ledger.usage_events WHERE parent_session_id = ? "
                "AND session_id IS NOT NULL AND session_id != ?"
            )
        return sorted(str(row[0]) for row in self.query(sql, (session_id, session_id)))

    def requests(self, where: str = "", params: Sequence[object] = ()) -> Iterator[LedgerRequest]:
        """Rows matching a ``WHERE`` clause over ``usage_events`` (oldest first)."""
        sql = f"{_ROW_SQL} {('WHERE ' + where) if where else ''} ORDER BY occurred_at_ms, rowid"
        for row in self.query(sql, params):
            yield LedgerRequest(*row)  # type: ignore[arg-type]

    # -- internals ---------------------------------------------------------------------------

    def _attach(self) -> None:
        """(Re)attach the ledger the way that creates nothing beside it (see the module)."""
        if self._attached:
            self._db.execute("DETACH DATABASE ledger")
            self._attached = False
        wal, shm = _side_files(self.path)
        self._seen = _stamp(self.path)
        self._live = wal.exists() and shm.exists()
        self._db.execute("ATTACH DATABASE ? AS ledger", (ledger_uri(self.path, live=self._live),))
        self._attached = True

    def _unchanged(self) -> bool:
        """Whether what was read of an ``immutable`` attachment is still the ledger's content."""
        return self._live or _stamp(self.path) == self._seen

    def _read(self, read: Callable[[], _T]) -> _T:
        """``read()``, done again on a fresh attachment when a write began meanwhile."""
        for _attempt in range(_RETRIES):
            with self._errors():
                if not self._attached or not self._unchanged():
                    self._attach()
                try:
                    result = read()
                except (sqlite3.DatabaseError, LedgerChanged):
                    if self._unchanged():
                        raise
                    continue  # a torn read of a file being written: read it again
            if self._unchanged():
                return result
        raise StorageError(
            f"{self.path}: the usage ledger kept changing while it was read; try again"
        )

    def _check_schema(self) -> int:
        db = self._db
        version = int(db.execute("PRAGMA ledger.user_version").fetchone()[0])
        if version > SUPPORTED_LEDGER_VERSION:
            raise LedgerTooNew(self.path, version)
        columns = {str(row[1]) for row in db.execute("PRAGMA ledger.table_info(usage_events)")}
        if not columns:
            tables = db.execute("SELECT count(*) FROM ledger.sqlite_master").fetchone()[0]
            if (
                version == 0 and not tables
            ):  # created, not yet migrated (a moment in Rho's first open): empty
                db.execute("DETACH DATABASE ledger")
                db.execute("ATTACH DATABASE ':memory:' AS ledger")
                db.executescript(_EMPTY_V1)
                self._live = True  # nothing of the file is read any more
                return 0
            raise InputError(
                f"not a usage ledger: no usage_events table (user_version {version})",
                source=str(self.path),
            )
        missing = [c for c in REQUIRED_COLUMNS if c not in columns]
        if missing:
            raise InputError(
                f"not a usage ledger: usage_events has no column {', '.join(missing)}",
                source=str(self.path),
            )
        return version

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as exc:
            text = str(exc)
            if "locked" in text or "busy" in text:
                raise StorageError(
                    f"{self.path}: the usage ledger stayed locked for {BUSY_TIMEOUT_S:.0f} s"
                ) from exc
            if "unable to open" in text:
                raise InputError(
                    f"cannot open the usage ledger ({text})", source=str(self.path)
                ) from exc
            raise InputError(
                f"cannot read the usage ledger ({text})", source=str(self.path)
            ) from exc
        except sqlite3.DatabaseError as exc:
            raise InputError(f"not a usage ledger ({exc})", source=str(self.path)) from exc
