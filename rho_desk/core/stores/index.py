"""Rho's session index ``sessions/index.sqlite3``: open, migrate, read, upsert, titles, sync.

The file belongs to Rho (storage.md §10). rho-desk treats it exactly as Rho does:

* migration follows §10.3 to the letter, in one transaction, and never raises ``user_version``
  above 2; a database that is already current is only read (no write transaction at all);
* rows are written as Rho writes them (§10.4 upsert: every column from a fresh summary, except
  ``title``, which becomes ``coalesce(existing, new)``), ``file_size``/``file_mtime`` from ``stat``;
* titles are read and written only in ``sessions.title`` (trimmed, never empty);
* a **newer** (``user_version`` > 2), **corrupt** or **malformed** index is never written: opening
  it raises a typed :class:`IndexUnavailable` and callers fall back to scanning the files;
  :func:`salvage_titles` still reads whatever titles it can, read-only;
* every connection has a short busy timeout (250 ms by default). When Rho holds the database
  we raise :class:`IndexBusy` instead of waiting, and callers fall back to scanning.

Nothing here adds a table or a column to Rho's file: rho-desk's extra per-session facts (provider,
model, compaction count, full text) live in its own cache (``search.py``).
"""

from __future__ import annotations

import contextlib
import enum
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import InputError, StorageError
from ._sqlite import transaction
from .summary import SessionSummary

__all__ = [
    "DEFAULT_BUSY_TIMEOUT",
    "INDEX_FILE_NAME",
    "SCHEMA_VERSION",
    "IndexBusy",
    "IndexCorrupt",
    "IndexMalformed",
    "IndexState",
    "IndexTooNew",
    "IndexUnavailable",
    "IndexUnwritable",
    "MigrationReport",
    "RhoIndex",
    "SeenUnit",
    "SyncOutcome",
    "record_session",
    "row_belongs",
    "row_is_current",
    "salvage_titles",
    "sessions_root_of",
    "stat_transcript",
]

INDEX_FILE_NAME = "index.sqlite3"
SCHEMA_VERSION = 2
"""The highest ``user_version`` Rho (and therefore rho-desk) understands. Never write more."""
DEFAULT_BUSY_TIMEOUT = 0.25
"""Seconds a statement may wait for Rho's lock before we give up and scan files instead."""

V0_COLUMNS = (
    "workspace_key",
    "cwd",
    "id",
    "path",
    "created_at",
    "updated_at",
    "message_count",
    "last_user_message",
    "file_size",
    "file_mtime",
)
COLUMNS = (
    "workspace_key",
    "cwd",
    "id",
    "path",
    "created_at",
    "updated_at",
    "message_count",
    "title",
    "first_user_message",
    "last_user_message",
    "file_size",
    "file_mtime",
    "node_count",
    "branch_count",
    "active_leaf_id",
    "effective_format_version",
)
"""All 16 schema-2 columns, in the order of a freshly created table. Migrated tables have a
different physical order, so every statement names its columns."""

_CREATE_TABLE = """
create table if not exists sessions (
    workspace_key text not null,
    cwd text not null,
    id text not null,
    path text not null,
    created_at integer not null,
    updated_at integer not null,
    message_count integer not null default 0,
    title text,
    first_user_message text,
    last_user_message text,
    file_size integer,
    file_mtime integer,
    node_count integer not null default 0,
    branch_count integer not null default 0,
    active_leaf_id text,
    effective_format_version integer not null default 1,
    primary key (workspace_key, id)
)"""
# Column definitions added by ALTER TABLE during migration (§10.3 steps 3 and 4).
_V1_ADDITIONS = (("title", "title text"), ("first_user_message", "first_user_message text"))
_V2_ADDITIONS = (
    ("node_count", "node_count integer not null default 0"),
    ("branch_count", "branch_count integer not null default 0"),
    ("active_leaf_id", "active_leaf_id text"),
    ("effective_format_version", "effective_format_version integer not null default 1"),
)
_INDEXES = (
    (
        "sessions_workspace_updated_idx",
        "create index if not exists sessions_workspace_updated_idx"
        " on sessions(workspace_key, updated_at desc)",
    ),
    (
        "sessions_workspace_id_idx",
        "create index if not exists sessions_workspace_id_idx on sessions(workspace_key, id)",
    ),
)

_SELECT_ROWS = f"select {', '.join(COLUMNS)} from sessions"
_UPSERT = (
    f"insert into sessions ({', '.join(COLUMNS)}) values ({', '.join('?' * len(COLUMNS))})"
    " on conflict(workspace_key, id) do update set "
    + ", ".join(
        "title = coalesce(sessions.title, excluded.title)"
        if column == "title"
        else f"{column} = excluded.{column}"
        for column in COLUMNS
        if column not in ("workspace_key", "id")
    )
)


class IndexState(enum.Enum):
    """What rho-desk could do with Rho's index file on its last attempt."""

    OK = "ok"
    """Opened (and migrated if needed); read and written normally."""
    CREATED = "created"
    """There was none; we created it as Rho would (schema 2, mode 0600)."""
    MISSING = "missing"
    """There is none and we did not create one (no sessions folder yet)."""
    BUSY = "busy"
    """Rho held the database past our busy timeout; files were scanned instead."""
    CORRUPT = "corrupt"
    """Not a readable SQLite database; never written by us."""
    NEWER = "newer"
    """``user_version`` above 2 (a newer Rho); never written by us."""
    MALFORMED = "malformed"
    """A ``sessions`` table without the columns Rho requires; never written by us."""
    UNWRITABLE = "unwritable"
    """The file or folder cannot be opened for writing (permissions, read-only disk, I/O)."""

    @property
    def usable(self) -> bool:
        return self in (IndexState.OK, IndexState.CREATED)


class IndexUnavailable(StorageError):
    """Rho's index cannot be used right now; callers list from the files instead.

    Attributes:
        path: the index file.
        state: why (:class:`IndexState`).
        detail: SQLite's or the migration's own words.
    """

    state = IndexState.UNWRITABLE

    def __init__(self, path: Path, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(f"{path}: {self.headline}: {detail}")

    @property
    def headline(self) -> str:
        return {
            IndexState.BUSY: "session index is busy (Rho holds it)",
            IndexState.CORRUPT: "session index is corrupt",
            IndexState.NEWER: "session index is from a newer Rho",
            IndexState.MALFORMED: "session index schema is malformed",
        }.get(self.state, "session index is not usable")


class IndexBusy(IndexUnavailable):
    """Rho held a lock on the index for longer than our busy timeout."""

    state = IndexState.BUSY


class IndexCorrupt(IndexUnavailable):
    """The file is not a readable SQLite database (or SQLite reports corruption)."""

    state = IndexState.CORRUPT


class IndexTooNew(IndexUnavailable):
    """``user_version`` is above 2: written by a newer Rho; we neither migrate nor write it."""

    state = IndexState.NEWER


class IndexMalformed(IndexUnavailable):
    """The ``sessions`` table lacks columns Rho requires (§10.3 steps 2 and 6)."""

    state = IndexState.MALFORMED


class IndexUnwritable(IndexUnavailable):
    """The index (or its folder) cannot be opened or written: permissions, read-only disk, I/O."""

    state = IndexState.UNWRITABLE


def _classify(path: Path, exc: sqlite3.Error) -> IndexUnavailable:
    """Turn an sqlite3 exception into the matching typed error (by SQLite's primary code)."""
    code = getattr(exc, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    text = str(exc)
    if primary in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text:
        return IndexBusy(path, text)
    if primary in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or "not a database" in text:
        return IndexCorrupt(path, text)
    return IndexUnwritable(path, text)


@dataclass(frozen=True, slots=True)
class MigrationReport:
    """What opening the index did to it (empty when it was already current)."""

    from_version: int
    added_columns: tuple[str, ...] = ()
    created_table: bool = False
    created_indexes: tuple[str, ...] = ()
    nulled_file_size: int = 0
    """Rows whose ``file_size`` was set to NULL (step 5), forcing Rho to re-summarise them."""

    @property
    def changed(self) -> bool:
        return self.from_version != SCHEMA_VERSION or bool(
            self.added_columns or self.created_table or self.created_indexes
        )


@dataclass(frozen=True, slots=True)
class SeenUnit:
    """A session unit found on disk whose header cwd hashes to its folder (§10.6 step 2).

    ``file_size``/``file_mtime`` are the transcript's stat *now*; ``cwd`` is its header cwd.
    """

    workspace_key: str
    id: str
    transcript: Path
    cwd: str
    file_size: int
    file_mtime: int


@dataclass(slots=True)
class SyncOutcome:
    """What one §10.6 reconciliation wrote to Rho's index."""

    upserted: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[tuple[str, str]] = field(default_factory=list)
    skipped_changed: list[tuple[str, str]] = field(default_factory=list)
    """Refreshed summaries dropped because the file changed (or the row became current)
    while we were summarising; the next sync picks them up."""
    spared: list[tuple[str, str]] = field(default_factory=list)
    """Stale rows kept because they changed meanwhile or their unit reappeared."""


def stat_transcript(path: Path) -> tuple[int, int, int] | None:
    """``(size, whole-second mtime, mtime_ns)`` of ``path`` as Rho stores them, or ``None``.

    Rho truncates the mtime to whole seconds and clamps it to signed 64 bits (§10.5).
    """
    try:
        st = os.stat(path)
    except OSError:
        return None
    seconds = st.st_mtime_ns // 1_000_000_000
    seconds = max(min(seconds, 2**63 - 1), -(2**63))
    return st.st_size, seconds, st.st_mtime_ns


def row_belongs(row: SessionSummary, sessions_root: Path, key_of: Callable[[str], str]) -> bool:
    """Hashing the row's cwd gives its key, and its path lies under ``sessions/<key>/``."""
    if key_of(row.cwd) != row.workspace_key:
        return False
    # A string prefix test (paths are absolute and built by joining): a Path comparison per row
    # was half the cost of a no-op sync over 10,000 sessions.
    return row.path.startswith(os.path.join(sessions_root, row.workspace_key, ""))


def row_is_current(
    row: SessionSummary, unit: SeenUnit, sessions_root: Path, key_of: Callable[[str], str]
) -> bool:
    """§10.6: does ``row`` still describe ``unit``'s transcript (no re-summarising needed)?"""
    return (
        row.path == str(unit.transcript)
        and row.file_size == unit.file_size
        and row.file_mtime == unit.file_mtime
        and (row.message_count == 0 or row.first_user_message is not None)
        and row.cwd == unit.cwd
        and row_belongs(row, sessions_root, key_of)
    )


def _row_values(summary: SessionSummary) -> tuple[object, ...]:
    return tuple(getattr(summary, column) for column in COLUMNS)


def _summary_from_row(values: tuple[object, ...]) -> SessionSummary:
    data = dict(zip(COLUMNS, values, strict=True))
    # Rho treats '' as "no title" (§10.2); so do we, everywhere.
    if data["title"] == "":
        data["title"] = None
    return SessionSummary(**data)  # type: ignore[arg-type]


def _connect(path: Path, *, mode: str, busy_timeout: float) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, so a migration really is one
    # transaction and nothing is left open between calls (an idle connection holds no lock).
    uri = f"{path.absolute().as_uri()}?mode={mode}"
    return sqlite3.connect(
        uri, uri=True, timeout=busy_timeout, isolation_level=None, check_same_thread=False
    )


class RhoIndex:
    """An open connection to Rho's ``sessions/index.sqlite3``, migrated to schema 2.

    Thread-safe (one lock per instance); every public method runs in its own short transaction.
    Use :meth:`open`; close with :meth:`close` or a ``with`` block.
    """

    def __init__(
        self,
        path: Path,
        connection: sqlite3.Connection,
        state: IndexState,
        migration: MigrationReport,
    ) -> None:
        self.path = path
        self.state = state
        self.migration = migration
        self._db = connection
        self._lock = threading.Lock()
        self._select = _SELECT_ROWS

    # --- opening and migration --------------------------------------------------------------

    @classmethod
    def open(
        cls,
        sessions_root: Path,
        *,
        create: bool = True,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    ) -> RhoIndex:
        """Open (creating or migrating as Rho would) the index of ``sessions_root``.

        Args:
            sessions_root: the ``sessions/`` folder of a Rho home.
            create: create a missing index (only if ``sessions_root`` exists), schema 2, 0600.
            busy_timeout: seconds to wait for Rho's lock before raising :class:`IndexBusy`.

        Raises:
            IndexBusy: Rho held the database too long.
            IndexCorrupt, IndexTooNew, IndexMalformed: the file is left exactly as it was.
            IndexUnwritable: the file or folder cannot be opened (or a migration written).
            FileNotFoundError: no index and ``create`` is false or there is no sessions folder.
        """
        path = sessions_root / INDEX_FILE_NAME
        created = False
        if not path.exists():
            if not create or not sessions_root.is_dir():
                raise FileNotFoundError(str(path))
            created = _precreate(path)
        try:
            connection = _connect(path, mode="rw", busy_timeout=busy_timeout)
        except sqlite3.Error as exc:
            raise _classify(path, exc) from exc
        try:
            report = _migrate(path, connection)
        except BaseException:
            connection.close()
            raise
        state = IndexState.CREATED if created else IndexState.OK
        return cls(path, connection, state, report)

    @classmethod
    def open_readonly(
        cls, sessions_root: Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT
    ) -> RhoIndex:
        """Open the index only to read it: no creation, no migration, no write of any kind.

        An index at schema 0 or 1 is read as it is (columns it lacks read as their schema-2
        defaults); ``migration.from_version`` tells which schema it is at. Writing methods fail.

        Raises:
            FileNotFoundError: there is no index.
            IndexBusy, IndexCorrupt, IndexTooNew, IndexMalformed, IndexUnwritable: as for
                :meth:`open` (the last one meaning: it cannot even be read).
        """
        path = sessions_root / INDEX_FILE_NAME
        if not path.is_file():
            raise FileNotFoundError(str(path))
        try:
            connection = _connect(path, mode="ro", busy_timeout=busy_timeout)
        except sqlite3.Error as exc:
            raise _classify(path, exc) from exc
        try:
            connection.execute("begin")
            try:
                version = int(connection.execute("pragma user_version").fetchone()[0])
                present = _columns(connection)
            finally:
                connection.execute("rollback")
        except sqlite3.Error as exc:
            connection.close()
            raise _classify(path, exc) from exc
        if version > SCHEMA_VERSION:
            connection.close()
            raise IndexTooNew(
                path,
                f"unsupported session index schema {version} (maximum supported: {SCHEMA_VERSION})",
            )
        missing = [c for c in V0_COLUMNS if c not in present]
        if missing:
            connection.close()
            raise IndexMalformed(
                path, f"malformed session index schema: missing column(s): {', '.join(missing)}"
            )
        index = cls(path, connection, IndexState.OK, MigrationReport(from_version=version))
        index._select = _select_with_defaults(present)
        return index

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> RhoIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _transaction(self, *, write: bool) -> Iterator[sqlite3.Connection]:
        # A write takes Rho's write lock up front (BEGIN IMMEDIATE, see _sqlite.transaction).
        with (
            self._lock,
            transaction(
                self._db, write=write, translate=lambda exc: _classify(self.path, exc)
            ) as db,
        ):
            yield db

    # --- reading ----------------------------------------------------------------------------

    def rows(self, workspace_key: str | None = None) -> list[SessionSummary]:
        """Every row (of one workspace, if given), in Rho's workspace-list order."""
        order = " order by updated_at desc, created_at desc, id asc"
        with self._transaction(write=False) as db:
            if workspace_key is None:
                cursor = db.execute(self._select + order)
            else:
                cursor = db.execute(
                    self._select + " where workspace_key = ?" + order, (workspace_key,)
                )
            return [_summary_from_row(values) for values in cursor.fetchall()]

    def row(self, workspace_key: str, session_id: str) -> SessionSummary | None:
        with self._transaction(write=False) as db:
            values = db.execute(
                self._select + " where workspace_key = ? and id = ?", (workspace_key, session_id)
            ).fetchone()
        return None if values is None else _summary_from_row(values)

    def titles(self, workspace_key: str | None = None) -> dict[tuple[str, str], str]:
        """``{(workspace_key, id): title}`` for every titled row ('' counts as no title)."""
        sql = (
            "select workspace_key, id, title from sessions where title is not null and title != ''"
        )
        with self._transaction(write=False) as db:
            if workspace_key is None:
                cursor = db.execute(sql)
            else:
                cursor = db.execute(sql + " and workspace_key = ?", (workspace_key,))
            return {(wk, sid): title for wk, sid, title in cursor.fetchall()}

    # --- writing ----------------------------------------------------------------------------

    def upsert(self, summaries: Iterable[SessionSummary]) -> int:
        """§10.4 upsert of each summary (title: ``coalesce(existing, new)``). Returns the count."""
        values = [_row_values(summary) for summary in summaries]
        with self._transaction(write=True) as db:
            db.executemany(_UPSERT, values)
        return len(values)

    def set_title(self, workspace_key: str, session_id: str, title: str) -> bool:
        """Rename: ``update … set title = <trimmed>`` (manual titles always win).

        Returns:
            Whether a row was updated (``False``: the index has no row for that session yet).

        Raises:
            InputError: the title is empty after trimming (Rho refuses those too).
        """
        trimmed = title.strip()
        if not trimmed:
            raise InputError("a session title cannot be empty", source=str(self.path))
        with self._transaction(write=True) as db:
            cursor = db.execute(
                "update sessions set title = ? where workspace_key = ? and id = ?",
                (trimmed, workspace_key, session_id),
            )
            return cursor.rowcount > 0

    def delete(self, workspace_key: str, session_id: str) -> bool:
        """Remove one session's row (§14 step 6). Returns whether a row existed."""
        with self._transaction(write=True) as db:
            cursor = db.execute(
                "delete from sessions where workspace_key = ? and id = ?",
                (workspace_key, session_id),
            )
            return cursor.rowcount > 0

    def apply_sync(
        self,
        *,
        before: Mapping[tuple[str, str], SessionSummary],
        refreshed: Iterable[SessionSummary],
        stale: Iterable[tuple[str, str]],
        still_seen: Callable[[str, str], bool],
        sessions_root: Path,
        key_of: Callable[[str], str],
    ) -> SyncOutcome:
        """§10.6 step 5: write one reconciliation in a single ``BEGIN IMMEDIATE`` transaction.

        Args:
            before: the scope's rows as read in step 1, by ``(workspace_key, id)``.
            refreshed: fresh summaries for seen units whose rows were not current.
            stale: keys of rows that are stale (not seen, file gone, or not belonging).
            still_seen: re-scan for one stale key: does its unit exist and belong again now?
            sessions_root: the ``sessions/`` folder (for the "belongs" rule).
            key_of: the workspace-key function.
        """
        outcome = SyncOutcome()
        refreshed = list(refreshed)
        stale = list(stale)
        if not refreshed and not stale:
            return outcome
        with self._transaction(write=True) as db:
            keys = [(s.workspace_key, s.id) for s in refreshed] + stale
            now: dict[tuple[str, str], SessionSummary] = {}
            for wk, sid in keys:
                values = db.execute(
                    _SELECT_ROWS + " where workspace_key = ? and id = ?", (wk, sid)
                ).fetchone()
                if values is not None:
                    now[(wk, sid)] = _summary_from_row(values)
            upserts = []
            for summary in refreshed:
                key = (summary.workspace_key, summary.id)
                stat = stat_transcript(Path(summary.path))
                if stat is None or stat[:2] != (summary.file_size, summary.file_mtime):
                    outcome.skipped_changed.append(key)  # the file moved on while we parsed it
                    continue
                row = now.get(key)
                unit = SeenUnit(
                    summary.workspace_key,
                    summary.id,
                    Path(summary.path),
                    summary.cwd,
                    stat[0],
                    stat[1],
                )
                if (
                    row is not None
                    and row != before.get(key)
                    and row_is_current(row, unit, sessions_root, key_of)
                ):
                    outcome.skipped_changed.append(key)  # someone else refreshed it meanwhile
                    continue
                upserts.append(replace(summary, title=None) if row is not None else summary)
                outcome.upserted.append(key)
            db.executemany(_UPSERT, [_row_values(s) for s in upserts])
            for key in stale:
                if now.get(key) != before.get(key) or still_seen(*key):
                    outcome.spared.append(key)
                    continue
                if key in now:
                    db.execute("delete from sessions where workspace_key = ? and id = ?", key)
                    outcome.deleted.append(key)
        return outcome


def _precreate(path: Path) -> bool:
    """Create an empty index file with mode 0600 (SQLite would use the umask). True if we did."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return False  # Rho (or another rho-desk) created it a moment ago: just open it
    except OSError as exc:
        raise IndexUnwritable(path, exc.strerror or str(exc)) from exc
    os.close(fd)
    with contextlib.suppress(OSError):
        os.chmod(path, 0o600)
    return True


_SCHEMA2_DEFAULTS = {"node_count": "0", "branch_count": "0", "effective_format_version": "1"}


def _select_with_defaults(present: Iterable[str]) -> str:
    """A row SELECT for an older table: absent columns read as their schema-2 defaults."""
    have = set(present)
    parts = [
        column if column in have else f"{_SCHEMA2_DEFAULTS.get(column, 'null')} as {column}"
        for column in COLUMNS
    ]
    return f"select {', '.join(parts)} from sessions"


def _columns(db: sqlite3.Connection) -> list[str]:
    return [row[1] for row in db.execute("pragma table_info(sessions)").fetchall()]


def _index_names(db: sqlite3.Connection) -> set[str]:
    return {row[1] for row in db.execute("pragma index_list(sessions)").fetchall()}


def _is_current_schema(db: sqlite3.Connection) -> bool:
    return (
        int(db.execute("pragma user_version").fetchone()[0]) == SCHEMA_VERSION
        and set(COLUMNS) <= set(_columns(db))
        and {name for name, _ in _INDEXES} <= _index_names(db)
    )


def _migrate(path: Path, db: sqlite3.Connection) -> MigrationReport:
    """§10.3, in one transaction; a current index is only read (no write lock is taken)."""
    try:
        # A cheap read-only check first: the common case (already schema 2) must not take
        # Rho's write lock on every open.
        db.execute("begin")
        try:
            version = int(db.execute("pragma user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise IndexTooNew(
                    path,
                    f"unsupported session index schema {version} "
                    f"(maximum supported: {SCHEMA_VERSION})",
                )
            current = _is_current_schema(db)
        finally:
            db.execute("rollback")
        if current:
            return MigrationReport(from_version=SCHEMA_VERSION)
        db.execute("begin immediate")
        try:
            report = _migrate_locked(path, db)
        except BaseException:
            db.execute("rollback")
            raise
        db.execute("commit")
        return report
    except sqlite3.Error as exc:
        with contextlib.suppress(sqlite3.Error):
            if db.in_transaction:
                db.execute("rollback")
        raise _classify(path, exc) from exc


def _migrate_locked(path: Path, db: sqlite3.Connection) -> MigrationReport:
    # Step 1 again, under the write lock: another process may have migrated meanwhile.
    version = int(db.execute("pragma user_version").fetchone()[0])
    if version > SCHEMA_VERSION:
        raise IndexTooNew(
            path,
            f"unsupported session index schema {version} (maximum supported: {SCHEMA_VERSION})",
        )
    # Step 2: an index that claims a version must have the v0 columns.
    if version > 0:
        _require(path, db, V0_COLUMNS)
    added: list[str] = []
    created_table = False
    # Step 3: version 0 creates the table (full v2 column list) and adds the v1 columns.
    if version == 0:
        if not _columns(db):
            db.execute(_CREATE_TABLE)
            created_table = True
        present = set(_columns(db))
        for name, definition in _V1_ADDITIONS:
            if name not in present:
                db.execute(f"alter table sessions add column {definition}")
                added.append(name)
    # Step 4: the tree columns of schema 2.
    present = set(_columns(db))
    for name, definition in _V2_ADDITIONS:
        if name not in present:
            db.execute(f"alter table sessions add column {definition}")
            added.append(name)
    # Step 5: force every old row to be re-summarised (that back-fills the tree facts).
    nulled = 0
    if version < SCHEMA_VERSION:
        nulled = db.execute("update sessions set file_size = null").rowcount
    # Step 6: all 16 columns, the two indexes, user_version 2.
    _require(path, db, COLUMNS)
    existing = _index_names(db)
    created_indexes = []
    for name, ddl in _INDEXES:
        if name not in existing:
            db.execute(ddl)
            created_indexes.append(name)
    db.execute(f"pragma user_version = {SCHEMA_VERSION}")
    return MigrationReport(
        from_version=version,
        added_columns=tuple(added),
        created_table=created_table,
        created_indexes=tuple(created_indexes),
        nulled_file_size=max(nulled, 0),
    )


def _require(path: Path, db: sqlite3.Connection, required: tuple[str, ...]) -> None:
    present = set(_columns(db))
    missing = [column for column in required if column not in present]
    if missing:
        raise IndexMalformed(
            path, f"malformed session index schema: missing column(s): {', '.join(missing)}"
        )


def salvage_titles(
    sessions_root: Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT
) -> dict[tuple[str, str], str]:
    """Whatever titles can still be read from an index we must not migrate or write.

    Opens the file read-only (``mode=ro``) and reads ``workspace_key, id, title`` if those
    columns exist, whatever ``user_version`` says. Returns ``{}`` when nothing is readable.
    """
    path = sessions_root / INDEX_FILE_NAME
    if not path.is_file():
        return {}
    try:
        db = _connect(path, mode="ro", busy_timeout=busy_timeout)
    except sqlite3.Error:
        return {}
    try:
        if not {"workspace_key", "id", "title"} <= set(_columns(db)):
            return {}
        rows = db.execute(
            "select workspace_key, id, title from sessions where title is not null and title != ''"
        ).fetchall()
        return {(wk, sid): title for wk, sid, title in rows if isinstance(title, str)}
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def sessions_root_of(summary: SessionSummary) -> Path | None:
    """The ``sessions/`` folder whose index lists ``summary``'s transcript, if it has one.

    A transcript belongs to a Rho home when it sits in ``sessions/<key>/`` (flat layout) or
    ``sessions/<key>/<unit>/session.jsonl`` (folder layout) and ``<key>`` is the workspace key of
    its header cwd. Anything else (a loose copy, a misplaced transcript) has no index row: Rho
    ignores it (§10.6 step 2).
    """
    transcript = Path(summary.path)
    workspace = (
        transcript.parent.parent if transcript.name == "session.jsonl" else transcript.parent
    )
    if workspace.name != summary.workspace_key or workspace.parent.name != "sessions":
        return None
    return workspace.parent


def record_session(
    summary: SessionSummary, *, title: str | None = None, busy_timeout: float = DEFAULT_BUSY_TIMEOUT
) -> IndexState:
    """Rho's save-time index write (storage.md §10.4): upsert one transcript's row.

    Every write rho-desk makes into a Rho home calls this once the bytes are on disk (an append,
    a ``set_leaf``, a new or forked session, a repair in place, a restore from the trash), with
    the summary of the tree as written and ``file_size``/``file_mtime`` from ``stat`` after the
    write, exactly as Rho upserts after each save. Like Rho, it creates a missing index, keeps an
    existing title (``coalesce``), and never raises: an index that is busy, corrupt, newer or
    unwritable is left alone (the next listing reconciles it) and the state says why.

    Args:
        title: a title for a row that has none yet (a session restored from the trash).

    Returns:
        ``OK``/``CREATED`` when the row was written; ``MISSING`` when the transcript is not in a
        Rho home (nothing to write); otherwise the reason the index was left alone.
    """
    root = sessions_root_of(summary)
    if root is None:
        return IndexState.MISSING
    row = replace(summary, title=(title or "").strip() or None, search_text="")
    with _SAVE_CONNECTIONS_LOCK:
        try:
            index = _save_connection(root, busy_timeout)
            index.upsert([row])
            return index.state
        except IndexUnavailable as exc:
            _drop_save_connection(root)
            return exc.state
        except FileNotFoundError:
            _drop_save_connection(root)
            return IndexState.MISSING


# Like Rho (storage.md §10.3), a process keeps one connection per index for its saves, so a save
# pays one SQLite transaction, not an open, a migration check and a close. The connection is
# reopened (and the migration checked again) whenever the file at the path is not the one it
# has open: deleted, replaced or rebuilt by another program.
_SAVE_CONNECTIONS: dict[Path, tuple[RhoIndex, tuple[int, int]]] = {}
_SAVE_CONNECTIONS_LOCK = threading.Lock()
_SAVE_CONNECTIONS_MAX = 8


def _save_connection(root: Path, busy_timeout: float) -> RhoIndex:
    path = root / INDEX_FILE_NAME
    cached = _SAVE_CONNECTIONS.get(root)
    if cached is not None:
        try:
            stat = os.stat(path)
        except FileNotFoundError:
            stat = None
        if stat is not None and (stat.st_dev, stat.st_ino) == cached[1]:
            return cached[0]
        _drop_save_connection(root)
    index = RhoIndex.open(root, create=True, busy_timeout=busy_timeout)
    stat = os.stat(path)
    while len(_SAVE_CONNECTIONS) >= _SAVE_CONNECTIONS_MAX:
        _drop_save_connection(next(iter(_SAVE_CONNECTIONS)))
    _SAVE_CONNECTIONS[root] = (index, (stat.st_dev, stat.st_ino))
    return index


def _drop_save_connection(root: Path) -> None:
    cached = _SAVE_CONNECTIONS.pop(root, None)
    if cached is not None:
        cached[0].close()
