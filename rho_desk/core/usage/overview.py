"""What the app's Usage view and Statistics tab show, computed in one blocking call each.

* :func:`overview`: the whole library's usage under a filter: the total, cost and tokens per
  day stacked by model or purpose, the sums per workspace, the top sessions, the values the
  filters offer;
* :func:`sessions_behind`: the sessions behind one bar (a day and a model, a workspace...);
* :func:`session_usage`: one session's ledger rows (its own requests and its subagents'), or,
  when the ledger has none (older Rho, another machine), the usage its session file records,
  marked as such.

No Qt: the app calls these in a worker thread; a host could call them directly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..wire import CompactionState, Message
from .ledger import LedgerRequest, UsageLedger, ledger_path
from .report import StackedSeries, UsageFilter, UsageGroup, UsageReport

__all__ = [
    "FileUsage",
    "LedgerSession",
    "Overview",
    "SessionUsage",
    "chart_unit",
    "file_usage",
    "find_home",
    "ledger_sessions",
    "narrow",
    "overview",
    "session_usage",
    "sessions_behind",
]


@dataclass(slots=True)
class Overview:
    """One screenful of the Usage view."""

    total: UsageGroup
    days: StackedSeries
    """Per period (``x``: days, or weeks or months over a long range) and per model or purpose
    (``stacks``)."""
    workspaces: list[UsageGroup]
    sessions: list[UsageGroup]
    """The most expensive sessions (then the busiest)."""
    choices: dict[str, list[str]] = field(default_factory=dict)
    """The values each filter offers: ``workspace``, ``model``, ``purpose``."""
    span: tuple[int, int] | None = None
    """First and last request time (ms), unfiltered."""
    unit: str = "day"
    """What one bar of ``days`` is: ``day``, ``week`` (keyed by its Monday) or ``month``."""


def chart_unit(first: dt.date, last: dt.date) -> str:
    """Days up to about two months, weeks up to about half a year, then months: a readable
    number of bars."""
    days = (last - first).days + 1
    return "day" if days <= 62 else "week" if days <= 182 else "month"


def overview(
    path: Path,
    filt: UsageFilter,
    stack: str = "model",
    *,
    top: int = 50,
    cache_dir: Path | bool | None = None,
) -> Overview:
    """The Usage view's figures (blocking: opens the ledger, folds new rows, runs the queries)."""
    with UsageLedger(path, cache_dir=cache_dir) as ledger:
        report = UsageReport(ledger)
        span = report.date_span()
        unit = "day"
        if span is not None:
            zone = None if filt.local else dt.UTC
            first = filt.since or dt.datetime.fromtimestamp(span[0] / 1000, zone).date()
            last = filt.until or dt.datetime.fromtimestamp(span[1] / 1000, zone).date()
            unit = chart_unit(first, last)
        return Overview(
            total=report.total(filt),
            days=report.stacked(unit, stack, filt),
            workspaces=report.groups("workspace", filt),
            sessions=report.groups("session", filt, limit=top),
            choices={d: report.values(d) for d in ("workspace", "model", "purpose")},
            span=span,
            unit=unit,
        )


def sessions_behind(
    path: Path, filt: UsageFilter, *, limit: int = 500, cache_dir: Path | bool | None = None
) -> list[UsageGroup]:
    """The sessions whose requests make up the figures under ``filt``, most expensive first."""
    with UsageLedger(path, cache_dir=cache_dir) as ledger:
        return UsageReport(ledger).groups("session", filt, limit=limit)


@dataclass(frozen=True, slots=True)
class LedgerSession:
    """What the ledger tells of a session by itself (for one the library does not hold): the
    folder its last request ran in and when."""

    session_id: str
    workspace: str
    last_ms: int


def ledger_sessions(path: Path, session_ids: Sequence[str]) -> dict[str, LedgerSession]:
    """Where and when each of ``session_ids`` last ran, by the ledger's own rows (blocking; one
    lookup per session on the ledger's session index, no roll-up); ids the ledger lacks are left
    out."""
    ids = list(dict.fromkeys(s for s in session_ids if s))
    found: dict[str, LedgerSession] = {}
    if not ids:
        return found
    with UsageLedger(path, cache_dir=False) as ledger:
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            rows = ledger.query(
                # SQLite gives the bare column of the row that holds the MAX
                "SELECT session_id, workspace_path, MAX(occurred_at_ms) FROM ledger.usage_events "
                f"WHERE session_id IN ({','.join('?' * len(part))}) GROUP BY session_id",
                part,
            )
            for sid, workspace, last in rows:
                found[str(sid)] = LedgerSession(str(sid), str(workspace or ""), int(str(last)))
    return found


def narrow(filt: UsageFilter, dimension: str, value: str) -> UsageFilter:
    """``filt`` narrowed to one value of a dimension (a clicked bar)."""
    if dimension == "workspace":
        return replace(filt, workspaces=(value,))
    if dimension == "model":
        return replace(filt, models=(value,))
    if dimension == "provider":
        return replace(filt, providers=(value,))
    if dimension == "purpose":
        return replace(filt, purposes=(value,))
    return replace(filt, sessions=(value,))


def find_home(transcript: Path | None, fallback: Path | None) -> Path | None:
    """The Rho home a session file belongs to (``<home>/sessions/…``) when it has a ledger,
    else ``fallback`` (the library's home)."""
    if transcript is not None:
        for parent in transcript.resolve().parents:
            if parent.name == "sessions" and ledger_path(parent.parent).is_file():
                return parent.parent
    return fallback


@dataclass(frozen=True, slots=True)
class FileUsage:
    """What a session file itself records of usage (Rho keeps per-request usage only in its
    ledger): the compaction cost in its counters, and interrupted replies' usage."""

    model_replies: int
    """Assistant messages in the history (each at least one request; tokens not recorded)."""
    compaction_cost_usd_micros: int
    aborted_replies: int
    aborted_input_tokens: int
    aborted_output_tokens: int
    aborted_cost_usd_micros: int | None


def file_usage(history: Sequence[Message], counters: CompactionState) -> FileUsage:
    replies = aborted = tokens_in = tokens_out = 0
    cost: int | None = None
    for message in history:
        if message.aborted_assistant is not None:
            aborted += 1
            usage = message.aborted_assistant.usage
            tokens_in += (
                (usage.input_tokens or 0)
                + (usage.cache_read_tokens or 0)
                + (usage.cache_write_tokens or 0)
            )
            tokens_out += usage.output_tokens or 0
            if usage.cost_usd_micros is not None:
                cost = (cost or 0) + usage.cost_usd_micros
        elif message.enriched_assistant is not None or message.assistant is not None:
            replies += 1
    return FileUsage(
        replies, counters.removed_cost_usd_micros, aborted, tokens_in, tokens_out, cost
    )


@dataclass(frozen=True, slots=True)
class SessionUsage:
    """A session's usage for the Statistics tab: its ledger rows, else its file's record."""

    home: Path | None
    requests: list[LedgerRequest]
    """Its requests and its subagents', oldest first (empty: none in the ledger)."""
    total: UsageGroup | None
    """The sums over ``requests``."""
    file: FileUsage | None
    """Set when the ledger has no rows for it (the fallback)."""
    note: str = ""
    """Why the ledger could not be read, if it could not."""
    recorded_by: str | None = None
    """The other agent whose own log recorded ``requests`` (``core.agents.usage``); ``None``:
    they are rows of Rho's ledger."""

    @property
    def from_ledger(self) -> bool:
        return bool(self.requests)


def session_usage(
    home: Path | None,
    session_id: str | None,
    history: Sequence[Message],
    counters: CompactionState,
    *,
    cache_dir: Path | bool | None = None,
) -> SessionUsage:
    """One session's ledger rows, or its file's usage when the ledger has none (blocking)."""
    from ..errors import KnownError, error_text

    note = ""
    if home is not None and session_id and ledger_path(home).is_file():
        try:
            with UsageLedger(ledger_path(home), cache_dir=cache_dir) as ledger:
                rows = ledger.session_requests(session_id)
        except KnownError as exc:
            rows, note = [], error_text(exc)
        if rows:
            sums = [
                len(rows),
                *(
                    sum(getattr(r, f) or 0 for r in rows)
                    for f in (
                        "input_tokens",
                        "output_tokens",
                        "cache_read_tokens",
                        "cache_write_tokens",
                        "tokens",
                        "cost_usd_micros",
                    )
                ),
                sum(r.cost_usd_micros is None for r in rows),
            ]
            return SessionUsage(home, rows, UsageGroup.of(session_id, sums), None)
    elif home is None or not ledger_path(home).is_file():
        note = "no usage ledger in this Rho home"
    return SessionUsage(home, [], None, file_usage(history, counters), note)
