"""The message list view: estimated heights, geometry by bisection, painting only what is visible."""

from __future__ import annotations

from PySide6.QtCore import QPoint
from PySide6.QtWidgets import QAbstractItemView
from pytestqt.qtbot import QtBot

from rho_desk.core.wire import AssistantMessage, ContentBlock, Message
from rho_desk.qt.conversation.message_list import (
    CAPS,
    MessageListView,
    RowMetrics,
    estimate_heights,
)
from rho_desk.qt.conversation.model import ConversationModel, build_rows
from rho_desk.qt.ui.theme import LIGHT


def _history(n: int) -> tuple[Message, ...]:
    out = []
    for i in range(n):
        if i % 2:
            out.append(
                Message.enriched(
                    AssistantMessage(content=(ContentBlock.of_text(f"answer {i} " * (i % 40)),))
                )
            )
        else:
            out.append(Message.user_text("\n".join([f"question {i}"] * (1 + i % 3))))
    return tuple(out)


def _view(qtbot: QtBot, n: int) -> tuple[MessageListView, ConversationModel]:
    view = MessageListView(LIGHT)
    qtbot.addWidget(view)
    model = ConversationModel()
    view.setModel(model)
    view.resize(700, 500)
    view.show()
    model.set_rows(build_rows(_history(n)))
    return view, model


def test_heights_follow_the_text_and_the_width(qtbot: QtBot) -> None:
    rows = build_rows(_history(40))
    m = RowMetrics(line=17, char=7.0)
    wide, narrow = estimate_heights(rows, 1200, m, set()), estimate_heights(rows, 400, m, set())
    assert all(n >= w for n, w in zip(narrow, wide, strict=True)) and sum(narrow) > sum(wide)
    one_line = m.base(1) + m.line
    assert wide[0] == one_line  # "question 0" fits one line
    capped = max(CAPS.values())
    assert max(narrow) <= m.base(2) + m.line * (capped + 2)


def test_geometry_is_consistent(qtbot: QtBot) -> None:
    view, model = _view(qtbot, 500)
    assert view.content_height == sum(view.heights)
    for r in (0, 1, 137, 499):
        rect = view.visualRect(model.index(r, 0))
        view.scrollTo(model.index(r, 0), QAbstractItemView.ScrollHint.PositionAtTop)
        rect = view.visualRect(model.index(r, 0))
        assert rect.top() == 0 or r == 499
        assert view.indexAt(rect.center()).row() == r
    view.scrollToBottom()
    assert view.verticalScrollBar().value() == view.verticalScrollBar().maximum()
    last = view.visualRect(model.index(499, 0))
    assert last.bottom() <= view.viewport().height()


def test_keyboard_moves_the_current_row(qtbot: QtBot) -> None:
    view, model = _view(qtbot, 50)
    view.setFocus()
    view.setCurrentIndex(model.index(0, 0))
    from PySide6.QtCore import Qt

    qtbot.keyClick(view, Qt.Key.Key_Down)
    qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.currentIndex().row() == 2
    qtbot.keyClick(view, Qt.Key.Key_End)
    assert view.currentIndex().row() == 49
    qtbot.keyClick(view, Qt.Key.Key_PageUp)
    assert view.currentIndex().row() < 49


def test_a_hundred_thousand_rows_paint_only_the_visible_ones(qtbot: QtBot, monkeypatch) -> None:
    view, _model = _view(qtbot, 100_000)
    painted: list[int] = []
    original = view.delegate.paint
    monkeypatch.setattr(
        view.delegate, "paint", lambda p, o, i: (painted.append(i.row()), original(p, o, i))
    )
    view.viewport().grab()  # a synchronous paint
    view.scrollToBottom()
    view.viewport().grab()
    # only the visible rows are painted; how long it takes is the benchmarks' (gui.scroll_100k)
    assert len(painted) < 80 and max(painted) == 99_999
    assert view.indexAt(QPoint(10, view.viewport().height() - 2)).row() == 99_999


def test_expanding_a_row_keeps_the_rows_above_in_place(qtbot: QtBot) -> None:
    view, model = _view(qtbot, 200)
    view.scroll_to_row(100, QAbstractItemView.ScrollHint.PositionAtTop)
    top = view.visualRect(model.index(100, 0)).top()
    model.set_expanded(150, True)
    assert view.visualRect(model.index(100, 0)).top() == top


def test_big_rows_laid_out_for_another_width_are_laid_out_again_in_a_worker(
    qtbot: QtBot,
) -> None:
    """New rows over OFFLOAD_ROWS whose layout was made for another width show with it until a
    worker's layout for the list's width arrives: never ~0.1 s of estimating on the GUI thread."""
    from array import array

    from rho_desk.qt.conversation.message_list import OFFLOAD_ROWS, layout_rows

    view = MessageListView(LIGHT)
    qtbot.addWidget(view)
    model = ConversationModel()
    view.setModel(model)
    view.resize(700, 500)
    view.show()
    jobs: list[tuple[object, object]] = []
    view.layout_runner = lambda compute, done: jobs.append((compute, done))
    rows = build_rows(_history(OFFLOAD_ROWS + 10))
    other = view.viewport().width() + 40
    rows.layout = (other, *layout_rows(rows, other, view.metrics, set()))
    model.set_rows(rows)
    assert view.heights is rows.layout[1] and len(jobs) == 1  # provisional; the real one queued
    compute, done = jobs[0]
    done(compute())  # type: ignore[operator]
    width = view.viewport().width()
    assert view.heights == layout_rows(rows, width, view.metrics, set())[0]
    assert rows.layout[0] == width
    assert isinstance(view.heights, array)
