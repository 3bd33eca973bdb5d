"""rho-desk's own session cache: the full summaries and an FTS5 full-text index of every session.

Rho's ``index.sqlite3`` has no room for what rho-desk lists and searches (provider, model,
compaction count, the conversation text) and is not ours to extend. This database is: one file
per Rho home under ``platformdirs.user_cache_dir("rho-desk")`` (``RHO_DESK_CACHE_DIR``
overrides the folder), keyed by transcript path and validated by size + nanosecond mtime. It is a
pure cache: deleting it costs one re-summarisation of every transcript; a cache from another
rho-desk version, or a damaged one, is simply rebuilt.

Full text: an FTS5 table with the ``trigram`` tokenizer over the lower-cased title and
conversation text, queried with ``GLOB '*term*'``, so every term matches as a substring
(inside words, across punctuation: file names, identifiers, half a word), case-insensitively.
Measured on this machine (see ``benchmarks/bench_index.py``): ``detail=none`` makes the index
less than half the size of ``detail=full`` (the trigram index still answers GLOB/LIKE, and SQLite
verifies each candidate row, so results are exact), and GLOB, unlike ``LIKE … ESCAPE``, is
pushed down to the index. Terms shorter than three characters cannot use trigrams and scan the
stored text instead (correct, just slower on a large library). The original text is kept
zlib-compressed beside it, for snippets with highlight offsets into the original characters.

``title`` here is only a mirror of Rho's ``sessions.title`` (refreshed from Rho's index on every
sync), kept so listings can show titles while Rho's index is busy, corrupt or newer. Titles are
written to Rho's index, never only here.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import os
import re
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, Unpack

from ..errors import InputError, StorageError
from ..system.dirs import CACHE_DIR_ENV, cache_dir
from ._sqlite import transaction
from .summary import SessionSummary

__all__ = [
    "CACHE_DIR_ENV",
    "MAX_SEARCH_CHARS",
    "SORT_KEYS",
    "CachedStat",
    "ListPage",
    "MergedCaches",
    "SearchHit",
    "SearchPage",
    "SearchResults",
    "SessionCache",
    "Snippet",
    "SummaryFailure",
    "WorkspaceInfo",
    "cache_file_for",
    "default_cache_dir",
]

CACHE_SCHEMA = 3
"""Our own ``user_version``. Any other value (older or newer rho-desk) means: rebuild."""
MAX_SEARCH_CHARS = 1_000_000
"""Characters of conversation text indexed per session. Longer transcripts are searchable in
their first million characters (``text_truncated`` says so); the trigram index costs about three
times the text, and this bounds one session's share of the cache."""
SNIPPET_CONTEXT = 60
"""Characters shown on each side of a match in a snippet."""
SNIPPETS_PER_HIT = 3

SORT_KEYS = {
    "updated": "s.updated_at",
    "created": "s.created_at",
    "size": "s.file_size",
    "messages": "s.message_count",
    "compactions": "s.compaction_count",
    "title": "coalesce(nullif(s.title, ''), s.first_user_message, '') collate nocase",
}
"""Library sort names and their SQL expressions (ties: newest update, then creation, then id)."""


class SearchPage(TypedDict, total=False):
    """Which hits of a search, in which order (the keywords of :meth:`SessionCache.search`)."""

    limit: int
    """At most this many hits (default 50); ``truncated`` says when there were more."""
    sort: str
    """A :data:`SORT_KEYS` name (default ``updated``)."""
    descending: bool
    """Default true: newest, largest, Z first."""


class ListPage(TypedDict, total=False):
    """Which page of a listing, in which order (the keywords of :meth:`SessionCache.list`)."""

    sort: str
    descending: bool
    offset: int
    limit: int | None
    """``None`` (default): every row from ``offset`` on."""


_ROW_COLUMNS = (
    "workspace_key",
    "cwd",
    "id",
    "path",
    "created_at",
    "updated_at",
    "message_count",
    "first_user_message",
    "last_user_message",
    "file_size",
    "file_mtime",
    "node_count",
    "branch_count",
    "active_leaf_id",
    "effective_format_version",
    "provider",
    "model",
    "compaction_count",
    "title",
)
_SELECT = "select " + ", ".join(f"s.{c}" for c in _ROW_COLUMNS) + " from sessions s"

_SCHEMA = f"""
create table if not exists sessions (
    rowid integer primary key,
    path text not null unique,
    workspace_key text not null,
    cwd text not null,
    id text not null,
    created_at integer not null,
    updated_at integer not null,
    message_count integer not null,
    first_user_message text,
    last_user_message text,
    file_size integer not null,
    file_mtime integer not null,
    file_mtime_ns integer not null,
    node_count integer not null,
    branch_count integer not null,
    active_leaf_id text,
    effective_format_version integer not null,
    provider text,
    model text,
    compaction_count integer not null,
    title text,
    title_key text not null default '',
    text_truncated integer not null default 0
);
create index if not exists sessions_workspace_order on sessions(workspace_key, updated_at desc, created_at desc, id);
create index if not exists sessions_order on sessions(updated_at desc, created_at desc, id);
create index if not exists sessions_size on sessions(file_size desc, updated_at desc, created_at desc, id);
create index if not exists sessions_key on sessions(workspace_key, id);
create virtual table if not exists sessions_fts using fts5(
    text, tokenize = 'trigram', detail = 'none'
);
create table if not exists texts (rowid integer primary key, body blob not null);
create table if not exists failures (
    path text primary key,
    workspace_key text not null,
    file_size integer not null,
    file_mtime_ns integer not null,
    reason text not null
);
pragma user_version = {CACHE_SCHEMA};
"""


def default_cache_dir() -> Path:
    """``$RHO_DESK_CACHE_DIR`` if set, else the platform's user cache folder for rho-desk."""
    return cache_dir()


def _platform_cache_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_cache_dir("rho-desk"))


def cache_file_for(sessions_root: Path, cache_dir: Path | None = None) -> Path:
    """The cache database of one Rho home (one file per ``sessions/`` folder, by path hash)."""
    digest = hashlib.sha256(str(sessions_root.absolute()).encode("utf-8", "surrogateescape"))
    return (cache_dir or default_cache_dir()) / f"sessions-{digest.hexdigest()[:16]}.sqlite3"


@dataclass(frozen=True, slots=True)
class CachedStat:
    """What the cache knows about one transcript: enough to decide whether it is current."""

    path: str
    workspace_key: str
    id: str
    cwd: str
    file_size: int
    file_mtime_ns: int


@dataclass(frozen=True, slots=True)
class WorkspaceInfo:
    """One workspace in the library: for the browser's workspace list."""

    workspace_key: str
    cwd: str
    sessions: int
    updated_at: int


@dataclass(frozen=True, slots=True)
class SummaryFailure:
    """A transcript that could not be summarised at this size and mtime (reported, not retried)."""

    path: str
    workspace_key: str
    file_size: int
    file_mtime_ns: int
    reason: str


@dataclass(frozen=True, slots=True)
class Snippet:
    """A piece of matched text and where to highlight it.

    ``highlights`` are ``(start, end)`` character offsets into ``text``; ``offset`` is where
    ``text`` starts inside the field's full text (for scrolling to the match).
    """

    field: str
    """``title`` or ``text`` (the session's user and assistant text)."""
    text: str
    highlights: tuple[tuple[int, int], ...]
    offset: int


@dataclass(frozen=True, slots=True)
class SearchHit:
    session: SessionSummary
    snippets: tuple[Snippet, ...]

    def first_text_match(self) -> tuple[int, str] | None:
        """The first match in the conversation text: ``(offset, matched text)``.

        ``offset`` counts characters of the session's search text
        (:func:`~rho_desk.core.stores.rho_files.views.search_text`);
        :func:`~rho_desk.core.stores.rho_files.views.message_at_offset` turns it into the
        message that holds it. ``None`` when only the title matched.
        """
        for snippet in self.snippets:
            if snippet.field == "text" and snippet.highlights:
                start, end = snippet.highlights[0]
                return snippet.offset + start, snippet.text[start:end]
        return None


@dataclass(slots=True)
class SearchResults:
    hits: list[SearchHit] = field(default_factory=list)
    truncated: bool = False
    """More sessions matched than the limit asked for."""


def _summary(values: tuple[object, ...]) -> SessionSummary:
    return SessionSummary(**dict(zip(_ROW_COLUMNS, values, strict=True)))  # type: ignore[arg-type]


def _terms(query: str) -> list[str]:
    """Whitespace-separated terms; ``"quoted phrases"`` stay whole. Empty terms are dropped."""
    terms = []
    for quoted, bare in re.findall(r'"([^"]*)"|(\S+)', query):
        term = (quoted or bare).strip()
        if term:
            terms.append(term)
    return terms


def _fold(text: str) -> str:
    """The form both the index and the query use: lower case (Unicode-aware, unlike SQLite's)."""
    return text.lower()


def _glob(term: str) -> str:
    """``*term*`` with GLOB's own metacharacters made literal (``[*]``, ``[?]``, ``[[]``)."""
    escaped = "".join(f"[{c}]" if c in "*?[" else c for c in _fold(term))
    return f"*{escaped}*"


def _snippets(
    field_name: str, text: str, patterns: list[re.Pattern[str]], limit: int
) -> list[Snippet]:
    spans = sorted({m.span() for p in patterns for m in p.finditer(text) if m.end() > m.start()})
    snippets: list[Snippet] = []
    index = 0
    while index < len(spans) and len(snippets) < limit:
        start = max(0, spans[index][0] - SNIPPET_CONTEXT)
        end = min(len(text), spans[index][1] + SNIPPET_CONTEXT)
        inside = []
        # Gather every later match that fits in this window, extending it a little for each.
        while index < len(spans) and spans[index][0] < end:
            s, e = spans[index]
            end = min(len(text), max(end, e + SNIPPET_CONTEXT // 2))
            inside.append((s - start, min(e, end) - start))
            index += 1
        snippets.append(Snippet(field_name, text[start:end], tuple(inside), start))
    return snippets


class SessionCache:
    """rho-desk's cache database for one Rho home. Thread-safe; short transactions only."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path) -> SessionCache:
        """Open (or build) the cache at ``path``; a damaged or foreign-version cache is rebuilt.

        Raises:
            StorageError: the cache folder cannot be created or the file cannot be opened.
        """
        existed = path.parent.is_dir()
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        except OSError as exc:
            raise StorageError(
                f"{path.parent}: cannot create the cache folder: {exc.strerror}"
            ) from exc
        # The cache holds conversation text, and SQLite creates its -wal/-shm files with the
        # umask's mode: keep the folder private, as Rho keeps its session folders. A folder the
        # user chose and made (RHO_DESK_CACHE_DIR) keeps the mode they gave it.
        if not existed or path.parent == _platform_cache_dir():
            with contextlib.suppress(OSError):
                os.chmod(path.parent, 0o700)
        for attempt in range(2):
            try:
                return cls(path, _open_cache(path))
            except sqlite3.DatabaseError as exc:
                if attempt:
                    raise StorageError(f"{path}: cannot open the session cache: {exc}") from exc
                _discard(path)  # ours, and only a cache: rebuild rather than fail
        raise AssertionError("unreachable")

    @classmethod
    def in_memory(cls) -> SessionCache:
        """A cache that lives only as long as this object (when no cache folder is writable)."""
        db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        db.executescript(f"begin;{_SCHEMA}commit;")
        return cls(Path(":memory:"), db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> SessionCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _tx(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        def translate(exc: sqlite3.Error) -> Exception:
            return StorageError(f"{self.path}: session cache: {exc}")

        with self._lock, transaction(self._db, write=write, translate=translate) as db:
            yield db

    # --- what is cached -----------------------------------------------------------------------

    def stats(self, workspace_key: str | None = None) -> dict[str, CachedStat]:
        """Cached transcripts (of one workspace) by path, for the staleness check."""
        sql = "select path, workspace_key, id, cwd, file_size, file_mtime_ns from sessions"
        with self._tx() as db:
            if workspace_key is None:
                rows = db.execute(sql).fetchall()
            else:
                rows = db.execute(sql + " where workspace_key = ?", (workspace_key,)).fetchall()
        return {row[0]: CachedStat(*row) for row in rows}

    def failures(self, workspace_key: str | None = None) -> dict[str, SummaryFailure]:
        sql = "select path, workspace_key, file_size, file_mtime_ns, reason from failures"
        with self._tx() as db:
            if workspace_key is None:
                rows = db.execute(sql).fetchall()
            else:
                rows = db.execute(sql + " where workspace_key = ?", (workspace_key,)).fetchall()
        return {row[0]: SummaryFailure(*row) for row in rows}

    def summaries(self, paths: Iterable[str]) -> dict[str, SessionSummary]:
        """Cached summaries (without full text) of the given transcripts, by path."""
        wanted = list(paths)
        found: dict[str, SessionSummary] = {}
        with self._tx() as db:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ", ".join("?" * len(chunk))
                for values in db.execute(f"{_SELECT} where s.path in ({marks})", chunk):
                    summary = _summary(values)
                    found[summary.path] = summary
        return found

    def get(self, workspace_key: str, session_id: str) -> SessionSummary | None:
        with self._tx() as db:
            values = db.execute(
                f"{_SELECT} where s.workspace_key = ? and s.id = ?", (workspace_key, session_id)
            ).fetchone()
        return None if values is None else _summary(values)

    def find_id(self, prefix: str, workspace_key: str | None = None) -> list[SessionSummary]:
        """Sessions whose id starts with ``prefix`` (case-sensitive, like Rho's resolution)."""
        # Named placeholders bound from a mapping: numbered ones (?1) bound from a tuple warn on
        # CPython 3.12.0-3.12.3 (python/cpython#117995), an error under the suite's filters.
        sql = f"{_SELECT} where substr(s.id, 1, length(:prefix)) = :prefix"
        params: dict[str, object] = {"prefix": prefix}
        if workspace_key is not None:
            sql += " and s.workspace_key = :workspace"
            params["workspace"] = workspace_key
        with self._tx() as db:
            return [_summary(v) for v in db.execute(sql + " order by s.id", params).fetchall()]

    # --- writing ------------------------------------------------------------------------------

    def store(
        self,
        *,
        summaries: Iterable[tuple[SessionSummary, int]] = (),
        failures: Iterable[SummaryFailure] = (),
        removed: Iterable[str] = (),
    ) -> None:
        """One transaction: upsert ``(summary, mtime_ns)`` pairs, record failures, drop paths."""
        with self._tx(write=True) as db:
            for path in removed:
                self._remove(db, path)
            for summary, mtime_ns in summaries:
                self._put(db, summary, mtime_ns)
            for failure in failures:
                db.execute("delete from failures where path = ?", (failure.path,))
                db.execute(
                    "insert into failures values (?, ?, ?, ?, ?)",
                    (
                        failure.path,
                        failure.workspace_key,
                        failure.file_size,
                        failure.file_mtime_ns,
                        failure.reason,
                    ),
                )

    def remove(self, paths: Iterable[str]) -> None:
        with self._tx(write=True) as db:
            for path in paths:
                self._remove(db, path)

    @staticmethod
    def _remove(db: sqlite3.Connection, path: str) -> None:
        row = db.execute("select rowid from sessions where path = ?", (path,)).fetchone()
        if row is not None:
            db.execute("delete from sessions_fts where rowid = ?", row)
            db.execute("delete from texts where rowid = ?", row)
            db.execute("delete from sessions where rowid = ?", row)
        db.execute("delete from failures where path = ?", (path,))

    @staticmethod
    def _put(db: sqlite3.Connection, s: SessionSummary, mtime_ns: int) -> None:
        text = s.search_text
        truncated = len(text) > MAX_SEARCH_CHARS
        if truncated:
            text = text[:MAX_SEARCH_CHARS]
        db.execute("delete from failures where path = ?", (s.path,))
        existing = db.execute(
            "select rowid, title from sessions where path = ?", (s.path,)
        ).fetchone()
        # The mirrored title survives a re-summarisation (summaries never carry one).
        title = existing[1] if existing is not None and s.title is None else s.title
        values = (
            s.workspace_key,
            s.cwd,
            s.id,
            s.created_at,
            s.updated_at,
            s.message_count,
            s.first_user_message,
            s.last_user_message,
            s.file_size or 0,
            s.file_mtime or 0,
            mtime_ns,
            s.node_count,
            s.branch_count,
            s.active_leaf_id,
            s.effective_format_version,
            s.provider,
            s.model,
            s.compaction_count,
            title,
            _fold(title or ""),
            int(truncated),
        )
        if existing is None:
            cursor = db.execute(
                "insert into sessions (workspace_key, cwd, id, created_at, updated_at,"
                " message_count, first_user_message, last_user_message, file_size, file_mtime,"
                " file_mtime_ns, node_count, branch_count, active_leaf_id,"
                " effective_format_version, provider, model, compaction_count, title, title_key,"
                " text_truncated, path) values (" + ", ".join("?" * 22) + ")",
                (*values, s.path),
            )
            rowid = cursor.lastrowid
        else:
            rowid = existing[0]
            db.execute(
                "update sessions set workspace_key = ?, cwd = ?, id = ?, created_at = ?,"
                " updated_at = ?, message_count = ?, first_user_message = ?,"
                " last_user_message = ?, file_size = ?, file_mtime = ?, file_mtime_ns = ?,"
                " node_count = ?, branch_count = ?, active_leaf_id = ?,"
                " effective_format_version = ?, provider = ?, model = ?, compaction_count = ?,"
                " title = ?, title_key = ?, text_truncated = ? where rowid = ?",
                (*values, rowid),
            )
            db.execute("delete from sessions_fts where rowid = ?", (rowid,))
        db.execute(
            "insert or replace into texts (rowid, body) values (?, ?)",
            (rowid, zlib.compress(text.encode("utf-8", "surrogatepass"), 6)),
        )
        db.execute("insert into sessions_fts (rowid, text) values (?, ?)", (rowid, _fold(text)))

    def mirror_titles(
        self, titles: Mapping[tuple[str, str], str], workspace_key: str | None = None
    ) -> int:
        """Make the mirrored titles (of one workspace) equal to Rho's. Returns rows changed."""
        sql = "select rowid, workspace_key, id, title from sessions"
        with self._tx(write=True) as db:
            if workspace_key is None:
                rows = db.execute(sql).fetchall()
            else:
                rows = db.execute(sql + " where workspace_key = ?", (workspace_key,)).fetchall()
            changes = [
                (new, _fold(new or ""), rowid)
                for rowid, wk, sid, old in rows
                if (new := titles.get((wk, sid))) != old
            ]
            db.executemany("update sessions set title = ?, title_key = ? where rowid = ?", changes)
        return len(changes)

    def set_title(self, workspace_key: str, session_id: str, title: str | None) -> None:
        with self._tx(write=True) as db:
            db.execute(
                "update sessions set title = ?, title_key = ? where workspace_key = ? and id = ?",
                (title, _fold(title or ""), workspace_key, session_id),
            )

    # --- listing and searching ----------------------------------------------------------------

    def workspaces(self) -> list[WorkspaceInfo]:
        """Every workspace with sessions: key, cwd, count, newest update (newest first)."""
        with self._tx() as db:
            rows = db.execute(
                "select workspace_key, min(cwd), count(*), max(updated_at) from sessions"
                " group by workspace_key order by max(updated_at) desc, workspace_key"
            ).fetchall()
        return [WorkspaceInfo(*row) for row in rows]

    def count(self, workspace_key: str | None = None) -> int:
        with self._tx() as db:
            if workspace_key is None:
                return int(db.execute("select count(*) from sessions").fetchone()[0])
            return int(
                db.execute(
                    "select count(*) from sessions where workspace_key = ?", (workspace_key,)
                ).fetchone()[0]
            )

    def list(
        self, workspace_key: str | None = None, **page: Unpack[ListPage]
    ) -> list[SessionSummary]:
        """One page of sessions (of one workspace, or all), sorted by ``sort`` (:data:`SORT_KEYS`).

        Raises:
            InputError: an unknown sort name.
        """
        where = "" if workspace_key is None else " where s.workspace_key = ?"
        params: list[str | int] = [] if workspace_key is None else [workspace_key]
        order = _order(page.get("sort", "updated"), page.get("descending", True))
        sql = f"{_SELECT}{where} order by {order}"
        limit, offset = page.get("limit"), page.get("offset", 0)
        if limit is not None or offset:
            sql += " limit ? offset ?"
            params += [-1 if limit is None else limit, offset]
        with self._tx() as db:
            return [_summary(values) for values in db.execute(sql, params).fetchall()]

    def search(
        self, query: str, workspace_key: str | None = None, **page: Unpack[SearchPage]
    ) -> SearchResults:
        """Sessions whose title or conversation text contains every term of ``query``.

        Terms are whitespace-separated (``"a quoted phrase"`` is one term), case-insensitive,
        matched as substrings. Hits come in ``sort`` order, at most ``limit`` of them.

        Raises:
            InputError: an unknown sort name.
        """
        order = _order(page.get("sort", "updated"), page.get("descending", True))
        limit = page.get("limit", 50)
        terms = _terms(query)
        results = SearchResults()
        if not terms:
            return results
        clauses: list[str] = []
        params: list[str | int] = []
        for term in terms:
            # Title (tiny, on the row) or conversation text (the trigram index: the sub-select
            # is evaluated once per term and probed per row).
            clauses.append(
                "(s.title_key glob ? or s.rowid in (select rowid from sessions_fts where text glob ?))"
            )
            params += [_glob(term), _glob(term)]
        if workspace_key is not None:
            clauses.append("s.workspace_key = ?")
            params.append(workspace_key)
        sql = f"{_SELECT} where {' and '.join(clauses)} order by {order} limit ?"
        params.append(limit + 1)
        with self._tx() as db:
            rows = [_summary(values) for values in db.execute(sql, params).fetchall()]
            if len(rows) > limit:
                rows = rows[:limit]
                results.truncated = True
            bodies = self._bodies(db, [r.path for r in rows])
        patterns = [re.compile(re.escape(t), re.IGNORECASE) for t in terms]
        for row in rows:
            snippets = _snippets("title", row.title, patterns, 1) if row.title else []
            snippets += _snippets("text", bodies.get(row.path, ""), patterns, SNIPPETS_PER_HIT)
            results.hits.append(SearchHit(row, tuple(snippets)))
        return results

    def text(self, path: str) -> str:
        """The indexed conversation text of one transcript (``""`` if none is cached)."""
        with self._tx() as db:
            return self._bodies(db, [path]).get(path, "")

    @staticmethod
    def _bodies(db: sqlite3.Connection, paths: builtins.list[str]) -> dict[str, str]:
        if not paths:
            return {}
        marks = ", ".join("?" * len(paths))
        rows = db.execute(
            f"select s.path, t.body from sessions s join texts t on t.rowid = s.rowid"
            f" where s.path in ({marks})",
            paths,
        ).fetchall()
        return {path: zlib.decompress(body).decode("utf-8", "surrogatepass") for path, body in rows}


class MergedCaches:
    """Several caches' sessions listed as if they were one (a mixed library: Rho's and other
    agents'), each row naming its cache (``SessionSummary.agent``), in the order
    :meth:`SessionCache.list` gives.

    The cache files are attached, read-only, to one connection kept open: a page is one query,
    each cache giving its first ``offset + limit`` rows by its own index and SQLite merging
    those. A cache kept in memory (no cache folder) cannot be attached: then each is paged
    alone and the pages merged in a scratch table.
    """

    def __init__(self, caches: Mapping[str, SessionCache]) -> None:
        self.caches = dict(caches)
        self.names = list(caches)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if (
            not any(str(c.path) == ":memory:" for c in self.caches.values())
            and len(self.names) <= 9
        ):
            db = sqlite3.connect(
                ":memory:", timeout=5.0, uri=True, check_same_thread=False, isolation_level=None
            )
            try:
                for n, name in enumerate(self.names):
                    uri = f"{Path(self.caches[name].path).absolute().as_uri()}?mode=ro"
                    db.execute(f"attach database ? as c{n}", (uri,))
            except sqlite3.Error as exc:
                db.close()
                raise StorageError(f"session caches: {exc}") from exc
            self._db = db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def count(self, workspace_key: str | None = None) -> int:
        if self._db is None:
            return sum(cache.count(workspace_key) for cache in self.caches.values())
        where = "" if workspace_key is None else " where workspace_key = ?"
        sql = "select " + " + ".join(
            f"(select count(*) from c{n}.sessions{where})" for n in range(len(self.names))
        )
        with self._lock:
            if self._db is None:
                raise StorageError("session caches: closed")
            try:
                return int(
                    self._db.execute(
                        sql, [workspace_key] * len(self.names) if where else []
                    ).fetchone()[0]
                )
            except sqlite3.Error as exc:
                raise StorageError(f"session caches: {exc}") from exc

    def list(
        self, workspace_key: str | None = None, **page: Unpack[ListPage]
    ) -> builtins.list[SessionSummary]:
        """One page (see :meth:`SessionCache.list`), every row's ``agent`` its cache's name.

        Raises:
            InputError: an unknown sort name.
        """
        sort, descending = page.get("sort", "updated"), page.get("descending", True)
        order = _order(sort, descending)
        limit, offset = page.get("limit"), page.get("offset", 0)
        wanted = -1 if limit is None else offset + limit
        columns = ", ".join(f"s.{c}" for c in _ROW_COLUMNS)
        where = "" if workspace_key is None else " where s.workspace_key = ?"
        if self._db is None:
            return self._merged_here(workspace_key, sort, descending, order, limit, offset)
        branches = []
        params: builtins.list[object] = []
        for n in range(len(self.names)):
            branches.append(
                f"select * from (select {columns}, {n} as source from c{n}.sessions s{where}"
                f" order by {order} limit ?)"
            )
            params += [*([workspace_key] if workspace_key is not None else []), wanted]
        sql = f"select {columns}, s.source from ({' union all '.join(branches)}) s order by {order} limit ? offset ?"
        params += [-1 if limit is None else limit, offset]
        with self._lock:
            if self._db is None:
                raise StorageError("session caches: closed")
            try:
                rows = self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StorageError(f"session caches: {exc}") from exc
        return [self._row(row) for row in rows]

    def _row(self, row: tuple[Any, ...]) -> SessionSummary:
        return SessionSummary(
            **dict(zip(_ROW_COLUMNS, row[:-1], strict=True)), agent=self.names[row[-1]]
        )

    def _merged_here(
        self,
        workspace_key: str | None,
        sort: str,
        descending: bool,
        order: str,
        limit: int | None,
        offset: int,
    ) -> builtins.list[SessionSummary]:
        wanted = None if limit is None else offset + limit
        db = sqlite3.connect(":memory:")
        try:
            db.execute(f"create table s ({', '.join(_ROW_COLUMNS)}, source)")
            for n, name in enumerate(self.names):
                rows = self.caches[name].list(
                    workspace_key, sort=sort, descending=descending, limit=wanted
                )
                db.executemany(
                    f"insert into s values ({', '.join('?' * (len(_ROW_COLUMNS) + 1))})",
                    [(*(getattr(r, c) for c in _ROW_COLUMNS), n) for r in rows],
                )
            columns = ", ".join(f"s.{c}" for c in _ROW_COLUMNS)
            found = db.execute(
                f"select {columns}, s.source from s s order by {order} limit ? offset ?",
                (-1 if limit is None else limit, offset),
            ).fetchall()
        finally:
            db.close()
        return [self._row(row) for row in found]


def _order(sort: str, descending: bool) -> str:
    try:
        key = SORT_KEYS[sort]
    except KeyError:
        raise InputError(f"unknown sort {sort!r}; choose from {', '.join(SORT_KEYS)}") from None
    direction = "desc" if descending else "asc"
    if sort == "updated":
        return f"s.updated_at {direction}, s.created_at {direction}, s.id asc"
    return f"{key} {direction}, s.updated_at desc, s.created_at desc, s.id asc"


def _open_cache(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=5.0, isolation_level=None, check_same_thread=False)
    try:
        version = int(db.execute("pragma user_version").fetchone()[0])
        if version != CACHE_SCHEMA:
            if version != 0 or db.execute("select count(*) from sqlite_master").fetchone()[0]:
                db.close()
                _discard(path)
                db = sqlite3.connect(
                    path, timeout=5.0, isolation_level=None, check_same_thread=False
                )
            # WAL: the CLI and the app may read while the other refreshes. It is our file.
            db.execute("pragma journal_mode = wal")
            # One transaction, idempotent DDL: two processes building it at once both succeed.
            db.executescript(f"begin immediate;{_SCHEMA}commit;")
        db.execute("pragma synchronous = normal")
        db.execute("pragma foreign_keys = off")
        with contextlib.suppress(OSError):
            os.chmod(path, 0o600)  # transcripts' text lives here: keep it as private as Rho's
        return db
    except BaseException:
        db.close()
        raise


def _discard(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(str(path) + suffix)
