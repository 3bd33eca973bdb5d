"""Reading Rho's usage ledger is read-only (issue 32, item 4): nothing is created beside it, the
reads stay right while Rho writes, and only Rho's ledger is taken for one.

Rho writes each row through a short-lived WAL connection, so a quiet ledger has no ``-wal`` or
``-shm``. A ``mode=ro`` reader (Rho's own ``/spend`` included) creates both and leaves them in
Rho's home; rho-desk attaches a quiet ledger ``immutable`` and checks its stamp around each read.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.usage.ledger import UsageLedger
from rho_desk.core.usage.report import UsageReport

from ..core.usage.ledgers import COLUMNS, make_ledger, row
from .helpers import environment


def _side_files(home: Path) -> list[str]:
    return sorted(p.name for p in home.iterdir() if p.name.startswith("usage.sqlite3-"))


def _usage(tmp_path: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", "usage", "--home", str(home), *args],
        env=environment(tmp_path, RHO_DESK_CACHE_DIR=str(tmp_path / "cache")),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_reading_a_quiet_ledger_leaves_nothing_beside_it(tmp_path: Path) -> None:
    home = tmp_path / "rho"
    make_ledger(home / "usage.sqlite3", [row(session_id=f"s{n}") for n in range(50)])
    assert _side_files(home) == []  # as Rho leaves it between writes
    before = (home / "usage.sqlite3").read_bytes()
    for args in (
        ["--json"],
        ["--json", "--no-cache"],
        ["--by", "session"],
        ["--payback", "--json"],
    ):
        out = _usage(tmp_path, home, *args)
        assert out.returncode == 0, out.stderr
        assert _side_files(home) == [], args
    with UsageLedger(home / "usage.sqlite3", cache_dir=tmp_path / "cache") as ledger:
        assert sum(g.requests for g in UsageReport(ledger).groups("day")) == 50
        assert len(ledger.session_requests("s3")) == 1
    assert _side_files(home) == [] and (home / "usage.sqlite3").read_bytes() == before


def _rho_writes(path: Path, rows: int, done: threading.Event) -> None:
    """Rows written as Rho's SqliteUsageRecorder writes them: one short-lived connection each,
    a few milliseconds apart (the ledger is quiet in between, as Rho leaves it)."""
    marks = ", ".join("?" * len(COLUMNS))
    try:
        for n in range(rows):
            time.sleep(0.002 * (n % 3))
            db = sqlite3.connect(path, timeout=5)
            db.execute("PRAGMA synchronous = NORMAL")
            with db:
                values = row(session_id="live", occurred_at_ms=1_790_000_000_000 + n)
                db.execute(
                    f"INSERT OR IGNORE INTO usage_events ({', '.join(COLUMNS)}) VALUES ({marks})",
                    [values[c] for c in COLUMNS],
                )
            db.close()
    finally:
        done.set()


@pytest.mark.parametrize("cache", [False, True], ids=["scan", "roll-up"])
def test_reads_stay_right_while_rho_writes(tmp_path: Path, cache: bool) -> None:
    path = make_ledger(
        tmp_path / "rho" / "usage.sqlite3", [row(session_id="old") for _ in range(200)]
    )
    done = threading.Event()
    writer = threading.Thread(target=_rho_writes, args=(path, 300, done))
    writer.start()
    seen: list[int] = []
    try:
        while not done.is_set():
            with UsageLedger(path, cache_dir=tmp_path / "cache" if cache else False) as ledger:
                counted = sum(g.requests for g in UsageReport(ledger).groups("day"))
                exact = ledger.query("SELECT count(*) FROM ledger.usage_events")[0][0]
                assert counted <= int(exact)  # type: ignore[call-overload]
                seen.append(counted)
    finally:
        writer.join()
    assert seen == sorted(seen) and all(200 <= n <= 500 for n in seen), seen
    with UsageLedger(path, cache_dir=tmp_path / "cache" if cache else False) as ledger:
        assert sum(g.requests for g in UsageReport(ledger).groups("day")) == 500


def test_a_symlink_to_another_database_is_not_a_ledger(tmp_path: Path) -> None:
    home = tmp_path / "rho"
    home.mkdir()
    other = tmp_path / "places.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE moz_places (url TEXT)")
    db.commit()
    db.close()
    (home / "usage.sqlite3").symlink_to(other)
    out = _usage(tmp_path, home, "--json")
    assert (
        out.returncode == 2 and "not a usage ledger" in out.stderr and "Traceback" not in out.stderr
    ), out.stderr
    # a link to a real ledger is refused too: Rho's ledger is a file of its own
    (home / "usage.sqlite3").unlink()
    (home / "usage.sqlite3").symlink_to(
        make_ledger(tmp_path / "elsewhere" / "usage.sqlite3", [row()])
    )
    with pytest.raises(InputError, match="symbolic link"):
        UsageLedger(home / "usage.sqlite3", cache_dir=False)


def test_a_database_without_rhos_table_is_not_a_ledger(tmp_path: Path) -> None:
    home = tmp_path / "rho"
    home.mkdir()
    db = sqlite3.connect(home / "usage.sqlite3")
    db.execute("CREATE TABLE accounts (name TEXT, secret TEXT)")
    db.commit()
    db.close()
    out = _usage(tmp_path, home)
    assert out.returncode == 2 and "not a usage ledger" in out.stderr, out.stderr
    assert os.listdir(home) == ["usage.sqlite3"]
