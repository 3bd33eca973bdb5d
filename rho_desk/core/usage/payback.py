"""Compaction payback: what each compaction cost, against the input it saved afterwards.

Definitions (``docs/usage.md`` says the same, with a worked example):

* A **compaction** is a run of consecutive ``compaction`` requests of one session (retries of
  one compaction are separate rows), with no ``agent`` request between them. Its **cost** is
  the sum of their ``cost_usd_micros`` (``None`` when none of them reported a cost).
* Its **context before** is the prompt of the session's last completed ``agent`` request before
  it; its **context after**, the prompt of the first completed ``agent`` request after it. A
  request's prompt is its uncached input plus cache reads and cache writes (what it reported).
* Its **later requests** are the session's ``agent`` requests (any outcome) after it and before
  the session's next compaction.
* **Saved tokens** = max(0, before − after) × later requests: each later request carried that
  much less context. (The context grows the same way with or without the compaction, so the
  difference stays the same along the way.) Unknown when before or after is unknown.
* **Saved cost** = Σ over the later requests of (before − after) × the input price of that
  request's model, fitted from the ledger's own costs (:mod:`.pricing`). Priced as uncached
  input: with prompt caching the real saving is smaller. Unknown when a price is.
* **Net** = saved cost − compaction cost; the compaction **paid off** when net ≥ 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .ledger import LedgerRequest, UsageLedger
from .pricing import ModelPrice, fit_price
from .report import UsageFilter
from .rollup import BUCKET_MS

__all__ = [
    "CompactionPayback",
    "PaybackReport",
    "SessionPayback",
    "compute_payback",
    "payback",
    "prices",
]


@dataclass(frozen=True, slots=True)
class CompactionPayback:
    """One compaction's cost and what it saved (see the module docstring)."""

    session_id: str
    workspace: str
    occurred_at_ms: int
    provider: str
    model: str
    attempts: int
    """Ledger rows of this compaction (retries included)."""
    cost_usd_micros: int | None
    context_before: int | None
    context_after: int | None
    later_requests: int
    saved_tokens: int | None
    saved_usd_micros: float | None

    @property
    def net_usd_micros(self) -> float | None:
        if self.saved_usd_micros is None or self.cost_usd_micros is None:
            return None
        return self.saved_usd_micros - self.cost_usd_micros

    @property
    def paid_off(self) -> bool | None:
        net = self.net_usd_micros
        return None if net is None else net >= 0

    def to_json(self) -> dict[str, object]:
        return {
            "session_id": self.session_id,
            "workspace": self.workspace,
            "occurred_at_ms": self.occurred_at_ms,
            "provider": self.provider,
            "model": self.model,
            "attempts": self.attempts,
            "cost_usd": _usd(self.cost_usd_micros),
            "context_before": self.context_before,
            "context_after": self.context_after,
            "later_requests": self.later_requests,
            "saved_tokens": self.saved_tokens,
            "saved_usd": _usd(self.saved_usd_micros),
            "net_usd": _usd(self.net_usd_micros),
            "paid_off": self.paid_off,
        }


def _usd(micros: float | None) -> float | None:
    return None if micros is None else round(micros / 1_000_000, 6)


@dataclass(slots=True)
class Totals:
    """Sums over compactions; each sum covers the compactions where that figure is known."""

    compactions: int = 0
    cost_usd_micros: int = 0
    saved_tokens: int = 0
    saved_usd_micros: float = 0.0
    unknown_cost: int = 0
    """Compactions without a reported cost."""
    unknown_saving: int = 0
    """Compactions whose saving could not be measured or priced."""

    def add(self, c: CompactionPayback) -> None:
        self.compactions += 1
        if c.cost_usd_micros is None:
            self.unknown_cost += 1
        else:
            self.cost_usd_micros += c.cost_usd_micros
        if c.saved_tokens is not None:
            self.saved_tokens += c.saved_tokens
        if c.saved_usd_micros is None:
            self.unknown_saving += 1
        else:
            self.saved_usd_micros += c.saved_usd_micros

    @property
    def net_usd_micros(self) -> float:
        return self.saved_usd_micros - self.cost_usd_micros

    def to_json(self) -> dict[str, object]:
        return {
            "compactions": self.compactions,
            "cost_usd": _usd(self.cost_usd_micros),
            "saved_tokens": self.saved_tokens,
            "saved_usd": _usd(self.saved_usd_micros),
            "net_usd": _usd(self.net_usd_micros),
            "compactions_without_cost": self.unknown_cost,
            "compactions_without_saving": self.unknown_saving,
        }


@dataclass(slots=True)
class SessionPayback:
    session_id: str
    workspace: str
    compactions: list[CompactionPayback] = field(default_factory=list)
    totals: Totals = field(default_factory=Totals)

    def to_json(self) -> dict[str, object]:
        return {
            "session_id": self.session_id,
            "workspace": self.workspace,
            **self.totals.to_json(),
            "compactions": [c.to_json() for c in self.compactions],
        }


@dataclass(slots=True)
class PaybackReport:
    sessions: list[SessionPayback] = field(default_factory=list)
    total: Totals = field(default_factory=Totals)
    prices: dict[tuple[str, str], ModelPrice] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "sessions": [s.to_json() for s in self.sessions],
            "total": self.total.to_json(),
            "input_prices": [
                {
                    "provider": p.provider,
                    "model": p.model,
                    "usd_per_million_input_tokens": p.input,
                    "fitted_from_requests": p.requests,
                }
                for p in sorted(self.prices.values(), key=lambda p: (p.provider, p.model))
            ],
        }


def compute_payback(
    session_id: str, requests: Iterable[LedgerRequest], price: dict[tuple[str, str], ModelPrice]
) -> SessionPayback:
    """The payback of every compaction in one session's requests (oldest first)."""
    rows = [
        r for r in requests if r.session_id == session_id and r.purpose in ("agent", "compaction")
    ]
    workspace = next((r.workspace_path for r in rows if r.workspace_path), "") or ""
    result = SessionPayback(session_id, workspace)
    i = 0
    while i < len(rows):
        if rows[i].purpose != "compaction":
            i += 1
            continue
        start = i
        while i < len(rows) and rows[i].purpose == "compaction":
            i += 1
        group = rows[start:i]
        before = next(
            (
                r.prompt_tokens
                for r in reversed(rows[:start])
                if r.purpose == "agent" and r.outcome == "completed"
            ),
            None,
        )
        end = i
        while end < len(rows) and rows[end].purpose != "compaction":
            end += 1
        later = rows[i:end]
        after = next((r.prompt_tokens for r in later if r.outcome == "completed"), None)
        costs = [r.cost_usd_micros for r in group if r.cost_usd_micros is not None]
        saved_tokens: int | None = None
        saved_usd: float | None = None
        if before is not None and after is not None:
            per_request = max(0, before - after)
            saved_tokens = per_request * len(later)
            saved_usd = 0.0
            for r in later:
                p = price.get((r.provider, r.model))
                if p is None or p.input is None:
                    saved_usd = None
                    break
                saved_usd += per_request * p.input
        last = group[-1]
        compaction = CompactionPayback(
            session_id,
            workspace,
            group[0].occurred_at_ms,
            last.provider,
            last.model,
            len(group),
            sum(costs) if costs else None,
            before,
            after,
            len(later),
            saved_tokens,
            saved_usd,
        )
        result.compactions.append(compaction)
        result.totals.add(compaction)
    return result


def prices(ledger: UsageLedger) -> dict[tuple[str, str], ModelPrice]:
    """Every (provider, model)'s fitted prices (from the roll-up's sums, else a ledger scan)."""
    from .rollup import MOMENTS_RAW

    if ledger.cached:
        ledger.refresh_prices()
        sql = "SELECT provider, model, n, ii, io, ir, iw, oo, orr, ow, rr, rw, ww, ic, oc, rc, wc FROM main.moments"
    else:
        sql = MOMENTS_RAW
    out: dict[tuple[str, str], ModelPrice] = {}
    for row in ledger.query(sql):
        provider, model, n = str(row[0]), str(row[1]), int(row[2])  # type: ignore[call-overload]
        out[(provider, model)] = fit_price(provider, model, n, row[3:])  # type: ignore[arg-type]
    return out


def payback(ledger: UsageLedger, filt: UsageFilter = UsageFilter()) -> PaybackReport:  # noqa: B008
    """The payback of every compaction the filter admits (by its time, workspace, model...),
    per session (most recent compaction first) and in total."""
    where, params = filt.where()
    sessions = [
        str(r[0])
        for r in ledger.query(
            f"SELECT session_id, max(bucket) AS last FROM {ledger.source} WHERE purpose = 'compaction' "
            f"AND session_id != '' AND {where} GROUP BY session_id ORDER BY last DESC, session_id",
            params,
        )
    ]
    report = PaybackReport(prices=prices(ledger))
    first, end = filt.bucket_range()
    for session_id in sessions:
        session = compute_payback(
            session_id, ledger.session_requests(session_id, children=False), report.prices
        )
        kept = [
            c
            for c in session.compactions
            if (first is None or c.occurred_at_ms // BUCKET_MS >= first)
            and (end is None or c.occurred_at_ms // BUCKET_MS < end)
        ]
        if not kept:
            continue
        session.compactions.sort(key=lambda c: c.occurred_at_ms)
        if len(kept) != len(session.compactions):
            session.compactions = kept
            session.totals = Totals()
            for c in kept:
                session.totals.add(c)
        report.sessions.append(session)
        for c in kept:
            report.total.add(c)
    return report
