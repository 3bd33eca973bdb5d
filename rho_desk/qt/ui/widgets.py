"""Small widgets shared by the views."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt
from PySide6.QtGui import QAction, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "ElidedLabel",
    "EmptyState",
    "PathDelegate",
    "elide_path",
    "list_panel_layout",
    "name_line_edit_buttons",
]


def elide_path(path: str, metrics: QFontMetrics, width: int) -> str:
    """``path`` in ``width`` pixels, its folders given up before its file name:
    "app/webhooks/refunds.py" becomes "app/web…/refunds.py", then "refunds.py", and only then is
    the name itself elided (in the middle, so its extension stays)."""
    if metrics.horizontalAdvance(path) <= width:
        return path
    folder, slash, name = path.rpartition("/")
    if slash:
        tail = slash + name
        room = width - metrics.horizontalAdvance(tail)
        if room >= metrics.horizontalAdvance(folder[:1] + "…"):
            return metrics.elidedText(folder, Qt.TextElideMode.ElideRight, room) + tail
    return metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, width)


class PathDelegate(QStyledItemDelegate):
    """Draws a cell's text as a file path elided by :func:`elide_path`: the file name stays
    whole while its folders can give way. ``applies(index)`` picks the cells that hold paths
    (all by default); the others are drawn as usual."""

    def __init__(
        self,
        parent: QWidget | None = None,
        applies: Callable[[QModelIndex | QPersistentModelIndex], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self._applies = applies or (lambda _index: True)

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        if not self._applies(index) or not option.text:
            return
        widget = option.widget
        style = widget.style() if widget is not None else QApplication.style()
        text_rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, widget)
        # the style's own margin inside the text rectangle (QCommonStyle's viewItemDrawText)
        margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1
        option.text = elide_path(
            option.text,
            option.fontMetrics,
            text_rect.width() - 2 * margin,
        )


def list_panel_layout(
    panel: QWidget, header: Sequence[QWidget | QLayout], items: QWidget, footer: QWidget
) -> None:
    """A browser panel: its header rows (on the panel-header background), the list taking the
    height, the footer line."""
    top = QWidget()
    top.setObjectName("PanelHeader")
    top_layout = QVBoxLayout(top)
    top_layout.setContentsMargins(12, 10, 10, 10)
    top_layout.setSpacing(8)
    for part in header:
        if isinstance(part, QLayout):
            top_layout.addLayout(part)
        else:
            top_layout.addWidget(part)
    layout = QVBoxLayout(panel)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(0)
    layout.addWidget(top)
    layout.addWidget(items, 1)
    footer_box = QHBoxLayout()
    footer_box.setContentsMargins(12, 6, 12, 8)
    footer_box.addWidget(footer)
    layout.addLayout(footer_box)


def name_line_edit_buttons(edit: QLineEdit, clear: str = "Clear") -> None:
    """Name the icon buttons Qt puts inside a line edit: its clear button and its icon actions.

    They are buttons to a screen reader, named by their action's text, which an icon-only action
    (the search glass) and the clear button leave empty. Call after the actions are added.
    """
    for action in edit.actions():
        if action.objectName() == "_q_qlineeditclearaction":
            action.setText(clear)
        elif not action.text():
            action.setText(action.toolTip() or edit.accessibleName() or edit.placeholderText())
    button_action = edit.findChild(QAction, "_q_qlineeditclearaction")
    if button_action is not None:
        button_action.setText(clear)


class ElidedLabel(QLabel):
    """A one-line label that elides its text to the width it gets instead of demanding it.

    A plain ``QLabel`` asks for its whole text's width as its minimum, so one long path in the
    status bar would make the window wider than the screen.
    """

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle,
    ) -> None:
        super().__init__(text, parent)
        self._shorter: tuple[str, ...] = ()
        self._mode = mode
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(20)

    def minimumSizeHint(self) -> QSize:
        return QSize(20, super().minimumSizeHint().height())

    def setText(self, text: str) -> None:
        self._shorter = ()
        super().setText(text)
        self.setToolTip(text if text else "")

    def set_texts(self, text: str, *shorter: str) -> None:
        """``text``, or where it does not fit the first of ``shorter`` (longest first) that does:
        a shorter wording keeps what matters whole where eliding would cut it. The whole text
        stays the label's text, tooltip and accessible value."""
        self.setText(text)
        self._shorter = shorter
        self.update()

    def shown_text(self) -> str:
        """What the label paints at its present width."""
        metrics = QFontMetrics(self.font())
        width = self.contentsRect().width()
        texts = (self.text(), *self._shorter)
        for text in texts:
            if metrics.horizontalAdvance(text) <= width:
                return text
        return metrics.elidedText(texts[-1], self._mode, width)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        flags = int(self.alignment() | Qt.AlignmentFlag.AlignVCenter)
        painter.drawText(rect, flags, self.shown_text())
        painter.end()


class EmptyState(QFrame):
    """A centred hint when there is nothing to show."""

    def __init__(self, title: str, hint: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("EmptyState")
        self.title = QLabel(title)
        self.title.setObjectName("EmptyTitle")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint = QLabel(hint)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.title)
        layout.addWidget(self.hint)
        layout.addStretch(2)
