"""The library's index of touched paths: which sessions changed a file, searchable.

rho-desk's own SQLite file, beside its session cache (``touched-<hash of the sessions
folder>.sqlite3`` in the cache folder; Rho's ``index.sqlite3`` is never touched). One row per
(session, file) with the turns that changed it, kept in step with the transcripts and their
checkpoint journals by size and nanosecond mtime: :meth:`PathIndex.sync` re-reads only the
sessions that changed. It is a pure cache: deleting it costs one pass over the library.

A search is a case-insensitive substring match on the path as shown (relative to its session's
workspace) and on the absolute path, so ``models.py``, ``src/app`` or a whole path all work.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..errors import InputError, StorageError
from ..stores.rho_files import discover_units, iter_workspaces, sessions_root
from .build import session_changes
from .checkpoint import journal_path

__all__ = ["INDEX_SCHEMA", "PathIndex", "TouchedFile", "index_file_for"]

INDEX_SCHEMA: Final = 1
"""Our own ``user_version``; any other value means: rebuild."""

_DDL: Final = """
CREATE TABLE IF NOT EXISTS sessions (
    path TEXT PRIMARY KEY,
    stamp TEXT NOT NULL,
    session_id TEXT,
    workspace TEXT,
    failure TEXT
);
CREATE TABLE IF NOT EXISTS touched (
    session_path TEXT NOT NULL REFERENCES sessions(path) ON DELETE CASCADE,
    file TEXT NOT NULL,
    shown TEXT NOT NULL,
    turns TEXT NOT NULL,
    changes INTEGER NOT NULL,
    PRIMARY KEY (session_path, file)
);
CREATE INDEX IF NOT EXISTS touched_file ON touched(file);
"""


def index_file_for(home: Path, cache_dir: Path) -> Path:
    digest = hashlib.sha256(str(sessions_root(home).absolute()).encode("utf-8", "surrogateescape"))
    return cache_dir / f"touched-{digest.hexdigest()[:16]}.sqlite3"


@dataclass(frozen=True, slots=True)
class TouchedFile:
    """One file one session changed."""

    session_path: str
    session_id: str | None
    workspace: str | None
    file: str
    """Absolute path."""
    shown: str
    """Relative to the workspace when inside it."""
    turns: tuple[int | None, ...]
    """The turns that changed it (``None``: an unsaved turn, or one on another branch)."""
    changes: int


def _stamp(transcript: Path) -> str:
    parts = []
    for p in (
        transcript,
        journal_path(transcript.parent) if transcript.name == "session.jsonl" else None,
    ):
        if p is None:
            continue
        try:
            st = os.stat(p)
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


class PathIndex:
    """The touched-paths index of one library (thread-safe; one connection, serialised)."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._db = connection
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> PathIndex:
        """Open (or create, or rebuild when from another version) the index at ``path``.

        Raises:
            StorageError: the file cannot be opened or created.
        """
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            db = _connect(path)
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, INDEX_SCHEMA):
                db.close()
                path.unlink()
                db = _connect(path)
            db.execute("PRAGMA journal_mode=WAL")
        except sqlite3.DatabaseError:
            with contextlib.suppress(OSError):
                path.unlink()
            try:
                db = _connect(path)
            except (OSError, sqlite3.Error) as exc:
                raise StorageError(f"{path}: {exc}") from None
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"{path}: {exc}") from None
        return cls._ready(db)

    @classmethod
    def in_memory(cls) -> PathIndex:
        return cls._ready(
            sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        )

    @classmethod
    def _ready(cls, db: sqlite3.Connection) -> PathIndex:
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(_DDL)
        db.execute(f"PRAGMA user_version={INDEX_SCHEMA}")
        return cls(db)

    def close(self) -> None:
        self._db.close()

    @staticmethod
    def transcripts(home: Path) -> Iterator[Path]:
        """Every transcript of the Rho home ``home``."""
        for workspace in iter_workspaces(home):
            for unit in discover_units(workspace):
                yield unit.transcript

    def sync(self, transcripts: Iterable[Path]) -> int:
        """Bring the index in step with ``transcripts`` (others are dropped). Returns how many
        sessions were (re)read. A session that cannot be read is remembered with its reason and
        indexes nothing."""
        wanted = {str(p): p for p in transcripts}
        with self._lock:
            known = dict(self._db.execute("SELECT path, stamp FROM sessions").fetchall())
        stale = [
            (key, path, stamp)
            for key, path in wanted.items()
            if known.get(key) != (stamp := _stamp(path))
        ]
        gone = [key for key in known if key not in wanted]
        rows: list[
            tuple[str, str, str | None, str | None, str | None, list[tuple[str, str, str, int]]]
        ] = []
        for key, path, stamp in stale:
            try:
                changes = session_changes(path)
            except (InputError, StorageError) as exc:
                rows.append((key, stamp, None, None, exc.text(), []))
                continue
            files: dict[str, tuple[str, list[str]]] = {}
            for turn in changes.turns:
                for change in turn.files:
                    _shown, turns = files.setdefault(change.abs_path, (change.path, []))
                    turns.append("" if turn.turn is None else str(turn.turn))
            touched = [
                (f, shown, ",".join(turns), len(turns)) for f, (shown, turns) in files.items()
            ]
            rows.append((key, stamp, changes.session_id, changes.workspace, None, touched))
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                for key in gone:
                    self._db.execute("DELETE FROM sessions WHERE path = ?", (key,))
                for key, stamp, sid, workspace, failure, touched in rows:
                    self._db.execute("DELETE FROM sessions WHERE path = ?", (key,))
                    self._db.execute(
                        "INSERT INTO sessions VALUES (?, ?, ?, ?, ?)",
                        (key, stamp, sid, workspace, failure),
                    )
                    self._db.executemany(
                        "INSERT INTO touched VALUES (?, ?, ?, ?, ?)",
                        [(key, f, shown, turns, n) for f, shown, turns, n in touched],
                    )
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                with contextlib.suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise StorageError(f"the touched-paths index: {exc}") from None
        return len(rows)

    def search(self, query: str, *, limit: int = 500) -> list[TouchedFile]:
        """Files whose path as shown contains ``query`` (case-insensitive), newest sessions first.

        The shown path is relative to the session's workspace: a search for "payments" does not
        list every file of a workspace folder named payments-api. A query that starts with ``/``
        or ``~`` is matched against the absolute path as well."""
        query = query.strip()
        absolute = query.startswith(("/", "~"))
        text = os.path.expanduser(query) if absolute else query
        pattern = "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        sql = (
            "SELECT t.session_path, s.session_id, s.workspace, t.file, t.shown, t.turns, t.changes "
            "FROM touched t JOIN sessions s ON s.path = t.session_path "
            "WHERE t.shown LIKE ? ESCAPE '\\' OR (? AND t.file LIKE ? ESCAPE '\\') "
            "ORDER BY t.shown, t.session_path DESC LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, (pattern, absolute, pattern, limit)).fetchall()
        return [_touched(r) for r in rows]

    def sessions_touching(self, file: str) -> list[TouchedFile]:
        """The sessions that changed the absolute path ``file``."""
        with self._lock:
            rows = self._db.execute(
                "SELECT t.session_path, s.session_id, s.workspace, t.file, t.shown, t.turns, t.changes "
                "FROM touched t JOIN sessions s ON s.path = t.session_path WHERE t.file = ? ORDER BY t.session_path DESC",
                (os.path.normpath(file),),
            ).fetchall()
        return [_touched(r) for r in rows]

    def failures(self) -> dict[str, str]:
        with self._lock:
            return dict(
                self._db.execute(
                    "SELECT path, failure FROM sessions WHERE failure IS NOT NULL"
                ).fetchall()
            )


def _connect(path: Path) -> sqlite3.Connection:
    """Open ``path``, creating it 0600 first (it names the files of every session)."""
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    return sqlite3.connect(path, check_same_thread=False, isolation_level=None)


def _touched(row: tuple[str, str | None, str | None, str, str, str, int]) -> TouchedFile:
    path, sid, workspace, file, shown, turns, changes = row
    return TouchedFile(
        path,
        sid,
        workspace,
        file,
        shown,
        tuple(int(t) if t else None for t in turns.split(",")),
        changes,
    )
