"""rho-desk's roll-up of a usage ledger: the same sums in far fewer rows, kept up to date.

A million ledger rows take SQLite more than a second to scan (each row holds ids, paths and
versions), and the ledger is Rho's: we may not add an index to it. So rho-desk keeps, in its
own cache folder, one SQLite file per ledger with the sums per 15-minute bucket and
(session, parent session, workspace, provider, model, purpose, outcome) — a few rows per session
instead of one per request. Every timezone's offset is a multiple of 15 minutes, so UTC and
local days, weeks, months and date ranges are exact over buckets. ``moments`` holds, per
provider and model, the sums the price fit needs (:mod:`.pricing`), folded apart when asked.

Refresh (:func:`refresh`) folds only the rows written since the last look: ledger rows are
immutable and Rho only inserts, so each row has a larger ``rowid`` than every row before it.
Inside one transaction (one snapshot of the ledger) it checks that what was folded is still
there (the first row's and the high-water row's ``event_id``); if old rows were pruned or the
file replaced, the roll-up is rebuilt from scratch. The cache is
disposable: a damaged one is deleted and rebuilt.

Folding a row costs several times what a report's scan of it costs (each row is added to its
group in a keyed table), so a big backlog is not folded before a report: ``refresh(eager=True)``
folds a small one and leaves a big one to batches (``refresh(limit=…)``) that the ledger runs
after its reports (``UsageLedger.catch_up``); until the roll-up has caught up, the reports read
the ledger itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from ._schema import LedgerChanged

__all__ = [
    "BUCKET_MS",
    "EAGER_ROWS",
    "RAW_SOURCE",
    "ROLLUP_COLUMNS",
    "ROLLUP_VERSION",
    "open_rollup",
    "refresh",
    "refresh_moments",
    "rollup_file",
]

ROLLUP_VERSION: Final = 4
BUCKET_MS: Final = 15 * 60 * 1000
"""A bucket: 15 minutes (every UTC offset in use is a multiple of it)."""

ROLLUP_COLUMNS: Final = (
    "bucket",
    "session_id",
    "parent_session_id",
    "workspace",
    "provider",
    "model",
    "purpose",
    "outcome",
    "requests",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "cost_usd_micros",
    "without_cost",
)

_KEYS: Final = "bucket, session_id, parent_session_id, workspace, provider, model, purpose, outcome"
SUMS: Final = (
    "requests",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "cost_usd_micros",
    "without_cost",
)
_SUM_COLUMNS: Final = ", ".join(f"{c} INTEGER NOT NULL" for c in SUMS)
_ADD: Final = ", ".join(f"{c} = {c} + excluded.{c}" for c in SUMS)
_SUM_OF: Final = ", ".join(f"sum({c})" for c in SUMS)
_SUM_OF_AS: Final = ", ".join(f"sum({c}) AS {c}" for c in SUMS)

_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rollup (
    bucket INTEGER NOT NULL, session_id TEXT NOT NULL, parent_session_id TEXT NOT NULL,
    workspace TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL, purpose TEXT NOT NULL,
    outcome TEXT NOT NULL,
    requests INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
    cache_read_tokens INTEGER NOT NULL, cache_write_tokens INTEGER NOT NULL,
    total_tokens INTEGER NOT NULL, cost_usd_micros INTEGER NOT NULL, without_cost INTEGER NOT NULL,
    PRIMARY KEY ({_KEYS})
) WITHOUT ROWID;
-- covering: "by session" and a session's child sessions read the index alone, in order
CREATE INDEX IF NOT EXISTS rollup_session_sums ON rollup (session_id, requests, input_tokens, output_tokens,
    cache_read_tokens, cache_write_tokens, total_tokens, cost_usd_micros, without_cost);
CREATE INDEX IF NOT EXISTS rollup_parent ON rollup (parent_session_id) WHERE parent_session_id != '';
CREATE TABLE IF NOT EXISTS moments (
    provider TEXT NOT NULL, model TEXT NOT NULL, n INTEGER NOT NULL,
    ii REAL, io REAL, ir REAL, iw REAL, oo REAL, orr REAL, ow REAL, rr REAL, rw REAL, ww REAL,
    ic REAL, oc REAL, rc REAL, wc REAL,
    PRIMARY KEY (provider, model)
) WITHOUT ROWID;
-- per calendar day (UTC, and the local zone of the process that folded: meta local_zone) and one
-- dimension at a time: what the unfiltered reports and charts read (a few rows per day)
CREATE TABLE IF NOT EXISTS daily (
    zone TEXT NOT NULL, dim TEXT NOT NULL, day TEXT NOT NULL, value TEXT NOT NULL,
    {_SUM_COLUMNS},
    PRIMARY KEY (zone, dim, day, value)
) WITHOUT ROWID;
-- per session, for the unfiltered "by session" (the most expensive first, from the index)
CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, {_SUM_COLUMNS}) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS sessions_cost ON sessions (cost_usd_micros DESC, requests DESC, session_id);
PRAGMA user_version = {ROLLUP_VERSION};
"""

EAGER_ROWS: Final = 20_000
EAGER_SHARE: Final = 0.05
"""A backlog of up to ``EAGER_ROWS`` rows, or ``EAGER_SHARE`` of the ledger, is folded before
the reports run: folding a row costs several times what a report's scan of it costs, so a
bigger backlog is left to :func:`catch_up` and the reports scan the ledger meanwhile."""

DIMS: Final = ("model", "purpose", "workspace", "provider")
"""The dimensions ``daily`` keeps (each request counted once per dimension)."""

# one ledger row in the roll-up's shape (the raw source when there is no roll-up)
_ROW: Final = f"""
    occurred_at_ms / {BUCKET_MS} AS bucket,
    coalesce(session_id, '') AS session_id, coalesce(parent_session_id, '') AS parent_session_id,
    coalesce(workspace_path, '') AS workspace, provider, model, purpose, request_outcome AS outcome"""
TOTAL: Final = (
    "coalesce(total_tokens, coalesce(input_tokens, 0) + coalesce(output_tokens, 0) "
    "+ coalesce(cache_read_tokens, 0) + coalesce(cache_write_tokens, 0))"
)
"""A request's total tokens: the provider's own total where it reported one, else the sum of the
parts it reported (a local server that reports input and output but no total is not 0)."""
_SUMS: Final = f"""
    count(*), coalesce(sum(input_tokens), 0) AS input_tokens, coalesce(sum(output_tokens), 0) AS output_tokens,
    coalesce(sum(cache_read_tokens), 0) AS cache_read_tokens,
    coalesce(sum(cache_write_tokens), 0) AS cache_write_tokens,
    coalesce(sum({TOTAL}), 0) AS total_tokens, coalesce(sum(cost_usd_micros), 0) AS cost_usd_micros,
    count(*) - count(cost_usd_micros) AS without_cost"""

RAW_SOURCE: Final = f"""(SELECT {_ROW}, 1 AS requests,
    coalesce(input_tokens, 0) AS input_tokens, coalesce(output_tokens, 0) AS output_tokens,
    coalesce(cache_read_tokens, 0) AS cache_read_tokens, coalesce(cache_write_tokens, 0) AS cache_write_tokens,
    {TOTAL} AS total_tokens, coalesce(cost_usd_micros, 0) AS cost_usd_micros,
    cost_usd_micros IS NULL AS without_cost
  FROM ledger.usage_events)"""
"""The ledger itself in the roll-up's columns (one row per request), for reports without a cache."""

_FRESH_TABLE: Final = f"""
CREATE TEMP TABLE fresh (
    bucket INTEGER, session_id TEXT, parent_session_id TEXT, workspace TEXT, provider TEXT, model TEXT,
    purpose TEXT, outcome TEXT, {_SUM_COLUMNS},
    PRIMARY KEY ({_KEYS})
) WITHOUT ROWID
"""
# Each ledger row is added to its group in a small keyed table (an upsert per row): a third
# cheaper than GROUP BY, whose sorter carries every row with eight keys.
_FRESH: Final = f"""
INSERT INTO temp.fresh
SELECT {_ROW}, 1, coalesce(input_tokens, 0), coalesce(output_tokens, 0), coalesce(cache_read_tokens, 0),
    coalesce(cache_write_tokens, 0), {TOTAL}, coalesce(cost_usd_micros, 0),
    cost_usd_micros IS NULL
FROM ledger.usage_events WHERE rowid > ? AND rowid <= ?
ON CONFLICT ({_KEYS}) DO UPDATE SET {_ADD}
"""
_FOLD: Final = f"""
INSERT INTO main.rollup ({", ".join(ROLLUP_COLUMNS)})
SELECT {", ".join(ROLLUP_COLUMNS)} FROM temp.fresh WHERE true
ON CONFLICT ({_KEYS}) DO UPDATE SET {_ADD}
"""
_FOLD_SESSIONS: Final = f"""
INSERT INTO main.sessions (session_id, {", ".join(SUMS)})
SELECT session_id, {_SUM_OF} FROM temp.fresh GROUP BY session_id
ON CONFLICT (session_id) DO UPDATE SET {_ADD}
"""
_PER_DAY: Final = f"""
CREATE TEMP TABLE per_day AS
SELECT d.utc AS utc, d.local AS local, {", ".join(DIMS)}, {_SUM_OF_AS}
FROM {{source}} AS f JOIN temp.days AS d ON d.bucket = f.bucket
GROUP BY d.utc, d.local, {", ".join(DIMS)}
"""
"""``source``'s sums per day (UTC and local) and every dimension at once: a few rows per day that
each dimension's days are then summed from."""


def _days(db: sqlite3.Connection, source: str) -> None:
    """``temp.days``: the UTC and the local day of each bucket of ``source``, worked out once per
    bucket in Python (SQLite's ``'localtime'`` costs tens of microseconds a call)."""
    import time

    seconds = BUCKET_MS // 1000
    rows = [
        (
            b,
            time.strftime("%Y-%m-%d", time.gmtime(b * seconds)),
            time.strftime("%Y-%m-%d", time.localtime(b * seconds)),
        )
        for (b,) in db.execute(f"SELECT DISTINCT bucket FROM {source}").fetchall()
    ]
    db.execute("DROP TABLE IF EXISTS temp.days")
    db.execute(
        "CREATE TEMP TABLE days (bucket INTEGER PRIMARY KEY, utc TEXT NOT NULL, local TEXT NOT NULL)"
    )
    db.executemany("INSERT INTO temp.days VALUES (?, ?, ?)", rows)


def _fold_daily(
    db: sqlite3.Connection, source: str, zones: Sequence[str] = ("utc", "local")
) -> None:
    """Fold ``source`` (rows in the roll-up's shape) into ``daily``."""
    _days(db, source)
    db.execute("DROP TABLE IF EXISTS temp.per_day")
    db.execute(_PER_DAY.format(source=source))
    for zone in zones:
        for dim in DIMS:
            db.execute(
                f"INSERT INTO main.daily (zone, dim, day, value, {', '.join(SUMS)}) "
                f"SELECT '{zone}', '{dim}', {zone}, {dim}, {_SUM_OF} FROM temp.per_day WHERE true GROUP BY 3, 4 "
                f"ON CONFLICT (zone, dim, day, value) DO UPDATE SET {_ADD}"
            )
    db.execute("DROP TABLE temp.per_day")
    db.execute("DROP TABLE temp.days")


def local_zone() -> str:
    """What the local calendar days depend on: the zone's names and offsets."""
    import time

    return f"{time.tzname}|{time.timezone}|{time.altzone}|{time.daylight}"


_MOMENT_COLUMNS: Final = (
    "ii",
    "io",
    "ir",
    "iw",
    "oo",
    "orr",
    "ow",
    "rr",
    "rw",
    "ww",
    "ic",
    "oc",
    "rc",
    "wc",
)
_MOMENT_SOURCE: Final = """
SELECT provider, model, count(*),
    sum(i * i), sum(i * o), sum(i * r), sum(i * w), sum(o * o), sum(o * r), sum(o * w),
    sum(r * r), sum(r * w), sum(w * w), sum(i * c), sum(o * c), sum(r * c), sum(w * c)
FROM (SELECT provider, model,
        1.0 * coalesce(input_tokens, 0) AS i, 1.0 * coalesce(output_tokens, 0) AS o,
        1.0 * coalesce(cache_read_tokens, 0) AS r, 1.0 * coalesce(cache_write_tokens, 0) AS w,
        1.0 * cost_usd_micros AS c
      FROM ledger.usage_events WHERE cost_usd_micros IS NOT NULL {where})
GROUP BY provider, model
"""
MOMENTS_RAW: Final = _MOMENT_SOURCE.format(where="")
"""The price-fit sums straight from the ledger (reports without a cache)."""

_FOLD_MOMENTS: Final = (
    f"INSERT INTO main.moments (provider, model, n, {', '.join(_MOMENT_COLUMNS)}) "
    + _MOMENT_SOURCE.format(where="AND rowid > ? AND rowid <= ?")
    + " ON CONFLICT (provider, model) DO UPDATE SET n = n + excluded.n, "
    + ", ".join(f"{c} = {c} + excluded.{c}" for c in _MOMENT_COLUMNS)
)


def rollup_file(ledger: Path, cache_dir: Path | None = None) -> Path:
    """The roll-up of ``ledger``: ``<cache>/usage/<digest of its real path>.sqlite3``."""
    if cache_dir is None:
        from ..stores.search import default_cache_dir

        cache_dir = default_cache_dir()
    digest = hashlib.sha256(os.fsencode(os.path.realpath(ledger))).hexdigest()[:20]
    return cache_dir / "usage" / f"{digest}.sqlite3"


def open_rollup(path: Path) -> sqlite3.Connection | None:
    """Open (create, or rebuild when damaged or of another version) the roll-up; ``None`` when
    the cache folder cannot be written (reports then scan the ledger)."""
    for attempt in range(2):
        connection: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            connection = sqlite3.connect(
                path, check_same_thread=False, isolation_level=None, timeout=5.0
            )
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version not in (0, ROLLUP_VERSION):
                raise sqlite3.DatabaseError(f"roll-up version {version}")
            connection.execute("PRAGMA journal_mode = WAL")
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute("PRAGMA cache_size = -65536")  # group-by sorters stay in memory
            connection.execute("PRAGMA temp_store = MEMORY")
            connection.executescript(_SCHEMA)
            return connection
        except sqlite3.DatabaseError:
            if connection is not None:
                connection.close()
            if attempt == 0:  # a damaged or foreign cache: it is ours to rebuild
                for suffix in ("", "-wal", "-shm"):
                    with contextlib.suppress(OSError):
                        Path(f"{path}{suffix}").unlink()
        except OSError:
            if connection is not None:
                connection.close()
            return None
    return None


def _meta(db: sqlite3.Connection, key: str) -> object:
    row = db.execute("SELECT value FROM main.meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def _mark(db: sqlite3.Connection, key: str) -> int:
    """A row id kept in ``meta`` (0 when none)."""
    row = db.execute("SELECT value FROM main.meta WHERE key = ?", (key,)).fetchone()
    return 0 if row is None else int(row[0])


def refresh(
    db: sqlite3.Connection,
    *,
    limit: int | None = None,
    eager: bool = False,
    unchanged: Callable[[], bool] = lambda: True,
) -> bool:
    """Fold the ledger rows written since the last refresh (at most ``limit`` of them; with
    ``eager``, all of them if there are few enough, see :data:`EAGER_ROWS`, else none);
    whether the roll-up now covers the whole ledger.

    ``db`` is a roll-up connection with the ledger attached as ``ledger``. One transaction:
    the ledger is read from one snapshot, and two rho-desk processes never fold the same rows.
    The rows folded before are checked by their two ends (the first row, and the row at the
    high-water mark, by ``event_id``): pruning old rows or replacing the file rebuilds the
    roll-up. (Counting the whole ledger each time would cost a scan of its largest index.)
    The price-fit sums (``moments``) are folded apart, when a report asks for prices
    (:func:`refresh_moments`).

    ``unchanged()`` is asked right before the commit: false (a write to an ``immutable``
    attachment began meanwhile) rolls everything back and raises ``LedgerChanged``.
    """
    db.execute("BEGIN IMMEDIATE")
    try:
        # two statements: SQLite answers a lone min() or max() from the b-tree's end, both
        # together with a scan
        low = db.execute("SELECT coalesce(min(rowid), 0) FROM ledger.usage_events").fetchone()[0]
        high = db.execute("SELECT coalesce(max(rowid), 0) FROM ledger.usage_events").fetchone()[0]
        done = _mark(db, "high_rowid")
        if done and not (
            high >= done
            and _event_at(db, low) == _meta(db, "first_event")
            and _event_at(db, done) == _meta(db, "anchor_event")
        ):
            for table in ("rollup", "moments", "daily", "sessions"):
                db.execute(f"DELETE FROM main.{table}")
            db.execute("DELETE FROM main.meta WHERE key = 'moments_rowid'")
            done = 0
        zone = local_zone()
        if (
            done and _meta(db, "local_zone") != zone
        ):  # another timezone: local days again, from the roll-up
            db.execute("DELETE FROM main.daily WHERE zone = 'local'")
            _fold_daily(db, "main.rollup", ("local",))
        end = high
        if limit is not None:
            end = min(high, done + max(limit, 1))
        if eager and high - done > max(EAGER_ROWS, (high - low) * EAGER_SHARE):
            end = done
        if end > done:
            # the last row folded (rowids may have gaps: a rolled-back insert)
            end = db.execute(
                "SELECT max(rowid) FROM ledger.usage_events WHERE rowid <= ?", (end,)
            ).fetchone()[0]
        if end is not None and end > done:
            db.execute("DROP TABLE IF EXISTS temp.fresh")
            db.execute(_FRESH_TABLE)
            db.execute(_FRESH, (done, end))
            db.execute(_FOLD)
            db.execute(_FOLD_SESSIONS)
            _fold_daily(db, "temp.fresh")
            db.execute("DROP TABLE temp.fresh")
            db.executemany(
                "INSERT OR REPLACE INTO main.meta (key, value) VALUES (?, ?)",
                [
                    ("high_rowid", end),
                    ("first_event", _event_at(db, low)),
                    ("anchor_event", _event_at(db, end)),
                ],
            )
            done = end
        db.execute(
            "INSERT OR REPLACE INTO main.meta (key, value) VALUES ('local_zone', ?)", (zone,)
        )
        if not unchanged():
            raise LedgerChanged()
        db.execute("COMMIT")
        return bool(done >= high)
    except BaseException:
        db.execute("ROLLBACK")
        raise


def refresh_moments(
    db: sqlite3.Connection, *, unchanged: Callable[[], bool] = lambda: True
) -> None:
    """Fold the price-fit sums of the rows the roll-up holds but ``moments`` does not yet
    (``unchanged`` as for :func:`refresh`)."""
    db.execute("BEGIN IMMEDIATE")
    try:
        done = _mark(db, "moments_rowid")
        high = _mark(db, "high_rowid")
        if high > done:
            db.execute(_FOLD_MOMENTS, (done, high))
            db.execute(
                "INSERT OR REPLACE INTO main.meta (key, value) VALUES ('moments_rowid', ?)", (high,)
            )
        if not unchanged():
            raise LedgerChanged()
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _event_at(db: sqlite3.Connection, rowid: int) -> object:
    row = db.execute(
        "SELECT event_id FROM ledger.usage_events WHERE rowid = ?", (rowid,)
    ).fetchone()
    return None if row is None else row[0]
