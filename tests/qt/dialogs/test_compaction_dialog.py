"""The compaction dialog: preview, run, cancel, undo, and refusing to write over another writer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from rho_desk.core.compaction.local import LocalCompactor, RecentBudget
from rho_desk.core.stores.rho_files import NodeKind, SessionWriter, read_session
from rho_desk.core.wire import Message
from rho_desk.qt.compact.model import Fate
from rho_desk.qt.services.settings import (
    PREFS_COMPACTION_COMPACTOR,
    PREFS_COMPACTION_KEEP_MESSAGES,
    PREFS_COMPACTION_KEEP_TOKENS,
)
from rho_desk.qt.ui.roles import Role

from ...providers.loopback import Loopback
from ..conftest import emitted, idle, until
from ..helpers import v3_session, v4_session
from .conftest import text_reply


def _grown(path: Path, turns: int = 4) -> Path:
    """``path`` with a few long turns appended (by our writer), so a digest shrinks the context."""
    with SessionWriter(read_session(path, check_name=False), take_lease=False) as writer:
        state = writer.tree.snapshot(trim=False, prompt_cache_key=None)
        for i in range(turns):
            added = (
                Message.user_text(f"long request {i}: " + "details " * 120),
                Message.assistant_text(f"long answer {i}: " + "findings " * 120),
            )
            state = state.replace(revision=state.revision + 1, history=state.history + added)
            writer.save(state)
    return path


def _dialog(make_window, run, path: Path, keep: int = 8):
    context = make_window(open_file=path)
    dialog = context.session_commands.show_dialog("compact")
    dialog.keep_tokens.setValue(0)
    dialog.keep_messages.setValue(keep)
    run(idle(context.bridge))  # the dialog's opening work: its preview and the profiles it offers
    return context, dialog


def test_the_preview_shows_what_would_be_removed_and_kept(make_window, run, tmp_path: Path) -> None:
    path = v3_session(tmp_path / "home", turns=10)
    context, dialog = _dialog(make_window, run, path)
    history = context.document.tree.history()
    expected = LocalCompactor(RecentBudget(max_tokens=None, max_messages=8)).preview(history)
    model = dialog.model
    fates = [model.data(model.index(r, 0), Role.KIND) for r in range(model.rowCount())]
    assert fates.count(Fate.REMOVED) == len(expected.removed) and fates.count(Fate.KEPT) == 8
    # B2: messages as the session card counts them (the system prompt is not one): "14 → 14
    # messages" in the dialog stood beside "13 msgs" on the card
    system = len(expected.partition.system)
    assert system == 1
    assert (
        dialog.card_messages.value.text()
        == f"{expected.previous_messages - 1:,} → {expected.current_messages - 1:,}"
    )
    from rho_desk.core.stores.rho_files.summary import message_count

    tree = context.document.tree
    shown = message_count(
        tree, tree.active_leaf
    )  # what the card, the header and `rho-desk show` say
    assert dialog.card_messages.value.text().startswith(f"{shown:,} → ")
    assert dialog.card_tokens.value.text().startswith(
        f"{expected.previous_tokens:,} → {expected.current_tokens:,}"
    )
    assert dialog.digest.toPlainText() == expected.replacement_message.text()
    assert dialog.compact_button.isEnabled()
    # a larger budget: nothing to compact, and the button says no
    dialog.keep_messages.setValue(1000)
    run(until(lambda: dialog.data is not None and dialog.data.preview.nothing_to_compact))
    assert dialog.data.preview.nothing_to_compact and not dialog.compact_button.isEnabled()
    assert "Nothing to compact" in dialog.digest_title.text()
    # no limit on either: not silently replaced by defaults; the dialog asks for a limit
    dialog.keep_messages.setValue(0)
    run(until(lambda: dialog.budget() is None and dialog.data is None))
    assert dialog.budget() is None and dialog.data is None
    assert not dialog.compact_button.isEnabled() and dialog.notice.isVisible()
    assert "at least one limit" in dialog.notice.text.text()
    dialog.start()  # refused, nothing written
    assert not dialog.running


@pytest.mark.parametrize("maker", [v3_session, v4_session], ids=["v3", "v4"])
def test_compact_writes_a_new_base_and_undo_restores(
    make_window, run, tmp_path: Path, maker
) -> None:
    path = _grown(
        maker(tmp_path / "home", turns=10) if maker is v3_session else maker(tmp_path / "home")
    )
    context, dialog = _dialog(make_window, run, path, keep=2 if maker is v4_session else 8)
    before = context.document.tree.active_leaf
    old_history = context.document.tree.history(before)
    compacted: list[object] = []
    dialog.sig_compacted.connect(compacted.append)
    dialog.start()
    assert dialog.running and dialog.cancel_button.isVisible()
    run(until(lambda: bool(compacted)))
    assert compacted and not dialog.running
    tree = read_session(path, check_name=False).tree
    leaf = tree.active_leaf
    assert leaf.kind is NodeKind.COMPACTION and leaf.revision == before.revision + 1
    assert leaf.compaction.completed_compactions == before.compaction.completed_compactions + 1
    written = dialog.last_result
    assert len(tree.history(leaf)) == written.outcome.current_messages < len(old_history)
    # the dialog shows what was written: the digest in the file, and its real size
    assert dialog.digest.toPlainText() == tree.history(leaf)[1].text() == written.replacement.text()
    assert f"{written.replacement_tokens:,}-token digest" in dialog.card_removed.caption.text()
    assert (
        not dialog.compact_button.isEnabled()
    )  # the table shows the compacted revision, not the active one
    assert "Saved as revision" in dialog.busy.label.text() and dialog.undo_button.isEnabled()
    dialog.undo_button.click()
    run(until(lambda: dialog.busy.label.text().startswith("Undone")))
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf) == old_history
    assert (
        (tree.active_leaf.id == before.id)
        if tree.is_tree
        else (tree.active_leaf.revision == before.revision + 2)
    )
    # the dialog's budget was this compaction's: the defaults automatic compaction uses are unchanged
    settings = context.services.settings
    assert (
        settings.get(PREFS_COMPACTION_KEEP_MESSAGES) == PREFS_COMPACTION_KEEP_MESSAGES.default == 24
    )
    assert settings.get(PREFS_COMPACTION_KEEP_TOKENS) == PREFS_COMPACTION_KEEP_TOKENS.default
    assert settings.get(PREFS_COMPACTION_COMPACTOR) == PREFS_COMPACTION_COMPACTOR.default


def test_cancel_while_the_compactor_opens_ends_the_run(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    """Cancel before the compactor ran (its key still being read): the dialog says nothing was
    written, and the slot is free for the next operation."""
    path = v3_session(tmp_path / "home", turns=10)
    size = path.stat().st_size
    context, dialog = _dialog(make_window, run, path)
    dialog.compactor.setCurrentIndex(dialog.compactor.findData("loopback"))
    dialog.start()
    assert dialog.running and dialog.cancel_button.isVisible()
    dialog.cancel_button.click()
    run(until(lambda: "Cancelled: nothing was written" in dialog.busy.label.text(), timeout=10))
    assert not dialog.running and not dialog.cancel_button.isVisible()
    assert context.operations.operation is None and not loopback.requests
    assert path.stat().st_size == size


def test_closing_the_window_while_the_compactor_opens_starts_nothing(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    """The window closing cancels the compaction: the dialog starts no new preview on the closed
    bridge (no error in Qt's event loop)."""
    path = v3_session(tmp_path / "home", turns=10)
    context, dialog = _dialog(make_window, run, path)
    dialog.compactor.setCurrentIndex(dialog.compactor.findData("loopback"))
    errors: list[dict[str, object]] = []
    asyncio.get_event_loop().set_exception_handler(lambda _loop, error: errors.append(error))
    dialog.start()
    run(context.ashutdown())
    assert errors == [] and context.operations.operation is None and not loopback.requests


def test_cancel_stops_a_provider_summary_and_writes_nothing(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v3_session(tmp_path / "home", turns=10)
    size = path.stat().st_size
    context, dialog = _dialog(make_window, run, path)
    index = dialog.compactor.findData("loopback")
    assert index > 0
    dialog.compactor.setCurrentIndex(index)
    assert "Estimate" in dialog.digest_title.text()
    loopback.queue(text_reply("The summary starts", " and never ends", hang=True))
    dialog.start()
    run(until(lambda: bool(loopback.requests)))
    dialog.cancel_button.click()
    run(until(lambda: "Cancelled: nothing was written" in dialog.busy.label.text()))
    run(loopback.disconnected.wait())
    assert not dialog.running and "Cancelled: nothing was written" in dialog.busy.label.text()
    assert path.stat().st_size == size
    assert context.operations.operation is None  # the slot is free again
    # the summary request asked the profile's model, with the key from the keyring
    request = loopback.requests[0]
    assert request.body["model"] == "gpt-test" and request.headers["Authorization"].startswith(
        "Bearer sk-loopback"
    )


def test_a_provider_summary_is_written_with_its_cost(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v3_session(tmp_path / "home", turns=10)
    _context, dialog = _dialog(make_window, run, path)
    dialog.compactor.setCurrentIndex(dialog.compactor.findData("loopback"))
    loopback.queue(text_reply("The user asked for ", "ten prompts; each was answered."))
    run(emitted(dialog.sig_compacted, dialog.start))
    tree = read_session(path, check_name=False).tree
    replacement = tree.history(tree.active_leaf)[1]
    assert (
        replacement.text().startswith("[rho-desk summary v1]")
        and "each was answered" in replacement.text()
    )
    assert tree.active_leaf.kind is NodeKind.COMPACTION


def test_another_writer_during_the_run_means_nothing_is_written(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v4_session(tmp_path / "home")
    context, dialog = _dialog(make_window, run, path, keep=2)
    dialog.compactor.setCurrentIndex(dialog.compactor.findData("loopback"))
    loopback.queue(text_reply("slow", " summary", delay=0.3))
    dialog.start()
    run(until(lambda: bool(loopback.requests)))
    with open(path, "ab") as handle:  # Rho moves the leaf meanwhile
        handle.write(b'{"type":"set_leaf","timestamp":"1767100010","target_id":"n0"}\n')
    size = path.stat().st_size
    run(until(lambda: "nothing was written" in dialog.busy.label.text()))
    assert path.stat().st_size == size  # nothing appended after Rho's record
    assert "nothing was written" in dialog.busy.label.text()
    assert any("changed" in n.text for n in context.notifier.history)


def _counts(context, run, path: Path) -> dict[str, object]:
    """What the app and the command line say about the open session's active revision."""
    from rho_desk.qt.revisions.tree_model import describe_change
    from rho_desk.qt.window.main_window import TAB_REVISIONS, TAB_STATISTICS

    from ...cli.helpers_files import rho_desk

    window = context.window
    context.document.select(context.document.tree.active_leaf)
    window.show_tab(TAB_STATISTICS)
    run(
        until(
            lambda: (
                window.statistics.data is not None
                and window.statistics.data.node is context.document.selected
            )
        )
    )
    stats = window.statistics
    window.show_tab(TAB_REVISIONS)
    run(until(lambda: bool(window.revisions.summary.text())))
    tree = context.document.tree
    shown = rho_desk("show", path, "--display", "--json")
    assert shown.returncode == 0, shown.stderr
    import json

    cli = json.loads(shown.stdout)
    display = tree.display()
    return {
        "card": int(stats.cards["compactions"].value.text()),
        "table": stats.table_model.rowCount(),
        "markers": sum(1 for e in display if e.message.text().startswith("◆ Compacted context")),
        "app_display": len(tree.display(markers=False)),
        "cli_display": len(cli["display"])
        - sum(
            1 for e in cli["display"] if "◆ Compacted context" in json.dumps(e, ensure_ascii=False)
        ),
        "cli_restores": sum(1 for n in cli["nodes"] if n["restores"]),
        "change": describe_change(tree.active_leaf),
        "timeline": window.revisions.summary.text(),
    }


def test_undo_and_redo_of_a_compaction_in_a_v3_line_read_as_restores(
    make_window, run, tmp_path: Path
) -> None:
    path = _grown(v3_session(tmp_path / "home", turns=10))
    context, dialog = _dialog(make_window, run, path, keep=8)
    before = context.document.tree.active_leaf
    dialog.start()
    run(until(lambda: dialog.busy.label.text().startswith("Compacted")))
    compacted = _counts(context, run, path)
    assert compacted["card"] == compacted["table"] == compacted["markers"] == 1
    assert str(compacted["change"]).startswith("Compacted")

    compacted_leaf = context.document.tree.active_leaf
    context.operations.undo()
    run(until(lambda: context.document.tree.active_leaf.id != compacted_leaf.id))
    undone = _counts(context, run, path)
    # a restore, not a second compaction: no compaction on the path, no empty "Compacted" card
    assert undone["card"] == undone["table"] == undone["markers"] == 0
    assert str(undone["change"]).startswith(f"Restored revision {before.revision}")
    fresh = read_session(path, check_name=False).tree
    assert (
        undone["app_display"]
        == undone["cli_display"]
        == len(fresh.display(fresh.nodes[before.id], markers=False))
    )
    assert "1 compaction" in str(undone["timeline"]) and "1 restore" in str(undone["timeline"])
    assert undone["cli_restores"] == 1

    undone_leaf = context.document.tree.active_leaf
    context.operations.redo()
    run(until(lambda: context.document.tree.active_leaf.id != undone_leaf.id))
    redone = _counts(context, run, path)
    assert redone["card"] == redone["table"] == redone["markers"] == 1
    assert str(redone["change"]).startswith(f"Restored revision {before.revision + 1}")
    assert redone["app_display"] == redone["cli_display"]


def test_a_large_restore_is_confirmed_first(make_window, run, tmp_path: Path, monkeypatch) -> None:
    import rho_desk.qt.window.operations as host_module

    path = _grown(v3_session(tmp_path / "home", turns=10))
    context, dialog = _dialog(make_window, run, path, keep=8)
    dialog.start()
    run(until(lambda: dialog.busy.label.text().startswith("Compacted")))
    host = context.operations
    monkeypatch.setattr(host_module, "LARGE_RESTORE_BYTES", 100)  # this small state counts as large
    asked: list[int] = []
    answers = iter([False, True])

    def confirm(size: int, current: int | None, word: str, proceed, declined) -> None:
        asked.append(size)
        (proceed if next(answers) else declined)()

    monkeypatch.setattr(host, "confirm_large_restore", confirm)
    size = path.stat().st_size
    host.undo()
    run(until(lambda: len(asked) == 1))
    assert len(asked) == 1 and path.stat().st_size == size  # declined: nothing written
    assert host.history.status(context.document.tree).undo == "Compaction"
    host.undo()
    run(until(lambda: len(asked) == 2 and path.stat().st_size > size))
    assert len(asked) == 2
    grown = path.stat().st_size - size
    assert (
        abs(grown - asked[1]) < 300
    )  # the size asked about is the size written (± the record's frame)


def test_the_large_restore_question_is_a_box_not_a_nested_loop(
    make_window, run, tmp_path: Path, monkeypatch
) -> None:
    import rho_desk.qt.window.operations as host_module

    path = _grown(v3_session(tmp_path / "home", turns=10))
    context, dialog = _dialog(make_window, run, path, keep=8)
    dialog.start()
    run(until(lambda: dialog.busy.label.text().startswith("Compacted")))
    host = context.operations
    monkeypatch.setattr(host_module, "LARGE_RESTORE_BYTES", 100)
    size = path.stat().st_size
    host.undo()
    # undo returns: the question waits in a window-modal box
    run(until(lambda: host.restore_box is not None))
    box = host.restore_box
    assert (
        box is not None
        and box.isVisible()
        and f"the file is {host_module.human_bytes(size)} now" in box.text()
    )
    box.button(QMessageBox.StandardButton.Cancel).click()
    run(idle(context.bridge))  # nothing to wait for: the cancelled restore writes nothing
    assert path.stat().st_size == size
    host.undo()
    run(until(lambda: host.restore_box is not box))  # a new box (the first closed and is gone)
    host.restore_box.button(QMessageBox.StandardButton.Yes).click()
    run(until(lambda: host.history.status(context.document.tree).redo == "Compaction"))
    assert (
        path.stat().st_size > size
        and host.history.status(context.document.tree).redo == "Compaction"
    )


def test_a_summary_larger_than_what_it_replaces_is_refused(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v4_session(tmp_path / "home")
    size = path.stat().st_size
    _context, dialog = _dialog(make_window, run, path, keep=2)
    # the local preview already says the digest would not shrink these short messages
    assert dialog.data is not None and not dialog.data.preview.shrinks
    assert not dialog.compact_button.isEnabled() and "would not shrink" in dialog.notice.text.text()
    dialog.compactor.setCurrentIndex(dialog.compactor.findData("loopback"))
    assert (
        dialog.compact_button.isEnabled()
    )  # a provider's summary may be shorter: it is checked after
    loopback.queue(text_reply("A very long summary. " * 400))
    dialog.start()
    run(until(lambda: "Refused: nothing was written" in dialog.busy.label.text()))
    assert "Refused: nothing was written" in dialog.busy.label.text()
    assert "would not shrink" in dialog.notice.text.text()
    assert path.stat().st_size == size


def test_the_session_card_follows_a_compaction_and_its_undo(
    make_window, run, tmp_path: Path
) -> None:
    """The card of the compacted session shows the file as it is after the compaction and after
    its undo (count, compactions, date), without a Refresh."""
    from rho_desk.core.stores.rho_files.summary import summarize

    home = tmp_path / "home"
    path = _grown(v3_session(home, turns=10))
    context = make_window(home=home, open_file=path)
    browser = context.window.browser
    run(until(lambda: browser.summary_for(path) is not None))
    before = browser.summary_for(path)
    assert before is not None

    def card_is_the_file() -> bool:
        card, now = browser.summary_for(path), summarize(path)
        return (card.file_size, card.message_count, card.compaction_count, card.updated_at) == (
            now.file_size,
            now.message_count,
            now.compaction_count,
            now.updated_at,
        )

    dialog = context.session_commands.show_dialog("compact")
    dialog.keep_tokens.setValue(0)
    dialog.keep_messages.setValue(8)
    run(until(lambda: dialog.data is not None))
    dialog.start()
    run(until(lambda: not dialog.running and card_is_the_file()))
    compacted = browser.summary_for(path)
    assert compacted.compaction_count == 1 and compacted.updated_at >= before.updated_at
    dialog.undo_button.click()
    run(until(lambda: browser.summary_for(path).compaction_count == 0 and card_is_the_file()))
    assert browser.summary_for(path).message_count == before.message_count


def test_the_dialog_says_it_computes_names_the_session_and_says_nothing_once(
    make_window, run, tmp_path: Path
) -> None:
    """While the preview is computed (seconds on a long session) the dialog says so under its
    heading, which names the session by its title; "Nothing to compact" is said once."""
    home = tmp_path / "home"
    path = v3_session(home, turns=10)
    context = make_window(home=home, open_file=path)
    summary = context.window.browser.summary_for(path)
    dialog = context.session_commands.show_dialog("compact")
    # at once, before the worker is back: a heading and the computing line, not a blank dialog
    assert (
        dialog.preview_busy.isVisible()
        and "Computing the preview" in dialog.preview_busy.label.text()
    )
    first = summary.first_user_message.splitlines()[0]
    assert (
        dialog.heading.text().startswith("Compact revision ")
        and f"“{first}" in dialog.heading.text()
    )
    assert summary.id[:8] not in dialog.heading.text()
    run(until(lambda: dialog.data is not None))
    assert not dialog.preview_busy.isVisible() and dialog.data is not None
    dialog.keep_tokens.setValue(0)
    dialog.keep_messages.setValue(1000)
    run(until(lambda: dialog.data is not None and dialog.data.preview.nothing_to_compact))
    assert (
        dialog.data.preview.nothing_to_compact
        and "Nothing to compact" in dialog.digest_title.text()
    )
    assert not dialog.notice.isVisible()  # not a second time in the banner
