"""A synthetic Rho usage ledger for the benchmarks: upstream's schema, realistic rows, fast.

``make_ledger(path, rows)`` writes ``usage_events`` exactly as upstream's migration 1 creates it
(WAL mode, ``user_version`` 1), filled by one ``INSERT … SELECT`` over a recursive CTE (a million
rows in seconds, where Python inserts take a minute). Sessions of 50 requests, 40 s apart
(each session about half an hour, one after another); 40 workspaces; four models, one of which
reports no cost; a title request opening each session, a compaction every 25 requests with the
prompt shrinking after it, subagent requests under their own session id with the parent's id,
and a failed request now and then. Shared by ``bench_usage`` and ``bench_gui``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

__all__ = ["SCHEMA", "make_ledger"]

SCHEMA = """
CREATE TABLE usage_events (
    event_id           TEXT PRIMARY KEY,
    schema_version     INTEGER NOT NULL,
    occurred_at_ms     INTEGER NOT NULL,
    session_id         TEXT,
    parent_session_id  TEXT,
    run_id             TEXT,
    step_index         INTEGER,
    attempt_index      INTEGER,
    workspace_path     TEXT,
    provider           TEXT NOT NULL,
    model              TEXT NOT NULL,
    purpose            TEXT NOT NULL,
    request_outcome    TEXT NOT NULL,
    input_tokens       INTEGER,
    output_tokens      INTEGER,
    cache_read_tokens  INTEGER,
    cache_write_tokens INTEGER,
    total_tokens       INTEGER,
    cost_usd_micros    INTEGER,
    rho_version        TEXT
);
CREATE INDEX usage_events_occurred_at ON usage_events (occurred_at_ms);
CREATE INDEX usage_events_session ON usage_events (session_id, occurred_at_ms);
"""

_FILL = """
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < :rows),
r AS (
  SELECT i, i / 50 AS k, i % 50 AS j, (i * 2654435761) % 1000003 AS h FROM n
),
s AS (
  SELECT i, k, j, h,
    printf('%08x-%04x-4%03x-8%03x-%012x', k * 2654435761 % 4294967296, k % 65536, k % 4096, (k / 7) % 4096, k) AS sid,
    CASE WHEN j = 0 THEN 'title' WHEN j % 25 = 24 THEN 'compaction' WHEN j % 10 = 7 THEN 'subagent' ELSE 'agent' END AS purpose,
    k % 4 AS m
  FROM r
)
INSERT INTO usage_events
SELECT
  printf('%08x-%04x-4%03x-9%03x-%012x', h, i % 65536, i % 4096, (i / 13) % 4096, i),
  1,
  :t0 + k * 1800000 + j * 36000 + h % 9000,
  CASE WHEN purpose = 'subagent' THEN sid || '-sub' ELSE sid END,
  CASE WHEN purpose = 'subagent' THEN sid ELSE NULL END,
  printf('run-%d', i / 10), j % 10 + 1, 1,
  printf('/home/dev/src/project-%02d', k % 40),
  CASE m WHEN 0 THEN 'openai' WHEN 1 THEN 'anthropic' WHEN 2 THEN 'openai' ELSE 'local' END,
  CASE m WHEN 0 THEN 'gpt-5' WHEN 1 THEN 'claude-sonnet-4-5' WHEN 2 THEN 'gpt-5-mini' ELSE 'qwen2.5-coder-32b' END,
  purpose,
  CASE WHEN h % 97 = 0 THEN 'failed' WHEN h % 211 = 0 THEN 'cancelled' ELSE 'completed' END,
  800 + h % 700,
  120 + h % 900,
  CASE WHEN m = 3 THEN NULL ELSE 2000 + (j % 25) * 3000 END,
  CASE WHEN m = 1 THEN 1500 ELSE 0 END,
  800 + h % 700 + 120 + h % 900 + (CASE WHEN m = 3 THEN 0 ELSE 2000 + (j % 25) * 3000 END),
  CASE m
    WHEN 0 THEN ((800 + h % 700) * 125 + (120 + h % 900) * 1000 + (2000 + (j % 25) * 3000) * 12) / 100
    WHEN 1 THEN ((800 + h % 700) * 300 + (120 + h % 900) * 1500 + (2000 + (j % 25) * 3000) * 30 + 1500 * 375) / 100
    WHEN 2 THEN ((800 + h % 700) * 25 + (120 + h % 900) * 200 + (2000 + (j % 25) * 3000) * 2) / 100
    ELSE NULL END,
  '0.9.0'
FROM s
"""

T0_MS = 1_767_225_600_000
"""2026-01-01T00:00:00Z."""


def make_ledger(path: Path, rows: int, *, t0_ms: int = T0_MS) -> Path:
    """Write a ledger of ``rows`` requests at ``path`` (replacing nothing: ``path`` must not exist)."""
    if path.exists():
        raise FileExistsError(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    try:
        db.execute("PRAGMA journal_mode = OFF")  # filled once: no journal, then WAL as Rho sets it
        db.execute("PRAGMA synchronous = OFF")
        db.executescript(SCHEMA)
        with db:
            db.execute(_FILL, {"rows": rows, "t0": t0_ms})
        db.execute("PRAGMA user_version = 1")
        db.execute("PRAGMA journal_mode = WAL")
    finally:
        db.close()
    return path
