"""Compaction payback on a hand-computed example, and the price fit it relies on."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.usage.ledger import UsageLedger
from rho_desk.core.usage.payback import payback
from rho_desk.core.usage.pricing import fit_price
from rho_desk.core.usage.report import UsageFilter

from .ledgers import make_ledger, row

T = 1_790_000_000_000
MIN = 60_000


def _r(
    minute: int,
    purpose: str,
    inp: int,
    out: int,
    read: int | None = None,
    cost: int | None = None,
    outcome: str = "completed",
    **more: object,
) -> dict[str, object]:
    return row(
        occurred_at_ms=T + minute * MIN,
        session_id="S",
        workspace_path="/w/pay",
        purpose=purpose,
        request_outcome=outcome,
        input_tokens=inp,
        output_tokens=out,
        cache_read_tokens=read,
        cost_usd_micros=cost,
        total_tokens=None,
        **more,
    )


# gpt-5 here costs 2 µ$ per input token, 10 per output token, 0.5 per cache-read token
EXAMPLE = [
    _r(0, "agent", 1000, 100, 0, 3000),
    _r(1, "agent", 3000, 200, 5000, 10500),
    _r(2, "agent", 2000, 300, 10000, 12000),  # prompt 12,000: the context before
    _r(3, "compaction", 12000, 0, None, 24000, "failed"),  # a retried compaction: one compaction
    _r(4, "compaction", 12000, 800, None, 32000),  # of cost 24,000 + 32,000 = 56,000
    _r(5, "agent", 1500, 100, 500, 4250),  # prompt 2,000: the context after
    _r(6, "title", 300, 20, None, 800),  # not an agent request: not counted
    _r(7, "agent", 2500, 0, 0, 5000, "failed"),  # failed, but it carried the context: counted
    _r(8, "agent", 1000, 50, 2000, 3500),  # prompt 3,000
    _r(9, "compaction", 3000, 300, None, 9000),
    _r(10, "agent", 1000, 10, None, 2100),  # prompt 1,000
    row(
        occurred_at_ms=T + 11 * MIN,
        session_id="S-child",
        parent_session_id="S",
        purpose="subagent",
        input_tokens=10,
        output_tokens=1,
        cost_usd_micros=30,
        workspace_path="/w/pay",
    ),
]


@pytest.fixture(params=[True, False], ids=["rollup", "raw"])
def ledger(request: pytest.FixtureRequest, tmp_path: Path) -> UsageLedger:
    path = make_ledger(tmp_path / "usage.sqlite3", EXAMPLE)
    return UsageLedger(path, cache_dir=tmp_path / "cache" if request.param else False)


def test_hand_computed_payback(ledger: UsageLedger) -> None:
    with ledger:
        report = payback(ledger)
    price = report.prices[("openai", "gpt-5")]
    assert price.input == pytest.approx(2.0) and price.output == pytest.approx(10.0)
    assert price.cache_read == pytest.approx(0.5) and price.cache_write is None
    [session] = report.sessions
    first, second = session.compactions
    # 1: before 12,000, after 2,000: 10,000 fewer tokens on each of 3 later requests
    assert (first.attempts, first.cost_usd_micros, first.context_before, first.context_after) == (
        2,
        56000,
        12000,
        2000,
    )
    assert (first.later_requests, first.saved_tokens) == (3, 30000)
    assert first.saved_usd_micros == pytest.approx(60000)  # 30,000 tokens × 2 µ$
    assert first.net_usd_micros == pytest.approx(4000) and first.paid_off is True
    # 2: before 3,000, after 1,000, one later request: saved 2,000 tokens = 4,000 µ$, cost 9,000
    assert (
        second.context_before,
        second.context_after,
        second.later_requests,
        second.saved_tokens,
    ) == (3000, 1000, 1, 2000)
    assert second.saved_usd_micros == pytest.approx(4000)
    assert second.net_usd_micros == pytest.approx(-5000) and second.paid_off is False
    total = report.total
    assert (total.compactions, total.cost_usd_micros, total.saved_tokens) == (2, 65000, 32000)
    assert total.saved_usd_micros == pytest.approx(64000) and total.net_usd_micros == pytest.approx(
        -1000
    )
    assert session.to_json()["net_usd"] == pytest.approx(-0.001)


def test_filters_pick_compactions_by_time(ledger: UsageLedger) -> None:
    import datetime as dt

    day = dt.datetime.fromtimestamp(T / 1000, dt.UTC).date()
    with ledger:
        assert payback(ledger, UsageFilter(since=day + dt.timedelta(days=1))).sessions == []
        assert payback(ledger, UsageFilter(workspaces=("/w/other",))).sessions == []
        assert payback(ledger, UsageFilter(until=day)).total.compactions == 2


def test_unknown_price_or_context_is_unknown_never_zero(tmp_path: Path) -> None:
    rows = [
        _r(0, "agent", 5000, 10, None, None, provider="local", model="qwen"),
        _r(1, "compaction", 5000, 100, None, None, provider="local", model="qwen"),
        _r(2, "agent", 1000, 10, None, None, provider="local", model="qwen"),
        _r(3, "compaction", 1000, 10, None, 77),
        _r(4, "agent", None, 10, None, 500),  # the provider reported no input: context unknown
    ]
    path = make_ledger(tmp_path / "usage.sqlite3", rows)
    with UsageLedger(path, cache_dir=tmp_path / "cache") as ledger:
        report = payback(ledger)
    first, second = report.sessions[0].compactions
    assert first.saved_tokens == 4000 and first.saved_usd_micros is None  # qwen: no costs, no price
    assert first.cost_usd_micros is None and first.paid_off is None
    assert (
        second.context_after is None
        and second.saved_tokens is None
        and second.cost_usd_micros == 77
    )
    assert report.total.unknown_cost == 1 and report.total.unknown_saving == 2


def test_price_fit_recovers_exact_prices_and_drops_what_it_cannot_tell_apart() -> None:
    rows = [
        (1000, 100, 0, 0),
        (3000, 200, 5000, 0),
        (2000, 300, 10000, 40),
        (7000, 10, 300, 900),
        (5, 5, 5, 5),
    ]
    prices = (1.25, 10.0, 0.125, 1.5625)

    def moments(data: list[tuple[int, int, int, int]], cost: list[float]) -> list[float]:
        pairs = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3)]
        m = [float(sum(d[a] * d[b] for d in data)) for a, b in pairs]
        return m + [float(sum(d[k] * c for d, c in zip(data, cost, strict=True))) for k in range(4)]

    costs = [sum(p * t for p, t in zip(prices, d, strict=True)) for d in rows]
    fitted = fit_price("p", "m", len(rows), moments(rows, costs))
    assert (fitted.input, fitted.output, fitted.cache_read, fitted.cache_write) == pytest.approx(
        prices
    )
    # cache reads always twice the input: the fit cannot separate them and drops cache reads
    twin = [(i, o, 2 * i, 0) for i, o, _r, _w in rows]
    fitted = fit_price(
        "p", "m", len(rows), moments(twin, [3.0 * i + 7.0 * o for i, o, _r, _w in twin])
    )
    assert (
        fitted.input == pytest.approx(3.0)
        and fitted.output == pytest.approx(7.0)
        and fitted.cache_read is None
    )
    # nothing costed: unknown, not zero
    assert fit_price("p", "m", 0, [0.0] * 14).input is None
