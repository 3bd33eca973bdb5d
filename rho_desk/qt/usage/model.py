"""Table models over the usage ledger's figures: groups (sessions, workspaces), a session's
requests, and compaction payback. Plain rows in, text and numbers out; no widget knowledge."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, Qt

from ...core.usage.ledger import LedgerRequest
from ...core.usage.payback import CompactionPayback
from ...core.usage.report import UsageGroup
from ..ui.roles import Role
from ..ui.table import RowTableModel

__all__ = ["LedgerRequestsModel", "PaybackModel", "UsageGroupsModel", "money", "tokens"]


def money(micros: float | None) -> str:
    """Dollars from micro-dollars; ``None`` (not reported) is "–", never "$0"."""
    if micros is None:
        return "–"
    sign = "−" if micros < 0 else ""
    value = abs(micros) / 1e6
    return f"{sign}${value:,.4f}" if value < 10 else f"{sign}${value:,.2f}"


def tokens(n: int | None) -> str:
    return "–" if n is None else f"{n:,}"


def _time(ms: int) -> str:
    return dt.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


class UsageGroupsModel(RowTableModel[UsageGroup]):
    """Groups of requests (sessions or workspaces); ``label`` names a key (a session's title)."""

    def __init__(self, key_header: str = "Session", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.label: Callable[[str], str] = lambda key: key or "(none)"
        self.columns = (
            (key_header, lambda g: self.label(g.key), lambda g: g.key, False),
            ("Requests", lambda g: f"{g.requests:,}", lambda g: g.requests, True),
            ("Input", lambda g: f"{g.input_tokens:,}", lambda g: g.input_tokens, True),
            ("Output", lambda g: f"{g.output_tokens:,}", lambda g: g.output_tokens, True),
            (
                "Cache read",
                lambda g: f"{g.cache_read_tokens:,}",
                lambda g: g.cache_read_tokens,
                True,
            ),
            (
                "Cost",
                lambda g: money(g.cost_usd_micros) + ("*" if g.requests_without_cost else ""),
                lambda g: g.cost_usd_micros,
                True,
            ),
        )

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            role == Qt.ItemDataRole.ToolTipRole
            and index.isValid()
            and 0 <= index.row() < len(self.rows)
        ):
            g = self.rows[index.row()]
            tip = f"{g.key or '(none)'}: {g.total_tokens:,} total tokens as reported"
            if g.requests_without_cost:
                tip += f"; * {g.requests_without_cost:,} request(s) reported no cost"
            return tip
        return super().data(index, role)


class LedgerRequestsModel(RowTableModel[LedgerRequest]):
    """A session's requests in the ledger, oldest first (its subagents' included)."""

    def __init__(
        self, session_id: Callable[[], str | None] = lambda: None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.session_id = session_id
        self.columns = (
            ("Time", lambda r: _time(r.occurred_at_ms), lambda r: r.occurred_at_ms, False),
            ("Purpose", self._purpose, lambda r: r.purpose, False),
            ("Model", lambda r: r.model, lambda r: r.model, False),
            ("Outcome", lambda r: r.outcome, lambda r: r.outcome, False),
            ("Input", lambda r: tokens(r.input_tokens), lambda r: r.input_tokens or 0, True),
            (
                "Cache read",
                lambda r: tokens(r.cache_read_tokens),
                lambda r: r.cache_read_tokens or 0,
                True,
            ),
            ("Output", lambda r: tokens(r.output_tokens), lambda r: r.output_tokens or 0, True),
            ("Cost", lambda r: money(r.cost_usd_micros), lambda r: r.cost_usd_micros or 0, True),
        )

    def _purpose(self, r: LedgerRequest) -> str:
        own = self.session_id()
        if own is not None and r.session_id != own:
            return f"{r.purpose} (subagent session {str(r.session_id)[:8]})"
        return r.purpose

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role == Role.KIND and index.isValid() and 0 <= index.row() < len(self.rows):
            return self.rows[index.row()].outcome
        return super().data(index, role)


class PaybackModel(RowTableModel[CompactionPayback]):
    """One row per compaction: its cost against what it saved on the session's later requests."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.label: Callable[[str], str] = lambda key: key
        self.columns = (
            ("Session", lambda c: self.label(c.session_id), lambda c: c.session_id, False),
            ("When", lambda c: _time(c.occurred_at_ms), lambda c: c.occurred_at_ms, False),
            ("Cost", lambda c: money(c.cost_usd_micros), lambda c: c.cost_usd_micros or 0, True),
            (
                "Context before → after",
                lambda c: f"{tokens(c.context_before)} → {tokens(c.context_after)}",
                lambda c: (c.context_before or 0) - (c.context_after or 0),
                True,
            ),
            ("Later requests", lambda c: f"{c.later_requests:,}", lambda c: c.later_requests, True),
            ("Saved tokens", lambda c: tokens(c.saved_tokens), lambda c: c.saved_tokens or 0, True),
            ("Saved", lambda c: money(c.saved_usd_micros), lambda c: c.saved_usd_micros or 0, True),
            ("Net", lambda c: money(c.net_usd_micros), lambda c: c.net_usd_micros or 0, True),
            (
                "Paid off",
                lambda c: {True: "yes", False: "no", None: "unknown"}[c.paid_off],
                lambda c: -1 if c.paid_off is None else int(c.paid_off),
                False,
            ),
        )
