"""The views on the demo library: keyboard (J/K, O, Ctrl+F, Ctrl+M), detail pane, timeline, statistics."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from rho_desk.core.stores.rho_files import NodeKind
from rho_desk.qt.conversation.model import RowKind
from rho_desk.qt.services.document import HistoryMode
from rho_desk.qt.ui.roles import Role
from rho_desk.qt.window.main_window import TAB_CONVERSATION, TAB_REVISIONS, TAB_STATISTICS

from .conftest import idle, until


def _session(home: Path, prefix: str) -> Path:
    return next(p for p in (home / "sessions").rglob("*.jsonl") if prefix in str(p))


@pytest.fixture
def app_on(make_window, demo_home, run):
    def open_(prefix: str):
        context = make_window(home=demo_home, open_file=_session(demo_home, prefix))
        context.window.activateWindow()
        context.window.conversation.list.setFocus()
        return context

    return open_


def key(widget, keys: str) -> None:
    from PySide6.QtGui import QKeySequence
    from PySide6.QtTest import QTest

    seq = QKeySequence(keys)
    combo = seq[0]
    QTest.keyClick(widget, combo.key(), combo.keyboardModifiers())


def test_j_and_k_move_through_messages_and_the_detail_follows(app_on, run) -> None:
    context = app_on("5f0c2a9e")
    view = context.window.conversation
    assert view.current_row() == 0
    focus = QApplication.focusWidget() or view.list
    key(focus, "J")
    key(focus, "J")
    assert view.current_row() == 2
    key(focus, "K")
    assert view.current_row() == 1
    assert view.detail.title.text() == "Assistant message"
    assert "Tool call · read_file" in view.detail.browser.toPlainText()


def test_the_detail_pane_pairs_each_call_with_its_result_and_jumps_between_them(
    app_on, run
) -> None:
    view = app_on("5f0c2a9e").window.conversation
    row = next(
        r
        for r in range(view.model.rowCount())
        if len(list(view.model.message(r).tool_calls())) == 2
    )
    view.select_row(row)
    text = view.detail.browser.toPlainText()
    assert text.count("Tool call · read_file") == 2 and text.count("Result · ok") == 2
    result_row = view.model.rows.links(row)[0].result_row
    view.detail._on_browser_internal_link(f"row/{result_row}")
    assert view.current_row() == result_row and view.detail.title.text() == "Tool result"
    assert "go to the call" in view.detail.browser.toPlainText()


def test_sections_collapse_and_raw_json_shows_the_stored_message(app_on, run) -> None:
    context = app_on("5f0c2a9e")
    view = context.window.conversation
    row = next(
        r
        for r in range(view.model.rowCount())
        if view.model.message(r).enriched_assistant is not None
        and view.model.message(r).enriched_assistant.reasoning_summary
    )
    view.select_row(row)
    assert "Reading the flaky test" in view.detail.browser.toPlainText()
    view.detail._on_browser_internal_link("toggle/reasoning")
    assert "Reading the flaky test" not in view.detail.browser.toPlainText()
    key(QApplication.focusWidget() or view.list, "Ctrl+J")
    assert view.detail.raw and '"EnrichedAssistant"' in view.detail.browser.toPlainText()


def test_o_expands_a_collapsed_message_in_place(app_on) -> None:
    view = app_on("5f0c2a9e").window.conversation
    row = next(
        r
        for r in range(view.model.rowCount())
        if view.model.rows.kinds[r] == RowKind.TOOL_RESULT and view.model.rows.newlines[r] > 5
    )
    view.select_row(row)
    before = view.list.heights[row]
    assert view.model.presentation(row).clipped
    key(QApplication.focusWidget() or view.list, "O")
    assert view.model.data(view.model.index(row), Role.EXPANDED)
    assert view.list.heights[row] > before and not view.model.presentation(row).clipped
    assert view.list.content_height == sum(view.list.heights)


def test_ctrl_f_finds_in_the_session_and_steps_through_matches(app_on, run) -> None:
    context = app_on("5f0c2a9e")
    view = context.window.conversation
    key(QApplication.focusWidget() or view.list, "Ctrl+F")
    assert view.find_bar.isVisible() and view.find_bar.field.hasFocus()
    view.find_bar.field.setText("TOLERANCE")
    view.find_bar.search_now()
    run(until(lambda: view.find_bar.count.text().startswith("1 of ")))
    from rho_desk.qt.conversation.find import searchable_text

    messages = view.model.rows.messages
    expected = [
        r
        for r in range(view.model.rowCount())
        if "tolerance" in searchable_text(messages[r]).lower()
    ]
    assert view.matches == expected and len(expected) >= 3
    # a tool call whose arguments name it is a match too, though its row text does not
    assert any("tolerance" not in view.model.text(r).lower() for r in expected)
    first = view.current_row()
    assert first == expected[0]
    key(view.find_bar.field, "Return")
    assert view.current_row() == expected[1]
    assert view.model.data(view.model.index(expected[1]), Role.MATCH) == 2
    assert "of" in view.find_bar.count.text()
    key(view.find_bar.field, "Shift+Return")  # back exactly one match
    assert view.current_row() == expected[0]
    key(view.find_bar.field, "Return")
    assert view.current_row() == expected[1]
    key(view.find_bar.field, "Escape")
    assert view.find_bar.isHidden() and view.matches == []


def test_find_from_the_end_wraps_to_the_first_match(app_on, run) -> None:
    """With the last message selected (End) and every match above it, the find bar jumps to the
    first match and says "1 of N", as it does from the top, instead of only counting matches."""
    context = app_on("5f0c2a9e")
    view = context.window.conversation
    last = view.model.rowCount() - 1
    view.select_row(last)
    view.open_find()
    view.find_bar.field.setText("one run in five")  # the first prompt's words
    view.find_bar.search_now()
    run(until(lambda: view.find_bar.count.text().startswith("1 of ")))
    assert view.matches and view.matches[-1] < last
    assert view.current_row() == view.matches[0]
    assert view.find_bar.count.text() == f"1 of {len(view.matches)}"


def test_ctrl_m_switches_to_model_history_and_back(app_on, run) -> None:
    context = app_on("4a7e2c19")  # compacted: the model history is shorter than the display
    view = context.window.conversation
    shown = view.model.rowCount()
    key(QApplication.focusWidget() or view.list, "Ctrl+M")
    run(until(lambda: context.document.mode is HistoryMode.MODEL and view.model.rowCount() < shown))
    assert context.document.mode is HistoryMode.MODEL
    assert view.model.rows.kinds[0] == RowKind.SYSTEM and view.model.rowCount() < shown
    assert "model messages" in view.bar.counts.text()
    key(QApplication.focusWidget() or view.list, "Ctrl+M")
    run(until(lambda: view.model.rowCount() == shown))
    assert view.model.rowCount() == shown


def test_brackets_step_through_revisions_and_the_conversation_follows(app_on, run) -> None:
    context = app_on("5f0c2a9e")
    document, view = context.document, context.window.conversation
    leaf = document.selected
    key(QApplication.focusWidget() or view.list, "[")
    run(
        until(
            lambda: (
                document.selected is leaf.parent
                and view.model.rowCount() == len(document.entries())
            )
        )
    )
    assert document.selected is leaf.parent
    assert view.model.rowCount() == len(document.entries())
    assert view.bar.active_button.text() == "Show active" and view.bar.active_button.isVisible()
    key(QApplication.focusWidget() or view.list, "\\")
    run(until(lambda: document.selected is leaf))
    assert document.selected is leaf


def test_a_paint_while_the_window_closes_starts_no_work(app_on, run) -> None:
    """A new history's first paint starts its message count; a paint that comes after the
    window's tasks were stopped (the window closing) starts none: no error in Qt's event loop."""
    context = app_on("5f0c2a9e")
    document, view = context.document, context.window.conversation
    run(until(lambda: bool(view.bar.counts.text())))  # the first history counted
    context.window.hide()  # nothing is painted until the tasks are stopped
    document.select(document.selected.parent)
    run(
        until(
            lambda: view.model.rowCount() == len(document.entries()) and not view.bar.counts.text()
        )
    )
    run(context.bridge.aclose())  # the window closes: its tasks stop first, then its document
    context.window.show()
    view.list.viewport().repaint()  # the first paint of the new history, on a closed bridge
    assert not view.bar.counts.text() and not context.bridge.busy


def test_the_timeline_selects_revisions_and_diffs_against_the_base(app_on, run) -> None:
    context = app_on("5f0c2a9e")
    window, document = context.window, context.document
    window.show_tab(TAB_REVISIONS)
    timeline = window.revisions
    tree = document.tree
    root = tree.path()[0]
    abandoned = root.children[0]
    timeline.tree.setCurrentIndex(timeline.model.index_of(abandoned))
    run(until(lambda: (r := timeline.diff_model.result) is not None and r.old is root))
    assert document.selected is abandoned
    assert timeline.diff_model.result is not None and timeline.diff_model.result.old is root
    timeline.mark_diff_base()
    document.select(root.children[-1])
    run(
        until(
            lambda: (
                (r := timeline.diff_model.result) is not None
                and r.old is abandoned
                and "tokens" in timeline.diff_summary.text()
            )
        )
    )
    result = timeline.diff_model.result
    assert result.old is abandoned and result.new is root.children[-1]
    assert "tokens" in timeline.diff_summary.text()
    window.show_tab(TAB_CONVERSATION)
    assert window.conversation.model.rowCount() == len(document.entries(root.children[-1]))


def test_statistics_show_counters_chart_gauge_and_compactions(app_on, run) -> None:
    context = app_on("5f0c2a9e")
    window = context.window
    window.show_tab(TAB_STATISTICS)
    run(until(lambda: window.statistics.data is not None))
    stats = window.statistics
    data = stats.data
    assert data is not None and data.counters.completed_compactions == 1
    assert stats.cards["compactions"].value.text() == "1"
    assert len(stats.chart.points) == len(context.document.tree.path())
    assert stats.table_model.rowCount() == 1 and stats.table_model.rows[0].from_facts
    assert stats.gauge.context_window == 400_000 and 0 < stats.gauge.fraction < 0.1
    compaction = next(n for n in context.document.tree.path() if n.kind is NodeKind.COMPACTION)
    stats.sig_revision_requested.emit(compaction)
    run(until(lambda: context.document.selected is compaction))
    assert context.document.selected is compaction


def test_make_active_and_fork_from_the_timeline(app_on, run) -> None:
    context = app_on("5f0c2a9e")
    document = context.document
    abandoned = document.tree.path()[0].children[0]
    document.select(abandoned)
    context.actions.trigger("revision.make_active")
    run(until(lambda: document.tree.active_leaf is abandoned))
    assert document.tree.active_leaf is abandoned
    context.actions.trigger("revision.fork")
    run(
        until(
            lambda: (
                any("New branch" in n.text for n in context.notifier.history)
                and document.selected is document.tree.active_leaf
            )
        )
    )
    fork = document.tree.active_leaf
    assert fork.parent is abandoned and document.selected is fork
    assert any("New branch" in n.text for n in context.notifier.history)


def test_forking_a_v3_revision_opens_the_new_session(app_on, run) -> None:
    context = app_on("b2e47d10")
    document = context.document
    old_path = document.path
    document.select(document.tree.path()[1])
    context.actions.trigger("revision.fork")
    run(until(lambda: document.path != old_path))
    assert document.path != old_path and document.path.parent.parent == old_path.parent.parent
    assert len(document.tree.history()) == len(context.document.tree.history())


def test_every_shortcut_is_reachable_from_the_window(app_on) -> None:
    context = app_on("5f0c2a9e")
    window_actions = set(map(id, context.window.actions()))
    for spec in context.actions._specs.values():
        action = context.actions[spec.id]
        if spec.local:
            assert id(action) in set(map(id, context.window.browser.actions())), spec.id
        else:
            assert id(action) in window_actions, spec.id


def test_a_refused_link_is_explained_in_the_notification_bar(app_on) -> None:
    context = app_on("5f0c2a9e")
    from PySide6.QtCore import QUrl

    context.window.conversation.detail.browser.anchorClicked.emit(QUrl("javascript:alert(1)"))
    notice = context.notifier.history[-1]
    assert "Link not opened" in notice.text and context.window.notifications.isVisible()


def test_clicking_a_thumbnail_opens_the_image_non_modally(app_on, run) -> None:
    from rho_desk.qt.conversation.message_detail import ImageViewer

    context = app_on("4a7e2c19")
    document, view = context.document, context.window.conversation
    document.select(document.tree.path()[0])
    run(until(lambda: view.model.rowCount() == len(document.entries())))
    view.select_row(0)
    assert (
        'href="rho:image/0"' in view.detail.browser.toHtml()
        or "click to enlarge" in view.detail.browser.toPlainText()
    )
    view.detail._on_browser_internal_link("image/0")
    viewers = [w for w in context.window.findChildren(ImageViewer)]
    assert len(viewers) == 1 and viewers[0].isVisible() and not viewers[0].isModal()
    assert viewers[0].image.width() == 320
    viewers[0].set_zoom(1.25)
    assert viewers[0].zoom == 1.25
    viewers[0].close()


def test_the_theme_follows_the_system_scheme(app_on, monkeypatch) -> None:
    from PySide6.QtCore import Qt as QtNS

    context = app_on("5f0c2a9e")
    theme = context.theme
    changed: list[object] = []
    theme.sig_theme_changed.connect(changed.append)
    # the offscreen platform reports no scheme: play the desktop switching to dark and back
    monkeypatch.setattr(theme, "system_scheme", lambda: QtNS.ColorScheme.Dark)
    theme._on_hints_color_scheme_changed(QtNS.ColorScheme.Dark)
    assert theme.theme.name == "dark" and len(changed) == 1
    assert context.window.conversation.list.delegate.theme.name == "dark"
    assert context.app.palette().color(context.app.palette().ColorRole.Window).name() == "#1b1d21"
    theme.set_preference("light")  # an explicit choice wins over the desktop
    monkeypatch.setattr(theme, "system_scheme", lambda: QtNS.ColorScheme.Light)
    theme._on_hints_color_scheme_changed(QtNS.ColorScheme.Light)
    assert theme.theme.name == "light"


def _drawn_in(icon, color: str) -> bool:
    """Every solid pixel of the icon's 16 px rendering is ``color``."""
    from PySide6.QtGui import QColor

    image = icon.pixmap(16, 16).toImage()
    want = QColor(color)
    solid = [
        image.pixelColor(x, y)
        for x in range(image.width())
        for y in range(image.height())
        if image.pixelColor(x, y).alpha() > 200
    ]
    return bool(solid) and all(
        abs(c.red() - want.red()) + abs(c.green() - want.green()) + abs(c.blue() - want.blue()) < 30
        for c in solid
    )


def test_icons_follow_a_theme_switched_at_run_time(app_on) -> None:
    """Ctrl+Shift+T to dark: the find bar's magnifier and close button, the tabs' and the
    searches' icons are drawn in the dark theme's colours, not left dark on dark."""
    from rho_desk.qt.ui.theme import DARK, LIGHT

    context = app_on("5f0c2a9e")
    window = context.window
    context.theme.set_preference("light")
    find = window.conversation.find_bar
    assert _drawn_in(find.find_icon.icon(), LIGHT.text)
    context.theme.set_preference("dark")
    assert _drawn_in(find.find_icon.icon(), DARK.text) and _drawn_in(
        find.close_button.icon(), DARK.text
    )
    for index in range(window.tabs.count()):
        assert _drawn_in(window.tabs.tabIcon(index), DARK.text), window.tabs.tabText(index)
    assert _drawn_in(window.browser.search_icon.icon(), DARK.muted)
    assert _drawn_in(window.team_browser.search_icon.icon(), DARK.muted)


def test_dialog_buttons_carry_no_stock_glyphs(qapp) -> None:
    """A style that gives dialog buttons icons (a desktop's platform theme) draws a black ✕ on
    Close whatever the theme: the app's style sheet turns those icons off."""
    from PySide6.QtWidgets import QDialogButtonBox, QProxyStyle, QStyle

    from rho_desk.qt.ui.theme import DARK, palette_for, sheet_for

    class IconsOnButtons(QProxyStyle):
        def styleHint(self, hint, option=None, widget=None, data=None):  # type: ignore[no-untyped-def]
            if hint == QStyle.StyleHint.SH_DialogButtonBox_ButtonsHaveIcons:
                return 1
            return super().styleHint(hint, option, widget, data)

    old_style, old_palette, old_sheet = qapp.style().name(), qapp.palette(), qapp.styleSheet()
    qapp.setStyle(IconsOnButtons("Fusion"))
    qapp.setPalette(palette_for(DARK))
    qapp.setStyleSheet(sheet_for(DARK))
    try:
        box = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Close | QDialogButtonBox.StandardButton.Ok
        )
        assert all(button.icon().isNull() for button in box.buttons())
        box.deleteLater()
    finally:
        qapp.setStyleSheet(old_sheet)
        qapp.setPalette(old_palette)
        qapp.setStyle(old_style)


def test_context_gauge_never_rounds_a_used_context_down_to_zero(qtbot) -> None:
    from rho_desk.qt.ui.theme import LIGHT
    from rho_desk.qt.usage.statistics import ContextGauge

    gauge = ContextGauge(LIGHT)
    qtbot.addWidget(gauge)
    for tokens, window, text in [
        (908, 400_000, "<1%"),
        (0, 400_000, "0%"),
        (4_000, 400_000, "1%"),
        (300_000, 400_000, "75%"),
        (10, 0, "–"),
    ]:
        gauge.set_values(tokens, window, "test")
        assert gauge.percent_text() == text


def test_find_looks_in_tool_arguments_and_tool_output() -> None:
    from rho_desk.core.wire.model import ContentBlock, Message, ToolResult
    from rho_desk.qt.conversation.find import find_rows

    messages = [
        Message.user_text("why does the webhook test flake?"),
        Message.assistant_blocks(
            [
                ContentBlock(text="Let me look."),
                ContentBlock.of_tool_call("c1", "grep", {"pattern": "clock.now", "path": "app/"}),
            ]
        ),
        Message(tool_result=ToolResult("c1", True, "app/webhooks/refunds.py:12: ts = Clock.Now()")),
    ]
    assert find_rows(messages, "CLOCK.NOW") == [1, 2]  # the call's arguments, then its output
    assert find_rows(messages, '"path": "app/"') == [1]
    assert find_rows(messages, "grep") == [1]
    assert find_rows(messages, "") == []


def test_a_file_outside_any_rho_home_says_why_the_list_is_empty(
    make_window, run, tmp_path: Path
) -> None:
    """Walkthrough B5: ``rho-desk open FILE`` outside a Rho home left the browser empty, silently."""
    import shutil

    from .helpers import v3_session

    loose = tmp_path / "loose.jsonl"
    shutil.copy(v3_session(tmp_path / "home"), loose)
    context = make_window(open_file=loose)
    assert context.document.path == loose and not context.library.is_open
    assert "outside a Rho data directory" in context.window.browser.footer.text()


def test_a_file_inside_the_library_never_says_it_is_outside(
    make_window, run, tmp_path: Path
) -> None:
    from .helpers import v3_session

    path = v3_session(tmp_path / "home")
    context = make_window(home=tmp_path / "home", open_file=path)
    seen: list[str] = []
    footer = context.window.browser.footer
    seen.append(footer.text())
    run(idle(context.bridge))  # nothing to wait for: the footer must never have said it
    seen.append(footer.text())
    assert context.library.is_open and not any("outside a Rho data directory" in t for t in seen), (
        seen
    )
