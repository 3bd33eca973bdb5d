"""Opening Rho's ledger: read-only, while Rho writes it, and never a schema newer than we know."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.usage.ledger import LedgerTooNew, UsageLedger
from rho_desk.core.usage.report import UsageReport

from .ledgers import make_ledger, random_rows, row


def _state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), os.stat(path).st_mtime_ns


@pytest.mark.parametrize("cached", [True, False])
def test_a_newer_ledger_is_refused_and_left_untouched(tmp_path: Path, cached: bool) -> None:
    path = make_ledger(tmp_path / "usage.sqlite3", [row()], version=2)
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything in the main file, as Rho leaves it
    db.close()
    before = _state(path)
    time.sleep(0.01)
    with pytest.raises(LedgerTooNew) as caught:
        UsageLedger(path, cache_dir=tmp_path / "cache" if cached else False)
    assert isinstance(caught.value, InputError)  # the command line's exit 2
    assert caught.value.found == 2
    assert "schema version 2 is newer than supported version 1" in caught.value.text()
    assert str(path) in caught.value.text()
    assert _state(path) == before


def test_the_ledger_file_is_never_written(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "usage.sqlite3", random_rows(200))
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    before = _state(path)
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        UsageReport(ledger).groups("day")
        with pytest.raises(InputError):  # a read-only connection: SQLite itself refuses writes
            ledger.query("INSERT INTO ledger.usage_events (event_id) VALUES ('x')")
    assert _state(path) == before


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"this is not sqlite" * 64, "not a usage ledger"),
        (None, "no usage ledger here"),
    ],
)
def test_bad_files_are_input_errors_naming_the_file(
    tmp_path: Path, content: bytes | None, reason: str
) -> None:
    path = tmp_path / "usage.sqlite3"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        UsageLedger(path, cache_dir=False)
    assert reason in caught.value.text() and str(path) in caught.value.text()


def test_a_database_without_the_table(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    path.touch()
    # user_version 0 and no table at all: created, not yet migrated by Rho: an empty ledger
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        assert UsageReport(ledger).groups("day") == []
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE other (x)")
    db.commit()
    db.close()
    # another database (a table of its own, no usage_events): not a ledger, whatever its version
    with pytest.raises(InputError, match="no usage_events table"):
        UsageLedger(path, cache_dir=False)
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 1")
    db.close()
    with pytest.raises(InputError, match="no usage_events table"):
        UsageLedger(path, cache_dir=False)


def test_unknown_columns_are_ignored(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "usage.sqlite3", [row(input_tokens=3)])
    db = sqlite3.connect(path)
    db.execute(
        "ALTER TABLE usage_events ADD COLUMN reasoning_tokens INTEGER"
    )  # a future additive column
    db.commit()
    db.close()
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        [group] = UsageReport(ledger).groups("model")
    assert group.input_tokens == 3


WRITER = textwrap.dedent("""
    import sqlite3, sys, time
    path, n = sys.argv[1], int(sys.argv[2])
    db = sqlite3.connect(path, timeout=5, isolation_level=None)
    db.execute("PRAGMA busy_timeout = 5000")
    db.execute("PRAGMA synchronous = NORMAL")  # as Rho sets it
    print("ready", flush=True)
    for i in range(n):
        db.execute("BEGIN IMMEDIATE")  # as SqliteUsageRecorder writes
        db.execute(
            "INSERT OR IGNORE INTO usage_events (event_id, schema_version, occurred_at_ms, session_id, "
            "workspace_path, provider, model, purpose, request_outcome, input_tokens, output_tokens, "
            "total_tokens, cost_usd_micros) VALUES (?, 1, ?, 'live', '/w/live', 'openai', 'gpt-5', 'agent', "
            "'completed', 10, 1, 11, 7)", (f"live-{i:06d}", 1_790_000_000_000 + i))
        db.execute("COMMIT")
    print("done", flush=True)
""")


def test_reading_while_rho_writes_from_another_process(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "usage.sqlite3", random_rows(300))
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), "3000"], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "ready"
    seen: list[int] = []
    try:
        while writer.poll() is None or not seen:
            with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
                groups = {g.key: g for g in UsageReport(ledger).groups("session")}
                live = groups.get("live")
                if live is not None:
                    # every snapshot is whole: 11 tokens and 7 micro-dollars per request
                    assert (
                        live.total_tokens == 11 * live.requests
                        and live.cost_usd_micros == 7 * live.requests
                    )
                    seen.append(live.requests)
    finally:
        assert writer.wait(timeout=60) == 0
    assert seen == sorted(seen) and len(set(seen)) > 1, seen  # we read while it wrote, in order
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        assert {g.key: g.requests for g in UsageReport(ledger).groups("session")}["live"] == 3000


def test_an_unwritable_cache_folder_falls_back_to_scanning_the_ledger(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "usage.sqlite3", random_rows(100))
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would be")
    with UsageLedger(path, cache_dir=blocker) as ledger, UsageLedger(path, cache_dir=False) as raw:
        assert not ledger.cached
        assert UsageReport(ledger).groups("model") == UsageReport(raw).groups("model")
