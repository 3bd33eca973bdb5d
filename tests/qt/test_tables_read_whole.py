"""Tables, titles and the chart read whole (walkthrough B6): the Revision column fits its widest
label with the base mark, a v1–v3 line's nodes say where they are instead of 'legacy:0000…',
the Revisions summary fits at 1280 px, the chart's ticks are round and its revisions labelled
between the compactions, an empty compaction table says so, and the detail pane's title is not
cut beside Raw JSON at 1024 px."""

from __future__ import annotations

import itertools
from pathlib import Path

from PySide6.QtCore import QRect, Qt

from rho_desk.qt.revisions.tree_model import COL_NODE
from rho_desk.qt.usage.statistics import label_rows, nice_top
from rho_desk.qt.window.main_window import TAB_REVISIONS, TAB_STATISTICS

from .conftest import idle, laid_out, until
from .helpers import v3_session


def _session(home: Path, prefix: str) -> Path:
    return next(p for p in (home / "sessions").rglob("*.jsonl") if prefix in str(p))


def test_the_revision_column_fits_the_base_mark_at_every_depth(
    make_window, run, demo_home: Path
) -> None:
    context = make_window(home=demo_home, open_file=_session(demo_home, "5f0c2a9e"))  # v4, branches
    window = context.window
    window.show_tab(TAB_REVISIONS)
    view = window.revisions
    font = view.tree.font()
    font.setPointSizeF(12.0)  # a desktop's larger font (the walkthrough's X server)
    view.tree.setFont(font)
    run(context.document.areload(full=True))
    run(laid_out())
    tree, model = view.tree, view.model
    nodes = list(context.document.tree.nodes.values())
    deepest = max(nodes, key=lambda n: tree.visualRect(model.index_of(n)).left())
    context.document.select(deepest)
    run(until(lambda: context.document.selected is deepest))
    view.mark_diff_base()
    run(until(lambda: "◇ base" in model.index_of(deepest).data()))
    index = model.index_of(deepest)
    text = index.data()
    assert "◇ base" in text
    rect = tree.visualRect(index)
    icon = 16 + 4  # the kind icon before the label, and its gap
    needed = rect.left() + icon + tree.fontMetrics().horizontalAdvance(text) + 8
    assert needed <= tree.header().sectionSize(0), (text, rect, needed)
    # and the count's column its title, in the header's bold
    from PySide6.QtGui import QFont, QFontMetrics

    from rho_desk.qt.revisions.tree_model import COL_MESSAGES

    bold = QFont(tree.header().font())
    bold.setBold(True)
    title = model.headerData(COL_MESSAGES, Qt.Orientation.Horizontal)
    assert QFontMetrics(bold).horizontalAdvance(title) + 12 <= tree.header().sectionSize(
        COL_MESSAGES
    ), title


def test_a_line_file_names_its_nodes_by_line_and_its_summary_fits(
    make_window, run, tmp_path: Path
) -> None:
    context = make_window(open_file=v3_session(tmp_path / "home", turns=5))
    window = context.window
    window.resize(1280, 800)
    window.show_tab(TAB_REVISIONS)
    run(until(lambda: window.revisions.model.rowCount() > 0))
    view = window.revisions
    shown = [view.model.index_of(n, COL_NODE).data() for n in context.document.tree.nodes.values()]
    assert all(s.startswith("line ") for s in shown) and not any("legacy" in s for s in shown), (
        shown
    )
    summary = view.summary
    assert summary.fontMetrics().horizontalAdvance(summary.text()) <= summary.width(), (
        summary.text(),
        summary.width(),
    )
    assert "a fork becomes a new session" in summary.toolTip()


def test_the_chart_has_round_ticks_and_labels_between_compactions() -> None:
    assert [nice_top(v) for v in (1_976, 908, 15, 1)] == [2_000, 1_000, 20, 1]
    assert (
        nice_top(15, whole=True) == 20 and nice_top(3, whole=True) == 4
    )  # whole messages per step
    # six revisions on a wide chart: all labelled; 5,000 on 800 px: the kept ones plus round steps
    assert label_rows(6, 800, [0, 5, 4]) == [0, 1, 2, 3, 4, 5]
    many = label_rows(5_000, 800, [0, 4_999, 1_234])
    assert {0, 4_999, 1_234} <= set(many) and 8 <= len(many) <= 15
    xs = [800 * i / 4_999 for i in many]
    assert all(b - a >= 56 for a, b in itertools.pairwise(xs))


def test_a_session_without_compactions_says_so_under_the_table(
    make_window, run, tmp_path: Path
) -> None:
    context = make_window(open_file=v3_session(tmp_path / "home", turns=3))
    window = context.window
    window.show_tab(TAB_STATISTICS)
    run(until(lambda: window.statistics.data is not None))
    stats = window.statistics
    assert stats.table_model.rowCount() == 0
    assert stats.table.isHidden() and stats.table_empty.isVisible()
    header = stats.table.horizontalHeader()
    assert header.defaultAlignment() & Qt.AlignmentFlag.AlignLeft


def test_the_detail_title_is_not_cut_beside_raw_json(make_window, run, demo_home: Path) -> None:
    context = make_window(home=demo_home, open_file=_session(demo_home, "5f0c2a9e"))
    window = context.window
    window.resize(1024, 700)
    run(laid_out())
    view = window.conversation
    view.select_row(1)
    run(idle(context.bridge))  # the message's detail is read and shown
    title = view.detail.title
    needed = title.fontMetrics().boundingRect(
        QRect(0, 0, title.width(), 10_000), Qt.TextFlag.TextWordWrap, title.text()
    )
    assert needed.width() <= title.width() and needed.height() <= title.height(), (
        title.text(),
        title.size(),
        needed,
    )
    assert title.geometry().right() < view.detail.raw_button.geometry().left()
