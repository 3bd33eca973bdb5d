"""Search from the keyboard and opening a hit at its match, on the demo library.

Ctrl+K, type, Down, Enter opens the highlighted hit with one Enter; the conversation then
selects the message that matched and the find bar highlights the term. Snippets show Markdown as
plain text with the highlights still on the matched words.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont

from rho_desk.core.stores.rho_files.views import message_at_offset, search_text
from rho_desk.core.wire import AssistantMessage, ContentBlock, Message
from rho_desk.qt.browser.sessions import SessionDelegate
from rho_desk.qt.conversation.find import searchable_text
from rho_desk.qt.ui.markdown import plain_text
from rho_desk.qt.ui.theme import LIGHT

from .conftest import until

NEEDLE = "one second"
SESSION = "5f0c2a9e"  # the demo's "Flaky refund webhook test", where "**one second**" is


def _type_search(context, qtbot, text: str) -> None:
    window, browser = context.window, context.window.browser
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert browser.search.hasFocus()
    qtbot.keyClicks(browser.search, text)


def _row_of_session(browser, prefix: str) -> int:
    return next(r for r, s in enumerate(browser.model.summaries()) if s.id.startswith(prefix))


def test_ctrl_k_type_down_enter_opens_the_highlighted_hit(
    make_window, demo_home, run, qtbot
) -> None:
    context = make_window(home=demo_home, demo=False)
    browser = context.window.browser
    _type_search(context, qtbot, "test")
    run(until(lambda: browser._shown_text == "test"))
    assert browser.model.rowCount() >= 2
    assert not browser.list.currentIndex().isValid()
    qtbot.keyClick(browser.search, Qt.Key.Key_Down)
    qtbot.keyClick(browser.search, Qt.Key.Key_Down)
    assert browser.list.currentIndex().row() == 1 and browser.search.hasFocus()
    wanted = browser.model.summaries()[1].path
    qtbot.keyClick(browser.search, Qt.Key.Key_Return)  # one Enter
    run(until(lambda: context.document.is_open and str(context.document.path) == wanted))
    assert context.document.is_open and str(context.document.path) == wanted


def test_enter_before_the_results_arrive_opens_the_top_hit(
    make_window, demo_home, run, qtbot
) -> None:
    context = make_window(home=demo_home, demo=False)
    browser = context.window.browser
    _type_search(context, qtbot, "freezegun")
    qtbot.keyClick(browser.search, Qt.Key.Key_Enter)  # within the typing pause
    run(until(lambda: context.document.is_open))
    assert context.document.tree.session_id.startswith(SESSION)


def test_opening_a_hit_selects_the_matching_message_and_highlights_it(
    make_window, demo_home, run, qtbot
) -> None:
    context = make_window(home=demo_home, demo=False)
    browser, conversation = context.window.browser, context.window.conversation
    _type_search(context, qtbot, f'"{NEEDLE}"')
    run(until(lambda: browser._shown_text == f'"{NEEDLE}"'))
    row = _row_of_session(browser, SESSION)
    for _ in range(row + 1):
        qtbot.keyClick(browser.search, Qt.Key.Key_Down)
    qtbot.keyClick(browser.search, Qt.Key.Key_Return)
    run(until(lambda: conversation.find_bar.text == NEEDLE and conversation.matches))
    run(
        until(
            lambda: (
                conversation.current_row() in conversation.matches
                and " of " in conversation.find_bar.count.text()
            )
        )
    )
    current = conversation.current_row()
    message = conversation.model.rows.messages[current]
    assert NEEDLE in searchable_text(message).lower()
    assert current > 0  # not the first row the view selects on its own
    assert conversation.find_bar.isVisible() and current in conversation.matches
    assert conversation.find_bar.count.text().startswith(
        f"{conversation.matches.index(current) + 1} of"
    )
    assert (
        conversation.model.data(conversation.model.index(current, 0), 0x0100 + 10) == 2
    )  # Role.MATCH: current
    # Esc, where the focus is after opening the hit, closes the find bar (walkthrough B3)
    from PySide6.QtWidgets import QApplication

    focused = QApplication.focusWidget()
    assert focused is not None and focused is not browser.search
    qtbot.keyClick(focused, Qt.Key.Key_Escape)
    assert not conversation.find_bar.isVisible()
    # a second hit in the same, already open session moves to its match too
    conversation.select_row(0)
    browser.search.setFocus()
    qtbot.keyClick(browser.search, Qt.Key.Key_Return)
    run(until(lambda: conversation.current_row() == current))
    assert conversation.current_row() == current


def test_the_offset_of_a_match_names_its_message() -> None:
    messages = [
        Message.system_text("system text is not searched"),
        Message.user_text("first\nline two"),
        Message.result("call", True, "tool output is not searched"),
        Message.enriched(AssistantMessage(content=(ContentBlock.of_text("the answer"),))),
        Message.user_text("last"),
    ]
    text = search_text(messages)
    for offset, char in enumerate(text):
        at = message_at_offset(messages, offset)
        assert at is not None
        if char != "\n" or offset == text.index("\n"):
            assert char in searchable_text(messages[at]), (offset, char, at)
    assert message_at_offset(messages, text.index("answer")) == 3
    assert message_at_offset(messages, text.index("last")) == 4
    assert message_at_offset(messages, len(text)) is None


def test_snippets_show_markdown_as_plain_text_with_the_match_highlighted(qtbot) -> None:
    raw = "rejects events older than **one second** (`TOLERANCE_SECONDS = 1`), see [docs](https://x.example)"
    start = raw.index(NEEDLE)
    plain, spans = plain_text(raw, ((start, start + len(NEEDLE)),))
    assert plain == "rejects events older than one second (TOLERANCE_SECONDS = 1), see docs"
    assert [plain[a:b] for a, b in spans] == [NEEDLE]
    # what the browser paints
    delegate = SessionDelegate(LIGHT)
    layout = delegate.snippet_layout(raw, ((start, start + len(NEEDLE)),), QFont())
    shown = layout.text()
    assert "**" not in shown and "`" not in shown and "](" not in shown
    assert [shown[r.start : r.start + r.length] for r in layout.formats()] == [NEEDLE]
    # a match the parser cannot carry (inside a link target) keeps the raw text and its span
    raw = "see [docs](https://one.example) now"
    start = raw.index("one")
    plain, spans = plain_text(raw, ((start, start + 3),))
    assert [plain[a:b] for a, b in spans] == ["one"]
