"""The memory index: redacted text of every session in scope, ranked by relevance, and the files
each turn read or changed.

rho-desk's own SQLite file in the cache folder (``memory-<hash of the sessions folder>.sqlite3``,
0600 in a 0700 folder; Rho's files are never written). It holds only what the gate let through:
the display history of each session *after* redaction, so a snippet cut from it can never end in
half a secret. It is a pure cache, rebuilt when the rule set, the fingerprint key or the known
credentials change (``gate_id``), and kept in step with the library by each transcript's (and
checkpoint journal's) size and nanosecond mtime.

Search is SQLite FTS5 with the ``porter`` stemmer over five columns (title, prompts, replies,
tool calls, files), ranked by BM25 with the title and the files weighted up: a question in a
person's words ("the session that fixed the flaky webhook test") matches sessions that share
its words, the rarest words counting most.
"""

from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..core.changes.checkpoint import journal_path
from ..core.errors import StorageError
from ._read import SessionView, Touch

__all__ = [
    "INDEX_SCHEMA",
    "Hit",
    "IndexedSession",
    "MemoryIndex",
    "TouchRow",
    "fts_query",
    "stamp_of",
]

INDEX_SCHEMA: Final = 1
WEIGHTS: Final = (6.0, 2.0, 1.0, 1.5, 3.0)
"""BM25 weights of title, prompts, replies, tools, files."""
_COLUMNS: Final = ("title", "prompts", "replies", "tools", "files")

_DDL: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    rowid INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    stamp TEXT NOT NULL,
    workspace_key TEXT NOT NULL,
    cwd TEXT NOT NULL,
    id TEXT NOT NULL,
    title TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    messages INTEGER NOT NULL,
    failure TEXT
);
CREATE INDEX IF NOT EXISTS sessions_id ON sessions(id);
CREATE INDEX IF NOT EXISTS sessions_workspace ON sessions(workspace_key, updated_at);
CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(
    title, prompts, replies, tools, files, tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE IF NOT EXISTS touches (
    session INTEGER NOT NULL REFERENCES sessions(rowid) ON DELETE CASCADE,
    file TEXT NOT NULL,
    shown TEXT NOT NULL,
    turn INTEGER,
    kind TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS touches_file ON touches(file);
CREATE INDEX IF NOT EXISTS touches_session ON touches(session);
"""

_STOP: Final = frozenset(
    [
        "a",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "session",
        "sessions",
        "conversation",
        "find",
        "show",
        "look",
        "tell",
        "about",
        "earlier",
        "previous",
        "past",
        "last",
        "ago",
    ]
)


def stamp_of(transcript: str) -> str:
    """Size and nanosecond mtime of a transcript and of its checkpoint journal, if any (an
    opencode session, ``<opencode.db>#<id>``: of its database)."""
    parts = []
    path = Path(transcript)
    if "#" in path.name:
        from ..core.agents.opencode import split

        path = split(path)[0]
    for p in (path, journal_path(path.parent) if path.name == "session.jsonl" else None):
        if p is None:
            continue
        try:
            st = os.stat(p)
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append("-")
    return "|".join(parts)


def fts_query(text: str) -> str | None:
    """An FTS5 query for a question in plain words: any of its words (stop words dropped unless
    nothing else is left), plus each path-like or quoted run as a phrase. ``None``: no word."""
    words = [w for w in re.findall(r"\w+", text.lower()) if len(w) > 1 or w.isdigit()]
    kept = [w for w in words if w not in _STOP] or words
    if not kept:
        return None
    terms = list(dict.fromkeys(f'"{w}"' for w in kept))
    for run in re.findall(r'"([^"]+)"|(\S*[/.]\S+)', text):
        phrase = " ".join(re.findall(r"\w+", (run[0] or run[1]).lower()))
        if " " in phrase:
            terms.append(f'"{phrase}"')
    return " OR ".join(terms)


@dataclass(frozen=True, slots=True)
class IndexedSession:
    rowid: int
    path: str
    workspace_key: str
    cwd: str
    id: str
    title: str | None
    created_at: int
    updated_at: int
    messages: int
    failure: str | None


@dataclass(frozen=True, slots=True)
class Hit:
    session: IndexedSession
    score: float
    snippet: str


@dataclass(frozen=True, slots=True)
class TouchRow:
    session: IndexedSession
    file: str
    shown: str
    turn: int | None
    kind: str


_SESSION_COLUMNS: Final = "s.rowid, s.path, s.workspace_key, s.cwd, s.id, s.title, s.created_at, s.updated_at, s.messages, s.failure"


@dataclass(frozen=True, slots=True)
class Entry:
    """What the library says of one transcript (what :meth:`MemoryIndex.sync` needs)."""

    path: str
    workspace_key: str
    cwd: str
    id: str
    title: str | None
    created_at: int
    updated_at: int
    messages: int


class MemoryIndex:
    """The memory index of one Rho home (thread-safe; one connection, serialised)."""

    def __init__(self, db: sqlite3.Connection, path: Path | None) -> None:
        self._db = db
        self.path = path
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path, gate_id: str) -> MemoryIndex:
        """Open (or create, or rebuild) the index at ``path`` for a gate named ``gate_id``.

        Raises:
            StorageError: the file or its folder cannot be opened or created.
        """
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not path.exists():
                with contextlib.suppress(FileExistsError):
                    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=5.0)
            try:
                index = cls._ready(db, path, gate_id)
            except sqlite3.DatabaseError:
                db.close()
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        os.unlink(str(path) + suffix)
                db = sqlite3.connect(
                    path, check_same_thread=False, isolation_level=None, timeout=5.0
                )
                index = cls._ready(db, path, gate_id)
            with contextlib.suppress(OSError):
                os.chmod(path, 0o600)
            return index
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"{path}: cannot open the memory index: {exc}") from None

    @classmethod
    def in_memory(cls, gate_id: str = "") -> MemoryIndex:
        return cls._ready(
            sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None),
            None,
            gate_id,
        )

    @classmethod
    def _ready(cls, db: sqlite3.Connection, path: Path | None, gate_id: str) -> MemoryIndex:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        current = None
        if version == INDEX_SCHEMA:
            with contextlib.suppress(sqlite3.Error):
                row = db.execute("SELECT value FROM meta WHERE key = 'gate'").fetchone()
                current = row[0] if row else None
        if version not in (0, INDEX_SCHEMA) or (version == INDEX_SCHEMA and current != gate_id):
            # another schema, or text redacted under other rules or keys: start again
            for table in ("touches", "docs", "sessions", "meta"):
                db.execute(f"DROP TABLE IF EXISTS {table}")
        if path is not None:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a cache: a lost tail is re-read next time
        db.execute("PRAGMA foreign_keys=ON")
        db.executescript(_DDL)
        db.execute(f"PRAGMA user_version={INDEX_SCHEMA}")
        db.execute("INSERT OR REPLACE INTO meta VALUES ('gate', ?)", (gate_id,))
        return cls(db, path)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- keeping in step ---------------------------------------------------------------------

    def stale(
        self, entries: Iterable[Entry], keys: Sequence[str] | None
    ) -> tuple[list[tuple[Entry, str]], list[str]]:
        """Entries whose transcript changed since indexed (with their new stamp), and the paths
        indexed in the workspaces ``keys`` (``None``: all) that the library no longer lists."""
        wanted = {e.path: e for e in entries}
        where, params = self._scope(keys)
        with self._lock:
            known = dict(
                self._db.execute(
                    f"SELECT s.path, s.stamp FROM sessions s WHERE {where}", params
                ).fetchall()
            )
        changed = [
            (e, stamp) for path, e in wanted.items() if known.get(path) != (stamp := stamp_of(path))
        ]
        return changed, [path for path in known if path not in wanted]

    def forget(self, paths: Sequence[str]) -> None:
        if not paths:
            return
        with self._lock, self._write() as db:
            for path in paths:
                row = db.execute("SELECT rowid FROM sessions WHERE path = ?", (path,)).fetchone()
                if row is not None:
                    db.execute("DELETE FROM docs WHERE rowid = ?", row)
                    db.execute("DELETE FROM touches WHERE session = ?", row)
                    db.execute("DELETE FROM sessions WHERE rowid = ?", row)

    def put(self, items: Sequence[tuple[Entry, str, SessionView | None, str | None]]) -> None:
        """Store sessions in one transaction: each one's redacted fields and touches, or the
        reason it cannot be read (``(entry, stamp, view, failure)``)."""
        if not items:
            return
        with self._lock, self._write() as db:
            for entry, stamp, view, failure in items:
                self._put(db, entry, stamp, view, failure)

    @staticmethod
    def _put(
        db: sqlite3.Connection,
        entry: Entry,
        stamp: str,
        view: SessionView | None,
        failure: str | None,
    ) -> None:
        old = db.execute("SELECT rowid FROM sessions WHERE path = ?", (entry.path,)).fetchone()
        if old is not None:
            db.execute("DELETE FROM docs WHERE rowid = ?", old)
            db.execute("DELETE FROM touches WHERE session = ?", old)
            db.execute("DELETE FROM sessions WHERE rowid = ?", old)
        messages = len(view.messages) if view is not None else entry.messages
        cursor = db.execute(
            "INSERT INTO sessions (path, stamp, workspace_key, cwd, id, title, created_at, updated_at, messages, failure)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                entry.path,
                stamp,
                entry.workspace_key,
                entry.cwd,
                entry.id,
                entry.title,
                entry.created_at,
                entry.updated_at,
                messages,
                failure,
            ),
        )
        rowid = cursor.lastrowid
        if view is None:
            return
        fields = view.fields()
        db.execute(
            "INSERT INTO docs (rowid, title, prompts, replies, tools, files) VALUES (?, ?, ?, ?, ?, ?)",
            (rowid, *(fields[c] for c in _COLUMNS)),
        )
        db.executemany(
            "INSERT INTO touches VALUES (?, ?, ?, ?, ?)",
            [(rowid, t.file, t.shown, t.turn, t.kind) for t in view.touches],
        )

    @contextlib.contextmanager
    def _write(self):  # type: ignore[no-untyped-def]
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise StorageError(f"the memory index: {exc}") from None

    # --- reading ------------------------------------------------------------------------------

    @staticmethod
    def _scope(keys: Sequence[str] | None, alias: str = "s") -> tuple[str, list[object]]:
        if keys is None:
            return "1", []
        return f"{alias}.workspace_key IN ({','.join('?' * len(keys))})", list(keys)

    def search(
        self, query: str, keys: Sequence[str] | None, *, since: int | None = None, limit: int = 10
    ) -> list[Hit]:
        """Sessions matching ``query`` in the workspaces ``keys`` (``None``: all), best first."""
        match = fts_query(query)
        if match is None:
            return []
        where, params = self._scope(keys)
        if since is not None:
            where += " AND s.updated_at >= ?"
            params.append(since)
        weights = ", ".join(str(w) for w in WEIGHTS)
        # Rank first, then cut snippets for the few hits only: SQLite computes every result
        # column of every match before it sorts them, and a snippet is the dearest of them.
        ranked = (
            f"SELECT {_SESSION_COLUMNS}, bm25(docs, {weights}) AS score "
            f"FROM docs JOIN sessions s ON s.rowid = docs.rowid WHERE docs MATCH ? AND {where} "
            "ORDER BY score, s.updated_at DESC, s.id LIMIT ?"
        )
        with self._lock:
            try:
                rows = self._db.execute(ranked, [match, *params, limit]).fetchall()
                marks = ",".join("?" * len(rows))
                snippets = (
                    dict(
                        self._db.execute(
                            f"SELECT rowid, snippet(docs, -1, '⟦', '⟧', '…', 24) FROM docs WHERE docs MATCH ? AND rowid IN ({marks})",
                            [match, *(row[0] for row in rows)],
                        ).fetchall()
                    )
                    if rows
                    else {}
                )
            except sqlite3.OperationalError as exc:
                raise StorageError(f"the memory index: {exc}") from None
        return [
            Hit(IndexedSession(*row[:10]), -float(row[10]), snippets.get(row[0], ""))
            for row in rows
        ]

    def sessions(self, session_id: str, keys: Sequence[str] | None) -> list[IndexedSession]:
        """The sessions in scope whose id is ``session_id`` or starts with it (at least 8 chars)."""
        where, params = self._scope(keys)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE (s.id = ? OR (length(?) >= 8 AND "
                f"substr(s.id, 1, length(?)) = ?)) AND {where} ORDER BY s.id LIMIT 20",
                [session_id, session_id, session_id, session_id, *params],
            ).fetchall()
        return [IndexedSession(*row) for row in rows]

    def touching(
        self, file: str, keys: Sequence[str] | None, *, limit: int = 200
    ) -> list[TouchRow]:
        """Turns that read or changed ``file``: an absolute path exactly, or a relative one as
        the end of a path (``webhook.py`` matches ``…/src/webhook.py``)."""
        where, params = self._scope(keys)
        norm = os.path.normpath(file) if file.strip() else ""
        if os.path.isabs(norm):
            cond, args = "t.file = ?", [norm]
        else:
            tail = norm.removeprefix("./")
            escaped = tail.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            cond, args = "(t.shown = ? OR t.file LIKE ? ESCAPE '\\')", [tail, "%/" + escaped]
        sql = (
            f"SELECT {_SESSION_COLUMNS}, t.file, t.shown, t.turn, t.kind FROM touches t "
            f"JOIN sessions s ON s.rowid = t.session WHERE {cond} AND {where} "
            "ORDER BY s.updated_at DESC, s.id, t.turn LIMIT ?"
        )
        with self._lock:
            rows = self._db.execute(sql, [*args, *params, limit]).fetchall()
        return [TouchRow(IndexedSession(*row[:10]), *row[10:]) for row in rows]

    def touches_of(self, rowid: int) -> list[Touch]:
        with self._lock:
            rows = self._db.execute(
                "SELECT file, shown, turn, kind FROM touches WHERE session = ? ORDER BY turn, file",
                (rowid,),
            ).fetchall()
        return [Touch(*row) for row in rows]

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM sessions").fetchone()[0])

    def failures(self, keys: Sequence[str] | None) -> list[IndexedSession]:
        where, params = self._scope(keys)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {_SESSION_COLUMNS} FROM sessions s WHERE s.failure IS NOT NULL AND {where}",
                params,
            ).fetchall()
        return [IndexedSession(*row) for row in rows]
