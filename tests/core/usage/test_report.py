"""The ledger's aggregates agree with an independent SQL aggregation over the raw rows.

The expected figures come from plain SQL written here, over ``usage_events`` itself (one row per
request, other date formulas than the product's), for every grouping, in UTC and in two local
zones (one with a DST change inside the data, one 5:30 from UTC), with date ranges and filters;
through rho-desk's roll-up and without it, and again after Rho appended rows.
"""

from __future__ import annotations

import datetime as dt
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rho_desk.core.usage.ledger import UsageLedger
from rho_desk.core.usage.report import GROUPINGS, UsageFilter, UsageReport

from .ledgers import insert, make_ledger, random_rows

_WEEKDAY = "((CAST(strftime('%w', {t}) AS INTEGER) + 6) % 7)"
_KEYS = {
    "day": "strftime('%Y-%m-%d', {t})",
    "week": "date({t}, '-' || " + _WEEKDAY + " || ' days')",
    "month": "substr(strftime('%Y-%m-%d', {t}), 1, 7)",
    "workspace": "coalesce(workspace_path, '')",
    "model": "model",
    "provider": "provider",
    "purpose": "purpose",
    "session": "coalesce(session_id, '')",
}


def expected(path: Path, by: str, filt: UsageFilter) -> dict[str, tuple[int, ...]]:
    """The groups by plain SQL over every row (no roll-up, no buckets)."""
    t = "occurred_at_ms / 1000.0, 'unixepoch'" + (", 'localtime'" if filt.local else "")
    key = _KEYS[by].format(t=t)
    where, params = ["1"], []
    day = f"strftime('%Y-%m-%d', {t})"
    if filt.since:
        where.append(f"{day} >= ?")
        params.append(filt.since.isoformat())
    if filt.until:
        where.append(f"{day} <= ?")
        params.append(filt.until.isoformat())
    for column, values in (
        ("coalesce(workspace_path, '')", filt.workspaces),
        ("model", filt.models),
        ("purpose", filt.purposes),
    ):
        if values:
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            params.extend(values)
    db = sqlite3.connect(path)
    rows = db.execute(
        f"""SELECT {key}, count(*), total(input_tokens), total(output_tokens), total(cache_read_tokens),
                   total(cache_write_tokens),
                   total(CASE WHEN total_tokens IS NOT NULL THEN total_tokens ELSE ifnull(input_tokens, 0)
                         + ifnull(output_tokens, 0) + ifnull(cache_read_tokens, 0) + ifnull(cache_write_tokens, 0) END),
                   total(cost_usd_micros),
                   sum(CASE WHEN cost_usd_micros IS NULL THEN 1 ELSE 0 END)
            FROM usage_events WHERE {" AND ".join(where)} GROUP BY 1""",
        params,
    ).fetchall()
    db.close()
    return {str(r[0]): tuple(int(v) for v in r[1:]) for r in rows}


def actual(groups: list) -> dict[str, tuple[int, ...]]:  # type: ignore[type-arg]
    return {
        g.key: (
            g.requests,
            g.input_tokens,
            g.output_tokens,
            g.cache_read_tokens,
            g.cache_write_tokens,
            g.total_tokens,
            g.cost_usd_micros,
            g.requests_without_cost,
        )
        for g in groups
    }


@pytest.fixture
def ledger_file(tmp_path: Path) -> Path:
    return make_ledger(tmp_path / "home" / "usage.sqlite3", random_rows(3000))


@pytest.fixture(params=["UTC", "America/New_York", "Asia/Kolkata"])
def zone(request: pytest.FixtureRequest) -> Iterator[str]:
    old = os.environ.get("TZ")
    os.environ["TZ"] = request.param
    time.tzset()
    yield request.param
    if old is None:
        os.environ.pop("TZ")
    else:
        os.environ["TZ"] = old
    time.tzset()


FILTERS = [
    UsageFilter(),
    UsageFilter(local=True),
    UsageFilter(since=dt.date(2026, 10, 30), until=dt.date(2026, 11, 8)),
    UsageFilter(since=dt.date(2026, 10, 30), until=dt.date(2026, 11, 8), local=True),
    UsageFilter(
        workspaces=("", "/w/b"), models=("gpt-5", "qwen"), purposes=("agent", "compaction")
    ),
]


@pytest.mark.parametrize("cached", [True, False], ids=["rollup", "raw"])
def test_every_grouping_agrees_with_plain_sql(
    ledger_file: Path, tmp_path: Path, zone: str, cached: bool
) -> None:
    with UsageLedger(ledger_file, cache_dir=tmp_path / "cache" if cached else False) as ledger:
        assert ledger.cached is cached
        report = UsageReport(ledger)
        for filt in FILTERS:
            for by in GROUPINGS:
                assert actual(report.groups(by, filt)) == expected(ledger_file, by, filt), (
                    by,
                    filt,
                )


def test_rows_rho_appends_later_are_folded_in(ledger_file: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        before = actual(UsageReport(ledger).groups("model"))
    insert(ledger_file, random_rows(500, seed=99))
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        after = UsageReport(ledger).groups("model")
    assert actual(after) == expected(ledger_file, "model", UsageFilter()) != before
    # an open ledger folds them in on refresh()
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        insert(ledger_file, random_rows(50, seed=5))
        ledger.refresh()
        assert actual(UsageReport(ledger).groups("day")) == expected(
            ledger_file, "day", UsageFilter()
        )


def test_pruned_or_replaced_ledger_rebuilds_the_rollup(ledger_file: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        UsageReport(ledger).groups("day")
    db = sqlite3.connect(ledger_file)
    with db:  # a person prunes the oldest rows by hand
        db.execute("DELETE FROM usage_events WHERE rowid <= 100")
    db.close()
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        assert actual(UsageReport(ledger).groups("day")) == expected(
            ledger_file, "day", UsageFilter()
        )
    ledger_file.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{ledger_file}{suffix}").unlink(missing_ok=True)
    make_ledger(ledger_file, random_rows(200, seed=3))  # another ledger at the same path
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        assert actual(UsageReport(ledger).groups("purpose")) == expected(
            ledger_file, "purpose", UsageFilter()
        )


def test_a_damaged_rollup_is_rebuilt(ledger_file: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        target = ledger.rollup_path
    assert target is not None
    for suffix in ("-wal", "-shm"):
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    target.write_bytes(b"not a database at all" * 100)
    with UsageLedger(ledger_file, cache_dir=cache) as ledger:
        assert ledger.cached
        assert actual(UsageReport(ledger).groups("workspace")) == expected(
            ledger_file, "workspace", UsageFilter()
        )


def test_missing_workspace_is_the_empty_key_and_unknowns_count_as_zero(tmp_path: Path) -> None:
    """An unreported count adds nothing; a request without a reported total counts the parts it
    reported (the walkthrough's qwen2.5-coder row: 44,254 input, 6,344 output, total shown 0)."""
    from .ledgers import row

    path = make_ledger(
        tmp_path / "usage.sqlite3",
        [
            row(
                workspace_path=None,
                input_tokens=None,
                output_tokens=5,
                total_tokens=None,
                cost_usd_micros=None,
            ),
            row(
                workspace_path=None,
                input_tokens=7,
                output_tokens=None,
                total_tokens=9,
                cost_usd_micros=1_500_000,
            ),
        ],
    )
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        [group] = UsageReport(ledger).groups("workspace")
    assert group.to_json() == {
        "key": "",
        "requests": 2,
        "input_tokens": 7,
        "output_tokens": 5,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "total_tokens": 5 + 9,
        "cost_usd": 1.5,
        "requests_without_cost": 1,
    }


def test_upstream_fixture_reads(tmp_path: Path) -> None:
    from tests.conftest import RHO_FIXTURES

    with UsageLedger(RHO_FIXTURES / "usage-v1.sqlite3", cache_dir=False) as ledger:
        assert ledger.version == 1
        [group] = UsageReport(ledger).groups("model")
        [request] = ledger.session_requests("fixture-session")
    assert (group.key, group.requests, group.total_tokens, group.cost_usd_micros) == (
        "fixture-model",
        1,
        42,
        1234,
    )
    assert (request.provider, request.purpose, request.prompt_tokens, request.rho_version) == (
        "fixture-provider",
        "agent",
        32,
        "fixture",
    )


def test_local_days_follow_a_change_of_timezone(ledger_file: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    old = os.environ.get("TZ")
    try:
        os.environ["TZ"] = "America/New_York"
        time.tzset()
        with UsageLedger(ledger_file, cache_dir=cache) as ledger:  # local days folded for New York
            assert actual(UsageReport(ledger).groups("day", UsageFilter(local=True))) == expected(
                ledger_file, "day", UsageFilter(local=True)
            )
        os.environ["TZ"] = "Asia/Kolkata"
        time.tzset()
        insert(ledger_file, random_rows(100, seed=11))
        with UsageLedger(ledger_file, cache_dir=cache) as ledger:  # the same roll-up, another zone
            for by in ("day", "week"):
                filt = UsageFilter(local=True)
                assert actual(UsageReport(ledger).groups(by, filt)) == expected(
                    ledger_file, by, filt
                )
    finally:
        if old is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old
        time.tzset()


@pytest.mark.parametrize(
    ("unit", "stack"), [("day", "purpose"), ("week", "model"), ("month", "purpose")]
)
def test_stacked_series_agree_with_and_without_the_rollup(
    ledger_file: Path, tmp_path: Path, unit: str, stack: str
) -> None:
    filt = UsageFilter(since=dt.date(2026, 10, 27), until=dt.date(2026, 11, 30), local=True)
    with (
        UsageLedger(ledger_file, cache_dir=tmp_path / "cache") as cached,
        UsageLedger(ledger_file, cache_dir=False) as raw,
    ):
        a, b = (
            UsageReport(cached).stacked(unit, stack, filt),
            UsageReport(raw).stacked(unit, stack, filt),
        )
    assert a.x == b.x and a.cells == b.cells and set(a.stacks) == set(b.stacks)
    assert sum(g.requests for g in a.cells.values()) == sum(
        expected(ledger_file, "day", filt)[d][0] for d in expected(ledger_file, "day", filt)
    )


def test_chart_unit_keeps_the_bars_readable() -> None:
    from rho_desk.core.usage.overview import chart_unit

    day = dt.date(2026, 1, 1)
    assert [chart_unit(day, day + dt.timedelta(days=n)) for n in (0, 61, 62, 181, 182, 400)] == [
        "day",
        "day",
        "week",
        "week",
        "month",
        "month",
    ]


# -- a first look at a big ledger: a plain scan, and the roll-up built a part per look --------


def test_a_big_backlog_is_scanned_and_folded_a_part_per_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Folding a row costs several plain scans of it, so a first look at a big ledger reads the
    ledger itself and builds the roll-up a batch at a time, after its reports; every look's
    figures are right, and once caught up it folds only what Rho wrote since (34.5)."""
    from rho_desk.core.usage import ledger as ledger_module
    from rho_desk.core.usage import rollup
    from rho_desk.core.usage.payback import payback

    monkeypatch.setattr(rollup, "EAGER_ROWS", 300)
    monkeypatch.setattr(rollup, "EAGER_SHARE", 0.05)
    monkeypatch.setattr(ledger_module, "CATCH_UP_ROWS", 700)
    path = make_ledger(tmp_path / "usage.sqlite3", random_rows(6000))
    cache = tmp_path / "cache"
    looks: list[tuple[bool, int]] = []
    for _ in range(20):
        with UsageLedger(path, cache_dir=cache) as ledger:
            looks.append((ledger.cached, _folded(ledger)))
            assert actual(UsageReport(ledger).groups("model")) == expected(
                path, "model", UsageFilter()
            )
            prices = payback(ledger).prices
            ledger.catch_up(0)  # one batch per look, whatever the time its reports took
        if looks[-1][0]:
            break
    assert looks[0] == (False, 0)  # nothing folded before the first report: it scanned the ledger
    folded = [n for _cached, n in looks]
    assert folded == sorted(folded) and len(set(folded)) == len(folded)  # each look got further
    assert 6 <= len(looks) <= 10 and looks[-1][0]  # 700 rows a look (and the last 5 % at once)
    with UsageLedger(path, cache_dir=False) as raw:
        assert payback(raw).prices == prices  # the fitted prices do not depend on the path
    insert(path, random_rows(250, seed=11))  # Rho writes on; a small backlog is folded up front
    with UsageLedger(path, cache_dir=cache) as ledger:
        assert ledger.cached and _folded(ledger) == 6250
        for filt in FILTERS:
            assert actual(UsageReport(ledger).groups("day", filt)) == expected(path, "day", filt)


def test_closing_spends_a_share_of_the_reports_time_catching_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rho_desk.core.usage import ledger as ledger_module
    from rho_desk.core.usage import rollup

    monkeypatch.setattr(rollup, "EAGER_ROWS", 100)
    monkeypatch.setattr(ledger_module, "CATCH_UP_ROWS", 200)
    path = make_ledger(tmp_path / "usage.sqlite3", random_rows(4000))
    spent: list[float] = []
    real = UsageLedger.catch_up
    monkeypatch.setattr(
        UsageLedger, "catch_up", lambda self, seconds: spent.append(seconds) or real(self, seconds)
    )
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        UsageReport(ledger).groups("session")
        reading = ledger._reading
    assert reading > 0 and spent == [pytest.approx(ledger_module.CATCH_UP_SHARE * reading)]
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        assert _folded(ledger) >= 200  # at least one batch went in


def _folded(ledger: UsageLedger) -> int:
    """How many ledger rows the roll-up holds (its high-water mark)."""
    rows = (
        ledger.query("SELECT value FROM main.meta WHERE key = 'high_rowid'")
        if ledger.rollup_path
        else []
    )
    return int(rows[0][0]) if rows else 0  # type: ignore[call-overload]
