"""The statistics tab: compaction counters, a chart over revisions, a context gauge, a table.

PySide6-Essentials has no QtCharts, so :class:`CompactionChart` and :class:`ContextGauge` are
painted with ``QPainter``: the chart plots estimated tokens and messages along the path to the
shown revision and marks every compaction (click a point to show that revision); the gauge
compares the shown revision's estimated context with the provider's context window and says
where that window came from. Everything is computed in a worker thread.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import QModelIndex, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QMouseEvent, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableView,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from ...core.agents.base import AGENT_LABELS
from ...core.compaction.stats import SeriesPoint, StatsData, compute_stats
from ...core.stores.rho_files import RevisionNode
from ...core.usage.overview import SessionUsage, find_home, session_usage
from ..services.bridge import EngineBridge, in_thread
from ..services.document import SessionDocument
from ..services.settings import PREFS_CONTEXT_WINDOW, Settings
from ..ui.roles import Role
from ..ui.text import plural
from ..ui.theme import Theme
from ..ui.widgets import EmptyState
from .compactions_model import CompactionTableModel
from .model import LedgerRequestsModel, money

__all__ = ["CompactionChart", "ContextGauge", "StatisticsView", "profile_windows"]

_MARGIN: Final = (56, 16, 56, 34)  # left, top, right, bottom


def _short(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{value:.0f}"


def nice_top(value: float, *, whole: bool = False) -> float:
    """The top of an axis of four steps over ``value``: each step 1, 2, 2.5 or 5 times a power
    of ten (0, 500, 1.0k, 1.5k, 2.0k rather than 0, 494, 988…); ``whole``: steps of at least 1."""
    import math

    step = max(value, 1e-9) / 4
    power = 10.0 ** math.floor(math.log10(step))
    nice: float = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= step - 1e-9)
    if whole:
        nice = max(1.0, float(math.ceil(nice)))
    return nice * 4


def label_rows(count: int, width: float, keep: list[int], spacing: float = 56.0) -> list[int]:
    """Which of ``count`` evenly spread points get an x label: ``keep`` first (the first, the
    last, the compactions), then round intervals, never two labels closer than ``spacing``."""
    if count <= 0:
        return []
    x = (lambda i: width * i / (count - 1)) if count > 1 else (lambda _i: width / 2)
    every = max(1, int(nice_top(count * spacing / max(width, 1.0), whole=True) / 4))
    chosen: list[int] = []
    for i in [*keep, *range(0, count, every)]:
        if 0 <= i < count and i not in chosen and all(abs(x(i) - x(j)) >= spacing for j in chosen):
            chosen.append(i)
    return sorted(chosen)


def profile_windows() -> list[tuple[str, str, int | None]]:
    """``(name, model, window)`` of the configured provider profiles (blocking: reads a file)."""
    try:
        from ...providers.profiles import ProfileStore

        return [(p.name, p.model, p.context_window) for p in ProfileStore().profiles()]
    except Exception:
        return []


class CompactionChart(QWidget):
    """Estimated tokens (line) and messages (dashed line) per revision; compactions marked.

    Signals:
        sig_point_clicked(object): the revision under a click.
    """

    sig_point_clicked = Signal(object)
    """A :class:`RevisionNode` the user clicked on."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CompactionChart")
        self.setAccessibleName("Tokens and messages per revision")
        self.setAccessibleDescription("No revisions")
        self.theme = theme
        self.points: list[SeriesPoint] = []
        self.selected: RevisionNode | None = None
        self.setMinimumHeight(190)
        self.setMouseTracking(True)

    def set_points(self, points: list[SeriesPoint], selected: RevisionNode | None) -> None:
        self.points = points
        self.selected = selected
        self.setAccessibleDescription(self.describe())
        self.update()

    def describe(self) -> str:
        """The chart in words, for a screen reader: its span, its compactions, the selection."""
        if not self.points:
            return "No revisions"
        first, last = self.points[0], self.points[-1]
        text = (
            f"{plural(len(self.points), 'revision')}, from {first.messages:,} messages and ≈{first.tokens:,} "
            f"tokens to {last.messages:,} messages and ≈{last.tokens:,} tokens"
        )
        compactions = [p.node.revision for p in self.points if p.compaction]
        if compactions:
            text += "; compactions at " + ", ".join(f"r{r}" for r in compactions)
        if self.selected is not None:
            text += f"; showing r{self.selected.revision}"
        return text

    def _plot(self) -> QRectF:
        left, top, right, bottom = _MARGIN
        return QRectF(
            left, top, max(10, self.width() - left - right), max(10, self.height() - top - bottom)
        )

    def _x(self, i: int, plot: QRectF) -> float:
        n = len(self.points)
        return plot.left() + (plot.width() * i / (n - 1) if n > 1 else plot.width() / 2)

    def paintEvent(self, _event: Any) -> None:
        t = self.theme
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), t.color("base"))
        plot = self._plot()
        small = QFont(self.font())
        small.setPointSizeF(self.font().pointSizeF() * 0.85)
        p.setFont(small)
        fm = QFontMetrics(small)
        if not self.points:
            p.setPen(t.color("muted"))
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No revisions")
            p.end()
            return
        max_tokens = nice_top(max(1, max(pt.tokens for pt in self.points)))
        max_messages = nice_top(max(1, max(pt.messages for pt in self.points)), whole=True)
        # grid and axes
        p.setPen(QPen(t.color("border"), 1))
        for k in range(5):
            y = plot.bottom() - plot.height() * k / 4
            p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            p.setPen(t.color("accent"))
            p.drawText(
                QRectF(0, y - 8, plot.left() - 6, 16),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                _short(max_tokens * k / 4),
            )
            p.setPen(t.color("success"))
            p.drawText(
                QRectF(plot.right() + 6, y - 8, _MARGIN[2] - 6, 16),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                _short(max_messages * k / 4),
            )
            p.setPen(QPen(t.color("border"), 1))
        # compaction bands
        for i, pt in enumerate(self.points):
            if pt.compaction:
                x = self._x(i, plot)
                p.fillRect(QRectF(x - 3, plot.top(), 6, plot.height()), t.color("marker"))
                p.setPen(QPen(t.color("accent"), 1, Qt.PenStyle.DashLine))
                p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
        # downsample to about one point per pixel
        n = len(self.points)
        step = max(1, n // max(1, int(plot.width())))
        idx = list(range(0, n, step))
        if idx[-1] != n - 1:
            idx.append(n - 1)
        tokens = QPainterPath()
        messages = QPainterPath()
        for j, i in enumerate(idx):
            pt = self.points[i]
            x = self._x(i, plot)
            ty = plot.bottom() - plot.height() * pt.tokens / max_tokens
            my = plot.bottom() - plot.height() * pt.messages / max_messages
            if j == 0:
                tokens.moveTo(x, ty)
                messages.moveTo(x, my)
            else:
                tokens.lineTo(x, ty)
                messages.lineTo(x, my)
        p.setPen(QPen(t.color("success"), 1.6, Qt.PenStyle.DashLine))
        p.drawPath(messages)
        p.setPen(QPen(t.color("accent"), 2.2))
        p.drawPath(tokens)
        for i, pt in enumerate(self.points):
            if pt.compaction or pt.node is self.selected:
                x = self._x(i, plot)
                y = plot.bottom() - plot.height() * pt.tokens / max_tokens
                p.setBrush(
                    t.color("accent") if pt.node is not self.selected else t.color("warning")
                )
                p.setPen(QPen(t.color("base"), 1.5))
                p.drawEllipse(
                    QPointF(x, y),
                    4.5 if pt.node is self.selected else 3.5,
                    4.5 if pt.node is self.selected else 3.5,
                )
        # x labels: the first, the last, the compactions, and revisions at round intervals between
        p.setPen(t.color("muted"))
        keep = [0, n - 1, *(i for i, pt in enumerate(self.points) if pt.compaction)]
        for i in label_rows(n, plot.width(), keep):
            x = self._x(i, plot)
            text = f"r{self.points[i].node.revision}"
            w = fm.horizontalAdvance(text)
            p.drawText(
                QRectF(x - w / 2 - 2, plot.bottom() + 4, w + 4, 14),
                Qt.AlignmentFlag.AlignCenter,
                text,
            )
        # legend
        lx = plot.left() + 8
        for label, color, dash in (
            ("estimated tokens", "accent", False),
            ("messages", "success", True),
            ("compaction", "marker", False),
        ):
            pen = QPen(
                t.color(color if color != "marker" else "accent"),
                2,
                Qt.PenStyle.DashLine if dash else Qt.PenStyle.SolidLine,
            )
            p.setPen(pen)
            if color == "marker":
                p.fillRect(QRectF(lx, plot.top() + 4, 14, 10), t.color("marker"))
            else:
                p.drawLine(QPointF(lx, plot.top() + 9), QPointF(lx + 14, plot.top() + 9))
            p.setPen(t.color("text"))
            p.drawText(QPointF(lx + 18, plot.top() + 13), label)
            lx += 26 + fm.horizontalAdvance(label)
        p.end()

    def point_at(self, x: float) -> SeriesPoint | None:
        if not self.points:
            return None
        plot = self._plot()
        xs = [self._x(i, plot) for i in range(len(self.points))]
        i = bisect.bisect_left(xs, x)
        candidates = [j for j in (i - 1, i) if 0 <= j < len(xs)]
        best = min(candidates, key=lambda j: abs(xs[j] - x))
        return self.points[best]

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pt = self.point_at(event.position().x())
        if pt is not None:
            kind = "compaction" if pt.compaction else "commit"
            QToolTip.showText(
                event.globalPosition().toPoint(),
                f"r{pt.node.revision} ({kind}) · {pt.messages:,} messages · ≈{pt.tokens:,} tokens",
                self,
            )

    def mousePressEvent(self, event: QMouseEvent) -> None:
        pt = self.point_at(event.position().x())
        if pt is not None:
            self.sig_point_clicked.emit(pt.node)


class ContextGauge(QWidget):
    """An arc: the estimated context of the shown revision against the context window."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ContextGauge")
        self.setAccessibleName("Context of this revision")
        self.theme = theme
        self.tokens = 0
        self.context_window = 0
        self.source = ""
        self.setMinimumSize(180, 170)

    def set_values(self, tokens: int, window: int, source: str) -> None:
        self.tokens, self.context_window, self.source = tokens, window, source
        self.setToolTip(f"≈{tokens:,} estimated tokens of a {window:,}-token window ({source})")
        self.setAccessibleName(f"Context of this revision: {self.percent_text()} of the window")
        self.setAccessibleDescription(self.toolTip())
        self.update()

    @property
    def fraction(self) -> float:
        return self.tokens / self.context_window if self.context_window else 0.0

    def percent_text(self) -> str:
        """The share of the window in use; a small but nonzero share reads "<1%", never "0%"."""
        if not self.context_window:
            return "–"
        share = self.fraction * 100
        if 0 < share < 1:
            return "<1%"
        return f"{share:.0f}%"

    def level(self) -> str:
        f = self.fraction
        return "success" if f < 0.7 else "warning" if f < 0.9 else "danger"

    def paintEvent(self, _event: Any) -> None:
        t = self.theme
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        # a 240° arc needs about 0.8 of its diameter in height, plus a line for the source
        side = max(60.0, min(self.width() - 24.0, (self.height() - 34) / 0.82))
        rect = QRectF((self.width() - side) / 2, 6, side, side)
        thick = max(10.0, side / 11)
        span = 240 * 16
        start = 210 * 16
        p.setPen(QPen(t.color("alt"), thick, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        p.drawArc(rect.adjusted(thick / 2, thick / 2, -thick / 2, -thick / 2), start, -span)
        f = min(1.0, self.fraction)
        if f > 0:
            p.setPen(
                QPen(t.color(self.level()), thick, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
            )
            p.drawArc(
                rect.adjusted(thick / 2, thick / 2, -thick / 2, -thick / 2), start, -int(span * f)
            )
        big = QFont(self.font())
        big.setPointSizeF(self.font().pointSizeF() * 2.1)
        big.setBold(True)
        p.setFont(big)
        p.setPen(t.color("text"))
        center = rect.center()
        p.drawText(
            QRectF(rect.left(), center.y() - 28, rect.width(), 40),
            Qt.AlignmentFlag.AlignCenter,
            self.percent_text(),
        )
        small = QFont(self.font())
        small.setPointSizeF(self.font().pointSizeF() * 0.9)
        p.setFont(small)
        p.setPen(t.color("muted"))
        p.drawText(
            QRectF(rect.left() - 20, center.y() + 10, rect.width() + 40, 18),
            Qt.AlignmentFlag.AlignCenter,
            f"{_short(self.tokens)} of {_short(self.context_window)} tokens",
        )
        p.drawText(
            QRectF(0, rect.top() + side * 0.82 + 4, self.width(), 18),
            Qt.AlignmentFlag.AlignCenter,
            QFontMetrics(small).elidedText(
                self.source, Qt.TextElideMode.ElideRight, self.width() - 8
            ),
        )
        p.end()


class _Card(QFrame):
    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StatCard")
        self.value = QLabel("–")
        self.value.setObjectName("StatValue")
        self.caption = QLabel(caption)
        self.caption.setObjectName("StatCaption")
        self.caption.setWordWrap(True)
        self.caption.setMinimumWidth(60)
        self.setAccessibleName(f"{caption}: –")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(0)
        layout.addWidget(self.value)
        layout.addWidget(self.caption)


class StatisticsView(QWidget):
    """The Statistics tab.

    Signals:
        sig_revision_requested(object): show this revision (a chart point or a table row).
        sig_stats_shown(object): new statistics are on screen (:class:`StatsData`).
    """

    sig_revision_requested = Signal(object)
    """The user picked a revision in the chart or the table."""
    sig_stats_shown = Signal(object)
    """A :class:`StatsData` is on screen."""
    sig_usage_shown = Signal(object)
    """The session's usage is on screen (:class:`SessionUsage`: ledger rows or the file's record)."""

    def __init__(
        self,
        document: SessionDocument,
        bridge: EngineBridge,
        theme: Theme,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        ledger_home: Callable[[], Path | None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.ledger_home = ledger_home
        """The library's Rho home (its usage ledger), when the session file is not under one."""
        self.usage: SessionUsage | None = None
        self.usage_cache_dir: Path | None = None
        """Where the ledger's roll-up lives (``None``: rho-desk's cache folder)."""
        self.setObjectName("StatisticsView")
        self.document = document
        self.bridge = bridge
        self.settings = settings
        self.theme = theme
        self.data: StatsData | None = None
        self._generation = 0
        self._stale = True
        """The selection changed while the tab was hidden (or before the view was made, when the tab
        was first shown): compute when it is shown."""
        self._profiles: list[tuple[str, str, int | None]] | None = None

        self.cards = {
            "compactions": _Card("compactions"),
            "messages": _Card("messages removed"),
            "tokens": _Card("estimated tokens removed"),
            "cost": _Card("compaction cost"),
            "last": _Card("tokens before → after the last compaction"),
            "revision": _Card("revision of the last compaction"),
        }
        grid = QGridLayout()
        grid.setSpacing(8)
        for i, card in enumerate(self.cards.values()):
            grid.addWidget(card, i // 3, i % 3)
        self.gauge = ContextGauge(theme)
        gauge_box = QFrame()
        gauge_box.setObjectName("StatCard")
        gauge_box.setAccessibleName("Context of this revision")
        gauge_title = QLabel("Context of this revision")
        gauge_title.setObjectName("SectionTitle")
        gauge_layout = QVBoxLayout(gauge_box)
        gauge_layout.setContentsMargins(10, 8, 10, 6)
        gauge_layout.addWidget(gauge_title)
        gauge_layout.addWidget(self.gauge, 1)
        top = QHBoxLayout()
        top.setSpacing(10)
        top.addLayout(grid, 3)
        top.addWidget(gauge_box, 1)

        self.heading = QLabel("")
        self.heading.setObjectName("SectionTitle")
        self.chart = CompactionChart(theme)
        chart_box = QFrame()
        chart_box.setObjectName("StatCard")
        chart_box.setAccessibleName("Tokens and messages per revision")
        chart_layout = QVBoxLayout(chart_box)
        chart_layout.setContentsMargins(10, 8, 10, 8)
        chart_layout.addWidget(self.heading)
        chart_layout.addWidget(self.chart, 1)

        self.table_model = CompactionTableModel(self)
        self.table = QTableView()
        self.table.setObjectName("CompactionTable")
        self.table.setAccessibleName("Compactions on the path to this revision")
        self.table.setModel(self.table_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setFrameShape(QFrame.Shape.NoFrame)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        # the last column takes the spare width: its title stays over its text, on the left
        self.table.horizontalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        )
        self.table.setMaximumHeight(170)
        self.table_empty = QLabel(
            "No compaction on the path to this revision: every message is in the model context."
        )
        self.table_empty.setObjectName("CompactionTableEmpty")
        self.table_empty.setProperty("muted", True)
        self.table_empty.setWordWrap(True)
        self.table_empty.hide()
        table_title = QLabel("Compactions on the path to this revision")
        table_title.setObjectName("SectionTitle")
        self.usage_title = QLabel("Requests in Rho's usage ledger")
        self.usage_title.setObjectName("SectionTitle")
        self.usage_note = QLabel("")
        self.usage_note.setWordWrap(True)
        self.usage_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.usage_model = LedgerRequestsModel(lambda: self._session_id(), self)
        self.usage_table = QTableView()
        self.usage_table.setObjectName("LedgerRequests")
        self.usage_table.setAccessibleName("This session's requests in Rho's usage ledger")
        self.usage_table.setModel(self.usage_model)
        self.usage_table.verticalHeader().hide()
        self.usage_table.setShowGrid(False)
        self.usage_table.setAlternatingRowColors(True)
        self.usage_table.setFrameShape(QFrame.Shape.NoFrame)
        self.usage_table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents
        )
        self.usage_table.horizontalHeader().setStretchLastSection(True)
        self.usage_table.horizontalHeader().setDefaultAlignment(
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        )
        self.usage_table.setMinimumHeight(160)

        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(14, 12, 14, 12)
        body.setSpacing(10)
        body.addLayout(top)
        body.addWidget(chart_box, 1)
        body.addWidget(table_title)
        body.addWidget(self.table)
        body.addWidget(self.table_empty)
        body.addWidget(self.usage_title)
        body.addWidget(self.usage_note)
        body.addWidget(self.usage_table)
        self.empty = EmptyState(
            "No session open",
            "Compaction counters, token estimates and the context gauge appear here.",
        )
        # a scroll area, so the tab never forces the window wider or taller than the screen
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidget(self.body)
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll_area.setAccessibleName("Statistics")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.scroll_area)
        layout.addWidget(self.empty)
        self.scroll_area.hide()

        document.sig_revision_selected.connect(lambda _n: self.refresh())
        document.sig_reloaded.connect(lambda _i: self.refresh())
        document.sig_closed.connect(self._on_document_closed)
        self.chart.sig_point_clicked.connect(self.sig_revision_requested)
        self.table.doubleClicked.connect(self._on_table_double_clicked)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.chart.theme = theme
        self.gauge.theme = theme
        self.chart.update()
        self.gauge.update()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self._stale:
            self._stale = False
            self.refresh()

    def refresh(self) -> None:
        if not self.isVisible():
            self._stale = True  # token estimates over 100k messages: only for someone looking
            if self.data is not None and self.data.node is not self.document.selected:
                self.data = None  # let go of the old revisions (the chart keeps its points)
                self.chart.set_points([], None)
                self.table_model.set_rows([])
            return
        tree, node = self.document.tree, self.document.selected
        if tree is None or node is None:
            self._on_document_closed()
            return
        self._generation += 1
        generation = self._generation
        self.bridge.run(self._acompute(generation, tree, node), context="Computing statistics")

    async def _acompute(self, generation: int, tree: Any, node: RevisionNode) -> None:
        if self._profiles is None:
            self._profiles = await in_thread(profile_windows)
        window = self.settings.get(PREFS_CONTEXT_WINDOW)
        data = await self.document.arun_locked(
            compute_stats, tree, node, default_window=window, profiles=self._profiles
        )
        if generation != self._generation:
            return
        self.show_data(data)
        log = self.document.agent_log
        if log is not None:  # another agent's session: the requests its own log records
            from ...core.agents.usage import agent_usage

            usage = await in_thread(agent_usage, log)
            if generation == self._generation:
                self.show_usage(usage)
            return
        fallback = self.ledger_home() if self.ledger_home is not None else None
        home = await in_thread(find_home, self.document.path, fallback)
        history = await self.document.arun_locked(tree.history, node)
        usage = await in_thread(
            session_usage,
            home,
            tree.session_id,
            history,
            node.compaction,
            cache_dir=self.usage_cache_dir,
        )
        if generation == self._generation:
            self.show_usage(usage)

    def _session_id(self) -> str | None:
        tree = self.document.tree
        return None if tree is None else tree.session_id

    def show_usage(self, usage: SessionUsage) -> None:
        """The session's ledger rows, or (marked as such) what its file records."""
        self.usage = usage
        rows = usage.requests
        self.usage_model.set_rows(rows)
        if usage.from_ledger and usage.total is not None:
            t = usage.total
            own = self._session_id()
            purposes: dict[str, int] = {}
            for r in rows:
                purposes[r.purpose] = purposes.get(r.purpose, 0) + 1
            failed = sum(r.outcome != "completed" for r in rows)
            subagent_sessions = len({r.session_id for r in rows if r.session_id != own})
            parts = ", ".join(
                f"{n:,} {p}" for p, n in sorted(purposes.items(), key=lambda kv: -kv[1])
            )
            text = (
                f"{t.requests:,} requests ({parts}); {failed:,} failed or cancelled. "
                f"Cost {money(t.cost_usd_micros)}"
            )
            if t.requests_without_cost:
                text += f" (+ {t.requests_without_cost:,} without a reported cost)"
            text += (
                f"; {t.input_tokens:,} input, {t.cache_read_tokens:,} cache read, {t.cache_write_tokens:,} cache "
                f"write, {t.output_tokens:,} output tokens."
            )
            if subagent_sessions:
                text += f" Includes {subagent_sessions:,} subagent session(s)."
            if usage.recorded_by is not None:
                label = AGENT_LABELS.get(usage.recorded_by, usage.recorded_by)
                text += f" As {usage.note}: not Rho's usage ledger."
                self.usage_title.setText(f"Requests {label} recorded")
                self.usage_table.setAccessibleName(
                    f"This session's requests as {label} recorded them"
                )
            else:
                self.usage_title.setText("Requests in Rho's usage ledger")
                self.usage_table.setAccessibleName("This session's requests in Rho's usage ledger")
            self.usage_note.setText(text)
            self.usage_table.show()
        elif usage.recorded_by is not None:
            label = AGENT_LABELS.get(usage.recorded_by, usage.recorded_by)
            self.usage_title.setText(f"Requests {label} recorded")
            self.usage_note.setText(
                f"{label} recorded no model request's tokens in this session's log."
            )
            self.usage_table.hide()
        else:
            f = usage.file
            why = (
                f" ({usage.note})" if usage.note else " (older Rho, or recorded on another machine)"
            )
            text = f"No requests of this session in Rho's usage ledger{why}."
            if f is not None:
                text += (
                    f" From the session file instead: {f.model_replies:,} model replies (their tokens are "
                    f"not recorded there), compaction cost {money(f.compaction_cost_usd_micros)}"
                )
                if f.aborted_replies:
                    text += (
                        f", {f.aborted_replies:,} interrupted replies with {f.aborted_input_tokens:,} input and "
                        f"{f.aborted_output_tokens:,} output tokens, cost {money(f.aborted_cost_usd_micros)}"
                    )
                text += "."
            self.usage_title.setText("Usage (from the session file)")
            self.usage_note.setText(text)
            self.usage_table.hide()
        self.sig_usage_shown.emit(usage)

    def show_data(self, data: StatsData) -> None:
        self.data = data
        c = data.counters
        self.cards["compactions"].value.setText(f"{c.completed_compactions:,}")
        self.cards["messages"].value.setText(f"{c.removed_messages:,}")
        self.cards["tokens"].value.setText(f"{c.removed_tokens:,}")
        self.cards["cost"].value.setText(
            f"${c.removed_cost_usd_micros / 1e6:,.4f}" if c.removed_cost_usd_micros else "$0"
        )
        if c.last_previous_tokens is not None and c.last_current_tokens is not None:
            self.cards["last"].value.setText(
                f"{c.last_previous_tokens:,} → {c.last_current_tokens:,}"
            )
        else:
            self.cards["last"].value.setText("–")
        self.cards["revision"].value.setText(
            f"r{c.last_revision}" if c.last_revision is not None else "–"
        )
        markers = self._markers_only(data)
        if markers:
            # a copy published as shown keeps its compaction markers, not the engine's counters
            self.cards["compactions"].value.setText(f"{markers:,}")
            for key in ("messages", "tokens", "cost", "last", "revision"):
                self.cards[key].value.setText("–")
        for card in self.cards.values():
            card.setAccessibleName(f"{card.caption.text()}: {card.value.text()}")
        self.gauge.set_values(data.context_tokens, data.window, data.window_source)
        self.chart.set_points(data.series, data.node)
        self.heading.setText(
            f"Estimated tokens and messages over {len(data.series):,} revisions "
            f"(path to r{data.node.revision})"
        )
        self.table_model.set_rows(data.compactions)
        self.table.setVisible(bool(data.compactions))
        self.table_empty.setVisible(not data.compactions)
        self.table_empty.setText(
            f"This copy shows {plural(markers, 'compaction')} in its conversation (the markers) but does not record "
            "their figures: it was published or exported as shown."
            if markers
            else "No compaction on the path to this revision: every message is in the model context."
        )
        self.scroll_area.show()
        self.empty.hide()
        self.sig_stats_shown.emit(data)

    def _markers_only(self, data: StatsData) -> int:
        """Compaction markers in a snapshot document's conversation whose counters say none (a
        session published or exported as shown); 0 otherwise."""
        if (
            not self.document.is_snapshot_document
            or data.counters.completed_compactions
            or data.compactions
        ):
            return 0
        from ...core.stores.rho_files.views import is_marker_message

        tree = self.document.tree
        history = tree.history(data.node) if tree is not None else ()
        return sum(1 for m in history if is_marker_message(m))

    def _on_document_closed(self) -> None:
        self._generation += 1
        self.data = None
        self.scroll_area.hide()
        self.empty.show()

    def _on_table_double_clicked(self, index: QModelIndex) -> None:
        node = self.table_model.data(index, Role.NODE)
        if node is not None:
            self.sig_revision_requested.emit(node)
