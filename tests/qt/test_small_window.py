"""A 1024 x 700 window, the demo library open: the revision bar shows its revision's time, the
Changes tab its file names, the Team scope is one shortcut (and one Tab) away with its focus
shown, and Usage says in its own window what it cannot open."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QPoint, QRect, Qt
from PySide6.QtGui import QColor, QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QStyle,
    QStyleOptionViewItem,
    QTabBar,
    QWidget,
)

from rho_desk.core.stores.rho_files import NodeKind
from rho_desk.qt.ui import screen
from rho_desk.qt.window.main_window import TAB_CHANGES

from .conftest import laid_out, until

WEBHOOK = "5f0c2a9e-8d1b-4c47-9a6e-2b7d3f1e0a11"  # v4: 8 revisions, a branch, a compaction
IDEMPOTENCY = "b2e47d10-3c6a-4f2e-8d95-7a1c0e4b9f22"  # changed files in three turns
OUTSIDE = "699aa559-3eed-4ee7-b8e2-f8fcc1a6fc5a"  # in the demo's usage ledger, not its library


def demo_session(home: Path, session_id: str) -> Path:
    return next(p for p in (home / "sessions").rglob("*.jsonl") if session_id in str(p))


@pytest.fixture
def small(make_window, demo_home: Path, run):
    context = make_window(home=demo_home)
    context.window.resize(1024, 700)
    run(laid_out())
    assert (context.window.width(), context.window.height()) == (1024, 700)
    return context


def test_the_revision_bar_shows_the_time_of_each_revision(small, demo_home: Path, run) -> None:
    document, bar = small.document, small.window.conversation.bar
    run(document.aopen(demo_session(demo_home, WEBHOOK)))
    run(until(lambda: document.tree is not None and bar.label.text()))
    path = document.tree.path()
    compaction = next(node for node in path if node.kind is NodeKind.COMPACTION)
    # the active revision, an older one (the bar then offers "Show active" too), the compaction
    for node in (path[-1], path[1], compaction):
        document.select(node)
        run(until(lambda node=node: f"Revision {node.revision} " in bar.label.text()))
        run(laid_out())
        stamp = time.strftime("%b %d %Y, %H:%M", time.localtime(node.time))
        shown = bar.label.shown_text()
        assert stamp in shown, (shown, bar.label.width())
        assert f"{node.revision}" in shown
        assert "Revision" in bar.label.toolTip()  # the whole line stays in its tooltip


def shown_text(view: QAbstractItemView, index: QModelIndex) -> str:
    """The text ``view`` paints in the cell ``index``: its delegate's text, elided the way
    Qt's style elides it into the cell's text rectangle."""
    option = QStyleOptionViewItem()
    option.widget = view
    option.rect = view.visualRect(index)
    option.font = view.font()
    option.fontMetrics = view.fontMetrics()
    option.textElideMode = view.textElideMode()
    view.itemDelegateForIndex(index).initStyleOption(option, index)
    style = view.style()
    rect = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, view)
    margin = style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, view) + 1
    return option.fontMetrics.elidedText(
        option.text, option.textElideMode, rect.width() - 2 * margin
    )


def test_the_changes_tab_shows_whole_file_names(small, demo_home: Path, run) -> None:
    window = small.window
    run(small.document.aopen(demo_session(demo_home, IDEMPOTENCY)))
    window.show_tab(TAB_CHANGES)
    view = window.changes
    run(until(lambda: view.model.rowCount() == 2))
    run(laid_out())
    names = []
    for row in range(view.model.rowCount()):
        index = view.model.index(row, 0)
        path = view.model.data(index)
        shown = shown_text(view.tree, index)
        names.append(shown)
        assert path.rpartition("/")[2] in shown, (path, shown, view.tree.visualRect(index))
    assert "app/routers/payments.py" in names, names  # there is room for the whole of this one


def test_the_changes_tab_shows_whole_turn_names(small, demo_home: Path, run) -> None:
    """Each change's turn is shown whole in the Turn column, "unsaved turn (failed)" included
    (the prompts beside them give up their room, elided at their end)."""
    window = small.window
    run(small.document.aopen(demo_session(demo_home, IDEMPOTENCY)))
    window.show_tab(TAB_CHANGES)
    view = window.changes
    run(until(lambda: view.model.rowCount() == 2))
    view.tree.expandAll()
    run(laid_out())
    turns = []
    for row in range(view.model.rowCount()):
        parent = view.model.index(row, 0)
        for child in range(view.model.rowCount(parent)):
            index = view.model.index(child, 1, parent)
            turns.append(shown_text(view.tree, index))
            assert turns[-1] == view.model.data(index), (turns[-1], view.tree.columnWidth(1))
    assert "unsaved turn (failed)" in turns, turns


def key(widget: QWidget, keys: str) -> None:
    combo = QKeySequence(keys)[0]
    QTest.keyClick(widget, combo.key(), combo.keyboardModifiers())


def framed(bar: QTabBar, accent: str) -> bool:
    """Whether the current tab of ``bar`` is drawn with a frame of the ``accent`` colour (its
    left edge and its top in that colour)."""
    image = bar.grab().toImage()
    rect = bar.tabRect(bar.currentIndex())
    ratio = bar.devicePixelRatioF()
    colour = QColor(accent).rgb()
    edge = [(rect.left(), y) for y in range(rect.top() + 3, rect.bottom() - 3)]
    edge += [(x, rect.top()) for x in range(rect.left() + 3, rect.right() - 5)]
    hits = sum(image.pixel(int(x * ratio), int(y * ratio)) == colour for x, y in edge)
    return hits >= 0.9 * len(edge)


def test_the_team_library_is_a_shortcut_away_and_shows_its_focus(small, run) -> None:
    window = small.window
    window.activateWindow()
    assert ("Library", "Team Library", "Ctrl+Shift+L") in window.app_actions.shortcut_table()
    window.browser.list.setFocus()
    key(window, "Ctrl+Shift+L")
    assert window.scopes.currentWidget() is window.team_browser
    assert window.team_browser.search.hasFocus()
    assert window.app_actions["library.team"].isChecked()
    key(window, "Ctrl+Shift+L")  # and back to this machine's sessions
    assert window.scopes.currentWidget() is window.browser
    assert window.browser.search.hasFocus()
    key(window, "Ctrl+Shift+L")
    key(window, "Ctrl+K")  # searching the sessions on this machine shows them too
    assert window.scopes.currentWidget() is window.browser and window.browser.search.hasFocus()
    assert not window.app_actions["library.team"].isChecked()

    # by Tab: the scopes' tab bar comes before the browser's own controls; focused, it shows it
    bar = window.scopes.tabBar()
    assert not framed(bar, small.theme.theme.accent)
    steps = 0
    while not bar.hasFocus() and steps < 4:
        key(QApplication.focusWidget(), "Shift+Tab")
        steps += 1
    assert bar.hasFocus(), QApplication.focusWidget()
    assert bar.accessibleName() == "Session libraries"
    run(laid_out())
    assert framed(bar, small.theme.theme.accent)  # the focus is visible: an accent frame
    key(bar, "Right")
    assert window.scopes.currentWidget() is window.team_browser
    assert window.app_actions["library.team"].isChecked()


def test_usage_says_in_its_own_window_what_it_cannot_open(
    make_window, demo_home: Path, run, monkeypatch
) -> None:
    """Enter on a session the ledger has and the library has not: the note appears in the Usage
    window, where the user is, wholly in view on a 1024 x 700 screen; the main window (behind
    it) posts nothing."""
    monkeypatch.setattr(screen, "available_area", lambda _widget: QRect(0, 0, 1024, 700))
    context = make_window(home=demo_home)
    posted: list[object] = []
    context.notifier.sig_notice_posted.connect(posted.append)
    context.window.app_actions.trigger("library.usage")
    usage = context.window.usage_window
    view = usage.view
    run(until(lambda: view.data is not None and len(view.sessions_model.rows) > 0))
    run(laid_out())
    keys = [g.key for g in view.sessions_model.rows]
    usage.activateWindow()
    view.sessions.setFocus()
    view.sessions.setCurrentIndex(view.sessions_model.index(keys.index(OUTSIDE), 0))
    QTest.keyClick(view.sessions, Qt.Key.Key_Return)
    run(until(view.note.isVisible))
    run(laid_out())
    assert OUTSIDE in view.note.text.text() and "not in this library" in view.note.text.text()
    assert view.note.window() is usage
    inside = QRect(view.note.mapTo(usage, QPoint(0, 0)), view.note.size())
    assert usage.rect().contains(inside), (inside, usage.size())
    assert usage.width() <= 1024 and usage.height() <= 700
    assert posted == []  # nothing in the main window's notification bar
    rows = view.sessions.viewport().height() // view.sessions.verticalHeader().defaultSectionSize()
    assert rows >= 4, (rows, view.body.sizes())  # the table the user is in keeps rows in view
    QTest.keyClick(view.note_dismiss, Qt.Key.Key_Space)
    assert not view.note.isVisible()
    assert context.document.path is None  # nothing was opened


def test_the_keyboard_starts_on_the_session_list(small, run) -> None:
    """The first key a user presses moves through the sessions; Tab reaches the rest."""
    window = small.window
    window.activateWindow()
    run(until(lambda: QApplication.focusWidget() is not None))
    assert QApplication.focusWidget() is window.browser.list, QApplication.focusWidget()
