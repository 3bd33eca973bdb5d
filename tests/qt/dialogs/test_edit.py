"""Editing as new revisions: the three edit dialogs, undo and redo (the rules: tests/core/test_edit_rules.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.revisions.rules import provider_block_counts
from rho_desk.core.revisions.undo import NothingToUndo
from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.wire import (
    Message,
    ModelIdentity,
)

from ..conftest import emitted, idle, moved, until
from ..helpers import v3_session, v4_session

OTHER = ModelIdentity("anthropic", "anthropic-messages", "claude-test")


def _app(make_window, path: Path):
    context = make_window(open_file=path)
    return context, context.operations


@pytest.mark.parametrize("maker", [v3_session, v4_session], ids=["v3", "v4"])
def test_delete_a_range_as_a_new_revision_then_undo_and_redo(
    make_window, run, tmp_path: Path, maker
) -> None:
    path = maker(tmp_path / "home")
    context, host = _app(make_window, path)
    before = context.document.tree.active_leaf
    history = context.document.tree.history(before)
    dialog = context.session_commands.show_dialog("edit")
    run(until(lambda: dialog.shown is context.document.tree.active_leaf))
    call_row = next(i for i, m in enumerate(history) if any(True for _ in m.tool_calls()))
    dialog.select_rows(call_row, call_row)
    dialog.delete_selected()
    assert "paired message" in dialog.notice.text.text() and dialog.model.rows[call_row + 1].cascade
    run(emitted(dialog.sig_saved, dialog.save))
    tree = read_session(path, check_name=False).tree
    leaf = tree.active_leaf
    assert leaf.revision == before.revision + 1
    saved = tree.history(leaf)
    assert (
        len(saved) == len(history) - 2
        and history[call_row] not in saved
        and history[call_row + 1] not in saved
    )
    undo = context.actions["edit.undo"]
    assert undo.isEnabled() and "Delete 2 Messages" in undo.text().replace("&", "")
    # undo: the previous revision is active again (set_leaf in v4; a copy appended in v3)
    run(moved(context.document, lambda: context.actions.trigger("edit.undo")))
    run(until(lambda: context.actions["edit.redo"].isEnabled()))
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf) == history
    if tree.is_tree:
        assert tree.active_leaf.id == before.id
    else:
        assert tree.active_leaf.revision == before.revision + 2
    assert context.actions["edit.redo"].isEnabled()
    run(moved(context.document, lambda: context.actions.trigger("edit.redo")))
    run(until(lambda: not context.actions["edit.redo"].isEnabled()))
    tree = read_session(path, check_name=False).tree
    assert len(tree.history(tree.active_leaf)) == len(history) - 2
    # nothing left to redo; undo is a no-op once something else moved the session on
    assert not context.actions["edit.redo"].isEnabled()
    with pytest.raises(NothingToUndo):
        run(host.history.aredo(context.document))


def test_edit_text_and_metadata_and_strip(make_window, run, tmp_path: Path) -> None:
    path = v4_session(tmp_path / "home")
    context, _ops = _app(make_window, path)
    dialog = context.session_commands.show_dialog("edit")
    run(until(lambda: dialog.shown is context.document.tree.active_leaf))
    dialog.select_rows(1, 1)  # the first user prompt
    dialog.edit_current()
    dialog.editor.setPlainText("a better prompt")
    dialog.apply_edit()
    assert dialog.model.rows[1].edited and dialog.save_button.isEnabled()
    run(emitted(dialog.sig_saved, dialog.save))
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf)[1] == Message.user_text("a better prompt")

    meta = context.session_commands.show_dialog("metadata")
    run(until(lambda: meta.shown is context.document.tree.active_leaf))
    row = meta.model.add_row()
    meta.model.setData(meta.model.index(row, 0), "ticket")
    meta.model.setData(meta.model.index(row, 1), "PAY-12")
    run(emitted(meta.sig_saved, meta.save))
    tree = read_session(path, check_name=False).tree
    assert tree.snapshot(tree.active_leaf).metadata == {"ticket": "PAY-12"}
    assert "Edit Metadata" in context.actions["edit.undo"].text().replace("&", "")

    strip = context.session_commands.show_dialog("strip")
    run(until(lambda: strip.shown is context.document.tree.active_leaf))
    assert strip.total == 0 and not strip.save_button.isEnabled()  # the helper's history has none


def test_strip_provider_blocks_on_the_demo(make_window, run, demo_home: Path) -> None:
    from .conftest import demo_session

    path = demo_session(demo_home, "c81f3e02")  # the Rust session: OpenAI and Anthropic blocks
    context, _ops = _app(make_window, path)
    strip = context.session_commands.show_dialog("strip")
    run(until(lambda: strip.shown is context.document.tree.active_leaf))
    assert strip.total > 0 and "will be removed" in strip.counts.text()
    run(emitted(strip.sig_saved, strip.save))
    tree = read_session(path, check_name=False).tree
    assert provider_block_counts(tree.history(tree.active_leaf)) == {}
    assert "✓" not in strip.busy.label.text() and "Saved as revision" in strip.busy.label.text()


def test_no_edit_while_a_conversation_runs(make_window, run, tmp_path: Path) -> None:
    path = v3_session(tmp_path / "home")
    size = path.stat().st_size
    context, host = _app(make_window, path)
    strip = context.session_commands.show_dialog("metadata")
    run(until(lambda: strip.shown is context.document.tree.active_leaf))
    assert host.claim("conversation")
    row = strip.model.add_row()
    strip.model.setData(strip.model.index(row, 0), "k")
    strip.save()
    run(idle(context.bridge))  # nothing to wait for: the refused save writes nothing
    assert (
        "Wait until the conversation has finished" in strip.notice.text.text()
        and path.stat().st_size == size
    )
    host.release("conversation")
