"""The continue panel as a new user meets it: Esc after "Send Anyway", profiles that follow
Settings, switching sessions, the session card and the conversation after a turn, the prompt
while the replay-safety question waits, an old failure after a success, undo of a turn, and
usage (reported or estimated).

Every model call goes to the loopback server (OpenAI-compatible streaming on 127.0.0.1:0).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from rho_desk.core.session import turn
from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.usage import describe_usage
from rho_desk.core.wire import ModelUsage
from rho_desk.providers.credentials import set_api_key
from rho_desk.providers.profiles import ProfileStore
from rho_desk.qt.continue_.controller import TurnState
from rho_desk.qt.services.messages import Level

from ...providers.loopback import OPENAI_DONE, Loopback, Reply, openai_chunk
from ..conftest import moved, until
from ..helpers import turn_events, v3_session, v4_session
from .conftest import LOOPBACK_KEY, demo_session, text_reply

Fn = Callable[..., Any]


def _open(
    make_window: Fn, run: Fn, path: Path, *, home: Path | None = None
) -> tuple[Any, Any, Any]:
    context = make_window(home=home, open_file=path)
    host = context.continue_dock
    host.show_continue()
    run(until(lambda: host.panel.profile.count() > 0))  # the panel has read the profiles
    return context, context.controller, host.panel


def _leaf(path: Path) -> Any:
    return read_session(path, check_name=False).tree.active_leaf


def _turn(run: Fn, context: Any, controller: Any, panel: Any, prompt: str) -> None:
    panel.composer.setPlainText(prompt)
    panel.send()
    run(until(lambda: not controller.busy))


def test_esc_after_send_anyway_cancels_with_the_focus_in_the_reply(
    make_window: Fn, run: Fn, demo_home: Path, qtbot: Any, loopback: Loopback, loopback_profile: Any
) -> None:
    path = demo_session(
        demo_home, "c81f3e02"
    )  # native blocks: the replay-safety question comes first
    context, controller, panel = _open(make_window, run, path)
    context.window.activateWindow()
    panel.composer.setPlainText("Go on")
    panel.send()
    run(until(lambda: panel.handoff.isVisible() and not controller.busy))
    loopback.queue(text_reply("Partial", hang=True))
    deltas = turn_events(controller, turn.TextDelta, lambda e: e.text)
    qtbot.mouseClick(panel.send_anyway, Qt.MouseButton.LeftButton)
    run(until(lambda: deltas == ["Partial"]))
    panel.reply.setFocus()  # where the focus lands once the banner hides
    assert panel.window().focusWidget() is panel.reply
    qtbot.keyClick(panel.reply, Qt.Key.Key_Escape)
    run(until(lambda: not controller.busy))
    assert controller.state is TurnState.IDLE and "Cancelled" in panel.reply.toPlainText()
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf)[-1].aborted_assistant is not None


def test_the_picker_and_the_turn_follow_a_new_default_profile(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    path = v3_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    assert panel.profile_name() == "loopback"
    second = loopback_profile.replace(name="second", model="gpt-second")
    ProfileStore().upsert(second)
    set_api_key(second, LOOPBACK_KEY)
    dialog = context.session_commands.show_dialog("settings")
    run(until(lambda: bool(dialog.profiles.keys)))
    dialog.reload_profiles("second")
    run(until(lambda: dialog.selected_name() == "second"))
    assert dialog.selected_name() == "second"
    dialog._on_default_clicked()  # Make Default
    run(until(lambda: panel.profile_name() == "second"))
    assert panel.profile.findData("second") >= 0 and panel.profile_name() == "second"
    loopback.queue(text_reply("From the second."))
    _turn(run, context, controller, panel, "Which model?")
    assert loopback.requests[-1].body["model"] == "gpt-second"
    # removed (or renamed away): the picker falls back to the default
    dialog.reload_profiles("loopback")
    run(until(lambda: dialog.selected_name() == "loopback"))
    dialog._on_default_clicked()
    run(until(lambda: dialog.profiles.default == "loopback" and panel.profile_name() == "loopback"))
    dialog.reload_profiles("second")
    run(until(lambda: dialog.selected_name() == "second"))
    dialog._on_remove_clicked()
    run(until(lambda: panel.profile.findData("second") < 0 and panel.profile_name() == "loopback"))
    assert panel.profile.findData("second") < 0 and panel.profile_name() == "loopback"
    dialog.close()


def test_switching_sessions_resets_the_panel(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    home = tmp_path / "home"
    first, other = v4_session(home), v3_session(home)
    context, controller, panel = _open(make_window, run, first)
    loopback.queue(text_reply("First answer."))
    _turn(run, context, controller, panel, "One")
    assert "First answer" in panel.reply.toPlainText() and panel.status.text()
    other_size = other.stat().st_size
    # a turn is running: opening another session is refused, with a message; nothing moves
    loopback.queue(text_reply("Slow", hang=True))
    panel.composer.setPlainText("Two")
    panel.send()
    run(until(lambda: "Slow" in panel.reply.toPlainText()))
    context.window.commands.open_path(other)
    run(until(lambda: any("turn is running" in n.text for n in context.notifier.history)))
    assert context.document.path == first and controller.busy
    context.window.commands.close_document()  # nor is it closed under the turn
    run(until(lambda: any(n.text.endswith("then close it") for n in context.notifier.history)))
    assert context.document.path == first and controller.busy
    controller.cancel()
    run(until(lambda: not controller.busy))
    assert "Cancelled" in panel.reply.toPlainText()
    assert other.stat().st_size == other_size  # never written into the other file
    assert _leaf(first).revision == context.document.tree.active_leaf.revision
    # idle: the switch happens and the panel forgets the previous session
    panel.composer.setPlainText("draft")
    context.window.commands.open_path(other)
    run(until(lambda: context.document.path == other and not context.document.loading))
    assert context.document.path == other
    assert (
        panel.reply.toPlainText() == ""
        and panel.status.text() == ""
        and not panel.handoff.isVisible()
    )
    assert panel.profile_name() == "loopback" and panel.composer.toPlainText() == "draft"
    assert controller.pending_prompt is None and controller.session is None
    loopback.queue(text_reply("Here."))
    _turn(run, context, controller, panel, "On the other one")
    tree = read_session(other, check_name=False).tree
    assert tree.history(tree.active_leaf)[-1].text() == "Here."


def test_the_session_card_shows_the_new_revision(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    home = tmp_path / "home"
    path = v3_session(home)
    context, controller, panel = _open(make_window, run, path, home=home)
    browser = context.window.browser
    before = browser.summary_for(path)
    assert before is not None
    loopback.queue(text_reply("A card-worthy answer."))
    _turn(run, context, controller, panel, "Update the card")
    run(until(lambda: browser.summary_for(path).message_count == before.message_count + 2))
    after = browser.summary_for(path)
    assert after.file_size == path.stat().st_size and after.last_user_message == "Update the card"
    assert after.updated_at >= before.updated_at


def test_the_conversation_scrolls_to_the_new_turn(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    path = v3_session(tmp_path / "home", turns=12)
    context, controller, panel = _open(make_window, run, path)
    conversation = context.window.conversation
    conversation.select_row(0)
    loopback.queue(text_reply("The newest answer."))
    _turn(run, context, controller, panel, "Newest question")
    run(
        until(
            lambda: (
                conversation.model.rowCount() > 0
                and conversation.current_row() == conversation.model.rowCount() - 1
            )
        )
    )
    last = conversation.model.index(conversation.model.rowCount() - 1, 0)
    assert conversation.list.visualRect(last).intersects(conversation.list.viewport().rect())


def test_the_prompt_stays_while_the_replay_safety_question_waits(
    make_window: Fn, run: Fn, demo_home: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    path = demo_session(demo_home, "c81f3e02")
    _context, controller, panel = _open(make_window, run, path)
    panel.composer.setPlainText("Keep me")
    panel.send()
    run(until(lambda: panel.handoff.isVisible() and not controller.busy))
    assert panel.composer.toPlainText() == "Keep me"  # nothing was sent yet
    loopback.queue(text_reply("Sent."))
    panel.send_anyway.click()
    run(until(lambda: not controller.busy and bool(loopback.requests)))
    assert panel.composer.toPlainText() == ""  # the turn started: the prompt is in the session
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf)[-1].text() == "Sent."


def test_a_success_clears_the_previous_failure(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    path = v3_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    bar = context.window.notifications
    loopback.queue(
        Reply(
            status=401, body=b'{"error": {"message": "bad key", "type": "invalid_request_error"}}'
        )
    )
    _turn(run, context, controller, panel, "Will fail")
    assert bar.isVisible() and bar.current.level is Level.ERROR and "Failed" in panel.status.text()
    loopback.queue(text_reply("Works now."))
    panel.send()  # the prompt came back into the composer
    run(until(lambda: not controller.busy))
    assert _leaf(path).revision == context.document.tree.active_leaf.revision
    assert not (bar.isVisible() and bar.current is not None and bar.current.level is Level.ERROR)
    assert "Failed" not in panel.status.text() and "Saved" in panel.status.text()


@pytest.mark.parametrize("maker", [v3_session, v4_session], ids=["v3", "v4"])
def test_undo_and_redo_cover_a_continued_turn(
    make_window: Fn,
    run: Fn,
    tmp_path: Path,
    maker: Callable[..., Path],
    loopback: Loopback,
    loopback_profile: Any,
) -> None:
    path = maker(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    tree = read_session(path, check_name=False).tree
    before = tree.history(tree.active_leaf)
    loopback.queue(text_reply("Undo me."))
    _turn(run, context, controller, panel, "A turn to undo")
    turned = read_session(path, check_name=False).tree
    assert turned.history(turned.active_leaf)[-1].text() == "Undo me."
    undo = context.window.app_actions["edit.undo"]
    assert undo.isEnabled() and "Continued Turn" in undo.text()
    run(moved(context.document, undo.trigger))
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf) == before
    redo = context.window.app_actions["edit.redo"]
    run(until(redo.isEnabled))
    assert redo.isEnabled()
    run(moved(context.document, redo.trigger))
    tree = read_session(path, check_name=False).tree
    assert tree.history(tree.active_leaf)[-1].text() == "Undo me."
    # and the conversation goes on from the redone turn
    loopback.queue(text_reply("After redo."))
    _turn(run, context, controller, panel, "Next")
    tree = read_session(path, check_name=False).tree
    assert [m.text() for m in tree.history(tree.active_leaf)[-3:]] == [
        "Undo me.",
        "Next",
        "After redo.",
    ]


def test_usage_is_shown_as_reported_or_as_estimated(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    path = v3_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    loopback.queue(text_reply("Counted."))  # the loopback reports 50 in, 7 out
    _turn(run, context, controller, panel, "Count me")
    assert "57 tokens (50 in, 7 out)" in panel.status.text() and "$" not in panel.status.text()
    # llama.cpp's way: no usage at all
    loopback.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "No usage here."}),
                openai_chunk(finish="stop"),
                OPENAI_DONE,
            ]
        )
    )
    _turn(run, context, controller, panel, "And now?")
    status = panel.status.text()
    assert "tokens (estimated: the server reported no usage)" in status and "≈" in status
    assert "$0" not in status and " 0 tokens" not in status
    # a server that counts tokens (llama.cpp's /tokenize) calibrates the estimate, and it says so
    loopback.tokens_per_char = 0.5
    loopback.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Counted by the server."}),
                openai_chunk(finish="stop"),
                OPENAI_DONE,
            ]
        )
    )
    _turn(run, context, controller, panel, "And counted?")
    assert (
        "tokens (estimated, calibrated by the server's token count: the server reported no usage)"
        in panel.status.text()
    )
    assert len(loopback.tokenized) == 1


@pytest.mark.parametrize(
    ("usage", "shown"),
    [
        (None, "≈1,234 tokens (estimated: the server reported no usage)"),
        (ModelUsage(), "≈1,234 tokens (estimated: the server reported no usage)"),
        (
            None,
            "≈1,234 tokens (estimated, calibrated by the server's token count: the server reported no usage)",
        ),
        (
            ModelUsage(input_tokens=40, cache_read_tokens=10, output_tokens=7, total_tokens=57),
            "57 tokens (50 in, 7 out)",
        ),
        (ModelUsage(output_tokens=7, total_tokens=57), "57 tokens (50 in, 7 out)"),
        (
            ModelUsage(input_tokens=50, output_tokens=7, cost_usd_micros=1_250),
            "57 tokens (50 in, 7 out), $0.0013",
        ),
        (
            ModelUsage(input_tokens=50, output_tokens=7, cost_usd_micros=0),
            "57 tokens (50 in, 7 out), $0.0000",
        ),
    ],
)
def test_usage_words(usage: ModelUsage | None, shown: str) -> None:
    assert describe_usage(usage, 1_234, "calibrated" in shown) == shown


def test_ctrl_z_in_an_untouched_prompt_box_is_the_window_s_undo(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The box claims Ctrl+Z (a ShortcutOverride it accepts) only when it has something to undo;
    otherwise the window's Undo shortcut gets it (the focus is in the box after every turn)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtWidgets import QApplication

    from rho_desk.qt.continue_.composer import ComposerEdit

    box = ComposerEdit()
    qtbot.addWidget(box)

    def claimed(key: Qt.Key, mods: Qt.KeyboardModifier) -> bool:
        event = QKeyEvent(QEvent.Type.ShortcutOverride, key, mods)
        QApplication.sendEvent(box, event)
        return event.isAccepted()

    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    assert not claimed(Qt.Key.Key_Z, ctrl) and not claimed(Qt.Key.Key_Z, ctrl | shift)
    qtbot.keyClicks(box, "draft")
    assert claimed(Qt.Key.Key_Z, ctrl)  # the box's own undo first
    box.undo()
    assert claimed(Qt.Key.Key_Z, ctrl | shift)  # and then its redo
    assert claimed(Qt.Key.Key_Return, ctrl)  # Ctrl+Enter is always the box's (send)


def test_the_card_and_the_status_follow_an_undo_and_a_fork(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    """After Undo of a turn the card and the panel no longer show the undone turn; after a Fork
    that saves a turn held in a conflict, the card shows that turn, not the other program's."""
    from rho_desk.core.stores.rho_files import SessionWriter
    from rho_desk.core.wire import Message

    home = tmp_path / "home"
    path = v4_session(home)
    context, controller, panel = _open(make_window, run, path, home=home)
    browser = context.window.browser
    before = browser.summary_for(path)
    assert before is not None
    loopback.queue(text_reply("Undo me."))
    _turn(run, context, controller, panel, "A turn to undo")
    run(until(lambda: browser.summary_for(path).last_user_message == "A turn to undo"))
    assert panel.status.text().startswith("Saved:")
    context.window.app_actions["edit.undo"].trigger()
    run(until(lambda: browser.summary_for(path).message_count == before.message_count))
    card = browser.summary_for(path)
    assert (
        card.last_user_message == before.last_user_message and card.file_size == path.stat().st_size
    )
    active = context.document.tree.active_leaf
    assert not panel.status.text().startswith("Saved:"), panel.status.text()
    assert (
        f"r{active.revision}" in panel.status.text()
        or f"revision {active.revision}" in panel.status.text()
    )

    # a conflict: another program saves a turn while ours streams; Fork saves ours as a branch
    loopback.queue(text_reply("A slow", " answer", " worth keeping.", delay=0.15))
    controller.send("Our question", profile="loopback")
    run(until(lambda: bool(loopback.requests[1:])))
    with SessionWriter(read_session(path, check_name=False), take_lease=False) as writer:
        state = writer.tree.snapshot(trim=False, prompt_cache_key=None)
        turn = (Message.user_text("typed in Rho"), Message.assistant_text("answered in Rho"))
        writer.save(state.replace(revision=state.revision + 1, history=state.history + turn))
    run(until(lambda: controller.state is TurnState.BLOCKED))
    context.conflict_dock.banner.fork_button.click()
    run(until(lambda: browser.summary_for(path).last_user_message == "Our question"))
    assert browser.summary_for(path).file_size == path.stat().st_size


def test_the_status_says_retrying_during_the_back_off(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    """A server error retried after a pause: the status line says the request is retried, not
    "Streaming…", until the reply streams again."""
    path = v3_session(tmp_path / "home")
    _context, controller, panel = _open(make_window, run, path)
    failure = Reply(
        status=500,
        body=b'{"error": {"message": "overloaded", "type": "server_error"}}',
        headers={"retry-after": "1"},
    )
    loopback.queue(failure, text_reply("Fine", " now.", delay=0.05))
    # the status as the retry is announced (the panel hears it first): read then, not after a
    # wait that a loaded machine may stretch past the one-second pause
    said: list[str] = []
    controller.sig_turn_event.connect(
        lambda e: said.append(panel.status.text()) if isinstance(e, turn.Retrying) else None
    )
    panel.composer.setPlainText("Try again")
    panel.send()
    run(until(lambda: "Retrying" in panel.reply.toPlainText() and bool(said)))
    assert said[0].startswith("Retrying"), said
    run(until(lambda: "Fine" in panel.reply.toPlainText()))
    assert not panel.status.text().startswith("Retrying")
    run(until(lambda: not controller.busy))


def test_a_turn_sent_while_an_older_revision_is_shown_shows_the_active_one(
    make_window: Fn, run: Fn, tmp_path: Path, loopback: Loopback, loopback_profile: Any
) -> None:
    """The turn continues the active revision: the conversation shows it from the turn's start,
    not the older revision that was on screen until the turn ends."""
    path = v4_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    document = context.document
    tree = document.tree
    older = tree.nodes["n1"]
    document.select(older)
    run(until(lambda: document.selected is older))
    assert document.selected is older
    loopback.queue(text_reply("Slowly", hang=True))
    panel.composer.setPlainText("Go on")
    panel.send()
    run(until(lambda: "Slowly" in panel.reply.toPlainText()))
    assert document.selected is document.tree.active_leaf, document.selected
    bar = context.window.conversation.bar
    assert not bar.active_button.isVisibleTo(bar)  # no longer "an older revision, Show active"
    controller.cancel()
    run(until(lambda: not controller.busy))
