"""The message list: a custom item view and delegate that stay fast on 100,000 messages.

A stock ``QListView`` with variable row heights asks the delegate for every row's size before
it paints anything (6-11 s for 100k rows, environment.md §6). :class:`MessageListView` instead
keeps one height per row, *estimated* from the row's text length and line count, its extra
lines and images, and the viewport width (:func:`estimate_heights`: one list comprehension,
~20 ms for 100k rows), plus their prefix sums. Every geometric question (which row is at this
y, where is that row, how tall is everything) is then a bisection or a lookup, and a paint
touches only the rows on screen. Long messages are shown as a collapsed preview; ``O`` (or a
double click) expands one in place, and the detail pane always shows the whole message.

The :class:`MessageDelegate` paints a row as a card: a coloured stripe by kind, an icon, the
title, badges, the text (elided to the rows' estimated lines), tool calls with their results'
status, reasoning and provider-block lines, and image thumbnails.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QRectF,
    QSize,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import (
    QAccessible,
    QAccessibleEvent,
    QColor,
    QFont,
    QFontMetrics,
    QPainter,
    QPainterPath,
    QPen,
    QRegion,
    QTextCharFormat,
    QTextLayout,
    QTextLine,
    QTextOption,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from ..ui.resources import Icon, pixmap
from ..ui.roles import Role
from ..ui.theme import Theme
from . import message_list_a11y
from .model import ConversationModel, ConversationRow, ConversationRows, RowKind

__all__ = ["MessageDelegate", "MessageListView", "RowMetrics", "estimate_heights"]

THUMB: Final = 72
"""Thumbnail height in the list."""
CAPS: Final = {
    RowKind.SYSTEM: 3,
    RowKind.USER: 8,
    RowKind.ASSISTANT: 10,
    RowKind.ABORTED: 8,
    RowKind.TOOL_RESULT: 2,
    RowKind.MARKER: 3,
}
"""Lines of text a collapsed row shows, by kind."""
EXPANDED_CAP: Final = 400
RELAYOUT_DEBOUNCE_MS: Final = 60


@dataclass(frozen=True, slots=True)
class RowMetrics:
    """Pixel sizes of the card layout, from the font."""

    line: int
    """Height of one text line."""
    char: float
    """Average character width (with a small margin for word-wrap waste)."""
    margin_x: int = 12
    margin_y: int = 4
    pad_left: int = 14
    pad_right: int = 12
    pad_y: int = 8
    header: int = 20
    gap: int = 4
    indent: int = 28
    """Extra left indent of tool results (they hang under their call)."""

    @classmethod
    def for_font(cls, font: QFont) -> RowMetrics:
        fm = QFontMetrics(font)
        sample = "The quick brown fox jumps over the lazy dog, 0123456789 times."
        return cls(line=fm.lineSpacing(), char=fm.horizontalAdvance(sample) / len(sample) * 1.02)

    def text_width(self, width: int, kind: int) -> int:
        indent = self.indent if kind == RowKind.TOOL_RESULT else 0
        return max(40, width - 2 * self.margin_x - self.pad_left - self.pad_right - indent)

    def base(self, kind: int) -> int:
        return 2 * self.margin_y + 2 * self.pad_y + self.header + self.gap


def estimate_heights(
    rows: ConversationRows, width: int, metrics: RowMetrics, expanded: set[int]
) -> array[int]:
    """Every row's height at viewport ``width`` (collapsed rows capped by kind)."""
    cpl = max(10, int(metrics.text_width(width, RowKind.USER) / metrics.char))
    cpl_tool = max(10, int(metrics.text_width(width, RowKind.TOOL_RESULT) / metrics.char))
    lh = metrics.line
    base = metrics.base(0)
    thumb = THUMB + metrics.gap
    caps = bytes(CAPS[RowKind(k)] for k in range(6))
    tool = int(RowKind.TOOL_RESULT)
    heights = array(
        "l",
        [
            base
            # one paragraph: ceil(chars / cpl) lines; several: an upper bound (each may end short)
            + lh
            * (
                min(
                    caps[k],
                    (nl + 1 + c // (cpl_tool if k == tool else cpl))
                    if nl
                    else -(-c // (cpl_tool if k == tool else cpl)),
                )
                if c
                else 0
            )
            + lh * e
            + (thumb if im else 0)
            for k, c, nl, e, im in zip(
                rows.kinds, rows.chars, rows.newlines, rows.extra, rows.images, strict=True
            )
        ],
    )
    for r in expanded:
        if r < len(heights):
            heights[r] = expanded_height(rows, r, width, metrics)
    return heights


LayoutRunner = Callable[
    [
        Callable[[], "tuple[array[int], array[int]]"],
        Callable[["tuple[array[int], array[int]]"], None],
    ],
    None,
]
"""Runs a layout computation off the GUI thread and calls back with its result (on the GUI thread)."""
OFFLOAD_ROWS: Final = 5000
"""Above this many rows, re-estimating heights (after a resize) runs in a worker thread."""


def layout_rows(
    rows: ConversationRows, width: int, metrics: RowMetrics, expanded: set[int]
) -> tuple[array[int], array[int]]:
    """Heights and prefix sums at ``width`` (pure Python; safe in a worker thread).

    Both are arrays of machine integers: 100k prefix sums as a list would hold 100k int objects
    (~3.6 MB; the array takes 0.8 MB)."""
    heights = estimate_heights(rows, width, metrics, expanded)
    return heights, prefix_sums(heights)


def prefix_sums(heights: array[int]) -> array[int]:
    """``[0, h0, h0 + h1, ...]``: where each row starts, then the total height."""
    offsets = array("l", [0])
    offsets.extend(itertools.accumulate(heights))
    return offsets


def expanded_height(rows: ConversationRows, r: int, width: int, metrics: RowMetrics) -> int:
    k = rows.kinds[r]
    cpl = max(10, int(metrics.text_width(width, k) / metrics.char))
    c, nl = rows.chars[r], rows.newlines[r]
    lines = min(EXPANDED_CAP, (nl + 1 + c // cpl) if nl else -(-c // cpl)) if c else 0
    return (
        metrics.base(k)
        + metrics.line * (lines + rows.extra[r])
        + (THUMB + metrics.gap if rows.images[r] else 0)
    )


_STRIPE: Final = {
    RowKind.SYSTEM: "warning",
    RowKind.USER: "accent",
    RowKind.ASSISTANT: "success",
    RowKind.ABORTED: "danger",
    RowKind.TOOL_RESULT: "muted",
    RowKind.MARKER: "accent",
}
_FILL: Final = {
    RowKind.SYSTEM: "system",
    RowKind.USER: "user",
    RowKind.ASSISTANT: "assistant",
    RowKind.ABORTED: "aborted",
    RowKind.TOOL_RESULT: "tool",
    RowKind.MARKER: "marker",
}
_ICON: Final = {
    RowKind.SYSTEM: Icon.SYSTEM,
    RowKind.USER: Icon.USER,
    RowKind.ASSISTANT: Icon.ASSISTANT,
    RowKind.ABORTED: Icon.ABORTED,
    RowKind.TOOL_RESULT: Icon.TOOL,
    RowKind.MARKER: Icon.COMPACTION,
}
_LINE_ICON: Final = {
    "tool": Icon.TOOL,
    "reasoning": Icon.REASONING,
    "provider": Icon.PROVIDER,
    "aborted": Icon.ABORTED,
}


class MessageDelegate(QStyledItemDelegate):
    """Paints a conversation row as a card (see the module docstring)."""

    def __init__(self, theme: Theme, metrics: RowMetrics, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.theme = theme
        self.metrics = metrics
        self.find_text = ""
        self.mono = QFont("DejaVu Sans Mono")
        self.mono.setPointSizeF(8.8)
        self._bold: QFont | None = None

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        # The view estimates heights itself (all rows at once); this is for other views.
        return QSize(option.rect.width(), self.metrics.base(0) + self.metrics.line * 2)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        row: ConversationRow | None = index.data(Role.ROW)
        if row is None:
            return
        t = self.theme
        m = self.metrics
        kind = row.kind
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRect(option.rect).adjusted(m.margin_x, m.margin_y, -m.margin_x, -m.margin_y)
        if kind is RowKind.TOOL_RESULT:
            rect.setLeft(rect.left() + m.indent)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        match = index.data(Role.MATCH) or 0
        path = QPainterPath()
        path.addRoundedRect(QRectF(rect), 7, 7)
        fill = t.color(_FILL[kind])
        if row.dropped:
            fill = QColor(fill)
            fill.setAlpha(150)
        painter.fillPath(path, fill)
        border = (
            t.color("accent")
            if selected
            else t.color("aborted_border")
            if kind is RowKind.ABORTED
            else t.color("border")
        )
        if match == 2 and not selected:
            border = t.color("warning")
        pen = QPen(border, 2 if selected or match == 2 else 1)
        if row.dropped:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawPath(path)
        stripe = QRectF(rect.left() + 1, rect.top() + 6, 3, rect.height() - 12)
        painter.fillRect(stripe, t.color(_STRIPE[kind]))

        x = rect.left() + m.pad_left
        y = rect.top() + m.pad_y
        right = rect.right() - m.pad_right
        # header: icon, title, time, badges
        painter.drawPixmap(
            x,
            y + 2,
            pixmap(
                _ICON[kind],
                t.text if kind is not RowKind.ABORTED else t.danger,
                16,
                painter.device().devicePixelRatioF(),
            ),
        )
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(t.color("text"))
        fm_bold = QFontMetrics(bold)
        title_x = x + 22
        title = fm_bold.elidedText(
            row.title, Qt.TextElideMode.ElideRight, max(40, (right - title_x) // 2)
        )
        painter.drawText(
            QRect(title_x, y, right - title_x, m.header), Qt.AlignmentFlag.AlignVCenter, title
        )
        cursor = title_x + fm_bold.horizontalAdvance(title) + 8
        small = QFont(option.font)
        small.setPointSizeF(option.font.pointSizeF() * 0.88)
        painter.setFont(small)
        fm_small = QFontMetrics(small)
        if row.subtitle:
            painter.setPen(t.color("muted"))
            painter.drawText(
                QRect(cursor, y, right - cursor, m.header),
                Qt.AlignmentFlag.AlignVCenter,
                row.subtitle,
            )
            cursor += fm_small.horizontalAdvance(row.subtitle) + 8
        bx = right
        for label, tone in reversed(row.badges):
            w = fm_small.horizontalAdvance(label) + 12
            if bx - w < cursor:
                break
            badge = QRectF(bx - w, y + 2, w, m.header - 4)
            color = t.color("muted" if tone == "muted" else tone)
            back = QColor(color)
            back.setAlpha(40 if not t.dark else 70)
            bp = QPainterPath()
            bp.addRoundedRect(badge, 8, 8)
            painter.fillPath(bp, back)
            painter.setPen(color if tone != "muted" else t.color("muted"))
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, label)
            bx -= w + 4
        y += m.header + m.gap

        # text: whatever height is left after the extra lines and the thumbnails
        body_font = self.mono if kind in (RowKind.TOOL_RESULT, RowKind.SYSTEM) else option.font
        room = (
            rect.bottom()
            - m.pad_y
            - y
            + 1
            - len(row.lines) * m.line
            - ((THUMB + m.gap) if row.images else 0)
        )
        lines_left = (room + m.line // 3) // m.line  # a few pixels short still fits a line
        if row.text and lines_left > 0:
            used = self._draw_text(
                painter,
                row.text,
                body_font,
                QRect(x, y, right - x, lines_left * m.line),
                lines_left,
                row.clipped,
                match,
            )
            y += used * m.line
        # extra lines
        painter.setFont(small)
        for icon_name, text, tone_status in row.lines:
            tone, _, status = tone_status.partition(":")
            painter.drawPixmap(
                x,
                y + (m.line - 14) // 2,
                pixmap(
                    _LINE_ICON.get(icon_name, Icon.TOOL),
                    t.muted,
                    14,
                    painter.device().devicePixelRatioF(),
                ),
            )
            sx = right
            if status:
                w = fm_small.horizontalAdvance(status) + 12
                sx = right - w
                color = t.color("muted" if tone == "muted" else tone)
                back = QColor(color)
                back.setAlpha(40 if not t.dark else 70)
                sp = QPainterPath()
                sp.addRoundedRect(QRectF(sx, y + 1, w, m.line - 2), 7, 7)
                painter.fillPath(sp, back)
                painter.setPen(color)
                painter.drawText(QRectF(sx, y, w, m.line), Qt.AlignmentFlag.AlignCenter, status)
            painter.setPen(t.color("text") if icon_name == "tool" else t.color("muted"))
            painter.setFont(self.mono if icon_name == "tool" else small)
            fm_line = QFontMetrics(painter.font())
            shown = fm_line.elidedText(text, Qt.TextElideMode.ElideRight, max(10, sx - x - 26))
            painter.drawText(
                QRect(x + 20, y, sx - x - 24, m.line), Qt.AlignmentFlag.AlignVCenter, shown
            )
            painter.setFont(small)
            y += m.line
        # thumbnails
        if row.images:
            model = index.model()
            tx = x
            for i in range(min(row.images, 6)):
                image = (
                    model.image(index.row(), i) if isinstance(model, ConversationModel) else None
                )
                if image is None:
                    box = QRect(tx, y + m.gap, THUMB, THUMB)
                    painter.setPen(t.color("border"))
                    painter.drawRect(box)
                    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, "?")
                    tx += THUMB + 6
                    continue
                scaled = image.scaledToHeight(THUMB, Qt.TransformationMode.SmoothTransformation)
                if scaled.width() > 2 * THUMB:
                    scaled = scaled.scaledToWidth(
                        2 * THUMB, Qt.TransformationMode.SmoothTransformation
                    )
                painter.drawImage(QPoint(tx, y + m.gap), scaled)
                painter.setPen(t.color("border"))
                painter.drawRect(QRect(tx, y + m.gap, scaled.width(), scaled.height()))
                tx += scaled.width() + 6
                if tx > right - THUMB:
                    break
        painter.restore()

    def _draw_text(
        self,
        painter: QPainter,
        text: str,
        font: QFont,
        box: QRect,
        max_lines: int,
        clipped: bool,
        match: int,
    ) -> int:
        """Lay ``text`` out in ``box``; the last line gets an ellipsis if text remains."""
        # QTextLayout breaks lines only at U+2028, not at "\n" (same length: offsets still match)
        layout = QTextLayout(text.replace("\n", "\u2028"), font)
        option = QTextOption()
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        layout.setTextOption(option)
        if self.find_text and match:
            formats: list[QTextLayout.FormatRange] = []
            lowered = text.lower()
            needle = self.find_text.lower()
            pos = lowered.find(needle)
            fmt = QTextCharFormat()
            fmt.setBackground(self.theme.color("find"))
            while pos != -1 and len(formats) < 200:
                r = QTextLayout.FormatRange()
                r.start, r.length, r.format = pos, len(needle), fmt
                formats.append(r)
                pos = lowered.find(needle, pos + len(needle))
            layout.setFormats(formats)
        fm = QFontMetrics(font)
        line_height = self.metrics.line
        layout.beginLayout()
        lines: list[QTextLine] = []
        while len(lines) < max_lines:
            line = layout.createLine()
            if not line.isValid():
                break
            line.setLineWidth(box.width())
            line.setPosition(QPoint(0, len(lines) * line_height))
            lines.append(line)
        layout.endLayout()
        more = bool(lines) and lines[-1].textStart() + lines[-1].textLength() < len(text)
        painter.setPen(self.theme.color("text"))
        painter.setFont(font)
        if (more or clipped) and lines:
            last = lines[-1]
            # all but the last line through the layout, then the last one elided
            clip_rect = QRect(box.left(), box.top(), box.width(), (len(lines) - 1) * line_height)
            painter.save()
            painter.setClipRect(clip_rect)
            layout.draw(painter, box.topLeft())
            painter.restore()
            rest = text[last.textStart() :].split("\n", 1)[0]
            elided = fm.elidedText(rest + " …", Qt.TextElideMode.ElideRight, box.width())
            if not elided.endswith("…"):
                elided = elided.rstrip() + " …"
            painter.setPen(self.theme.color("text"))
            painter.drawText(
                QRect(
                    box.left(), box.top() + (len(lines) - 1) * line_height, box.width(), line_height
                ),
                Qt.AlignmentFlag.AlignVCenter,
                elided,
            )
        else:
            painter.save()
            painter.setClipRect(box)
            layout.draw(painter, box.topLeft())
            painter.restore()
        return len(lines)


class MessageListView(QAbstractItemView):
    """A vertical list of variable-height rows whose heights are estimated, not measured.

    Signals:
        sig_row_activated(int): a row was double-clicked (or Enter pressed on it).
    """

    sig_row_activated = Signal(int)
    """A row was double-clicked or activated with Enter."""
    sig_painted = Signal()
    """A paint drew at least one row (tests and benchmarks time the first one)."""

    def __init__(self, theme: Theme, parent: QWidget | None = None) -> None:
        message_list_a11y.install(MessageListView)  # accessible rows for this custom view
        super().__init__(parent)
        # Before any setter below: Qt calls back into the geometry methods, which use these.
        self._heights: array[int] = array("l")
        self._offsets: array[int] = array("l", [0])
        self._layout_width = -1
        self.setObjectName("MessageList")
        self.metrics = RowMetrics.for_font(self.font())
        self.delegate = MessageDelegate(theme, self.metrics, self)
        self.setItemDelegate(self.delegate)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMouseTracking(False)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._relayout_timer = QTimer(self)
        self._relayout_timer.setSingleShot(True)
        self._relayout_timer.setInterval(RELAYOUT_DEBOUNCE_MS)
        self._relayout_timer.timeout.connect(self._on_relayout_timer_timeout)
        self.layout_runner: LayoutRunner | None = None
        """Set by the owner (with the bridge) so big layouts run off the GUI thread."""
        self.verticalScrollBar().setSingleStep(48)
        self.doubleClicked.connect(lambda index: self.sig_row_activated.emit(index.row()))

    def width_for_rows(self) -> Callable[[int], int]:
        """The viewport width a history of ``n`` rows will be shown at (the result may be called
        in a worker thread): narrower by the vertical scroll bar when the bar is hidden now but
        ``n`` rows cannot fit (each row is at least ``RowMetrics.base`` high), so that rows laid
        out in a worker need no second layout once the bar appears."""
        width = self.viewport().width()
        bar = self.verticalScrollBar()
        if bar.isVisibleTo(self):
            return lambda _n: width
        narrow = max(1, width - bar.sizeHint().width())
        fits = self.viewport().height() // max(1, self.metrics.base(0))
        return lambda n: narrow if n > fits else width

    # -- model wiring -------------------------------------------------------------------------------

    def setModel(self, model: Any) -> None:
        old = self.model()
        if isinstance(old, ConversationModel):
            old.sig_rows_resized.disconnect(self._on_model_rows_resized)
            old.modelReset.disconnect(self._on_model_reset)
            old.rowsInserted.disconnect(self._on_model_rows_inserted)
        super().setModel(model)
        if isinstance(model, ConversationModel):
            model.sig_rows_resized.connect(self._on_model_rows_resized)
            model.modelReset.connect(self._on_model_reset)
            model.rowsInserted.connect(self._on_model_rows_inserted)
        self.relayout()

    def currentChanged(
        self,
        current: QModelIndex | QPersistentModelIndex,
        previous: QModelIndex | QPersistentModelIndex,
    ) -> None:
        super().currentChanged(current, previous)
        self._describe_current(current)

    def _describe_current(self, current: QModelIndex | QPersistentModelIndex) -> None:
        """The list's accessible description names the current message ("Message 3 of 120: You, …").

        Qt has no accessible rows for a custom item view, so this is what a screen reader reads
        for the list; when the list has the focus, the new row is also announced.
        """
        model = self._conversation()
        if model is None or not current.isValid():
            count = model.rowCount() if model is not None else 0
            self.setAccessibleDescription(f"{count:,} message{'s' * (count != 1)}")
            return
        text = f"Message {current.row() + 1:,} of {model.rowCount():,}: {model.accessible_text(current.row())}"
        self.setAccessibleDescription(text)
        if self.hasFocus() and QAccessible.isActive():
            # the row itself takes the focus (message_list_a11y gives the view its rows)
            event = QAccessibleEvent(self, QAccessible.Event.Focus)
            event.setChild(current.row())
            QAccessible.updateAccessibility(event)

    def accessible_row_text(self, row: int) -> str:
        """What a screen reader says for ``row`` (see ``ConversationModel.accessible_text``)."""
        model = self._conversation()
        return (
            model.accessible_text(row) if model is not None and 0 <= row < model.rowCount() else ""
        )

    def _conversation(self) -> ConversationModel | None:
        model = self.model()
        return model if isinstance(model, ConversationModel) else None

    def set_theme(self, theme: Theme) -> None:
        self.delegate.theme = theme
        self.viewport().update()

    # -- layout -------------------------------------------------------------------------------------

    @property
    def heights(self) -> array[int]:
        return self._heights

    @property
    def content_height(self) -> int:
        return self._offsets[-1]

    def relayout(self) -> None:
        """Estimate every row's height at the current width and rebuild the prefix sums.

        Uses the layout the rows came with when it was made for this width (the usual case
        right after a load); otherwise estimates here (a large model with a layout runner
        gets a quick provisional layout only if it has none yet, and the real one from a
        worker thread).
        """
        self._relayout_timer.stop()
        model = self._conversation()
        width = self.viewport().width()
        self._layout_width = width
        if model is None or not len(model.rows):
            self._heights = array("l")
            self._offsets = array("l", [0])
        else:
            rows = model.rows
            ready = rows.layout
            if ready is not None and ready[0] == width and not model.expanded:
                self._heights, self._offsets = ready[1], ready[2]
            elif (
                self.layout_runner is not None
                and len(rows) > OFFLOAD_ROWS
                and ((self._heights and len(self._heights) == len(rows)) or ready is not None)
            ):
                if ready is not None and len(self._heights) != len(rows):
                    # new rows laid out for another width: shown so until the worker's layout
                    # (100k rows on the GUI thread would stall it for ~0.1 s)
                    self._heights, self._offsets = ready[1], ready[2]
                self._relayout_offthread(rows, width, set(model.expanded))
            else:
                self._heights, self._offsets = layout_rows(
                    rows, width, self.metrics, model.expanded
                )
        self.updateGeometries()
        self.viewport().update()

    def _relayout_offthread(self, rows: ConversationRows, width: int, expanded: set[int]) -> None:
        """Keep the current layout on screen; swap in the one for ``width`` when it is ready."""
        metrics = self.metrics

        def compute() -> tuple[array[int], array[int]]:
            return layout_rows(rows, width, metrics, expanded)

        def done(result: tuple[array[int], array[int]]) -> None:
            model = self._conversation()
            if model is None or model.rows is not rows or self.viewport().width() != width:
                return  # stale: a newer history or another resize
            anchor = self._anchor()
            self._heights, self._offsets = result
            rows.layout = (width, *result) if not expanded else rows.layout
            self.updateGeometries()
            self._restore_anchor(anchor)
            self.viewport().update()

        assert self.layout_runner is not None
        self.layout_runner(compute, done)

    def _on_relayout_timer_timeout(self) -> None:
        anchor = self._anchor()
        self.relayout()
        self._restore_anchor(anchor)

    def _anchor(self) -> tuple[int, int]:
        """The row at the top of the viewport and how far into it we are (to keep the place)."""
        y = self.verticalScrollBar().value()
        row = max(0, bisect.bisect_right(self._offsets, y) - 1)
        return row, y - self._offsets[row] if row < len(self._offsets) else 0

    def _restore_anchor(self, anchor: tuple[int, int]) -> None:
        row, inside = anchor
        if row < len(self._heights):
            self.verticalScrollBar().setValue(self._offsets[row] + min(inside, self._heights[row]))

    def _on_model_reset(self) -> None:
        self.relayout()
        self.verticalScrollBar().setValue(0)
        self._describe_current(self.currentIndex())

    def _on_model_rows_inserted(self, _parent: QModelIndex, first: int, last: int) -> None:
        model = self._conversation()
        if model is None:
            return
        at_bottom = self.verticalScrollBar().value() >= self.verticalScrollBar().maximum() - 4
        anchor = self._anchor()
        self.relayout()
        if at_bottom:
            self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())
        else:
            self._restore_anchor(anchor)

    def _on_model_rows_resized(self, first: int, last: int) -> None:
        model = self._conversation()
        if model is None or last >= len(self._heights):
            self.relayout()
            return
        anchor = self._anchor()
        width = self.viewport().width()
        for r in range(first, last + 1):
            if r in model.expanded:
                self._heights[r] = expanded_height(model.rows, r, width, self.metrics)
            else:
                self._heights[r] = estimate_heights(
                    _one(model.rows, r), width, self.metrics, set()
                )[0]
        self._offsets = prefix_sums(self._heights)
        self.updateGeometries()
        if anchor[0] <= first:
            self._restore_anchor(anchor)
        self.viewport().update()

    def updateGeometries(self) -> None:
        bar = self.verticalScrollBar()
        page = self.viewport().height()
        bar.setPageStep(max(1, page))
        bar.setRange(0, max(0, self._offsets[-1] - page))
        super().updateGeometries()

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width() and self._heights:
            # heights depend on the width: re-estimate once the resize settles
            if len(self._heights) < OFFLOAD_ROWS:
                self._on_relayout_timer_timeout()
            else:
                self._relayout_timer.start()
        self.updateGeometries()

    # -- QAbstractItemView geometry API ---------------------------------------------------------

    def visualRect(self, index: QModelIndex | QPersistentModelIndex) -> QRect:
        if not index.isValid() or index.row() >= len(self._heights):
            return QRect()
        r = index.row()
        return QRect(
            0, self._offsets[r] - self.verticalOffset(), self.viewport().width(), self._heights[r]
        )

    def indexAt(self, point: QPoint) -> QModelIndex:
        model = self.model()
        if model is None or not self._heights:
            return QModelIndex()
        y = point.y() + self.verticalOffset()
        if y < 0 or y >= self._offsets[-1]:
            return QModelIndex()
        row = bisect.bisect_right(self._offsets, y) - 1
        return model.index(row, 0)

    def row_at_y(self, y: int) -> int:
        """The row at content coordinate ``y`` (clamped)."""
        if not self._heights:
            return -1
        return min(len(self._heights) - 1, max(0, bisect.bisect_right(self._offsets, y) - 1))

    def scrollTo(
        self,
        index: QModelIndex | QPersistentModelIndex,
        hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
    ) -> None:
        if not index.isValid() or index.row() >= len(self._heights):
            return
        r = index.row()
        top, height = self._offsets[r], self._heights[r]
        bar = self.verticalScrollBar()
        page = self.viewport().height()
        value = bar.value()
        if hint == QAbstractItemView.ScrollHint.PositionAtTop or height > page:
            value = top
        elif hint == QAbstractItemView.ScrollHint.PositionAtBottom:
            value = top + height - page
        elif hint == QAbstractItemView.ScrollHint.PositionAtCenter:
            value = top + height // 2 - page // 2
        elif top < value:
            value = top
        elif top + height > value + page:
            value = top + height - page
        bar.setValue(value)

    def scroll_to_row(
        self,
        row: int,
        hint: QAbstractItemView.ScrollHint = QAbstractItemView.ScrollHint.EnsureVisible,
    ) -> None:
        model = self.model()
        if model is not None and 0 <= row < model.rowCount():
            self.scrollTo(model.index(row, 0), hint)

    def horizontalOffset(self) -> int:
        return 0

    def verticalOffset(self) -> int:
        return self.verticalScrollBar().value()

    def isIndexHidden(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        return False

    def moveCursor(
        self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        model = self.model()
        if model is None or not self._heights:
            return QModelIndex()
        n = len(self._heights)
        current = self.currentIndex().row() if self.currentIndex().isValid() else -1
        A = QAbstractItemView.CursorAction
        if action in (A.MoveUp, A.MovePrevious):
            row = max(0, current - 1)
        elif action in (A.MoveDown, A.MoveNext):
            row = min(n - 1, current + 1)
        elif action == A.MoveHome:
            row = 0
        elif action == A.MoveEnd:
            row = n - 1
        elif action == A.MovePageUp:
            y = (self._offsets[current] if current >= 0 else 0) - self.viewport().height()
            row = self.row_at_y(max(0, y))
        elif action == A.MovePageDown:
            y = (self._offsets[current] if current >= 0 else 0) + self.viewport().height()
            row = self.row_at_y(y)
        else:
            row = max(current, 0)
        return model.index(row, 0)

    def setSelection(self, rect: QRect, flags: QItemSelectionModel.SelectionFlag) -> None:
        model = self.model()
        if model is None or not self._heights:
            return
        top = self.row_at_y(rect.top() + self.verticalOffset())
        bottom = self.row_at_y(rect.bottom() + self.verticalOffset())
        selection = QItemSelection(
            model.index(min(top, bottom), 0), model.index(max(top, bottom), 0)
        )
        self.selectionModel().select(selection, flags)

    def visualRegionForSelection(self, selection: QItemSelection) -> QRegion:
        region = QRegion()
        for position in range(selection.count()):
            rng = selection.at(position)
            for r in range(rng.top(), min(rng.bottom(), rng.top() + 200) + 1):
                region += self.visualRect(self.model().index(r, 0))
        return region

    # -- painting and input -------------------------------------------------------------------------

    def paintEvent(self, event: Any) -> None:
        model = self.model()
        painter = QPainter(self.viewport())
        painter.fillRect(event.rect(), self.delegate.theme.color("window"))
        if model is None or not self._heights:
            painter.end()
            return
        top = self.verticalOffset() + event.rect().top()
        bottom = self.verticalOffset() + event.rect().bottom()
        first = self.row_at_y(top)
        last = self.row_at_y(bottom)
        selection = self.selectionModel()
        current = self.currentIndex()
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        for r in range(first, last + 1):
            index = model.index(r, 0)
            option.rect = self.visualRect(index)
            option.state = QStyle.StateFlag.State_Enabled
            if selection is not None and selection.isSelected(index):
                option.state |= QStyle.StateFlag.State_Selected
            if index == current and self.hasFocus():
                option.state |= QStyle.StateFlag.State_HasFocus
            self.delegate.paint(painter, option, index)
        painter.end()
        self.sig_painted.emit()

    def keyPressEvent(self, event: Any) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.currentIndex().isValid():
            self.sig_row_activated.emit(self.currentIndex().row())
            return
        super().keyPressEvent(event)


def _one(rows: ConversationRows, r: int) -> ConversationRows:
    from array import array

    return ConversationRows(
        rows.messages[r : r + 1],
        None,
        bytearray(rows.kinds[r : r + 1]),
        array("l", [rows.chars[r]]),
        array("l", [rows.newlines[r]]),
        bytearray(rows.extra[r : r + 1]),
        bytearray(rows.images[r : r + 1]),
        1,
    )
