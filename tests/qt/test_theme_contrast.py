"""What a person must see stays visible in both themes: unchecked boxes and keyboard focus.

Measured on the rendered pixels, against WCAG 2.1's 3:1 minimum for the parts of a control
(success criterion 1.4.11, non-text contrast).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QPushButton,
    QStyle,
    QStyleOptionButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from rho_desk.qt.ui.theme import DARK, LIGHT, Theme, palette_for, sheet_for


def _luminance(color: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(color.redF())
        + 0.7152 * channel(color.greenF())
        + 0.0722 * channel(color.blueF())
    )


def contrast(a: QColor, b: QColor) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _best_contrast(image: QImage, x0: int, y0: int, x1: int, y1: int, against: QColor) -> float:
    return max(
        contrast(image.pixelColor(x, y), against)
        for x in range(max(0, x0), min(image.width(), x1))
        for y in range(max(0, y0), min(image.height(), y1))
    )


@pytest.fixture(params=[LIGHT, DARK], ids=["light", "dark"])
def themed(qapp: QApplication, request: pytest.FixtureRequest):
    theme: Theme = request.param
    old_style, old_palette, old_sheet = qapp.style().name(), qapp.palette(), qapp.styleSheet()
    qapp.setStyle("Fusion")
    qapp.setPalette(palette_for(theme))
    qapp.setStyleSheet(sheet_for(theme))
    yield theme
    qapp.setStyleSheet(old_sheet)
    qapp.setPalette(old_palette)
    qapp.setStyle(old_style)


def test_an_unchecked_box_stands_out_from_its_background(qtbot, themed: Theme) -> None:
    box = QCheckBox("include")
    page = QWidget()
    QVBoxLayout(page).addWidget(box)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitExposed(page)
    image = page.grab().toImage()
    option = QStyleOptionButton()
    box.initStyleOption(option)
    rect = (
        box.style()
        .subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
        .translated(box.pos())
    )
    assert (
        _best_contrast(
            image,
            rect.left(),
            rect.top(),
            rect.right() + 1,
            rect.bottom() + 1,
            QColor(themed.window),
        )
        >= 3.0
    )


def test_unchecked_cells_in_a_table_stand_out(qtbot, themed: Theme) -> None:
    model = QStandardItemModel(1, 1)
    item = QStandardItem("class")
    item.setCheckable(True)
    item.setCheckState(Qt.CheckState.Unchecked)
    model.setItem(0, 0, item)
    table = QTableView()
    table.setModel(model)
    qtbot.addWidget(table)
    table.resize(300, 120)
    table.show()
    qtbot.waitExposed(table)
    image = table.viewport().grab().toImage()
    cell = table.visualRect(model.index(0, 0))
    # the indicator sits at the cell's left edge
    assert (
        _best_contrast(
            image, cell.left(), cell.top(), cell.left() + 26, cell.bottom(), QColor(themed.base)
        )
        >= 3.0
    )


def test_keyboard_focus_is_visible_on_a_button(qtbot, themed: Theme) -> None:
    page = QWidget()
    layout = QVBoxLayout(page)
    first, second = QPushButton("One"), QPushButton("Two")
    layout.addWidget(first)
    layout.addWidget(second)
    qtbot.addWidget(page)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    first.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(first.hasFocus)
    focused, plain = first.grab().toImage(), second.grab().toImage()
    # the focused button's frame differs from the unfocused one's, and stands out from the window
    edge = [(x, focused.height() // 2) for x in range(0, 3)]
    assert any(focused.pixelColor(x, y) != plain.pixelColor(x, y) for x, y in edge)
    assert _best_contrast(focused, 0, 0, 3, focused.height(), QColor(themed.window)) >= 3.0


def test_a_check_box_is_not_framed_like_a_field(qtbot, themed: Theme) -> None:
    """Only the focused box's indicator gets the accent ring; no box is drawn inside a frame."""
    page = QWidget()
    layout = QVBoxLayout(page)
    focused, plain = QCheckBox("The server needs an API key"), QCheckBox("Send reasoning controls")
    layout.addWidget(focused)
    layout.addWidget(plain)
    qtbot.addWidget(page)
    page.resize(400, 100)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    focused.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(focused.hasFocus)
    background = QColor(themed.window)
    for box in (focused, plain):
        image = box.grab().toImage()
        # the right end of the box, past its text: the window's colour, top to bottom (no frame)
        x = image.width() - 1
        edge = {image.pixelColor(x, y).name() for y in range(image.height())}
        assert edge == {background.name()}, (box.text(), edge)
    # the focused one's indicator differs from the other's (the ring), so focus stays visible
    one, other = focused.grab().toImage(), plain.grab().toImage()
    height = min(one.height(), other.height())
    assert any(
        one.pixelColor(x, y) != other.pixelColor(x, y) for x in range(20) for y in range(height)
    )


def test_diff_lines_on_an_approval_card_are_readable(qapp: QApplication, themed: Theme) -> None:
    """Added and removed lines keep text contrast (WCAG 4.5:1) on the card's base, dark theme too."""
    from PySide6.QtGui import QTextDocument

    from rho_desk.qt.ui.patch import PatchHighlighter

    document = QTextDocument()
    highlighter = PatchHighlighter(document)
    for prefix in "+-@":
        colour = highlighter._formats[prefix].foreground().color()
        assert contrast(colour, QColor(themed.base)) >= 4.5, (prefix, colour.name())
