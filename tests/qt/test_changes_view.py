"""The Changes tab: files by turn with coloured diffs, from a change to its turn and back, restore
with undo by Rho's rule, and the library's "sessions that touched this file"; its models pass
QAbstractItemModelTester."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rho_desk.core.changes import CheckpointOutcome, CheckpointRecorder, session_changes
from rho_desk.core.changes.index import PathIndex
from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.tools.trust import TrustStore
from rho_desk.qt.changes.model import LibraryTouchedModel, TouchedFilesModel
from rho_desk.qt.window.main_window import TAB_CHANGES, TAB_CONVERSATION

from ..core.changes.helpers import SESSION_ID, coding_session
from .conftest import laid_out, until


def _session_with_journal(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    workspace = tmp_path / "w"
    workspace.mkdir()
    path = coding_session(home, workspace)
    leaf = read_session(path).tree.active_leaf
    assert leaf is not None
    recorder = CheckpointRecorder()
    recorder.begin_turn(path, SESSION_ID, 4)
    loop = asyncio.new_event_loop()  # not asyncio.run: it would unset the app's loop
    try:
        loop.run_until_complete(recorder.before_mutation([workspace / "app.py"]))
        (workspace / "app.py").write_text("print('turn four')\n")
        loop.run_until_complete(recorder.after_mutation([workspace / "app.py"]))
    finally:
        loop.close()
    recorder.bind(leaf.id, leaf.revision)
    recorder.end_turn(CheckpointOutcome.COMPLETED)
    return home, workspace, path


def test_models_pass_the_tester(qtmodeltester, tmp_path: Path) -> None:
    _home, _workspace, path = _session_with_journal(tmp_path)
    model = TouchedFilesModel()
    qtmodeltester.check(model)
    model.set_changes(session_changes(path))
    qtmodeltester.check(model)
    assert model.rowCount() == 2 and model.rowCount(model.index(0, 0)) == 3  # app.py: turns 1, 2, 4
    library = LibraryTouchedModel()
    library.set_rows(PathIndex.in_memory().search("x"))
    qtmodeltester.check(library)


def test_changes_tab_diff_navigation_and_restore_with_undo(
    make_window, run, tmp_path: Path
) -> None:
    home, workspace, path = _session_with_journal(tmp_path)
    TrustStore().trust(workspace)  # a restore writes only in a folder trusted for tools
    context = make_window(home=home, open_file=path)
    window = context.window
    view = window.changes
    window.app_actions.trigger("view.changes")
    assert window.tabs.currentIndex() == TAB_CHANGES
    run(until(lambda: view.changes is not None))
    run(until(lambda: "2 files changed in 3 turns" in view.summary.text()))
    assert (
        "2 files changed in 3 turns" in view.summary.text()
        and "checkpoint journal" in view.summary.text()
    )
    assert "1 shell command" in view.summary.text()
    # the first change: app.py created in turn 1, as a coloured unified diff (computed off the
    # GUI thread after the changes are listed)
    first = "diff --git a/app.py b/app.py\nnew file mode"
    run(until(lambda: view.diff.toPlainText().startswith(first)))
    # turn 4's journalled change of app.py
    index = view.model.index_of("app.py", 4)
    view.tree.setCurrentIndex(index)
    run(until(lambda: "+print('turn four')" in view.diff.toPlainText()))
    assert "+print('turn four')" in view.diff.toPlainText()
    # to the turn in the conversation, and back
    view.go_to_turn()
    run(until(lambda: window.tabs.currentIndex() == TAB_CONVERSATION))
    assert window.tabs.currentIndex() == TAB_CONVERSATION
    row = window.conversation.current_row()
    assert window.conversation.model.rows.messages[row].user is not None
    assert view.current()[0].message_index == row  # type: ignore[index]
    window.conversation.select_row(row + 1)  # a message inside turn 4
    window.app_actions.trigger("view.turn_changes")
    run(
        until(
            lambda: (
                window.tabs.currentIndex() == TAB_CHANGES
                and view.current() is not None
                and view.current()[0].turn == 4
            )
        )
    )
    assert window.tabs.currentIndex() == TAB_CHANGES and view.current()[0].turn == 4  # type: ignore[index]
    # restore app.py as it was before turn 4: the dialog shows the diff first
    view.tree.setCurrentIndex(view.model.index_of("app.py", 4))
    view.request_restore()
    run(until(lambda: view.restore_dialog is not None and view.restore_dialog.isVisible()))
    dialog = view.restore_dialog
    assert dialog is not None and dialog.restore_button.isEnabled()
    assert "-print('turn four')" in dialog.body.toPlainText()
    assert (workspace / "app.py").read_text() == "print('turn four')\n"  # nothing yet
    dialog.accept()
    run(until(lambda: view.receipts != []))
    assert (workspace / "app.py").read_text() == "def main():\n    print('hello')\n"
    assert view.undo_button.isEnabled()
    view.undo_last_restore()
    run(until(lambda: view.receipts == []))
    assert (workspace / "app.py").read_text() == "print('turn four')\n"
    # changed by someone since: the restore is refused in the dialog
    (workspace / "app.py").write_text("mine\n")
    view.request_restore()
    run(until(lambda: view.restore_dialog is not dialog and view.restore_dialog is not None))
    assert not view.restore_dialog.restore_button.isEnabled()  # type: ignore[union-attr]
    view.restore_dialog.reject()  # type: ignore[union-attr]
    assert (workspace / "app.py").read_text() == "mine\n"
    view.close_index()


def test_library_search_finds_sessions_that_touched_a_file(
    make_window, run, tmp_path: Path
) -> None:
    home, _workspace, path = _session_with_journal(tmp_path)
    context = make_window(home=home)
    window = context.window
    window.app_actions.trigger("view.changes")
    view = window.changes
    view.search.setText("READ")
    run(until(lambda: view.library_model.rowCount() == 1))
    assert view.left.currentWidget() is view.results
    assert view.library_model.rows[0].shown == "README.md" and view.library_model.rows[
        0
    ].session_path == str(path)
    # the session by its title, as its card names it, not an 8-hex id (N24)
    session = view.library_model.index(0, 1).data()
    summary = next(
        s
        for s in run(context.services.library.alist(None)).sessions
        if s.id == view.library_model.rows[0].session_id
    )
    title = (summary.title or summary.first_user_message).splitlines()[0]
    assert session.startswith(title[:70]) and session.endswith(Path(summary.cwd).name), session
    view.results.activated.emit(view.library_model.index(0, 0))
    run(until(lambda: context.services.document.path == path and view.changes is not None))
    run(until(lambda: view.current() is not None and view.current()[1].path == "README.md"))
    assert view.current()[1].path == "README.md"  # type: ignore[index]
    view.close_index()


def test_file_names_stay_readable_at_1024_pixels(make_window, run, tmp_path: Path) -> None:
    """N5: at 1024 x 700 the File column was squeezed to "…" by Turn and Change sized to
    "unsaved turn (failed)"; now they take at most a quarter each and File the rest."""
    home, _workspace, path = _session_with_journal(tmp_path)
    context = make_window(home=home, open_file=path)
    window = context.window
    window.resize(921, 630)  # what it opens at on a 1024 x 700 screen
    window.app_actions.trigger("view.changes")
    view = window.changes
    run(until(lambda: view.changes is not None))
    run(laid_out())
    viewport = view.tree.viewport().width()
    assert viewport >= 250, (
        viewport
    )  # the buttons no longer squeeze the tree's pane (170 pixels before)
    assert view.tree.columnWidth(1) <= viewport // 4 and view.tree.columnWidth(2) <= viewport // 4
    assert view.tree.columnWidth(0) >= viewport // 2 - 1, (
        viewport,
        [view.tree.columnWidth(c) for c in range(3)],
    )
