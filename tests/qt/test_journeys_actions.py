"""End-to-end journeys of the actions on the demo library, with a loopback model server:
compact (preview, cancel, run, undo), export with two class selections (audited), and continue
(replay-safety confirmation, streaming, then Cancel). Driven through the actions and keys a user
presses; every model call goes to 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from rho_desk.core.export import ContentClass
from rho_desk.core.session import turn
from rho_desk.core.stores.rho_files import NodeKind, read_session
from rho_desk.core.wire import Message
from rho_desk.qt.compact.model import Fate
from rho_desk.qt.ui.roles import Role

from .conftest import moved, until
from .dialogs.conftest import (
    audit_written,
    demo_session,
    loopback,
    loopback_profile,
    text_reply,
)
from .helpers import turn_events

__all__ = ["loopback", "loopback_profile"]  # fixtures used by the journeys below

WEBHOOK = "5f0c2a9e"  # payments-api, v4 tree with a branch and a compaction
NOTEBOOK = "4a7e2c19"  # churn-analysis, v3 line with an image


def test_journey_compact_with_preview_cancel_run_and_undo(
    make_window, run, demo_home: Path, qtbot, loopback, loopback_profile
) -> None:
    path = demo_session(demo_home, NOTEBOOK)
    context = make_window(home=demo_home, open_file=path)
    window = context.window
    before = context.document.tree.active_leaf
    original = context.document.tree.history(before)
    size = path.stat().st_size
    # Ctrl+Shift+K opens the dialog
    qtbot.keyClick(
        window,
        Qt.Key.Key_K,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    dialog = context.session_commands.dialogs["compact"]
    assert dialog.isVisible()
    dialog.keep_tokens.setValue(0)
    dialog.keep_messages.setValue(4)
    run(until(lambda: dialog.data is not None))
    # 1. the preview: what goes, what stays, the token estimates and the draft digest
    model = dialog.model
    fates = [model.data(model.index(r, 0), Role.KIND) for r in range(model.rowCount())]
    preview = dialog.data.preview
    kept = len(preview.partition.recent)
    assert fates[0] is Fate.SYSTEM and Fate.REMOVED in fates and 0 < kept <= 4
    assert fates[-kept:] == [Fate.KEPT] * kept  # a tool call is never separated from its result
    assert (
        "→" in dialog.card_tokens.value.text() and preview.current_tokens < preview.previous_tokens
    )
    assert dialog.digest.toPlainText().startswith("[rho-desk digest v1]")
    # 2. run with the provider's summary, then cancel it: nothing is written
    dialog.compactor.setCurrentIndex(dialog.compactor.findData("loopback"))
    loopback.queue(text_reply("Summarising", hang=True))
    dialog.compact_button.click()
    run(until(lambda: bool(loopback.requests)))
    assert dialog.cancel_button.isVisible()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)  # Esc cancels a running compaction
    run(until(lambda: "Cancelled" in dialog.busy.label.text()))
    run(loopback.disconnected.wait())
    assert "Cancelled" in dialog.busy.label.text() and path.stat().st_size == size
    # 3. run the local compactor: a new complete base
    dialog.compactor.setCurrentIndex(0)
    dialog.compact_button.click()
    run(until(lambda: dialog.busy.label.text().startswith("Compacted")))
    tree = read_session(path).tree
    assert (
        tree.active_leaf.kind is NodeKind.COMPACTION
        and tree.active_leaf.revision == before.revision + 1
    )
    outcome = dialog.last_result.outcome
    assert len(tree.history(tree.active_leaf)) == outcome.current_messages
    assert context.document.selected.id == tree.active_leaf.id  # the views show it
    # 4. close the dialog; Ctrl+Z (Edit > Undo Compaction) in the window: the previous state is
    #    appended again as a new base (a v3 line cannot point back)
    assert "Compaction" in context.actions["edit.undo"].text() and dialog.undo_button.isEnabled()
    dialog.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    run(
        moved(
            context.document,
            lambda: qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier),
        )
    )
    tree = read_session(path).tree
    assert (
        tree.history(tree.active_leaf) == original
        and tree.active_leaf.revision == before.revision + 2
    )
    assert (
        tree.active_leaf.restores is not None and tree.active_leaf.restores.id == before.id
    )  # a restore
    # redo (Ctrl+Shift+Z) brings the compaction back, once the undo has made it possible
    run(until(lambda: context.actions["edit.redo"].isEnabled()))
    qtbot.keyClick(
        window,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    run(
        until(
            lambda: (
                len(context.document.tree.history(context.document.tree.active_leaf))
                == outcome.current_messages
            )
        )
    )
    tree = read_session(path).tree
    assert len(tree.history(tree.active_leaf)) == outcome.current_messages


def test_journey_export_with_two_class_selections(
    make_window, run, demo_home: Path, tmp_path: Path, qtbot
) -> None:
    path = demo_session(demo_home, WEBHOOK)
    context = make_window(home=demo_home, open_file=path)
    qtbot.keyClick(context.window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)  # Ctrl+E
    dialog = context.session_commands.dialogs["export"]
    run(until(lambda: dialog.current() is not None))
    outputs = []
    # selection 1: everything but provider context and metadata, as a JSON snapshot
    dialog.set_selection(
        {c for c in ContentClass} - {ContentClass.PROVIDER_CONTEXT, ContentClass.METADATA}
    )
    dialog.schedule(now=True)
    run(until(lambda: dialog.current() is not None))
    first = tmp_path / "share-with-team.json"
    dialog.export_to(first)
    run(until(lambda: dialog.last_written is not None and dialog.last_written[0] == first))
    outputs.append(first)
    # selection 2: no user text, no tool records, as Markdown
    dialog.set_selection(
        {ContentClass.INSTRUCTIONS, ContentClass.ASSISTANT, ContentClass.REASONING_SUMMARIES}
    )
    dialog.set_format("markdown")
    dialog.schedule(now=True)
    run(until(lambda: dialog.current() is not None))
    result = dialog.current()
    assert result is not None and not result.blocked
    second = tmp_path / "answers-only.md"
    dialog.export_to(second)
    run(until(lambda: dialog.last_written is not None and dialog.last_written[0] == second))
    outputs.append(second)
    # both are audited again from the files, as `rho-desk audit` does, and match their receipts
    for output in outputs:
        check, report, _receipt = audit_written(
            output, output.with_name(output.name + ".receipt.json")
        )
        assert check.ok, (output, check.to_json())
        assert not report.blocking
    first_receipt = audit_written(first, first.with_name(first.name + ".receipt.json"))[2]
    second_receipt = audit_written(second, second.with_name(second.name + ".receipt.json"))[2]
    assert first_receipt.selection.excluded == ["provider_context", "metadata"]
    assert set(second_receipt.selection.excluded) == {
        "user",
        "tool_records",
        "images",
        "documents",
        "provider_context",
        "metadata",
    }
    text = second.read_text()
    snapshot = context.document.snapshot()
    user_text = next(m.text() for m in snapshot.history if m.user is not None and m.text().strip())
    assert user_text not in text and "[user excluded" in text
    assert first.read_bytes() != second.read_bytes()


def test_journey_continue_streams_then_cancel(
    make_window, run, demo_home: Path, qtbot, loopback, loopback_profile
) -> None:
    path = demo_session(demo_home, WEBHOOK)
    context = make_window(home=demo_home, open_file=path)
    window, host = context.window, context.continue_dock
    start = read_session(path).tree.active_leaf.revision
    qtbot.keyClick(
        window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier
    )  # Ctrl+L: the composer
    panel, controller = host.panel, context.controller
    assert host.isVisible() and panel.composer.hasFocus()
    deltas = turn_events(controller, turn.TextDelta, lambda e: e.text)
    qtbot.keyClicks(panel.composer, "Is the flaky test fixed for good?")
    qtbot.keyClick(panel.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    run(until(lambda: panel.handoff.isVisible()))
    # the history holds OpenAI reasoning blocks the loopback model cannot be sent: confirm first
    assert panel.handoff.isVisible() and not loopback.requests
    loopback.queue(text_reply("Yes:", " the clock", " is frozen now.", delay=0.05))
    panel.send_anyway.click()
    run(until(lambda: not controller.busy))
    assert deltas == ["Yes:", " the clock", " is frozen now."]
    assert "Assistant: Yes: the clock is frozen now." in panel.reply.toPlainText()
    tree = read_session(path).tree
    assert (
        tree.active_leaf.revision == start + 1
        and tree.history(tree.active_leaf)[-1].text() == "Yes: the clock is frozen now."
    )
    # the next reply hangs; Esc in the composer cancels it: the prompt and the partial reply are kept
    loopback.queue(text_reply("Let me check", " the CI logs", hang=True))
    qtbot.keyClicks(panel.composer, "Check CI")
    qtbot.keyClick(panel.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    run(until(lambda: "".join(deltas).endswith("the CI logs")))
    qtbot.keyClick(panel.composer, Qt.Key.Key_Escape)
    run(until(lambda: not controller.busy))
    tree = read_session(path).tree
    history = tree.history(tree.active_leaf)
    assert tree.active_leaf.revision == start + 2
    assert (
        history[-2] == Message.user_text("Check CI") and history[-1].aborted_assistant is not None
    )
    assert "Cancelled" in panel.reply.toPlainText()
    # what was sent never included the other providers' native blocks
    assert all("encrypted_content" not in str(r.body) for r in loopback.requests)
