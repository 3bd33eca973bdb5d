"""Undo is honest (issue 32, item 3): Edit ▸ Undo names what it will undo, and never reaches past
an action to a change made before it.

The attack of the issue: a session is open and was compacted; the user moves another session to
the trash and presses Ctrl+Z, meaning "take that back". Undo used to undo the compaction (a new
revision written to the open session) and leave the other session in the trash. Now the move to
the trash joins the stack with its own undo; a restore in the Changes tab and a rename do too;
emptying the trash and publishing end it (the menu then says what cannot be undone).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.wire import SessionSnapshot
from rho_desk.qt.recovery.view import TrashDialog
from rho_desk.qt.services.undo import UndoStack

from ..qt.conftest import collect_garbage_here, isolated_dirs, make_window, qloop, run, until
from ..qt.helpers import v3_session

__all__ = [
    "collect_garbage_here",
    "isolated_dirs",
    "make_window",
    "qloop",
    "run",
]  # the window's fixtures


def _a_title_change(context, title: str):  # type: ignore[no-untyped-def]
    """An undoable revision of the open session, written as the dialogs write one."""
    document = context.document

    def produce(writer):  # type: ignore[no-untyped-def]
        snapshot: SessionSnapshot = writer.tree.snapshot()
        metadata = {**dict(snapshot.metadata or {}), "title": title}
        return writer.save(
            SessionSnapshot.new(
                snapshot.session_id,
                snapshot.revision + 1,
                snapshot.history,
                snapshot.provider,
                metadata=metadata,
            )
        )

    return context.operations.acommit("Title Change", produce, base=document.tree.active_leaf.id)


def test_undo_after_move_to_trash_takes_back_the_move_not_the_change_before_it(
    make_window, run, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "rho"
    opened = v3_session(home, cwd="/work/open")
    other = v3_session(home, cwd="/work/other")
    context = make_window(home=home, open_file=opened)
    undo = context.actions["edit.undo"]
    run(_a_title_change(context, "compacted"))
    run(until(lambda: undo.text() == "&Undo Title Change" and undo.isEnabled()))
    revision = read_session(opened).tree.active_leaf.revision
    assert undo.text() == "&Undo Title Change" and undo.isEnabled()
    browser = context.window.browser
    row = next(
        r
        for r in range(browser.model.rowCount())
        if browser.model.summaries()[r].path == str(other)
    )
    browser.list.setCurrentIndex(browser.model.index(row))
    context.actions.trigger("library.trash")
    box = context.window.commands.dialog
    assert isinstance(box, QMessageBox)
    next(b for b in box.buttons() if b.text() == "Move to Trash").click()
    listed = lambda: str(other) in [s.path for s in browser.model.summaries()]  # noqa: E731
    run(until(lambda: undo.text().startswith("&Undo Move to Trash “") and not listed()))
    assert not other.exists()
    # Edit > Undo names the move, and takes it back: the open session is not touched
    assert undo.text().startswith("&Undo Move to Trash “") and undo.isEnabled()
    context.actions.trigger("edit.undo")
    run(until(lambda: listed() and undo.text() == "&Undo Title Change"))
    assert other.is_file(), "the session came back from the trash"
    assert read_session(opened).tree.active_leaf.revision == revision, "Undo reached past the move"
    assert str(other) in [s.path for s in browser.model.summaries()]
    # then the change before it, by name
    assert undo.text() == "&Undo Title Change"
    context.actions.trigger("edit.undo")
    run(until(lambda: read_session(opened).tree.active_leaf.revision == revision + 1))
    assert (
        read_session(opened).tree.active_leaf.revision == revision + 1
    )  # the earlier state written again


def test_emptying_the_trash_ends_the_stack_and_says_so(make_window, run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    home = tmp_path / "rho"
    opened = v3_session(home, cwd="/work/open")
    gone = v3_session(home, cwd="/work/gone")
    context = make_window(home=home, open_file=opened)
    summary = context.window.browser.summary_for(gone)
    run(context.library.atrash(summary.workspace_key, summary.id))
    run(_a_title_change(context, "changed"))
    run(until(lambda: context.actions["edit.undo"].text() == "&Undo Title Change"))
    revision = read_session(opened).tree.active_leaf.revision
    context.actions.trigger("library.trash_view")
    dialog = context.window.commands.dialog
    assert isinstance(dialog, TrashDialog)
    run(until(lambda: dialog.empty_button.isEnabled()))  # the deleted sessions are listed
    dialog.empty_button.click()
    next(b for b in dialog.confirm.buttons() if b.text() == "Delete for Good").click()
    run(until(lambda: context.actions["edit.undo"].text().startswith("Can't &Undo Empty Trash")))
    undo = context.actions["edit.undo"]
    assert undo.text().startswith("Can't &Undo Empty Trash") and not undo.isEnabled()
    context.operations.undo()  # even asked directly: nothing before it is reached
    run(
        until(
            lambda: (
                context.notifier.history and "cannot be undone" in context.notifier.history[-1].text
            )
        )
    )
    assert read_session(opened).tree.active_leaf.revision == revision
    assert "cannot be undone" in context.notifier.history[-1].text
    dialog.close()


def test_the_stack_in_order_joined_and_ended() -> None:
    stack = UndoStack()
    undone: list[str] = []

    async def take_back(name: str) -> None:
        undone.append(name)

    trash = stack.record("Move to Trash “a”", lambda: take_back("a"))
    assert stack.top() is trash
    stack.history.done.append(object())  # type: ignore[arg-type]  # a revision change after it
    assert stack.top() is None  # Undo now takes back the revision change first
    stack.history.done.pop()
    assert stack.top() is trash
    asyncio.run(trash.undo())  # type: ignore[misc]
    stack.done_with(trash)
    assert undone == ["a"] and stack.top() is None
    stack.history.done.append(object())  # type: ignore[arg-type]
    publish = stack.record("Publish to Team alpha")
    assert (
        stack.top() is publish and publish.undo is None and not stack.history.done
    )  # the stack ends here
    stack.reset(Path("another.jsonl"))
    assert stack.top() is publish  # another file: the window's steps stay


@pytest.mark.usefixtures("isolated_dirs")
def test_a_restore_in_the_changes_tab_joins_the_stack(make_window, run, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from rho_desk.core.tools.trust import TrustStore

    from ..core.changes.helpers import coding_session

    workspace = tmp_path / "w"
    workspace.mkdir()
    path = coding_session(tmp_path / "rho", workspace)
    (workspace / "app.py").write_text("def main():\n    print('hi')\n")  # as turn 1 left it
    TrustStore().trust(workspace)
    context = make_window(home=tmp_path / "rho", open_file=path)
    view = context.window.changes
    view.refresh()
    run(until(lambda: view.changes is not None))
    change = next(
        f for t in view.changes.turns for f in t.files if f.path == "app.py" and t.turn == 1
    )
    from rho_desk.core.changes.restore import preview_restore

    preview = preview_restore(change, workspace=view.changes.workspace)
    assert preview.possible
    view._restore(preview)
    run(until(lambda: context.actions["edit.undo"].text() == "&Undo Restore app.py"))
    assert not (workspace / "app.py").exists()  # the turn created it: the restore deletes it
    undo = context.actions["edit.undo"]
    assert undo.text() == "&Undo Restore app.py" and undo.isEnabled()
    context.actions.trigger("edit.undo")
    run(until(lambda: view.receipts == [] and undo.text() == "&Undo"))
    assert (workspace / "app.py").read_text() == "def main():\n    print('hi')\n"
    assert view.receipts == [] and undo.text() == "&Undo"
