"""Aggregates over the usage ledger, in SQL: by time, workspace, model, provider, purpose, session.

Every figure is a sum over ledger rows (one row per provider request): ``requests``, the four
token kinds as reported (an unreported value counts as 0), ``total_tokens`` (the reported total,
else the sum of the reported parts: ``rollup.TOTAL``), ``cost_usd``
(the sum of ``cost_usd_micros`` / 10⁶, over the rows that report a cost) and
``requests_without_cost`` (rows whose provider reported none, so that a cost of $0 is never
mistaken for "free"). Days, weeks (keyed by their Monday, ISO weeks) and months are UTC unless
the filter says ``local``; ``since`` and ``until`` are whole days, both included.

The sums come from the roll-up (:mod:`.rollup`) when there is one, else from the ledger
itself; the SQL is the same over either (``UsageLedger.source``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from ..errors import InputError
from .ledger import UsageLedger
from .rollup import BUCKET_MS, DIMS

__all__ = [
    "DIMENSIONS",
    "GROUPINGS",
    "TIME_GROUPINGS",
    "UsageFilter",
    "UsageGroup",
    "UsageReport",
    "parse_date",
]

TIME_GROUPINGS: Final = ("day", "week", "month")
DIMENSIONS: Final = ("workspace", "model", "provider", "purpose", "session")
GROUPINGS: Final = TIME_GROUPINGS + DIMENSIONS
"""What ``--by`` accepts."""

Grouping = Literal["day", "week", "month", "workspace", "model", "provider", "purpose", "session"]

_COLUMN: Final = {
    "workspace": "workspace",
    "model": "model",
    "provider": "provider",
    "purpose": "purpose",
    "session": "session_id",
}

_SUMS: Final = (
    "sum(requests), sum(input_tokens), sum(output_tokens), sum(cache_read_tokens), "
    "sum(cache_write_tokens), sum(total_tokens), sum(cost_usd_micros), sum(without_cost)"
)
_SUM_COLUMNS: Final = (
    "requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, total_tokens, "
    "cost_usd_micros, without_cost"
)


def parse_date(text: str, option: str = "date") -> dt.date:
    """A ``YYYY-MM-DD`` date; anything else is an :class:`InputError` naming the option."""
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise InputError(f"{option}: {text!r} is not a date (YYYY-MM-DD)") from None


@dataclass(frozen=True, slots=True)
class UsageFilter:
    """Which requests a report counts. Empty tuples mean "all"."""

    since: dt.date | None = None
    """First day counted (inclusive)."""
    until: dt.date | None = None
    """Last day counted (inclusive)."""
    local: bool = False
    """Days (and ``since``/``until``) in the local timezone instead of UTC."""
    workspaces: tuple[str, ...] = ()
    """Workspace paths (``""``: requests that recorded none)."""
    models: tuple[str, ...] = ()
    providers: tuple[str, ...] = ()
    purposes: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()

    def bucket_range(self) -> tuple[int | None, int | None]:
        """``[first, end)`` in buckets (15 minutes since the epoch)."""
        return (
            None if self.since is None else self._midnight(self.since) // BUCKET_MS,
            None
            if self.until is None
            else self._midnight(self.until + dt.timedelta(days=1)) // BUCKET_MS,
        )

    def _midnight(self, day: dt.date) -> int:
        tz = None if self.local else dt.UTC
        stamp = dt.datetime(day.year, day.month, day.day, tzinfo=tz)
        return int(stamp.timestamp() * 1000)

    def where(self) -> tuple[str, list[object]]:
        """A SQL condition over the roll-up's columns, and its parameters."""
        clauses: list[str] = []
        params: list[object] = []
        first, end = self.bucket_range()
        if first is not None:
            clauses.append("bucket >= ?")
            params.append(first)
        if end is not None:
            clauses.append("bucket < ?")
            params.append(end)
        for column, values in (
            ("workspace", self.workspaces),
            ("model", self.models),
            ("provider", self.providers),
            ("purpose", self.purposes),
            ("session_id", self.sessions),
        ):
            if values:
                clauses.append(f"{column} IN ({','.join('?' * len(values))})")
                params.extend(values)
        return (" AND ".join(clauses) or "1"), params


@dataclass(frozen=True, slots=True)
class UsageGroup:
    """The sums of one group of requests (``--json`` writes exactly these fields)."""

    key: str
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    total_tokens: int = 0
    cost_usd_micros: int = 0
    requests_without_cost: int = 0

    @property
    def cost_usd(self) -> float:
        return self.cost_usd_micros / 1_000_000

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_read_tokens": self.cache_read_tokens,
            "cache_write_tokens": self.cache_write_tokens,
            "total_tokens": self.total_tokens,
            "cost_usd": self.cost_usd,
            "requests_without_cost": self.requests_without_cost,
        }

    @classmethod
    def of(cls, key: object, sums: Sequence[object]) -> UsageGroup:
        values = [int(v or 0) for v in sums]  # type: ignore[call-overload]
        return cls("" if key is None else str(key), *values)


@dataclass(frozen=True, slots=True)
class StackedSeries:
    """Sums per (x, stack) cell, for a stacked bar chart: ``x`` in order, ``stacks`` by size."""

    x: list[str]
    stacks: list[str]
    cells: dict[tuple[str, str], UsageGroup] = field(default_factory=dict)


class UsageReport:
    """Reports over one open :class:`UsageLedger` (blocking; run them in a worker thread)."""

    def __init__(self, ledger: UsageLedger) -> None:
        self.ledger = ledger

    def _key(self, grouping: str, local: bool) -> tuple[str, bool]:
        """SQL for a grouping's key over the roll-up's columns, and whether it is a time key."""
        if grouping in _COLUMN:
            return _COLUMN[grouping], False
        zone = ", 'localtime'" if local else ""
        at = f"bucket * {BUCKET_MS // 1000}, 'unixepoch'{zone}"
        if grouping == "day":
            return f"date({at})", True
        if grouping == "week":
            return f"date({at}, 'weekday 0', '-6 days')", True
        if grouping == "month":
            return f"strftime('%Y-%m', {at})", True
        raise InputError(f"--by: {grouping!r} is not one of {', '.join(GROUPINGS)}")

    def groups(
        self, by: str, filt: UsageFilter = UsageFilter(), *, limit: int | None = None
    ) -> list[UsageGroup]:
        """One :class:`UsageGroup` per value of ``by``: time keys in order, the others by cost,
        then requests (largest first), then key; at most ``limit`` of them."""
        if by == "session" and self._whole(filt, dates=False):
            rows = self.ledger.query(
                f"SELECT session_id, {_SUM_COLUMNS} FROM main.sessions "
                "ORDER BY cost_usd_micros DESC, requests DESC, session_id LIMIT ?",
                (-1 if limit is None else limit,),
            )
            return [UsageGroup.of(row[0], row[1:]) for row in rows]
        return [UsageGroup.of(row[0], row[1:]) for row in self._grouped((by,), filt)][:limit]

    def total(self, filt: UsageFilter = UsageFilter()) -> UsageGroup:
        if self._whole(filt):
            where, params = self._daily_where(filt, "purpose")
            row = self.ledger.query(f"SELECT {_SUMS} FROM main.daily WHERE {where}", params)[0]
            return UsageGroup.of("total", row)
        where, params = filt.where()
        row = self.ledger.query(f"SELECT {_SUMS} FROM {self.ledger.source} WHERE {where}", params)[
            0
        ]
        return UsageGroup.of("total", row)

    def _whole(self, filt: UsageFilter, *, dates: bool = True) -> bool:
        """Whether the per-day tables answer under ``filt``: a roll-up, and no filter but dates."""
        if (
            not self.ledger.cached
            or filt.workspaces
            or filt.models
            or filt.providers
            or filt.purposes
            or filt.sessions
        ):
            return False
        return dates or (filt.since is None and filt.until is None)

    @staticmethod
    def _daily_where(filt: UsageFilter, dim: str) -> tuple[str, list[object]]:
        clauses: list[str] = ["zone = ?", "dim = ?"]
        params: list[object] = ["local" if filt.local else "utc", dim]
        if filt.since is not None:
            clauses.append("day >= ?")
            params.append(filt.since.isoformat())
        if filt.until is not None:
            clauses.append("day <= ?")
            params.append(filt.until.isoformat())
        return " AND ".join(clauses), params

    def _daily(
        self, groupings: Sequence[str], filt: UsageFilter
    ) -> list[tuple[object, ...]] | None:
        """The groups from the per-day tables, when they can answer (else ``None``)."""
        dims = [g for g in groupings if g not in TIME_GROUPINGS]
        if not self._whole(filt) or len(dims) > 1 or (dims and dims[0] not in DIMS):
            return None
        dim = dims[0] if dims else "purpose"  # any dimension counts every request once
        keys = []
        for g in groupings:
            if g == "day":
                keys.append("day")
            elif g == "week":
                keys.append("date(day, 'weekday 0', '-6 days')")
            elif g == "month":
                keys.append("substr(day, 1, 7)")
            else:
                keys.append("value")
        where, params = self._daily_where(filt, dim)
        select = ", ".join(f"{k} AS k{i}" for i, k in enumerate(keys))
        group = ", ".join(f"k{i}" for i in range(len(keys)))
        order = (
            group
            if groupings[0] in TIME_GROUPINGS
            else "sum(cost_usd_micros) DESC, sum(requests) DESC, k0"
        )
        return self.ledger.query(
            f"SELECT {select}, {_SUMS} FROM main.daily WHERE {where} GROUP BY {group} "
            f"ORDER BY {order}",
            params,
        )

    def stacked(self, x: str, stack: str, filt: UsageFilter = UsageFilter()) -> StackedSeries:
        """Sums per ``x`` (a grouping) and ``stack`` (a dimension), for the stacked charts."""
        rows = self._grouped((x, stack), filt)
        cells = {(str(r[0] or ""), str(r[1] or "")): UsageGroup.of(r[1], r[2:]) for r in rows}
        xs: dict[str, None] = {}
        size: dict[str, int] = {}
        for (xk, sk), group in cells.items():
            xs.setdefault(xk, None)
            size[sk] = size.get(sk, 0) + group.cost_usd_micros * 1000 + group.total_tokens
        order = sorted(xs) if x in TIME_GROUPINGS else list(xs)
        return StackedSeries(order, sorted(size, key=lambda k: (-size[k], k)), cells)

    def values(self, dimension: str) -> list[str]:
        """The distinct values of a dimension (for the filters), most used first."""
        if self.ledger.cached and dimension in DIMS:
            rows = self.ledger.query(
                "SELECT value, sum(requests) AS n FROM main.daily WHERE zone = 'utc' AND dim = ? "
                "GROUP BY value ORDER BY n DESC, value",
                (dimension,),
            )
            return [str(r[0]) for r in rows]
        column, _time = self._key(dimension, False)
        rows = self.ledger.query(
            f"SELECT {column}, sum(requests) AS n FROM {self.ledger.source} "
            f"GROUP BY {column} ORDER BY n DESC, {column}"
        )
        return [str(r[0]) for r in rows]

    def date_span(self) -> tuple[int, int] | None:
        """The first and last request's time (ms, bucket precision), or ``None`` when empty."""
        # two statements: each is answered from one end of the roll-up's key
        low = self.ledger.query(f"SELECT min(bucket) FROM {self.ledger.source}")[0][0]
        high = self.ledger.query(f"SELECT max(bucket) FROM {self.ledger.source}")[0][0]
        if low is None or high is None:
            return None
        return int(low) * BUCKET_MS, (int(high) + 1) * BUCKET_MS - 1  # type: ignore[call-overload]

    def _grouped(self, groupings: Sequence[str], filt: UsageFilter) -> list[tuple[object, ...]]:
        for g in groupings:
            self._key(g, filt.local)  # an unknown grouping is an InputError, whichever path answers
        daily = self._daily(groupings, filt)
        if daily is not None:
            return daily
        where, params = filt.where()
        keys = [self._key(g, filt.local) for g in groupings]
        source = self.ledger.source
        if any(is_time for _k, is_time in keys):
            # buckets first (in the roll-up's key order, no sorting), then the calendar keys
            inner_keys = ["bucket"] + [k for k, is_time in keys if not is_time]
            inner = (
                f"SELECT {', '.join(inner_keys)}, sum(requests) AS requests, sum(input_tokens) AS input_tokens, "
                "sum(output_tokens) AS output_tokens, sum(cache_read_tokens) AS cache_read_tokens, "
                "sum(cache_write_tokens) AS cache_write_tokens, sum(total_tokens) AS total_tokens, "
                "sum(cost_usd_micros) AS cost_usd_micros, sum(without_cost) AS without_cost "
                f"FROM {source} WHERE {where} GROUP BY {', '.join(inner_keys)}"
            )
            source = f"({inner})"
            where = "1"
        select = ", ".join(f"{k} AS k{i}" for i, (k, _t) in enumerate(keys))
        group = ", ".join(f"k{i}" for i in range(len(keys)))
        time_first = keys[0][1]
        order = f"{group}" if time_first else "sum(cost_usd_micros) DESC, sum(requests) DESC, k0"
        sql = f"SELECT {select}, {_SUMS} FROM {source} WHERE {where} GROUP BY {group} ORDER BY {order}"
        return self.ledger.query(sql, params)
