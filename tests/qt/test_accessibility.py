"""Every control a person can reach has a name a screen reader can say.

The check asks Qt's own accessibility layer (``QAccessible.queryAccessibleInterface``), which is
what the AT-SPI bridge serves to Orca: a control's name is its accessible name, else the text Qt
takes from it (a button's label, a label's buddy, a group box title...). A tool button with only an
icon, a list without a label, a custom view: all read as "button", "list" with nothing after it.

Walked: the main window on every tab with a session open and the continue panel shown, every
dialog the app opens (settings on each page, compact, export, edit, metadata, strip, keyboard
shortcuts, about). The conversation's message list is also checked row by row: it is a list
whose items are the messages, each read as who wrote it, when, and its first line, and the list's
own description follows the selection.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QDialog,
    QLineEdit,
    QPlainTextEdit,
    QSlider,
    QTabWidget,
    QTextEdit,
    QWidget,
)

from .conftest import idle, until
from .helpers import dialog_pages, v4_session

INTERACTIVE = (
    QAbstractButton,
    QAbstractItemView,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QComboBox,
    QAbstractSpinBox,
    QSlider,
)
CUSTOM = {"ContextGauge", "CompactionChart", "StatCard"}
"""Painted widgets that show a value: by object name (the gauge, the chart, statistic cards)."""
DIALOGS = ["settings", "compact", "export", "edit", "metadata", "strip"]


def accessible_name(widget: QWidget) -> str:
    """The name Qt gives a screen reader; a name without a letter or digit ("✕", "▲") says nothing."""
    iface = QAccessible.queryAccessibleInterface(widget)
    name = (
        iface.text(QAccessible.Text.Name).strip() if iface is not None and iface.isValid() else ""
    )
    return name if any(c.isalnum() for c in name) else ""


def describe(widget: QWidget) -> str:
    parents = []
    parent = widget.parentWidget()
    while parent is not None and len(parents) < 3:
        parents.append(parent.objectName() or parent.metaObject().className())
        parent = parent.parentWidget()
    return f"{widget.metaObject().className()}({widget.objectName()!r}) in {'/'.join(parents)}"


def unnamed(scope: QWidget) -> list[str]:
    """The visible controls of ``scope`` a person can reach that have no accessible name."""
    found = []
    for widget in [scope, *scope.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        interactive = (
            isinstance(widget, INTERACTIVE)
            or widget.focusPolicy() != widget.focusPolicy().NoFocus
            or widget.objectName() in CUSTOM
        )
        if not interactive or not widget.isVisibleTo(scope.window()):
            continue
        if _qt_internal(widget):
            continue
        if not accessible_name(widget):
            found.append(describe(widget))
    return found


def report(found: dict[str, list[str]]) -> str:
    return "controls without an accessible name:\n" + "\n".join(
        f"  {where}: {widget}" for where, widgets in found.items() for widget in widgets
    )


def _qt_internal(widget: QWidget) -> bool:
    """Parts Qt builds inside its own widgets and names itself (a scroll bar, a line edit inside a
    spin box or an editable combo box, the tab bar's scroll arrows, a table's corner button)."""
    name = widget.objectName()
    if name.startswith("qt_") or widget.metaObject().className() in (
        "QScrollBar",
        "QTabBar",
        "QHeaderView",
    ):
        return True
    parent = widget.parentWidget()
    return isinstance(widget, QLineEdit) and isinstance(parent, QAbstractSpinBox | QComboBox)


def test_the_checker_sees_an_unnamed_icon_button(qtbot) -> None:
    from PySide6.QtWidgets import QHBoxLayout, QToolButton

    box = QWidget()
    qtbot.addWidget(box)
    layout = QHBoxLayout(box)
    bare = QToolButton()
    bare.setObjectName("Bare")
    symbol = QToolButton()
    symbol.setObjectName("Symbol")
    symbol.setText("✕")
    named = QToolButton()
    named.setAccessibleName("Refresh")
    labelled = QToolButton()
    labelled.setText("Show active")
    for button in (bare, symbol, named, labelled):
        layout.addWidget(button)
    box.show()
    assert [w.split(" ")[0] for w in unnamed(box)] == [
        "QToolButton('Bare')",
        "QToolButton('Symbol')",
    ]


def test_the_main_window_on_every_tab(make_window, run, tmp_path: Path) -> None:
    context = make_window(open_file=v4_session(tmp_path / "home"))
    context.continue_dock.show_continue()
    window = context.window
    window.conversation.open_find()
    context.bridge.notifier.warning("A notice, to show the notification bar", "with details")
    run(idle(context.bridge))  # every view's work (what is checked: every control named)
    found = {}
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        run(idle(context.bridge))
        if missing := unnamed(window):
            found[window.tabs.tabText(index)] = missing
    scopes = window.findChild(QTabWidget, "BrowserScopes")
    for index in range(scopes.count() if scopes is not None else 0):
        scopes.setCurrentIndex(index)
        run(idle(context.bridge))
        if missing := unnamed(window):
            found[f"browser {scopes.tabText(index)}"] = missing
    assert not found, report(found)


@pytest.mark.parametrize("kind", DIALOGS)
def test_every_dialog(make_window, run, tmp_path: Path, kind: str) -> None:
    context = make_window(open_file=v4_session(tmp_path / "home"))
    dialog = context.session_commands.show_dialog(kind)
    run(idle(context.bridge))
    found = {}
    for page in dialog_pages(dialog, lambda: run(idle(context.bridge)), kind):
        if missing := unnamed(dialog):
            found[page] = missing
    dialog.close()
    assert not found, report(found)


@pytest.mark.parametrize("action", ["help.shortcuts", "help.about"])
def test_the_help_dialogs(make_window, run, action: str) -> None:
    context = make_window()
    context.actions.trigger(action)
    run(until(lambda: any(w.isVisible() for w in context.window.findChildren(QDialog))))
    dialogs = [w for w in context.window.findChildren(QDialog) if w.isVisible()]
    assert dialogs
    for dialog in dialogs:
        missing = unnamed(dialog)
        assert not missing, report({action: missing})
        dialog.close()


def test_the_message_list_says_which_message_is_current(make_window, run, tmp_path: Path) -> None:
    context = make_window(open_file=v4_session(tmp_path / "home"))
    view = context.window.conversation
    model = view.model
    iface = QAccessible.queryAccessibleInterface(view.list)
    assert iface.text(QAccessible.Text.Name) == "Messages"
    # every row reads as who, when and the first line
    for row in range(model.rowCount()):
        text = model.data(model.index(row, 0), Qt.ItemDataRole.AccessibleTextRole)
        title = model.presentation(row).title
        assert text.startswith(title) and ": " in text, text
    user_row = next(r for r in range(model.rowCount()) if model.presentation(r).title == "You")
    spoken = model.data(model.index(user_row, 0), Qt.ItemDataRole.AccessibleTextRole)
    assert re.fullmatch(r"You, [A-Z][a-z]{2} \d\d, \d\d:\d\d: prompt \d", spoken), spoken
    # the view is a list whose children are the messages
    assert iface.role() == QAccessible.Role.List and iface.childCount() == model.rowCount()
    item = iface.child(user_row)
    assert item.role() == QAccessible.Role.ListItem and item.text(QAccessible.Text.Name) == spoken
    assert iface.indexOfChild(item) == user_row and item.parent() is iface
    assert iface.child(model.rowCount()) is None
    # the list's description follows the selection
    view.select_row(user_row)
    assert item.state().selected and not iface.child(user_row + 1).state().selected
    description = iface.text(QAccessible.Text.Description)
    assert description == f"Message {user_row + 1} of {model.rowCount()}: {spoken}"
    view.next_message()
    assert iface.text(QAccessible.Text.Description).startswith(f"Message {user_row + 2} of ")
