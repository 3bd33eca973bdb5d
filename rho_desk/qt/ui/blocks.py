"""Small widgets the dialogs and panels share: figure cards, banners, tables, busy rows.

They reuse the object names the app's style sheets already style (``StatCard``,
``LibraryNotice``, ``DemoBanner``, ``SectionTitle``, ``Badge``), so both themes apply without
new style rules.
"""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "Banner",
    "BusyRow",
    "FigureCard",
    "badge",
    "budget_spin_boxes",
    "make_table",
    "section_title",
]


class FigureCard(QFrame):
    """A figure with a caption ("48,200 → 9,800" / "estimated tokens")."""

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StatCard")
        self.value = QLabel("–")
        self.value.setObjectName("StatValue")
        self.value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setAccessibleName(f"{caption}: –")
        self.caption = QLabel(caption)
        self.caption.setObjectName("StatCaption")
        self.caption.setWordWrap(True)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(0)
        layout.addWidget(self.value)
        layout.addWidget(self.caption)

    def set(self, value: str, caption: str | None = None) -> None:
        self.value.setText(value)
        if caption is not None:
            self.caption.setText(caption)
        self.setAccessibleName(f"{self.caption.text()}: {value}")


class Banner(QFrame):
    """A one-line notice inside a dialog or panel, with optional buttons on the right.

    ``tone`` ``warning`` uses the warning background, ``info`` the accent one.
    """

    def __init__(self, tone: str = "warning", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("LibraryNotice" if tone == "warning" else "DemoBanner")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._row = QHBoxLayout(self)
        self._row.setContentsMargins(12, 6, 8, 6)
        self._row.setSpacing(8)
        self._row.addWidget(self.text, 1)

    def add_button(self, text: str, tip: str = "") -> QPushButton:
        button = QPushButton(text)
        if tip:
            button.setToolTip(tip)
        self._row.addWidget(button)
        return button

    def show_text(self, text: str) -> None:
        self.text.setText(text)
        self.show()


class BusyRow(QWidget):
    """An indeterminate progress bar with a status text, shown while work runs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(160)
        self.bar.setMaximumHeight(10)
        self.label = QLabel()
        self.label.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.bar)
        layout.addWidget(self.label, 1)

    def busy(self, text: str) -> None:
        self.label.setText(text)
        self.bar.show()
        self.show()

    def done(self, text: str) -> None:
        self.label.setText(text)
        self.bar.hide()
        self.show()


def budget_spin_boxes() -> tuple[QSpinBox, QSpinBox]:
    """The two "keep recent" boxes of a compaction budget: tokens and messages, 0 = no limit."""
    tokens = QSpinBox()
    tokens.setRange(0, 10_000_000)
    tokens.setSingleStep(1000)
    tokens.setSpecialValueText("no limit")
    tokens.setSuffix(" tokens")
    tokens.setAccessibleName("Keep recent tokens")
    tokens.setAccessibleDescription(
        "The most recent messages up to this many tokens stay verbatim; 0: no limit"
    )
    messages = QSpinBox()
    messages.setRange(0, 100_000)
    messages.setSpecialValueText("no limit")
    messages.setSuffix(" messages")
    messages.setAccessibleName("Keep recent messages")
    messages.setAccessibleDescription(
        "At most this many recent messages stay verbatim; 0: no limit"
    )
    return tokens, messages


def section_title(text: str) -> QLabel:
    label = QLabel(text)
    label.setObjectName("SectionTitle")
    return label


def badge(text: str, tone: str = "") -> QLabel:
    label = QLabel(text)
    label.setObjectName("Badge")
    if tone:
        label.setProperty("tone", tone)
    return label


def make_table(
    name: str, model: QAbstractItemModel, *, stretch: int = -1, multi: bool = False, label: str = ""
) -> QTableView:
    """A read-only, row-selecting table over ``model``; column ``stretch`` takes the spare width.

    ``label`` is what a screen reader calls the table ("Messages to compact").
    """
    table = QTableView()
    table.setObjectName(name)
    table.setAccessibleName(label)
    table.setModel(model)  # before the section modes: a header has no sections without a model
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(
        QAbstractItemView.SelectionMode.ExtendedSelection
        if multi
        else QAbstractItemView.SelectionMode.SingleSelection
    )
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(24)
    header = table.horizontalHeader()
    header.setHighlightSections(False)
    header.setStretchLastSection(stretch < 0)
    for column in range(model.columnCount()):
        mode = (
            QHeaderView.ResizeMode.Stretch
            if column == stretch
            else QHeaderView.ResizeMode.ResizeToContents
        )
        header.setSectionResizeMode(column, mode)
    return table
