"""The model's tools in the window: an approval card answered by keyboard (full diff, approve,
deny with a reason), a shell call's live output, Esc cancelling wherever the focus is, and the
banner when the session's folder is gone. Real files, real processes, the loopback model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView

from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.tools.permissions import PermissionMode
from rho_desk.core.tools.trust import TrustStore
from rho_desk.qt.continue_.controller import TurnState

from ...providers.loopback import OPENAI_DONE, Loopback, Reply, openai_chunk
from ..conftest import laid_out, until
from ..helpers import v3_session
from .conftest import text_reply


def tool_reply(call_id: str, name: str, arguments: dict[str, Any]) -> Reply:
    first = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
            openai_chunk({}, finish="tool_calls"),
            OPENAI_DONE,
        ]
    )


def _open(make_window, run, path: Path, mode: PermissionMode = PermissionMode.SUPERVISED):
    header = read_session(path, check_name=False).tree.header
    if header is not None and Path(header.cwd).is_dir():
        TrustStore().trust(
            header.cwd
        )  # the user trusted the session's folder (test_workspace_trust asks)
    context = make_window(open_file=path)
    host = context.continue_dock
    host.show_continue()
    run(until(lambda: host.panel.profile.count() > 0))  # the panel has read the profiles
    panel = host.panel
    context.window.activateWindow()
    panel.mode_picker.setCurrentIndex(panel.mode_picker.findData(mode.value))
    return context, context.controller, panel


def _results(path: Path) -> dict[str, Any]:
    tree = read_session(path, check_name=False).tree
    return {
        m.tool_result.id: m.tool_result
        for m in tree.history(tree.active_leaf)
        if m.tool_result is not None
    }


def test_an_edit_waits_for_the_card_and_is_approved_by_keyboard(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    target = workspace / "notes.txt"
    original = "".join(f"line {n}\n" for n in range(1, 31))
    target.write_text(original)
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    _context, controller, panel = _open(make_window, run, path)
    new = original
    for n, word in ((3, "three"), (10, "ten"), (17, "seventeen"), (28, "twenty-eight")):
        new = new.replace(f"line {n}\n", f"line {word}\n")
    loopback.queue(
        tool_reply("call_w", "write", {"path": "notes.txt", "content": new}), text_reply("Done.")
    )
    panel.composer.setPlainText("rename two lines")
    panel.send()
    run(until(lambda: panel.approval_card is not None))
    card = panel.approval_card
    assert card is not None and card.window().focusWidget() is card and controller.busy
    assert target.read_text() == original  # nothing written while the card waits
    assert "… " in card.body.toPlainText() and "+line twenty-eight" not in card.body.toPlainText()
    qtbot.keyClick(card, Qt.Key.Key_F)  # the full diff
    assert card.showing_full and "+line twenty-eight" in card.body.toPlainText()
    assert card.body.toPlainText() == controller.pending_approval.diff
    qtbot.keyClick(card, Qt.Key.Key_A)  # approve once
    run(until(lambda: not controller.busy))
    assert target.read_text() == new
    assert panel.approval_card is None
    result = _results(path)["call_w"]
    assert result.ok and result.content.startswith("wrote notes.txt\n\n[notes.txt#")
    assert "● write notes.txt" in panel.reply.toPlainText()


def test_a_denial_with_a_reason_reaches_the_model(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    _context, controller, panel = _open(make_window, run, path)
    loopback.queue(
        tool_reply("call_b", "bash", {"command": "touch made"}), text_reply("OK, not running it.")
    )
    panel.composer.setPlainText("make a file")
    panel.send()
    run(until(lambda: panel.approval_card is not None))
    card = panel.approval_card
    assert card is not None and f"Run this command in {workspace}" in card.title.text()
    assert card.body.toPlainText() == f"$ touch made\n\nfolder: {workspace}"
    assert panel.shell_cards == {}  # waiting for approval is not "Running… (Esc stops it)"
    card.reason.setFocus()
    qtbot.keyClicks(card.reason, "use the Makefile")
    qtbot.keyClick(card.reason, Qt.Key.Key_Return)  # Enter in the reason field denies
    run(until(lambda: not controller.busy))
    assert not (workspace / "made").exists()
    assert panel.shell_cards == {}  # denied: it never ran, and no card says it did
    result = _results(path)["call_b"]
    assert not result.ok and result.content == "process capability denied: use the Makefile"
    tool_message = [
        m
        for m in json.loads(json.dumps(loopback.requests[-1].body))["messages"]
        if m["role"] == "tool"
    ]
    assert tool_message[-1]["content"] == "process capability denied: use the Makefile"


def test_shell_output_is_live_and_esc_anywhere_cancels(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    context, controller, panel = _open(make_window, run, path, PermissionMode.BYPASS)
    command = "trap '' TERM; echo compiling; echo warning: slow >&2; while true; do sleep 0.1; done"
    loopback.queue(tool_reply("call_s", "bash", {"command": command}), text_reply("unused"))
    panel.composer.setPlainText("build it")
    panel.send()
    run(
        until(
            lambda: (
                "call_s" in panel.shell_cards
                and "compiling" in panel.shell_cards["call_s"].output.toPlainText()
            )
        )
    )
    card = panel.shell_cards["call_s"]
    assert (
        card.output.toPlainText().startswith("stdout:\ncompiling\n")
        and "stderr:\nwarning: slow" in card.output.toPlainText()
    )
    assert card.title.text().endswith(f"$ {command}")
    # Esc with the focus in the conversation above, not in the panel
    views = [
        v
        for v in context.window.findChildren(QAbstractItemView)
        if v.isVisible() and not panel.isAncestorOf(v)
    ]
    target = views[0]
    target.setFocus()
    assert target.window().focusWidget() is target
    qtbot.keyClick(target, Qt.Key.Key_Escape)
    run(until(lambda: not controller.busy))
    assert controller.state is TurnState.IDLE
    assert (
        card.finished and "(Esc stops it)" not in card.title.text()
    )  # no longer said to be running
    result = _results(path)["call_s"]
    assert not result.ok and result.content == "tool call interrupted before completion"


def test_a_gone_folder_answered_at_once_sends_the_prompt(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    """The folder question is asked once the turn that met it has ended: an answer given at
    once (a quick click) starts the next turn instead of being refused as "busy"."""
    path = v3_session(tmp_path / "home", cwd=str(tmp_path / "gone"))
    _context, controller, _panel = _open(make_window, run, path)
    answered: list[bool] = []
    controller.sig_workspace_missing.connect(
        lambda _m: answered.append(controller.continue_without_tools())
    )
    loopback.queue(text_reply("Hi without tools."))
    controller.send("hello", profile="loopback")
    run(until(lambda: bool(answered) and bool(loopback.requests) and not controller.busy))
    assert answered == [True]
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf)[-1].text() == "Hi without tools."


def test_a_gone_folder_is_said_before_sending_and_can_be_skipped(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v3_session(tmp_path / "home", cwd=str(tmp_path / "gone"))
    _context, controller, panel = _open(make_window, run, path)
    panel.composer.setPlainText("hello")
    panel.send()
    run(until(lambda: panel.workspace_banner.isVisible()))
    assert "is not on this machine" in panel.workspace_banner.text.text()
    assert not loopback.requests  # nothing was sent
    loopback.queue(text_reply("Hi without tools."))
    panel.without_tools.click()
    run(until(lambda: len(loopback.requests) == 1 and not controller.busy))
    assert "tools" not in loopback.requests[0].body
    assert panel.mode_picker.currentData() == "off"
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf)[-1].text() == "Hi without tools."


def test_esc_at_a_shell_approval_leaves_no_running_card(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    _context, controller, panel = _open(make_window, run, path)
    loopback.queue(tool_reply("call_b", "bash", {"command": "touch made"}), text_reply("unused"))
    panel.composer.setPlainText("make a file")
    panel.send()
    run(until(lambda: panel.approval_card is not None))
    qtbot.keyClick(panel.approval_card, Qt.Key.Key_Escape)  # cancels the turn
    run(until(lambda: not controller.busy))
    assert (
        panel.shell_cards == {}
        and not panel.cards.isVisible()
        and not (workspace / "made").exists()
    )


def test_a_command_card_under_a_finished_one_shows_its_whole_command(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    """On a small screen, with an earlier command's output under it, the approval card is drawn
    whole (the output scrolls): the command box is not covered by the reason field, and the card
    offers no full diff (a command has none)."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    context, controller, panel = _open(make_window, run, path)
    context.window.resize(1024, 700)
    run(laid_out())
    loopback.queue(
        tool_reply("call_a", "bash", {"command": "seq 1 30"}),
        tool_reply("call_b", "bash", {"command": "ls -la\necho done"}),
        text_reply("unused"),
    )
    panel.composer.setPlainText("list the files")
    panel.send()
    run(until(lambda: panel.approval_card is not None))
    qtbot.keyClick(panel.approval_card, Qt.Key.Key_A)
    run(
        until(
            lambda: (
                panel.approval_card is not None
                and controller.pending_approval.call_id == "call_b"
                and "call_a" in panel.shell_cards
                and panel.shell_cards["call_a"].finished
            )
        )
    )
    run(laid_out())
    card = panel.approval_card
    body, reason = card.body.geometry(), card.reason.geometry()
    assert body.bottom() < reason.top(), (
        body,
        reason,
    )  # the reason field does not cover the command
    lines = card.body.toPlainText().count("\n") + 1
    # with an earlier output under it on a 700-pixel screen, the box shows all but a line of it (it
    # scrolls), and the answers stay in view
    assert card.body.viewport().height() >= (lines - 1) * card.body.fontMetrics().lineSpacing(), (
        lines,
        body,
    )
    assert context.window.height() <= 700  # the dock did not push the window past the screen
    # the question is not among the scrolling cards: all of it is in view, above the command's output
    assert (
        not panel.cards_area.isAncestorOf(card)
        and card.geometry().bottom() < panel.cards_area.geometry().top()
    )
    assert "F full diff" not in card.hint.text() and "full diff" not in panel.status.text()
    qtbot.keyClick(card, Qt.Key.Key_F)  # nothing to show more of
    assert not card.showing_full
    qtbot.keyClick(card, Qt.Key.Key_Escape)
    run(until(lambda: not controller.busy))


def test_the_full_diff_makes_the_card_taller(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("".join(f"line {n}\n" for n in range(1, 31)))
    path = v3_session(tmp_path / "home", cwd=str(workspace))
    context, controller, panel = _open(make_window, run, path)
    context.window.resize(1600, 1000)
    run(laid_out())
    new = "".join(f"LINE {n}\n" for n in range(1, 31))
    loopback.queue(
        tool_reply("call_w", "write", {"path": "notes.txt", "content": new}), text_reply("Done.")
    )
    panel.composer.setPlainText("shout")
    panel.send()
    run(until(lambda: panel.approval_card is not None))
    run(laid_out())
    card = panel.approval_card
    line = card.body.fontMetrics().lineSpacing()
    before = card.body.viewport().height()
    qtbot.keyClick(card, Qt.Key.Key_F)
    run(laid_out())
    assert card.showing_full
    # the card grows (up to 70% of the window), not only its scrollable content
    assert card.body.viewport().height() >= before + 4 * line, (
        before,
        card.body.viewport().height(),
    )
    qtbot.keyClick(card, Qt.Key.Key_Escape)
    run(until(lambda: not controller.busy))


def test_session_approvals_outlast_a_visit_to_another_session(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    """S approves the shell for this conversation: after opening another session and coming
    back, the next command of the same conversation runs without asking (while the app runs)."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    home = tmp_path / "home"
    path = v3_session(home, cwd=str(workspace))
    other = v3_session(home, cwd=str(workspace))
    context, controller, panel = _open(make_window, run, path)
    loopback.queue(tool_reply("call_1", "bash", {"command": "touch one"}), text_reply("Made one."))
    panel.composer.setPlainText("make one")
    panel.send()
    run(until(lambda: panel.approval_card is not None))
    qtbot.keyClick(panel.approval_card, Qt.Key.Key_S)  # the shell, for this session
    run(until(lambda: not controller.busy))
    assert (workspace / "one").exists()
    run(context.document.aopen(other))
    run(until(lambda: context.document.path == other and not context.document.loading))
    run(context.document.aopen(path))
    run(until(lambda: context.document.path == path and not context.document.loading))
    panel.mode_picker.setCurrentIndex(panel.mode_picker.findData(PermissionMode.SUPERVISED.value))
    asked: list[object] = []
    controller.sig_approval_requested.connect(asked.append)
    loopback.queue(tool_reply("call_2", "bash", {"command": "touch two"}), text_reply("Made two."))
    panel.composer.setPlainText("make two")
    panel.send()
    run(until(lambda: bool(asked) or (workspace / "two").exists()))
    was_asked = bool(asked)
    if was_asked:
        controller.cancel()
    run(until(lambda: not controller.busy))
    assert not was_asked and (workspace / "two").exists()


def test_a_folder_chosen_for_one_session_is_offered_for_the_next_of_its_workspace(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, monkeypatch
) -> None:
    """The folder chosen for the tools of a session whose recorded folder is gone is offered,
    first and focused, for the next session recorded in that folder (remembered in the settings:
    paths only)."""
    from PySide6.QtWidgets import QFileDialog

    from rho_desk.qt.services.settings import PERSIST_TOOL_FOLDERS

    gone = str(tmp_path / "gone")
    chosen = tmp_path / "checkout"
    chosen.mkdir()
    TrustStore().trust(str(chosen))
    home = tmp_path / "home"
    first, second = v3_session(home, cwd=gone), v3_session(home, cwd=gone)
    context, controller, panel = _open(make_window, run, first)
    panel.composer.setPlainText("hello")
    panel.send()
    run(until(lambda: panel.workspace_banner.isVisible()))
    assert not panel.use_remembered.isVisible()  # nothing chosen before
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *_a, **_k: str(chosen))
    loopback.queue(text_reply("Hi from the checkout."))
    panel.choose_folder.click()
    run(until(lambda: len(loopback.requests) == 1 and not controller.busy))
    assert controller.tools is not None and controller.tools.workspace is not None
    assert Path(controller.tools.workspace.root) == chosen
    assert [json.loads(e) for e in context.settings.get(PERSIST_TOOL_FOLDERS)] == [
        [gone, str(chosen)]
    ]

    run(context.document.aopen(second))
    run(until(lambda: context.document.path == second and not context.document.loading))
    panel.mode_picker.setCurrentIndex(panel.mode_picker.findData(PermissionMode.SUPERVISED.value))
    panel.composer.setPlainText("and here")
    panel.send()
    run(until(lambda: panel.workspace_banner.isVisible()))
    assert panel.use_remembered.isVisible() and panel.use_remembered.hasFocus()
    assert panel.use_remembered.text() == "&Use checkout"
    assert str(chosen) in panel.use_remembered.toolTip() and str(chosen) in panel.status.text()
    assert len(loopback.requests) == 1  # nothing sent before the answer
    loopback.queue(text_reply("Hi again."))
    panel.use_remembered.click()
    run(until(lambda: len(loopback.requests) == 2 and not controller.busy))
    assert Path(controller.tools.workspace.root) == chosen
    tree = read_session(second, check_name=False).tree
    assert tree.history(tree.active_leaf)[-1].text() == "Hi again."
