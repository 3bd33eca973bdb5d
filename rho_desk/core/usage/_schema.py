"""What Rho's usage ledger is, as upstream defines it (``crates/rho/src/usage/``,
``docs/usage-ledger.md``): shared by the reader (``ledger``) and rho-desk's writer (``writer``),
and loaded by neither's heavier parts (no SQLite here)."""

from __future__ import annotations

from typing import Final

__all__ = [
    "BUSY_TIMEOUT_S",
    "LEDGER_FILE",
    "MIGRATION_1",
    "REQUIRED_COLUMNS",
    "SUPPORTED_LEDGER_VERSION",
    "LedgerChanged",
]

LEDGER_FILE: Final = "usage.sqlite3"
SUPPORTED_LEDGER_VERSION: Final = 1
"""The newest ``PRAGMA user_version`` of the ledger this rho-desk knows (upstream's SCHEMA_VERSION)."""
BUSY_TIMEOUT_S: Final = 5.0
"""Upstream's busy timeout (``sqlite_support.rs``): how long a statement waits on a locked file."""

REQUIRED_COLUMNS: Final = (
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
"""Version 1's columns (``migrations.rs``); later additive columns are ignored."""

MIGRATION_1: Final = """
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
"""Upstream's migration to version 1 (``migrations.rs``), byte for byte: the table Rho makes."""


class LedgerChanged(Exception):
    """A write to the ledger began during a read of an ``immutable`` attachment: read again
    (raised by the roll-up's refresh before it would commit, caught by the ledger's reader)."""
