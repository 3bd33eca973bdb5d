"""End-to-end journeys on the demo library: "browse and search" and "open"."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog, QMessageBox

from rho_desk.qt.app import plan_start
from rho_desk.qt.conversation.row_cache import _file_for

from .conftest import idle, laid_out, until


def _browser_rows(browser) -> list[str]:
    return [browser.model.data(browser.model.index(r)) for r in range(browser.model.rowCount())]


def test_browse_and_search(make_window, demo_home, run, qtbot) -> None:
    context = make_window(home=demo_home, demo=False)
    window, browser = context.window, context.window.browser
    run(until(lambda: browser.model.rowCount() == 7))
    # 1. every session is listed, newest first, with titles from Rho's index
    titles = _browser_rows(browser)
    assert (
        len(titles) == 7
        and "Flaky refund webhook test" in titles
        and "JSON output for rgl" in titles
    )
    updated = [s.updated_at for s in browser.model.summaries()]
    assert updated == sorted(updated, reverse=True)
    # 2. one workspace only
    index = next(
        i for i in range(browser.scope.count()) if "ripgrep-lite" in browser.scope.itemText(i)
    )
    browser.scope.setCurrentIndex(index)
    run(
        until(
            lambda: (
                sorted(_browser_rows(browser))
                == ["JSON output for rgl", "Why is the release binary 40 MB?"]
            )
        )
    )
    assert sorted(_browser_rows(browser)) == [
        "JSON output for rgl",
        "Why is the release binary 40 MB?",
    ]
    browser.scope.setCurrentIndex(0)
    # 3. sort by message count
    browser.sort.setCurrentIndex(browser.sort.findData("messages"))
    run(
        until(
            lambda: (
                (c := [s.message_count for s in browser.model.summaries()])
                == sorted(c, reverse=True)
                and len(c) == 7
            )
        )
    )
    counts = [s.message_count for s in browser.model.summaries()]
    assert counts == sorted(counts, reverse=True) and len(counts) == 7
    # 4. full-text search with highlighted snippets (Ctrl+K focuses the field)
    context.actions.trigger("library.search")
    assert browser.search.hasFocus()
    qtbot.keyClicks(browser.search, "freezegun")
    browser._search_timer.stop()
    browser.reload_listing()
    run(until(lambda: _browser_rows(browser) == ["Flaky refund webhook test"]))
    assert _browser_rows(browser) == ["Flaky refund webhook test"]
    row = browser.model.data(browser.model.index(0), 0x0100 + 2)  # Role.ROW
    snippet = row.snippets[0]
    start, end = snippet.highlights[0]
    assert snippet.text[start:end].lower() == "freezegun"
    assert "match “freezegun”" in browser.footer.text()
    # 5. a click opens the hit, and the conversation shows it
    rect = browser.list.visualRect(browser.model.index(0))
    qtbot.mouseClick(browser.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    run(
        until(
            lambda: (
                window.header.title.text() == "Flaky refund webhook test"
                and window.conversation.model.rowCount() == len(context.document.entries())
            )
        )
    )
    assert context.document.is_open and context.document.tree.session_id.startswith("5f0c2a9e")
    assert window.header.title.text() == "Flaky refund webhook test"
    assert window.conversation.model.rowCount() == len(context.document.entries())
    # 6. rename (F2): the title goes to Rho's index, through a non-modal dialog
    context.actions.trigger("library.rename")
    dialog = window.commands.dialog
    # open(), not exec(): window-modal, answered through a signal, no nested event loop
    assert isinstance(dialog, QInputDialog) and dialog.isVisible()
    assert dialog.windowModality() == Qt.WindowModality.WindowModal
    dialog.setTextValue("  Refund webhook: clock injection  ")
    dialog.accept()
    run(
        until(lambda: "Refund webhook: clock injection" in _browser_rows(browser))
    )  # written to the index, then listed
    db = sqlite3.connect(demo_home / "sessions" / "index.sqlite3")
    try:
        title = db.execute("select title from sessions where id like '5f0c2a9e%'").fetchone()[0]
    finally:
        db.close()
    assert title == "Refund webhook: clock injection"
    assert "Refund webhook: clock injection" in _browser_rows(browser)
    # 7. search finds it by its new title
    browser.search.setText("clock injection")
    browser._search_timer.stop()
    browser.reload_listing()
    run(until(lambda: _browser_rows(browser) == ["Refund webhook: clock injection"]))
    assert _browser_rows(browser) == ["Refund webhook: clock injection"]


def test_move_to_trash_asks_first_and_then_moves_the_session(
    make_window, demo_home, run, isolated_dirs
) -> None:
    context = make_window(home=demo_home)
    browser = context.window.browser
    run(until(lambda: browser.model.rowCount() == 7))
    row = next(
        r
        for r in range(browser.model.rowCount())
        if "release binary" in browser.model.data(browser.model.index(r))
    )
    browser.list.setCurrentIndex(browser.model.index(row))
    path = Path(browser.selected_summary().path)
    kept = _file_for(str(path.absolute()))  # its rows as a big session's would be kept
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(b"rows and a first screen")
    context.actions.trigger("library.trash")
    box = context.window.commands.dialog
    assert isinstance(box, QMessageBox) and box.isVisible()
    box.reject()  # Cancel: nothing happens
    run(idle(context.bridge))  # nothing to wait for: Cancel moves nothing
    assert path.exists()
    context.actions.trigger("library.trash")
    box = context.window.commands.dialog
    trash = next(b for b in box.buttons() if b.text() == "Move to Trash")
    trash.click()
    run(until(lambda: browser.model.rowCount() == 6))
    assert not path.exists() and any((isolated_dirs / "trash").rglob("session.jsonl"))
    assert browser.model.rowCount() == 6
    assert not kept.exists()  # no copy of its first screen left in the cache folder


def test_open_with_the_file_dialog_then_recent_files(make_window, demo_home, run) -> None:
    context = make_window(home=demo_home)
    window = context.window
    target = next((demo_home / "sessions").rglob("1793900000_*/session.jsonl"))
    context.actions.trigger("file.open")
    dialog = window.commands.dialog
    assert isinstance(dialog, QFileDialog) and dialog.isVisible()
    dialog.fileSelected.emit(str(target))
    dialog.close()
    run(
        until(lambda: context.document.path == target and "format v2" in window.header.facts.text())
    )
    assert context.document.path == target
    assert window.header.title.text() == "Why is the release binary 40 MB?"
    assert "format v2" in window.header.facts.text()
    assert context.settings.recent_files()[0] == str(target)
    # reopen another file, then come back through File > Open Recent
    other = next((demo_home / "sessions").rglob("1792100000_*.jsonl"))
    window.commands.open_path(other)
    run(until(lambda: context.document.path == other and not context.document.loading))
    recent = [a for a in window.app_actions.recent_menu.actions() if a.toolTip() == str(target)]
    assert recent
    recent[0].trigger()
    run(until(lambda: context.document.path == target and not context.document.loading))
    assert context.document.path == target


def test_open_from_the_command_line_and_a_bad_file_is_reported_not_fatal(
    make_window, demo_home, run, tmp_path
) -> None:
    session = next((demo_home / "sessions").rglob("1795300000_*/session.jsonl"))
    context = make_window(plan=plan_start(session, env={}))
    assert context.library.home == demo_home and context.document.path == session
    assert context.window.conversation.model.rowCount() > 10
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"type":"session","version":9,"id":"x","timestamp":"1","cwd":"/"}\n')
    context.window.commands.open_path(bad)
    run(
        until(
            lambda: (
                context.notifier.history
                and "unsupported session version 9" in context.notifier.history[-1].text
            )
        )
    )
    notice = context.notifier.history[-1]
    assert "broken.jsonl:1: unsupported session version 9" in notice.text
    assert context.window.notifications.isVisible()
    assert context.document.path == session  # the open session stays


def test_no_rho_home_opens_the_demo_with_a_banner(make_window, run) -> None:
    context = make_window(plan=plan_start(None, env={"HOME": "/nonexistent-home"}))
    assert context.library.demo and context.window.banner.isVisible()
    assert context.document.is_open  # the newest demo session, at once
    assert "demo" in str(context.library.home)
    assert context.window.browser.model.rowCount() == 7


def test_a_live_append_shows_up_without_losing_the_place(make_window, demo_home, run) -> None:
    from rho_desk.core.stores.rho_files import SessionWriter, read_session
    from rho_desk.core.wire import SessionSnapshot

    from .helpers import turn

    session = next((demo_home / "sessions").rglob("1795480000_*/session.jsonl"))
    context = make_window(home=demo_home, open_file=session)
    view = context.window.conversation
    view.select_row(3)
    rows_before = view.model.rowCount()
    inserted: list[int] = []
    view.model.rowsInserted.connect(lambda _p, a, b: inserted.append(b - a + 1))
    writer = SessionWriter(read_session(session), take_lease=False)  # "Rho" appends a turn
    snap = writer.tree.snapshot(prompt_cache_key=None, trim=False)
    writer.save(
        SessionSnapshot.new(
            snap.session_id,
            snap.revision + 1,
            snap.history + turn(7),
            snap.provider,
            prompt_cache_key=snap.prompt_cache_key,
        )
    )
    writer.close()
    context.document.watcher.poke()

    async def wait_for_rows() -> None:
        import asyncio

        for _ in range(300):
            if view.model.rowCount() > rows_before:
                return
            await asyncio.sleep(0.01)

    run(wait_for_rows())
    run(until(lambda: view.model.rowCount() == rows_before + 4))
    assert inserted == [4] and view.model.rowCount() == rows_before + 4  # an insert, not a reset
    assert view.current_row() == 3  # the user's place
    assert context.document.selected is context.document.tree.active_leaf
    context.window.show_tab(2 - 1)  # the Revisions tab catches up when shown
    assert context.window.revisions.model.rowCount() == context.document.tree.node_count


def test_the_window_has_no_dead_pixels_of_layout(make_window, demo_home, run) -> None:
    context = make_window(home=demo_home, demo=True)
    window = context.window
    window.resize(1280, 800)
    run(laid_out())
    assert window.width() == 1280  # nothing forces the window wider than asked
    image = window.grab().toImage()
    assert image.width() >= 1280 and not image.isNull()
    assert window.conversation.list.visualRect(
        window.conversation.model.index(0)
    ).topLeft() == QPoint(0, 0)
