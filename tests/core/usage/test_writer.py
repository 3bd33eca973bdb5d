"""rho-desk's rows in Rho's usage ledger: Rho's schema and write protocol, read back by the
ledger reader, beside Rho's own writers in other processes, refused where Rho would refuse."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from rho_desk.core.errors import StorageError
from rho_desk.core.usage import UsageLedger, UsageReport
from rho_desk.core.usage import writer as writer_module
from rho_desk.core.usage.ledger import LedgerTooNew
from rho_desk.core.usage.writer import (
    WRITER_VERSION,
    LedgerWriter,
    RequestUsage,
    UsageRecording,
    ledger_for_session,
    recording_for_session,
)
from rho_desk.core.wire.model import ModelUsage

from .ledgers import COLUMNS, MIGRATION_1, make_ledger, random_rows

USAGE = ModelUsage(
    input_tokens=1200,
    output_tokens=80,
    cache_read_tokens=300,
    total_tokens=1580,
    cost_usd_micros=4321,
)


def event(**values: object) -> RequestUsage:
    base: dict[str, object] = {
        "provider": "openai",
        "model": "gpt-5",
        "purpose": "agent",
        "outcome": "completed",
        "usage": USAGE,
        "session_id": "s-1",
        "run_id": "r-1",
        "step_index": 1,
        "attempt_index": 1,
        "workspace_path": "/w/a",
    }
    base.update(values)
    return RequestUsage(**base)  # type: ignore[arg-type]


def rows(path: Path) -> list[dict[str, object]]:
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        db.row_factory = sqlite3.Row
        return [dict(r) for r in db.execute("SELECT * FROM usage_events ORDER BY rowid")]
    finally:
        db.close()


def schema(path: Path) -> list[str]:
    db = sqlite3.connect(path)
    try:
        return sorted(
            str(r[0]) for r in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
        )
    finally:
        db.close()


def test_a_new_ledger_is_the_one_rho_makes(tmp_path: Path) -> None:
    home = tmp_path / "rho"
    home.mkdir()
    ours = home / "usage.sqlite3"
    LedgerWriter(ours).record(event())
    rhos = make_ledger(tmp_path / "rho-made" / "usage.sqlite3")  # upstream's migration, verbatim
    assert schema(ours) == schema(rhos)
    db = sqlite3.connect(ours)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    for name in ("usage.sqlite3", "usage.sqlite3-wal", "usage.sqlite3-shm"):
        if (home / name).exists():
            assert stat.S_IMODE((home / name).stat().st_mode) == 0o600, name
    assert (
        "CREATE TABLE usage_events" in MIGRATION_1
        and writer_module.MIGRATION_1.strip() == MIGRATION_1.strip()
    )


def test_a_row_holds_what_the_server_reported_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    LedgerWriter(path).record(event(event_id="e-1", occurred_at_ms=1_790_000_000_123))
    unreported = ModelUsage(
        input_tokens=44_254, output_tokens=6_344
    )  # no total, no cost: NULL, not 0
    LedgerWriter(path, workspace="/w/fallback").record(
        event(
            event_id="e-2",
            purpose="compaction",
            outcome="cancelled",
            usage=unreported,
            workspace_path=None,
            step_index=None,
            run_id="r-2",
        )
    )
    first, second = rows(path)
    assert first == {
        "event_id": "e-1",
        "schema_version": 1,
        "occurred_at_ms": 1_790_000_000_123,
        "session_id": "s-1",
        "parent_session_id": None,
        "run_id": "r-1",
        "step_index": 1,
        "attempt_index": 1,
        "workspace_path": "/w/a",
        "provider": "openai",
        "model": "gpt-5",
        "purpose": "agent",
        "request_outcome": "completed",
        "input_tokens": 1200,
        "output_tokens": 80,
        "cache_read_tokens": 300,
        "cache_write_tokens": None,
        "total_tokens": 1580,
        "cost_usd_micros": 4321,
        "rho_version": WRITER_VERSION,
    }
    assert list(first) == list(COLUMNS)
    assert second["total_tokens"] is None and second["cost_usd_micros"] is None
    assert second["purpose"] == "compaction" and second["request_outcome"] == "cancelled"
    assert second["workspace_path"] == "/w/fallback" and second["step_index"] is None
    # the reader sees both, as requests of the session, and the roll-up counts them
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        assert [r.event_id for r in ledger.session_requests("s-1")] == ["e-1", "e-2"]
        (group,) = UsageReport(ledger).groups("session")
        assert group.requests == 2 and group.cost_usd_micros == 4321


def test_a_retried_write_of_the_same_event_counts_once(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    same = event()
    writer = LedgerWriter(path)
    writer.record(same)
    writer.record(same)
    LedgerWriter(path).record(same)
    assert len(rows(path)) == 1


def test_rows_are_appended_to_a_ledger_rho_made(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "usage.sqlite3", random_rows(50))
    before = schema(path)
    LedgerWriter(path).record(event(event_id="ours"))
    assert schema(path) == before
    found = rows(path)
    assert len(found) == 51 and found[-1]["event_id"] == "ours"


def test_a_newer_ledger_is_refused_and_left_untouched(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "usage.sqlite3", random_rows(5), version=2)
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(LedgerTooNew):
        LedgerWriter(path).record(event())
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_too_large_a_number_writes_no_partial_row(tmp_path: Path) -> None:
    path = tmp_path / "usage.sqlite3"
    writer = LedgerWriter(path)
    writer.record(event(event_id="fine"))
    with pytest.raises(StorageError, match="output_tokens"):
        writer.record(event(usage=ModelUsage(output_tokens=2**63)))
    assert [r["event_id"] for r in rows(path)] == ["fine"]


def test_only_an_existing_rho_home_is_written_and_never_through_a_link(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="no such Rho home"):
        LedgerWriter(tmp_path / "missing" / "usage.sqlite3").record(event())
    assert not (tmp_path / "missing").exists()
    other = make_ledger(tmp_path / "elsewhere.sqlite3")
    home = tmp_path / "rho"
    home.mkdir()
    (home / "usage.sqlite3").symlink_to(other)
    with pytest.raises(StorageError, match="symbolic link"):
        LedgerWriter(home / "usage.sqlite3").record(event())
    assert rows(other) == []


def test_a_failing_recorder_leaves_bounded_diagnostics_and_never_raises(tmp_path: Path) -> None:
    recording = UsageRecording(LedgerWriter(tmp_path / "missing" / "usage.sqlite3"))
    heard: list[str] = []
    recording.on_failure = heard.append
    for _ in range(20):
        recording.record(event())
    assert len(recording.diagnostics) == 16 and len(heard) == 20
    assert all("no such Rho home" in d and len(d) <= 1024 for d in recording.diagnostics)


def test_a_locked_ledger_is_waited_for_then_written(tmp_path: Path) -> None:
    """Rho holds the write lock for a moment (another process mid-transaction): the row waits."""
    path = make_ledger(tmp_path / "usage.sqlite3")
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    LedgerWriter(path).record(event(event_id="after-the-lock"))
    assert time.monotonic() - started >= 0.4
    release.join()
    holder.close()
    assert [r["event_id"] for r in rows(path)] == ["after-the-lock"]


def test_a_ledger_locked_too_long_is_a_storage_error_and_no_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(writer_module, "BUSY_TIMEOUT_S", 0.3)
    path = make_ledger(tmp_path / "usage.sqlite3")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageError, match="locked"):
            LedgerWriter(path).record(event())
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert rows(path) == []


RHO_LIKE = textwrap.dedent("""
    import sqlite3, sys
    path, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    for i in range(n):
        db = sqlite3.connect(path, timeout=5, isolation_level=None)  # a short-lived connection per write
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("BEGIN IMMEDIATE")
        db.execute(
            "INSERT OR IGNORE INTO usage_events (event_id, schema_version, occurred_at_ms, provider, model, "
            "purpose, request_outcome, input_tokens, total_tokens) VALUES (?, 1, ?, 'openai', 'gpt-5', 'agent', "
            "'completed', 1, 1)", (f"{tag}-{i}", i))
        db.execute("COMMIT")
        db.close()
""")
OURS = textwrap.dedent("""
    import sys
    from pathlib import Path
    from rho_desk.core.usage.writer import LedgerWriter, RequestUsage
    from rho_desk.core.wire.model import ModelUsage
    path, tag, n = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    writer = LedgerWriter(path)
    for i in range(n):
        writer.record(RequestUsage("openai", "gpt-5", "agent", "completed", ModelUsage(input_tokens=1),
                                   event_id=f"{tag}-{i}"))
""")


def test_rho_desk_and_rho_write_the_same_ledger_at_once(tmp_path: Path) -> None:
    """Two rho-desk processes and two Rho-like writers, 150 rows each, all at the same time: every
    row lands once, and the file stays a ledger both read. The first writers race to create it."""
    home = tmp_path / "rho"
    home.mkdir()
    path = home / "usage.sqlite3"
    processes = [
        subprocess.Popen([sys.executable, "-c", OURS, str(path), f"desk{k}", "150"])
        for k in range(2)
    ]
    while not path.exists() or os.path.getsize(path) == 0 or not schema(path):
        time.sleep(0.01)  # Rho's writers start on a migrated ledger (Rho migrates at open)
    processes += [
        subprocess.Popen([sys.executable, "-c", RHO_LIKE, str(path), f"rho{k}", "150"])
        for k in range(2)
    ]
    for process in processes:
        assert process.wait(timeout=120) == 0
    found = rows(path)
    assert len(found) == 600 and len({r["event_id"] for r in found}) == 600
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    with UsageLedger(path, cache_dir=False) as ledger:
        assert sum(g.requests for g in UsageReport(ledger).groups("provider")) == 600


def test_the_ledger_of_a_session_is_its_rho_homes(tmp_path: Path) -> None:
    home = tmp_path / "rho"
    unit = home / "sessions" / "-home-u-project-0123456789abcdef" / "1790000000_s-1"
    assert ledger_for_session(unit / "session.jsonl") == home / "usage.sqlite3"
    assert ledger_for_session(unit.with_suffix(".jsonl")) == home / "usage.sqlite3"  # flat layout
    loose = (
        tmp_path / "sessions" / "somewhere" / "session.jsonl"
    )  # "sessions", but not a Rho home's
    assert ledger_for_session(loose) is None
    fallback = tmp_path / "default-home"
    assert ledger_for_session(loose, fallback) is None  # no such folder: not recorded
    fallback.mkdir()
    assert ledger_for_session(loose, fallback) == fallback / "usage.sqlite3"


def test_a_loose_session_records_into_rhos_own_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loose = tmp_path / "session.jsonl"
    monkeypatch.setenv("RHO_HOME", str(tmp_path / "no-home"))
    assert recording_for_session(loose) is None
    (tmp_path / "no-home").mkdir()
    recording = recording_for_session(loose, workspace="/w/x")
    assert recording is not None
    assert (
        isinstance(recording.recorder, LedgerWriter)
        and recording.recorder.path == tmp_path / "no-home" / "usage.sqlite3"
    )
