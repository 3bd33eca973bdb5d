"""Small widgets shared by the views."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QFontMetrics, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

__all__ = ["ElidedLabel", "EmptyState", "list_panel_layout", "name_line_edit_buttons"]


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
        self._mode = mode
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(20)

    def minimumSizeHint(self) -> QSize:
        return QSize(20, super().minimumSizeHint().height())

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(text if text else "")

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        elided = QFontMetrics(self.font()).elidedText(self.text(), self._mode, rect.width())
        painter.drawText(rect, int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), elided)
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
