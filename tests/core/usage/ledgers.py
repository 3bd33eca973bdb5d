"""Usage ledgers for the tests, in upstream's exact schema (``crates/rho/src/usage/migrations.rs``).

``make_ledger`` creates the file as Rho does (WAL, ``user_version`` 1) and inserts rows the way
``SqliteUsageRecorder`` does (``INSERT OR IGNORE``, every column named). ``random_rows`` builds a
varied ledger: unreported (NULL) tokens and costs, missing workspaces and sessions, several
providers, models, purposes and outcomes, over six weeks that cross a DST change.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

MIGRATION_1 = """
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

CREATE INDEX usage_events_occurred_at
    ON usage_events (occurred_at_ms);
CREATE INDEX usage_events_session
    ON usage_events (session_id, occurred_at_ms);
"""

COLUMNS = (
    "event_id",
    "schema_version",
    "occurred_at_ms",
    "session_id",
    "parent_session_id",
    "run_id",
    "step_index",
    "attempt_index",
    "workspace_path",
    "provider",
    "model",
    "purpose",
    "request_outcome",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "cost_usd_micros",
    "rho_version",
)

_counter = iter(range(1, 10**9))


def row(**values: Any) -> dict[str, Any]:
    """One ledger row; unspecified columns get plain defaults."""
    base: dict[str, Any] = {
        "event_id": f"event-{next(_counter):09d}",
        "schema_version": 1,
        "occurred_at_ms": 1_790_000_000_000,
        "session_id": "session-a",
        "parent_session_id": None,
        "run_id": None,
        "step_index": 1,
        "attempt_index": 1,
        "workspace_path": "/w/a",
        "provider": "openai",
        "model": "gpt-5",
        "purpose": "agent",
        "request_outcome": "completed",
        "input_tokens": 100,
        "output_tokens": 10,
        "cache_read_tokens": None,
        "cache_write_tokens": None,
        "total_tokens": 110,
        "cost_usd_micros": 500,
        "rho_version": "0.9.0",
    }
    base.update(values)
    return base


def make_ledger(path: Path, rows: list[dict[str, Any]] = (), *, version: int = 1) -> Path:  # type: ignore[assignment]
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.executescript(MIGRATION_1)
    db.execute(f"PRAGMA user_version = {version}")
    db.commit()
    db.close()
    insert(path, rows)
    return path


def insert(path: Path, rows: list[dict[str, Any]]) -> None:
    db = sqlite3.connect(path, timeout=5)
    with db:
        db.executemany(
            f"INSERT OR IGNORE INTO usage_events ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
            [tuple(r[c] for c in COLUMNS) for r in rows],
        )
    db.close()


def random_rows(n: int, seed: int = 7, start_ms: int = 1_792_800_000_000) -> list[dict[str, Any]]:
    """``n`` varied rows over six weeks from ``start_ms`` (2026-10-25, across the US DST end)."""
    rng = random.Random(seed)
    models = [
        ("openai", "gpt-5"),
        ("anthropic", "claude-sonnet-4-5"),
        ("openai", "gpt-5-mini"),
        ("local", "qwen"),
    ]
    purposes = ["agent"] * 6 + ["compaction", "title", "subagent", "goal"]
    out = []
    for _ in range(n):
        provider, model = rng.choice(models)

        def maybe(lo: int, hi: int, p_null: float = 0.15) -> int | None:
            return None if rng.random() < p_null else rng.randint(lo, hi)

        out.append(
            row(
                occurred_at_ms=start_ms + rng.randint(0, 42 * 86_400_000),
                session_id=None if rng.random() < 0.05 else f"s-{rng.randint(1, 60):03d}",
                parent_session_id=None if rng.random() < 0.9 else f"s-{rng.randint(1, 60):03d}",
                workspace_path=None if rng.random() < 0.1 else f"/w/{rng.choice('abcde')}",
                provider=provider,
                model=model,
                purpose=rng.choice(purposes),
                request_outcome=rng.choice(["completed"] * 8 + ["failed", "cancelled"]),
                input_tokens=maybe(0, 50_000),
                output_tokens=maybe(0, 4_000),
                cache_read_tokens=maybe(0, 90_000, 0.4),
                cache_write_tokens=maybe(0, 5_000, 0.5),
                total_tokens=maybe(0, 150_000, 0.3),
                cost_usd_micros=None
                if provider == "local" or rng.random() < 0.1
                else rng.randint(0, 400_000),
            )
        )
    return out
