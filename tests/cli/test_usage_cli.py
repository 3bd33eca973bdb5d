"""``rho-desk usage`` as a user runs it: a subprocess over a temporary Rho home and its ledger."""

from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rho_desk.core.usage.report import UsageFilter

from ..core.usage.ledgers import make_ledger, random_rows
from ..core.usage.test_payback import EXAMPLE
from ..core.usage.test_report import expected


def _run(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "RHO_DESK_CACHE_DIR": str(tmp_path / "cache"),
        "RHO_HOME": str(tmp_path / "no-such-home"),
        "TZ": "UTC",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", "usage", *args],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
    )


@pytest.fixture
def home(tmp_path: Path) -> Path:
    make_ledger(tmp_path / "rho" / "usage.sqlite3", random_rows(1500))
    return tmp_path / "rho"


FIELDS = [
    "key",
    "requests",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "total_tokens",
    "cost_usd",
    "requests_without_cost",
]


def _as_tuples(groups: list[dict[str, object]]) -> dict[str, tuple[int, ...]]:
    return {
        str(g["key"]): (
            *(int(g[f]) for f in FIELDS[1:7]),
            round(float(g["cost_usd"]) * 1e6),  # type: ignore[arg-type]
            int(g["requests_without_cost"]),
        )
        for g in groups
    }  # type: ignore[call-overload]


@pytest.mark.parametrize("by", ["day", "week", "workspace", "session"])
def test_json_matches_plain_sql(tmp_path: Path, home: Path, by: str) -> None:
    out = _run(
        tmp_path,
        "--home",
        str(home),
        "--by",
        by,
        "--since",
        "2026-10-28",
        "--until",
        "2026-11-20",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert list(document) == ["groups"]
    assert all(list(g) == FIELDS for g in document["groups"])
    import datetime as dt

    filt = UsageFilter(since=dt.date(2026, 10, 28), until=dt.date(2026, 11, 20))
    assert _as_tuples(document["groups"]) == expected(home / "usage.sqlite3", by, filt)


def test_local_days_follow_the_zone(tmp_path: Path, home: Path) -> None:
    out = _run(
        tmp_path,
        "--home",
        str(home),
        "--by",
        "day",
        "--local",
        "--json",
        env={"TZ": "Asia/Kolkata"},
    )
    assert out.returncode == 0, out.stderr
    os.environ["TZ"], old = "Asia/Kolkata", os.environ.get("TZ")
    import time

    time.tzset()
    try:
        want = expected(home / "usage.sqlite3", "day", UsageFilter(local=True))
    finally:
        if old is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = old
        time.tzset()
    assert _as_tuples(json.loads(out.stdout)["groups"]) == want
    utc = _run(tmp_path, "--home", str(home), "--by", "day", "--json")
    assert _as_tuples(json.loads(utc.stdout)["groups"]) != want


def test_csv_and_text(tmp_path: Path, home: Path) -> None:
    out = _run(tmp_path, "--home", str(home), "--by", "model", "--csv", "--no-cache")
    assert out.returncode == 0, out.stderr
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    assert list(rows[0]) == FIELDS
    assert {r["key"]: int(r["requests"]) for r in rows} == {
        k: v[0] for k, v in expected(home / "usage.sqlite3", "model", UsageFilter()).items()
    }
    text = _run(tmp_path, "--home", str(home), "--by", "purpose")
    assert text.returncode == 0 and text.stdout.splitlines()[0].split()[:2] == [
        "purpose",
        "requests",
    ]
    assert "total" in text.stdout


def test_payback_json(tmp_path: Path) -> None:
    make_ledger(tmp_path / "rho" / "usage.sqlite3", EXAMPLE)
    out = _run(tmp_path, "--home", str(tmp_path / "rho"), "--payback", "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert document["total"]["saved_tokens"] == 32000 and document["total"][
        "net_usd"
    ] == pytest.approx(-0.001)
    assert [c["paid_off"] for c in document["sessions"][0]["compactions"]] == [True, False]
    text = _run(tmp_path, "--home", str(tmp_path / "rho"), "--payback")
    assert text.returncode == 0 and "S" in text.stdout and "$0.0640" in text.stdout


def test_a_newer_ledger_exits_2_and_stays_untouched(tmp_path: Path) -> None:
    path = make_ledger(tmp_path / "rho" / "usage.sqlite3", random_rows(20), version=7)
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)
    out = _run(tmp_path, "--home", str(tmp_path / "rho"), "--json")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert (
        str(path) in out.stderr
        and "schema version 7 is newer than supported version 1" in out.stderr
    )
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--since", "yesterday"), "--since: 'yesterday' is not a date"),
        (("--since", "2026-02-02", "--until", "2026-02-01"), "is after --until"),
    ],
)
def test_bad_input_exits_2(tmp_path: Path, home: Path, args: tuple[str, ...], message: str) -> None:
    out = _run(tmp_path, "--home", str(home), *args)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_corrupt_ledger_exits_2(tmp_path: Path) -> None:
    (tmp_path / "rho").mkdir()
    (tmp_path / "rho" / "usage.sqlite3").write_bytes(b"garbage" * 200)
    out = _run(tmp_path, "--home", str(tmp_path / "rho"))
    assert (
        out.returncode == 2 and "usage.sqlite3" in out.stderr and "not a usage ledger" in out.stderr
    )


def test_no_ledger_is_an_empty_report(tmp_path: Path) -> None:
    (tmp_path / "rho").mkdir()
    out = _run(tmp_path, "--home", str(tmp_path / "rho"), "--json")
    assert (
        out.returncode == 0
        and json.loads(out.stdout) == {"groups": []}
        and "no usage ledger" in out.stderr
    )


def test_the_demo_ledger_by_model_from_anywhere(tmp_path: Path) -> None:
    """``rho-desk --demo usage`` works from an installed app (no checkout, no ``demo`` folder:
    the walkthrough's R3), and a model whose requests reported no total counts the parts they
    reported (N22: qwen2.5-coder-32b, 44,254 input and 6,344 output, showed a total of 0)."""
    environment = {
        **os.environ,
        "RHO_DESK_CACHE_DIR": str(tmp_path / "cache"),
        "RHO_HOME": str(tmp_path / "none"),
    }
    done = subprocess.run(
        [sys.executable, "-m", "rho_desk", "--demo", "usage", "--by", "model", "--json"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    groups = {g["key"]: g for g in json.loads(done.stdout)["groups"]}
    qwen = groups["qwen2.5-coder-32b"]
    assert (qwen["input_tokens"], qwen["output_tokens"], qwen["total_tokens"]) == (
        44_254,
        6_344,
        44_254 + 6_344,
    )
    assert sum(g["requests"] for g in groups.values()) == 321
    assert not (
        tmp_path / "none"
    ).exists()  # the demo copy lives in the cache folder, $RHO_HOME untouched
