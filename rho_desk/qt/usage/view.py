"""The Usage view: what Rho's requests cost, across the whole library, from its usage ledger.

Charts are QtCharts (PySide6-Addons; docs/usage.md says why: of the two real chart libraries it
adds nothing to start-up, 15 ms when the view first opens, against 1.5-2 s of numpy and
pyqtgraph imports). Top to bottom:

* filters: period (or a custom date range), workspace, model, purpose; stack by model or
  purpose; cost or tokens;
* the total under the filters;
* cost (or tokens) per day, stacked by model or purpose (weeks or months when the range is
  long), and per workspace; clicking a bar lists the sessions behind it;
* a table of sessions (the most expensive, or those behind the clicked bar): double-click opens
  one; and the compaction payback of the sessions under the filters.

Every figure comes from :mod:`rho_desk.core.usage` in a worker thread (the bridge); the view
only shows them.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Final, cast

from PySide6.QtCharts import (
    QBarCategoryAxis,
    QBarSet,
    QChart,
    QChartView,
    QHorizontalBarSeries,
    QStackedBarSeries,
    QValueAxis,
)
from PySide6.QtCore import QDate, QMargins, QModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDateEdit,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import KnownError
from ...core.stores.summary import SessionSummary
from ...core.usage.ledger import ledger_path
from ...core.usage.overview import (
    LedgerSession,
    Overview,
    ledger_sessions,
    narrow,
    overview,
    sessions_behind,
)
from ...core.usage.payback import PaybackReport, payback
from ...core.usage.report import StackedSeries, UsageFilter, UsageGroup
from ..services.bridge import EngineBridge, in_thread
from ..ui.blocks import Banner
from ..ui.roles import Role
from ..ui.screen import available_area, fit_to_screen
from ..ui.theme import Theme
from ..ui.widgets import ElidedLabel, EmptyState
from .model import PaybackModel, UsageGroupsModel, money

__all__ = ["StackedBarChart", "UsageView", "UsageWindow", "WorkspaceChart"]

PALETTE: Final = ("#4c6ef5", "#f08c00", "#2f9e44", "#e64980", "#15aabf", "#ae3ec9", "#868e96")
MAX_STACKS: Final = 6
"""Stacks drawn apart; the rest are summed as "other"."""
OTHER: Final = "other"
PERIODS: Final = (
    ("All time", None),
    ("Last 7 days", 7),
    ("Last 30 days", 30),
    ("Last 90 days", 90),
    ("Last 365 days", 365),
    ("Custom range", -1),
)


def _value(group: UsageGroup | None, metric: str) -> float:
    if group is None:
        return 0.0
    return (
        group.cost_usd_micros / 1e6
        if metric == "cost"
        else float(group.total_tokens or group.input_tokens + group.output_tokens)
    )


def _short(value: float, metric: str) -> str:
    if metric == "cost":
        return f"${value:,.2f}"
    return (
        f"{value / 1e6:.1f}M"
        if value >= 1e6
        else f"{value / 1e3:.0f}k"
        if value >= 1e3
        else f"{value:.0f}"
    )


def _period_days(key: str, unit: str) -> tuple[dt.date, dt.date]:
    """The first and last day of an x key (a day, a week's Monday, a month)."""
    if unit == "month":
        first = dt.date.fromisoformat(f"{key}-01")
        nxt = (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1)
        return first, nxt - dt.timedelta(days=1)
    first = dt.date.fromisoformat(key)
    return first, first + dt.timedelta(days=6 if unit == "week" else 0)


class _Chart(QChartView):
    """A chart the keyboard can use: Tab reaches it, the arrows (Home, End) pick a bar, which is
    highlighted and read out (the accessible description names it and its value), and Enter or
    Space acts as a click on it."""

    def __init__(self, theme: Theme, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.current = -1
        """The bar the keyboard picked (-1: none)."""
        self.summary_text = ""
        self.theme = theme
        self.setRenderHint(QPainter.RenderHint.Antialiasing)
        self.setMinimumHeight(200)
        chart = QChart()
        chart.setBackgroundVisible(False)
        chart.setMargins(QMargins(4, 4, 4, 4))
        chart.legend().setAlignment(Qt.AlignmentFlag.AlignBottom)
        self.setChart(chart)
        # a frame says which chart the keyboard is in
        self.setStyleSheet(
            f"QChartView {{ background: transparent; border: 2px solid transparent; }} "
            f"QChartView:focus {{ border: 2px solid {theme.color('accent').name()}; }}"
        )

    def _style_axis(self, axis: Any) -> None:
        axis.setLabelsColor(self.theme.color("text"))
        axis.setGridLineColor(self.theme.color("border"))
        axis.setLinePenColor(self.theme.color("border"))

    # -- the keyboard ------------------------------------------------------------------------

    def bar_count(self) -> int:
        return 0

    def bar_words(self, index: int) -> str:
        """The bar at ``index`` in words (its label and value)."""
        return ""

    def activate(self, index: int) -> None:
        """Act as a click on the bar at ``index``."""

    def _bar_sets(self) -> list[QBarSet]:
        return [bar for series in self.chart().series() for bar in series.barSets()]  # type: ignore[attr-defined]

    def pick(self, index: int) -> None:
        """Highlight the bar at ``index`` and say which it is (to a screen reader too)."""
        count = self.bar_count()
        if not count:
            return
        self.current = max(0, min(index, count - 1))
        for bar in self._bar_sets():
            bar.deselectAllBars()
            bar.setSelectedColor(QColor(self.theme.color("text")))  # unlike any bar colour
            bar.selectBar(self.current)
        self._describe()

    def _describe(self) -> None:
        picked = (
            f"Selected: {self.bar_words(self.current)} (Enter lists its sessions). "
            if self.current >= 0
            else ""
        )
        self.setAccessibleDescription(picked + self.summary_text)
        from PySide6.QtGui import QAccessible, QAccessibleEvent

        QAccessible.updateAccessibility(
            QAccessibleEvent(self, QAccessible.Event.DescriptionChanged)
        )

    def keyPressEvent(self, event: Any) -> None:
        key, count = event.key(), self.bar_count()
        steps = {Qt.Key.Key_Left: -1, Qt.Key.Key_Up: -1, Qt.Key.Key_Right: 1, Qt.Key.Key_Down: 1}
        if count and key in steps:
            self.pick(
                self.current + steps[key]
                if self.current >= 0
                else (0 if steps[key] > 0 else count - 1)
            )
        elif count and key in (Qt.Key.Key_Home, Qt.Key.Key_End):
            self.pick(0 if key == Qt.Key.Key_Home else count - 1)
        elif (
            count
            and self.current >= 0
            and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        ):
            self.activate(self.current)
        else:
            super().keyPressEvent(event)

    @staticmethod
    def _headroom(axis: QValueAxis, highest: float) -> None:
        """Room above the tallest bar, on round ticks (it was cut at its own value)."""
        axis.setRange(0, highest * 1.08 if highest > 0 else 1)
        axis.applyNiceNumbers()

    def _reset(self) -> QChart:
        self.current = -1
        chart = self.chart()
        chart.removeAllSeries()
        for axis in chart.axes():
            chart.removeAxis(axis)
        chart.legend().setLabelColor(self.theme.color("text"))
        return chart


class StackedBarChart(_Chart):
    """Cost or tokens per period, one stacked bar per day (week, month), a colour per stack.

    Signals:
        sig_bar_clicked(str, str): the x key (a day, a week's Monday, a month) and the stack
            (a model or purpose; ``"other"`` for the rest) under a click.
    """

    sig_bar_clicked = Signal(str, str)
    """``(x key, stack key)`` of a clicked bar segment."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(theme, "UsageDailyChart", parent)
        self.setAccessibleName("Usage per day")
        self.periods: list[str] = []
        self.totals: list[float] = []
        self.shown_metric = "cost"
        self.stacks: list[str] = []
        self.unit = "day"

    def set_series(self, series: StackedSeries, metric: str, unit: str) -> None:
        chart = self._reset()
        self.periods, self.unit = list(series.x), unit
        shown = series.stacks[:MAX_STACKS]
        rest = series.stacks[MAX_STACKS:]
        self.stacks = shown + ([OTHER] if rest else [])
        bars = QStackedBarSeries()
        for n, stack in enumerate(self.stacks):
            bar = QBarSet(stack or "(none)")
            bar.setColor(QColor(PALETTE[n % len(PALETTE)]))
            bar.setBorderColor(QColor(PALETTE[n % len(PALETTE)]))
            keys = rest if stack == OTHER and rest else [stack]
            bar.append(
                [sum(_value(series.cells.get((x, k)), metric) for k in keys) for x in self.periods]
            )
            bars.append(bar)
        bars.setBarWidth(0.85)
        bars.clicked.connect(self._on_bars_clicked)
        chart.addSeries(bars)
        axis_x = QBarCategoryAxis()
        axis_x.append(self._labels() or [""])
        axis_x.setTruncateLabels(False)
        axis_y = QValueAxis()
        axis_y.setLabelFormat("$%.2f" if metric == "cost" else "%.0f")
        self.totals = [
            sum(_value(series.cells.get((x, k)), metric) for k in series.stacks)
            for x in self.periods
        ]
        self._headroom(axis_y, max(self.totals, default=0.0))
        self.shown_metric = metric
        for axis, side in (
            (axis_x, Qt.AlignmentFlag.AlignBottom),
            (axis_y, Qt.AlignmentFlag.AlignLeft),
        ):
            self._style_axis(axis)
            chart.addAxis(axis, side)
            bars.attachAxis(axis)
        what = "cost" if metric == "cost" else "tokens"
        chart.setTitle(f"{what.capitalize()} per {unit}")
        chart.setTitleBrush(self.theme.color("text"))
        self.setAccessibleName(f"{what.capitalize()} per {unit}")
        self.summary_text = self.describe(series, metric)
        self._describe()

    def bar_count(self) -> int:
        return len(self.periods)

    def bar_words(self, index: int) -> str:
        return f"{self.periods[index]}, {_short(self.totals[index], self.shown_metric)}"

    def activate(self, index: int) -> None:
        if 0 <= index < len(self.periods):
            self.sig_bar_clicked.emit(self.periods[index], OTHER)  # the whole bar: every stack

    def _labels(self) -> list[str]:
        """One label per bar, about ten of them readable. A category axis needs distinct names,
        so the bars between labels get distinct invisible ones (zero-width spaces)."""
        every = max(1, math.ceil(len(self.periods) / 10))
        return [
            (key[5:] if self.unit == "day" else key) if n % every == 0 else "\u200b" * (n + 1)
            for n, key in enumerate(self.periods)
        ]

    def describe(self, series: StackedSeries, metric: str) -> str:
        if not series.x:
            return "No requests"
        totals = [
            (x, sum(_value(series.cells.get((x, s)), metric) for s in series.stacks))
            for x in series.x
        ]
        peak = max(totals, key=lambda t: t[1])
        return (
            f"{len(series.x)} {self.unit}s from {series.x[0]} to {series.x[-1]}; highest {peak[0]} "
            f"({_short(peak[1], metric)}); stacked by {', '.join(self.stacks) or 'nothing'}"
        )

    def _on_bars_clicked(self, index: int, bar: QBarSet) -> None:
        if 0 <= index < len(self.periods):
            label = bar.label()
            self.sig_bar_clicked.emit(self.periods[index], "" if label == "(none)" else label)


class WorkspaceChart(_Chart):
    """Cost (or tokens) per workspace, largest first.

    Signals:
        sig_bar_clicked(str): the workspace under a click (``""``: requests with none).
    """

    sig_bar_clicked = Signal(str)
    """The workspace path of a clicked bar."""

    LIMIT: Final = 8

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        super().__init__(theme, "UsageWorkspaceChart", parent)
        self.setAccessibleName("Usage per workspace")
        self.keys: list[str] = []
        self.values: list[float] = []
        self.shown_metric = "cost"
        self.chart().legend().hide()

    def set_groups(self, groups: list[UsageGroup], metric: str) -> None:
        chart = self._reset()
        top = sorted(groups, key=lambda g: _value(g, metric), reverse=True)[: self.LIMIT]
        top.reverse()  # largest at the top
        self.keys = [g.key for g in top]
        bar = QBarSet("workspaces")
        bar.setColor(QColor(PALETTE[0]))
        bar.append([_value(g, metric) for g in top])
        series = QHorizontalBarSeries()
        series.append(bar)
        series.clicked.connect(self._on_clicked)
        chart.addSeries(series)
        axis_y = QBarCategoryAxis()
        axis_y.append([Path(k).name or k or "(none)" for k in self.keys] or [""])
        axis_x = QValueAxis()
        axis_x.setLabelFormat("$%.2f" if metric == "cost" else "%.0f")
        axis_x.setTickCount(4)
        self.values = [_value(g, metric) for g in top]
        self.shown_metric = metric
        self._headroom(axis_x, max(self.values, default=0.0))
        for axis, side in (
            (axis_y, Qt.AlignmentFlag.AlignLeft),
            (axis_x, Qt.AlignmentFlag.AlignBottom),
        ):
            self._style_axis(axis)
            chart.addAxis(axis, side)
            series.attachAxis(axis)
        chart.setTitle("By workspace")
        chart.setTitleBrush(self.theme.color("text"))
        self.setAccessibleName(f"{'Cost' if metric == 'cost' else 'Tokens'} by workspace")
        self.summary_text = (
            "; ".join(
                f"{Path(g.key).name or '(none)'} {_short(_value(g, metric), metric)}"
                for g in reversed(top)
            )
            or "No requests"
        )
        self._describe()

    def bar_count(self) -> int:
        return len(self.keys)

    def keyPressEvent(self, event: Any) -> None:
        # the largest bar is drawn at the top and is the last index: Up and Down follow the screen
        flipped = {Qt.Key.Key_Up: Qt.Key.Key_Right, Qt.Key.Key_Down: Qt.Key.Key_Left}.get(
            event.key()
        )
        if flipped is not None and self.keys:
            if self.current < 0:
                self.pick(len(self.keys) - 1)
            else:
                self.pick(self.current + (1 if flipped == Qt.Key.Key_Right else -1))
            return
        super().keyPressEvent(event)

    def bar_words(self, index: int) -> str:
        return f"{self.keys[index] or '(no workspace recorded)'}, {_short(self.values[index], self.shown_metric)}"

    def activate(self, index: int) -> None:
        if 0 <= index < len(self.keys):
            self.sig_bar_clicked.emit(self.keys[index])

    def _on_clicked(self, index: int, _bar: QBarSet) -> None:
        if 0 <= index < len(self.keys):
            self.sig_bar_clicked.emit(self.keys[index])


class UsageView(QWidget):
    """The Usage view (see the module docstring).

    Args:
        home: the Rho home whose ledger to read (called at each reload: the library may change).
        summaries: the library's sessions (to name and open them), awaited off the GUI thread.

    Signals:
        sig_session_requested(object): open this session file (a ``Path``).
        sig_overview_shown(object): an :class:`Overview` is on screen.
        sig_sessions_shown(str): the sessions table shows a new list (its caption).
        sig_payback_shown(object): a :class:`PaybackReport` is on screen.
    """

    NO_LEDGER: Final = "Rho records every model request in usage.sqlite3 in its home folder; this Rho home has none yet."
    NO_REQUESTS: Final = (
        "The usage ledger holds no requests yet: Rho (and rho-desk, when it continues a "
        "session) adds one with each model request."
    )
    NO_MATCH: Final = "No request in the ledger matches these filters."

    sig_session_requested = Signal(object)
    """The user opened a session (Enter or a double click): its transcript path."""
    sig_overview_shown = Signal(object)
    """An :class:`Overview` was drawn."""
    sig_sessions_shown = Signal(str)
    """The sessions table was filled; carries its caption."""
    sig_payback_shown = Signal(object)
    """A :class:`PaybackReport` was shown."""

    def __init__(
        self,
        bridge: EngineBridge,
        theme: Theme,
        home: Callable[[], Path | None],
        summaries: Callable[[], Any] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("UsageView")
        self.bridge = bridge
        self.theme = theme
        self.home = home
        self.summaries = summaries
        self.data: Overview | None = None
        self.filter = UsageFilter(local=True)
        """The filter of the figures on screen."""
        self.names: dict[str, SessionSummary] = {}
        self.elsewhere: dict[str, LedgerSession] = {}
        """Sessions of the ledger the library does not hold: where and when they last ran."""
        self.cache_dir: Path | None = None
        """Where the ledger's roll-up lives (``None``: rho-desk's cache folder)."""
        self._generation = 0
        self._payback_generation = 0
        self._choices_set = False

        self.period = QComboBox()
        self.period.setAccessibleName("Period")
        for text, days in PERIODS:
            self.period.addItem(text, days)
        self.since = QDateEdit()
        self.until = QDateEdit()
        for edit, name in ((self.since, "From"), (self.until, "To")):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setAccessibleName(name)
            edit.setVisible(
                False
            )  # shown for a custom range only: no editable-looking dates beside "All time"
        today = QDate.currentDate()
        self.since.setDate(today.addDays(-30))
        self.until.setDate(today)
        self.workspace = self._combo("Workspace", "All workspaces")
        self.model_filter = self._combo("Model", "All models")
        self.purpose = self._combo("Purpose", "All purposes")
        self.stack = QComboBox()
        self.stack.setAccessibleName("Stack by")
        self.stack.addItem("Stack by model", "model")
        self.stack.addItem("Stack by purpose", "purpose")
        self.measure = QComboBox()
        self.measure.setAccessibleName("Measure")
        self.measure.addItem("Cost", "cost")
        self.measure.addItem("Tokens", "tokens")
        self.reload_button = QPushButton("&Reload")
        self.reload_button.setToolTip("Read the ledger again (Rho may have written since)")
        # two rows, each label naming its control (to a screen reader too): the filters, then
        # how the figures are drawn; the view then fits a 1024-pixel screen
        filters, drawing = QHBoxLayout(), QHBoxLayout()
        for row in (filters, drawing):
            row.setSpacing(6)
        for row, label, widget in (
            (filters, "Period", self.period),
            (filters, None, self.since),
            (filters, None, self.until),
            (filters, "Workspace", self.workspace),
            (filters, "Model", self.model_filter),
            (drawing, "Purpose", self.purpose),
            (drawing, "Stack", self.stack),
            (drawing, "Measure", self.measure),
        ):
            if label is not None:
                caption = QLabel(f"{label}:")
                caption.setBuddy(widget)
                row.addWidget(caption)
            row.addWidget(widget)
        filters.addStretch(1)
        self.chart_hint = ElidedLabel(
            "Charts: the arrows pick a bar, Enter lists its sessions",
            mode=Qt.TextElideMode.ElideRight,
        )
        self.chart_hint.setObjectName("Hint")
        drawing.addWidget(self.chart_hint, 1)
        drawing.addWidget(self.reload_button)
        bar = QVBoxLayout()
        bar.setSpacing(4)
        bar.addLayout(filters)
        bar.addLayout(drawing)

        self.summary = QLabel("")
        self.summary.setObjectName("SectionTitle")
        self.summary.setWordWrap(
            True
        )  # two lines on a narrow screen rather than a window too wide for it
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.daily = StackedBarChart(theme)
        self.by_workspace = WorkspaceChart(theme)
        charts = QSplitter(Qt.Orientation.Horizontal)
        charts.addWidget(self.daily)
        charts.addWidget(self.by_workspace)
        charts.setStretchFactor(0, 3)
        charts.setStretchFactor(1, 2)
        charts.setChildrenCollapsible(False)

        self.sessions_caption = QLabel("Top sessions")
        self.show_top = QPushButton("Show &top sessions")
        self.show_top.hide()
        self.sessions_model = UsageGroupsModel("Session", self)
        self.sessions_model.label = self._session_label
        self.sessions = self._table(self.sessions_model, "UsageSessions", "Sessions")
        sessions_page = QWidget()
        sessions_layout = QVBoxLayout(sessions_page)
        sessions_layout.setContentsMargins(0, 4, 0, 0)
        head = QHBoxLayout()
        head.addWidget(self.sessions_caption, 1)
        head.addWidget(self.show_top)
        sessions_layout.addLayout(head)
        sessions_layout.addWidget(self.sessions, 1)
        self.payback_caption = QLabel("Compaction payback: open this tab to compute it.")
        self.payback_caption.setWordWrap(True)
        self.payback_model = PaybackModel(self)
        self.payback_model.label = self._session_label
        self.payback_table = self._table(self.payback_model, "UsagePayback", "Compaction payback")
        payback_page = QWidget()
        payback_layout = QVBoxLayout(payback_page)
        payback_layout.setContentsMargins(0, 4, 0, 0)
        payback_layout.addWidget(self.payback_caption)
        payback_layout.addWidget(self.payback_table, 1)
        self.detail_tabs = QTabWidget()
        self.detail_tabs.setDocumentMode(True)
        self.detail_tabs.setObjectName("UsageTabs")
        self.detail_tabs.addTab(sessions_page, "&Sessions")
        self.detail_tabs.addTab(payback_page, "Compaction &payback")

        self.body = QSplitter(Qt.Orientation.Vertical)
        self.body.addWidget(charts)
        self.body.addWidget(self.detail_tabs)
        self.body.setStretchFactor(0, 3)
        self.body.setStretchFactor(1, 2)
        self.empty = EmptyState("No usage ledger", self.NO_LEDGER)
        self.empty.hide()
        # what a table's row could not open is said here, under the tables, in this window: in
        # the main window's notification bar it was behind this one
        self.note = Banner("info")
        self.note.setAccessibleName("Note")
        self.note_dismiss = self.note.add_button("&Dismiss", "Hide this note")
        self.note_dismiss.clicked.connect(self.note.hide)
        self.note.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(bar)
        layout.addWidget(self.summary)
        layout.addWidget(self.body, 1)
        layout.addWidget(self.empty, 1)
        layout.addWidget(self.note)

        self.period.currentIndexChanged.connect(self._on_period_changed)
        for edit in (self.since, self.until):
            edit.dateChanged.connect(lambda _d: self.reload())
        for combo in (self.workspace, self.model_filter, self.purpose, self.stack, self.measure):
            combo.currentIndexChanged.connect(lambda _i: self.reload())
        self.reload_button.clicked.connect(self.reload)
        self.daily.sig_bar_clicked.connect(self._on_daily_bar_clicked)
        self.by_workspace.sig_bar_clicked.connect(self._on_workspace_bar_clicked)
        self.show_top.clicked.connect(self._on_show_top_clicked)
        # activated: Enter or Return, and the double (or single) click the style activates with
        self.sessions.activated.connect(self._on_session_activated)
        self.payback_table.activated.connect(self._on_session_activated)
        self.detail_tabs.currentChanged.connect(lambda _i: self._maybe_load_payback())

    # -- widgets -------------------------------------------------------------------------------

    @staticmethod
    def _combo(name: str, everything: str) -> QComboBox:
        combo = QComboBox()
        combo.setAccessibleName(name)
        combo.addItem(everything, None)
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        combo.setMaximumWidth(230)
        return combo

    @staticmethod
    def _table(model: Any, name: str, accessible: str) -> QTableView:
        table = QTableView()
        table.setObjectName(name)
        table.setAccessibleName(accessible)
        table.setModel(model)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setTabKeyNavigation(False)  # Tab leaves the table (the arrows move in it)
        table.verticalHeader().hide()
        table.setShowGrid(False)
        table.setAlternatingRowColors(True)
        table.setFrameShape(QFrame.Shape.NoFrame)
        # sized once per fill (_fit): "resize to contents" would ask every cell again on each paint
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        # four rows in view whatever else shares the height (on a 700 px screen, with a note
        # under it, the charts above left one)
        rows = table.verticalHeader().defaultSectionSize()
        table.setMinimumHeight(table.horizontalHeader().sizeHint().height() + 4 * rows + 2)
        return table

    @staticmethod
    def _fit(table: QTableView) -> None:
        """Columns as wide as their widest text (measured here: Qt's own sizing asks each cell
        for every role, which costs more than the rest of a redraw)."""
        model, metrics = table.model(), table.fontMetrics()
        header = table.horizontalHeader().fontMetrics()
        for column in range(1, model.columnCount()):
            title = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
            widest = max(
                [header.horizontalAdvance(title) + 16]
                + [
                    metrics.horizontalAdvance(str(model.data(model.index(row, column)) or ""))
                    for row in range(model.rowCount())
                ]
            )
            table.setColumnWidth(column, widest + 16)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        for chart in (self.daily, self.by_workspace):
            chart.theme = theme
        if self.data is not None:
            self._show_charts(self.data)

    # -- the filter ------------------------------------------------------------------------------

    def current_filter(self) -> UsageFilter:
        days = self.period.currentData()
        since: dt.date | None = None
        until: dt.date | None = None
        if days == -1:
            since = cast(dt.date, self.since.date().toPython())
            until = cast(dt.date, self.until.date().toPython())
        elif days:
            until = dt.date.today()
            since = until - dt.timedelta(days=int(days) - 1)

        def chosen(combo: QComboBox) -> tuple[str, ...]:
            value = combo.currentData()
            return () if value is None else (str(value),)

        return UsageFilter(
            since=since,
            until=until,
            local=True,
            workspaces=chosen(self.workspace),
            models=chosen(self.model_filter),
            purposes=chosen(self.purpose),
        )

    def _on_period_changed(self, _index: int) -> None:
        custom = self.period.currentData() == -1
        self.since.setVisible(custom)
        self.until.setVisible(custom)
        self.reload()

    # -- loading ---------------------------------------------------------------------------------

    def _say_empty(self, title: str, hint: str) -> None:
        self.empty.title.setText(title)
        self.empty.hint.setText(hint)

    def ledger(self) -> Path | None:
        home = self.home()
        return None if home is None else ledger_path(home)

    def reload(self) -> None:
        """Read the ledger again under the current filters (off the GUI thread)."""
        self._generation += 1
        self.note.hide()
        path = self.ledger()
        if path is None or not path.is_file():
            self.data = None
            self.body.hide()
            self.summary.setText("")
            self._say_empty("No usage ledger", self.NO_LEDGER)
            self.empty.show()
            return
        self.bridge.run(
            self._aload(
                self._generation, path, self.current_filter(), str(self.stack.currentData())
            ),
            context="Reading the usage ledger",
        )

    async def _aload(self, generation: int, path: Path, filt: UsageFilter, stack: str) -> None:
        # the figures and the sessions' names at once, each in its worker thread
        data, names = await asyncio.gather(
            in_thread(overview, path, filt, stack, cache_dir=self.cache_dir), self._anames()
        )
        if generation != self._generation:
            return
        self.names, self.elsewhere = names, {}  # (another home, another ledger)
        await self._alearn_elsewhere(path, [g.key for g in data.sessions])
        if generation != self._generation:
            return
        self.show_overview(data, filt)

    async def _alearn_elsewhere(self, path: Path, session_ids: list[str]) -> None:
        """Ask the ledger where and when the sessions the library lacks ran (to name them)."""
        missing = [s for s in session_ids if s and s not in self.names and s not in self.elsewhere]
        if missing:
            # naming is a nicety: the figures stand without it
            with contextlib.suppress(KnownError):
                self.elsewhere.update(await in_thread(ledger_sessions, path, missing))

    async def _anames(self) -> dict[str, SessionSummary]:
        """The library's sessions by id (to name and open them); the last known on failure."""
        if self.summaries is None:
            return self.names
        try:
            page = await self.summaries()
        except Exception:  # naming sessions is a nicety: the figures stand without it
            return self.names
        return {s.id: s for s in page.sessions}

    def show_overview(self, data: Overview, filt: UsageFilter) -> None:
        self.data = data
        self.filter = filt
        self.empty.hide()
        self.body.show()
        self._set_choices(data.choices)
        t = data.total
        text = f"{t.requests:,} requests · {money(t.cost_usd_micros)}"
        if t.requests_without_cost:
            text += f" (+ {t.requests_without_cost:,} requests that reported no cost)"
        text += f" · {t.input_tokens:,} input, {t.cache_read_tokens:,} cache read, {t.output_tokens:,} output tokens"
        self.summary.setText(text)
        if not t.requests:  # no bars to draw: say why, as for a missing ledger
            whole = self.filter == UsageFilter(local=True)
            self._say_empty("No requests", self.NO_REQUESTS if whole else self.NO_MATCH)
            self.body.hide()
            self.empty.show()
        self._show_charts(data)
        self._show_sessions(
            data.sessions, "Most expensive sessions (Enter or a double click opens one)", top=True
        )
        self.payback_model.set_rows([])
        self.payback_caption.setText(
            "Compaction payback: computing…"
            if self.detail_tabs.currentIndex() == 1
            else "Compaction payback: open this tab to compute it."
        )
        self._payback_generation = 0
        self._maybe_load_payback()
        self.sig_overview_shown.emit(data)

    def _show_charts(self, data: Overview) -> None:
        metric = str(self.measure.currentData())
        series = self._every_day(data.days) if data.unit == "day" else data.days
        self.daily.set_series(series, metric, data.unit)
        self.by_workspace.set_groups(data.workspaces, metric)

    @staticmethod
    def _every_day(series: StackedSeries) -> StackedSeries:
        """The series with a (blank) bar for each day without requests between its first and last."""
        if len(series.x) < 2:
            return series
        first, last = dt.date.fromisoformat(series.x[0]), dt.date.fromisoformat(series.x[-1])
        days = [(first + dt.timedelta(days=n)).isoformat() for n in range((last - first).days + 1)]
        return StackedSeries(days, series.stacks, series.cells)

    def _set_choices(self, choices: dict[str, list[str]]) -> None:
        for combo, key in (
            (self.workspace, "workspace"),
            (self.model_filter, "model"),
            (self.purpose, "purpose"),
        ):
            current = combo.currentData()
            values = choices.get(key, [])
            if [combo.itemData(i) for i in range(1, combo.count())] == values:
                continue
            combo.blockSignals(True)
            while combo.count() > 1:
                combo.removeItem(1)
            for value in values:
                combo.addItem(
                    (Path(value).name or value)
                    if key == "workspace" and value
                    else (value or "(none)"),
                    value,
                )
                if key == "workspace":
                    combo.setItemData(
                        combo.count() - 1,
                        value or "(no workspace recorded)",
                        Qt.ItemDataRole.ToolTipRole,
                    )
            index = combo.findData(current) if current is not None else 0
            combo.setCurrentIndex(max(0, index))
            combo.blockSignals(False)

    # -- sessions --------------------------------------------------------------------------------

    def _session_label(self, session_id: str) -> str:
        summary = self.names.get(session_id)
        if summary is None:
            if not session_id:
                return "(no session recorded)"
            seen = self._where_and_when(session_id)
            if seen is None:
                return f"Session {session_id[:8]} (not in this library)"
            return f"{seen} · not in this library ({session_id[:8]})"
        title = (summary.title or summary.first_user_message or "").splitlines()
        return f"{title[0][:70] if title else session_id[:8]} · {Path(summary.cwd).name}"

    def _where_and_when(self, session_id: str) -> str | None:
        """Where and when a session the library lacks last ran, as the ledger recorded it (what
        a person recognises: its folder and its time, not its id)."""
        seen = self.elsewhere.get(session_id)
        if seen is None:
            return None
        when = dt.datetime.fromtimestamp(seen.last_ms / 1000).strftime("%Y-%m-%d %H:%M")
        return f"{Path(seen.workspace).name or seen.workspace or 'no workspace recorded'} · {when}"

    def _show_sessions(self, groups: list[UsageGroup], caption: str, *, top: bool) -> None:
        self.sessions_model.set_rows(groups)
        self._fit(self.sessions)
        self.sessions_caption.setText(caption)
        self.show_top.setVisible(not top)
        if not top:
            self.detail_tabs.setCurrentIndex(0)
        self.sig_sessions_shown.emit(caption)

    def show_sessions_behind(self, filt: UsageFilter, caption: str) -> None:
        """List the sessions whose requests make up the figures under ``filt``."""
        path = self.ledger()
        if path is None:
            return
        self._generation += 1
        generation = self._generation

        async def load() -> None:
            groups = await in_thread(sessions_behind, path, filt, cache_dir=self.cache_dir)
            await self._alearn_elsewhere(path, [g.key for g in groups])
            if generation == self._generation:
                self._show_sessions(groups, caption, top=False)

        self.bridge.run(load(), context="Reading the usage ledger")

    def _on_daily_bar_clicked(self, x: str, stack: str) -> None:
        base = self.filter
        first, last = _period_days(x, self.daily.unit)
        filt = replace(
            base,
            since=max(first, base.since) if base.since else first,
            until=min(last, base.until) if base.until else last,
        )
        dimension = str(self.stack.currentData())
        if stack != OTHER:
            filt = narrow(filt, dimension, stack)
        what = x if self.daily.unit == "day" else f"the {self.daily.unit} of {x}"
        self.show_sessions_behind(
            filt, f"Sessions behind {what}" + (f" · {stack or '(none)'}" if stack != OTHER else "")
        )

    def _on_workspace_bar_clicked(self, workspace: str) -> None:
        base = self.filter
        self.show_sessions_behind(
            narrow(base, "workspace", workspace),
            f"Sessions behind {workspace or '(no workspace recorded)'}",
        )

    def _on_show_top_clicked(self) -> None:
        if self.data is not None:
            self._show_sessions(
                self.data.sessions,
                "Most expensive sessions (Enter or a double click opens one)",
                top=True,
            )

    def _on_session_activated(self, index: QModelIndex) -> None:
        row = index.model().data(index, Role.ROW)
        session_id = getattr(row, "key", None) or getattr(row, "session_id", None)
        summary = self.names.get(str(session_id)) if session_id else None
        if summary is not None:
            self.sig_session_requested.emit(Path(summary.path))
        elif session_id:
            self.note.show_text(
                f"Session {session_id}{f' ({seen})' if (seen := self._where_and_when(str(session_id))) else ''} "
                "is in the usage ledger but not in this library (deleted, or recorded on another machine)."
            )

    # -- payback ----------------------------------------------------------------------------------

    def _maybe_load_payback(self) -> None:
        if (
            self.detail_tabs.currentIndex() != 1
            or self.data is None
            or self._payback_generation == self._generation
        ):
            return
        path = self.ledger()
        if path is None:
            return
        self._payback_generation = generation = self._generation
        filt = self.filter
        self.payback_caption.setText("Compaction payback: computing…")

        async def load() -> None:
            report = await in_thread(_payback, path, filt, self.cache_dir)
            await self._alearn_elsewhere(path, [s.session_id for s in report.sessions])
            if generation == self._generation:
                self.show_payback(report)

        self.bridge.run(load(), context="Computing compaction payback")

    def show_payback(self, report: PaybackReport) -> None:
        rows = [c for s in report.sessions for c in s.compactions]
        rows.sort(key=lambda c: c.occurred_at_ms, reverse=True)
        self.payback_model.set_rows(rows)
        self._fit(self.payback_table)
        t = report.total
        if not t.compactions:
            self.payback_caption.setText("No compactions in the ledger under these filters.")
        else:
            verdict = (
                "paid for themselves" if t.net_usd_micros >= 0 else "cost more than they saved"
            )
            text = (
                f"{t.compactions:,} compactions cost {money(t.cost_usd_micros)} and saved {t.saved_tokens:,} "
                f"input tokens worth {money(t.saved_usd_micros)} on later requests: they {verdict} "
                f"(net {money(t.net_usd_micros)})."
            )
            if t.unknown_cost or t.unknown_saving:
                text += f" Left out: {t.unknown_cost} without a reported cost, {t.unknown_saving} whose saving is unknown."
            self.payback_caption.setText(
                text + " Saved = (context before − after) × later requests, at the "
                "model's input price fitted from the ledger."
            )
        self.sig_payback_shown.emit(report)


def _payback(path: Path, filt: UsageFilter, cache_dir: Path | None) -> PaybackReport:
    from ...core.usage.ledger import UsageLedger

    with UsageLedger(path, cache_dir=cache_dir) as ledger:
        return payback(ledger, filt)


class UsageWindow(QWidget):
    """The Usage view in a window of its own (it spans the library, not the open session)."""

    def __init__(self, view: UsageView, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("UsageWindow")
        self.setWindowTitle("Usage and cost — rho-desk")
        self.view = view
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(view)
        fit_to_screen(self, 1180, 760)
        area = available_area(self)
        if area is not None:  # on the screen, whole: a window manager may place it past the bottom
            self.move(
                area.x() + max((area.width() - self.width()) // 2, 0),
                area.y() + max((area.height() - self.height()) // 2, 0),
            )
        # Esc and Ctrl+W close it, as the dialogs close (Esc first leaves an open combo's list)
        from PySide6.QtGui import QKeySequence, QShortcut

        for keys in (QKeySequence(Qt.Key.Key_Escape), QKeySequence(QKeySequence.StandardKey.Close)):
            shortcut = QShortcut(keys, self)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(self.close)
