"""Continuing a conversation: streaming, saving after every commit, Cancel, replay safety,
automatic compaction, failures, and conflicts with another writer (reload or fork).

Every model call goes to the loopback server (OpenAI-compatible streaming on 127.0.0.1:0);
nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from rho_desk.core.session import turn
from rho_desk.core.stores.rho_files import NodeKind, read_session
from rho_desk.core.wire import Message
from rho_desk.qt.continue_.controller import TurnState
from rho_desk.qt.services.settings import (
    PREFS_COMPACTION_KEEP_MESSAGES,
    PREFS_COMPACTION_KEEP_TOKENS,
    PREFS_COMPACTION_POLICY,
    PREFS_COMPACTION_THRESHOLD,
)

from ...providers.loopback import Loopback, Reply
from ..conftest import until
from ..helpers import turn_events, v3_session, v4_session
from .conftest import demo_session, sent_messages, text_reply


def _open(make_window, run, path: Path):
    context = make_window(open_file=path)
    host = context.continue_dock
    host.show_continue()
    run(until(lambda: host.panel.profile.count() > 0))  # the panel has read the profiles
    return context, context.controller, host.panel


def _rho_appends_a_turn(path: Path) -> None:
    """Another program appends one turn to the transcript, as Rho would (its own writer)."""
    from rho_desk.core.stores.rho_files import SessionWriter

    with SessionWriter(read_session(path, check_name=False), take_lease=False) as writer:
        state = writer.tree.snapshot(trim=False, prompt_cache_key=None)
        turn = (Message.user_text("typed in Rho"), Message.assistant_text("answered in Rho"))
        writer.save(state.replace(revision=state.revision + 1, history=state.history + turn))


def _history(path: Path) -> tuple[Message, ...]:
    tree = read_session(path, check_name=False).tree
    return tree.history(tree.active_leaf)


def test_a_turn_streams_and_is_saved(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    path = v3_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    before = _history(path)
    revision = read_session(path, check_name=False).tree.active_leaf.revision
    deltas = turn_events(controller, turn.TextDelta, lambda e: e.text)
    saved = turn_events(controller, turn.Saved, lambda e: e.node)
    loopback.queue(text_reply("Hello", " from", " the loopback."))
    panel.composer.setPlainText("Say hello")
    assert panel.profile_name() == "loopback"
    qtbot.keyClick(
        panel.composer, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier
    )  # Ctrl+Enter sends
    assert controller.busy  # the prompt stays in the box until its turn starts
    run(until(lambda: not controller.busy))
    assert panel.composer.toPlainText() == ""
    assert deltas == ["Hello", " from", " the loopback."]
    after = _history(path)
    assert after[: len(before)] == before and after[len(before)] == Message.user_text("Say hello")
    assert (
        after[-1].text() == "Hello from the loopback." and after[-1].enriched_assistant is not None
    )
    leaf = read_session(path, check_name=False).tree.active_leaf
    assert leaf.revision == revision + 1 and len(saved) == 1 and saved[0].revision == leaf.revision
    text = panel.reply.toPlainText()
    assert (
        "You: Say hello" in text
        and "Assistant: Hello from the loopback." in text
        and "Saved as revision" in text
    )
    # the model was sent the restored history plus the prompt, with the key from the keyring
    messages = sent_messages(loopback)
    assert messages[0]["role"] == "system" and messages[-1] == {
        "role": "user",
        "content": "Say hello",
    }
    assert (
        loopback.requests[0].headers["Authorization"] == "Bearer sk-loopback-test-0123456789abcdef"
    )
    # the conversation view shows the new revision
    assert (
        context.document.tree.active_leaf.id == leaf.id and context.document.selected.id == leaf.id
    )
    # a second turn continues the same engine session
    loopback.queue(text_reply("Again."))
    panel.composer.setPlainText("Once more")
    panel.send()
    run(until(lambda: not controller.busy))
    assert (
        _history(path)[-1].text() == "Again."
        and read_session(path, check_name=False).tree.active_leaf.revision == revision + 2
    )


def test_the_windows_turns_are_in_the_usage_ledger(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    """Each request the window sends is a Rho-shaped row of the session's home ledger, so the
    Usage window and Rho see what rho-desk spent; a cancelled one is recorded as cancelled."""
    import sqlite3

    home = tmp_path / "home"
    path = v3_session(home, session_id="5e55a0c1-0000-4000-8000-000000000001")
    _context, controller, panel = _open(make_window, run, path)
    loopback.queue(text_reply("Hello."))
    controller.send("Say hello")
    run(until(lambda: not controller.busy))
    loopback.queue(text_reply("Partial", hang=True))
    controller.send("Something long")
    run(until(lambda: controller.run is not None and "Partial" in panel.reply.toPlainText()))
    controller.cancel()
    run(until(lambda: not controller.busy))
    db = sqlite3.connect(home / "usage.sqlite3")
    rows = db.execute(
        "SELECT session_id, purpose, request_outcome, output_tokens, total_tokens, workspace_path, "
        "provider, model FROM usage_events ORDER BY rowid"
    ).fetchall()
    db.close()
    assert rows == [
        (
            "5e55a0c1-0000-4000-8000-000000000001",
            "agent",
            "completed",
            7,
            57,
            "/work/demo",
            "loopback",
            "gpt-test",
        ),
        (
            "5e55a0c1-0000-4000-8000-000000000001",
            "agent",
            "cancelled",
            None,
            None,
            "/work/demo",
            "loopback",
            "gpt-test",
        ),
    ]


def test_cancel_commits_the_prompt_and_the_partial_reply(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v4_session(tmp_path / "home")
    _context, controller, panel = _open(make_window, run, path)
    deltas = turn_events(controller, turn.TextDelta, lambda e: e.text)
    finished = turn_events(controller, turn.TurnEnded, lambda e: (e.outcome, e.detail))
    loopback.queue(text_reply("Partial", " answer", hang=True))
    panel.composer.setPlainText("Start something long")
    panel.send()
    run(until(lambda: "".join(deltas) == "Partial answer"))
    assert panel.cancel_button.isEnabled()
    panel.cancel_button.click()
    run(until(lambda: not controller.busy))
    run(loopback.disconnected.wait())  # the HTTP stream was closed
    assert finished == [("cancelled", "")]
    history = _history(path)
    assert history[-2] == Message.user_text("Start something long")
    aborted = history[-1].aborted_assistant
    assert (
        aborted is not None and "".join(b.text or "" for b in aborted.content) == "Partial answer"
    )
    assert aborted.reasoning == ""
    assert "Cancelled" in panel.reply.toPlainText() and controller.state is TurnState.IDLE


def test_cancel_while_the_turn_prepares_ends_it(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    """Esc before anything was sent (the key read, the session restored) ends the turn: the
    controller is idle again, the prompt is back, nothing was sent, and the next turn runs."""
    path = v3_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    size = path.stat().st_size
    panel.composer.setPlainText("Never mind")
    panel.send()
    assert controller.state is TurnState.PREPARING and panel.cancel_button.isEnabled()
    panel.cancel_button.click()
    run(until(lambda: controller.state is TurnState.IDLE, timeout=10))
    assert context.operations.operation is None and not loopback.requests
    assert panel.composer.toPlainText() == "Never mind" and path.stat().st_size == size
    loopback.queue(text_reply("Here."))
    assert controller.send("Go on", profile="loopback")
    run(until(lambda: bool(loopback.requests) and not controller.busy))
    assert _history(path)[-1].text() == "Here."


@pytest.mark.parametrize("when", ["preparing", "streaming"])
def test_closing_the_window_during_a_turn_starts_nothing(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, when: str
) -> None:
    """The window closing cancels the turn: it ends without a word, and nothing that a turn's
    end sets off (the session list's refresh) is started on the closed bridge."""
    home = tmp_path / "home"
    path = v3_session(home)
    context = make_window(home=home, open_file=path)
    context.continue_dock.show_continue()
    panel, controller = context.continue_dock.panel, context.controller
    run(until(lambda: panel.profile.count() > 0 and context.library.is_open))
    errors: list[dict[str, object]] = []
    asyncio.get_event_loop().set_exception_handler(lambda _loop, error: errors.append(error))
    loopback.queue(text_reply("Partial", hang=True))
    assert controller.send("Never finished", profile="loopback")
    if when == "streaming":
        run(until(lambda: "Partial" in panel.reply.toPlainText()))
    run(context.ashutdown())
    assert errors == [] and controller.state is TurnState.IDLE
    assert context.operations.operation is None


def test_the_replay_safety_question_is_asked_once_the_turn_has_ended(
    make_window, run, demo_home: Path, loopback: Loopback, loopback_profile
) -> None:
    """An answer given as soon as the question shows (a quick click) sends the prompt: the turn
    that asked is over by then, so the new one is not refused as "busy"."""
    path = demo_session(demo_home, "c81f3e02")  # native blocks from OpenAI and Anthropic
    _context, controller, _panel = _open(make_window, run, path)
    answered: list[bool] = []
    controller.sig_handoff_required.connect(
        lambda _r, _i: answered.append(controller.confirm_handoff())
    )
    loopback.queue(text_reply("Sure."))
    controller.send("Continue with another model", profile="loopback")
    run(until(lambda: bool(answered) and not controller.busy))
    assert answered == [True] and _history(path)[-1].text() == "Sure."


def test_switching_provider_shows_what_will_not_be_replayed(
    make_window, run, demo_home: Path, loopback: Loopback, loopback_profile
) -> None:
    path = demo_session(demo_home, "c81f3e02")  # native blocks from OpenAI and Anthropic
    _context, controller, panel = _open(make_window, run, path)
    size = path.stat().st_size
    reports: list[tuple[object, str]] = []
    controller.sig_handoff_required.connect(lambda r, i: reports.append((r, i)))
    panel.composer.setPlainText("Continue with another model")
    panel.send()
    run(until(lambda: not controller.busy))
    assert (
        len(reports) == 1 and not loopback.requests and path.stat().st_size == size
    )  # nothing sent
    report, identity = reports[0]
    assert (
        report.omitted_provider_context > 0
        and identity == "loopback/openai-chat-completions/gpt-test"
    )
    assert (
        panel.handoff.isVisible()
        and str(report.omitted_provider_context) in panel.handoff.text.text()
    )
    assert "Waiting for your confirmation" in panel.status.text()
    # keep the prompt: nothing is sent, the prompt is back
    panel.keep_prompt.click()
    assert (
        panel.composer.toPlainText() == "Continue with another model"
        and not panel.handoff.isVisible()
    )
    # send anyway: accepted once for this session and provider
    panel.composer.clear()
    controller.send("Continue with another model", profile="loopback")
    run(until(lambda: not controller.busy))
    loopback.queue(text_reply("Sure."))
    panel.send_anyway.click()
    run(until(lambda: bool(loopback.requests) and not controller.busy))
    assert _history(path)[-1].text() == "Sure."
    body = str(loopback.requests[-1].body)
    assert (
        "signature" not in body and "encrypted_content" not in body
    )  # native blocks were left out


def test_automatic_compaction_is_saved_as_it_happens(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v3_session(tmp_path / "home", turns=4)  # 17 messages
    context, controller, panel = _open(make_window, run, path)
    s = context.settings
    s.set(PREFS_COMPACTION_POLICY, "messages")
    s.set(PREFS_COMPACTION_THRESHOLD, 10)
    s.set(PREFS_COMPACTION_KEEP_MESSAGES, 4)
    s.set(PREFS_COMPACTION_KEEP_TOKENS, 0)
    phases = turn_events(
        controller,
        turn.CompactionStarted | turn.CompactionDone,
        lambda e: "started" if isinstance(e, turn.CompactionStarted) else "completed",
    )
    saved = turn_events(controller, turn.Saved, lambda e: e.node)
    loopback.queue(text_reply("Compacted and answered."))
    controller.send("Next step", profile="loopback")
    run(until(lambda: not controller.busy))
    assert phases == ["started", "completed"]
    assert [n.kind for n in saved] == [NodeKind.COMPACTION, NodeKind.COMMIT]
    tree = read_session(path, check_name=False).tree
    compaction, leaf = tree.path()[-2], tree.active_leaf
    assert compaction.kind is NodeKind.COMPACTION and leaf.parent is compaction
    assert compaction.revision + 1 == leaf.revision and leaf.compaction.completed_compactions == 1
    history = tree.history(leaf)
    assert (
        history[1].text().startswith("[rho-desk digest v1]")
        and history[-1].text() == "Compacted and answered."
    )
    assert "Compacting the context automatically" in panel.reply.toPlainText()
    # the prompt stays in the saved display history (the compaction's display tail carries it)
    assert [e.message.text() for e in compaction.display] == ["Next step"]
    shown = [e.message.text() for e in tree.display(markers=False)]
    assert shown[-2:] == ["Next step", "Compacted and answered."]


def test_a_failed_call_commits_nothing_and_gives_the_prompt_back(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v3_session(tmp_path / "home")
    size = path.stat().st_size
    context, controller, panel = _open(make_window, run, path)
    loopback.queue(
        Reply(
            status=401, body=b'{"error": {"message": "bad key", "type": "invalid_request_error"}}'
        )
    )
    panel.composer.setPlainText("Will fail")
    panel.send()
    run(until(lambda: not controller.busy))
    assert path.stat().st_size == size
    assert panel.composer.toPlainText() == "Will fail" and "Failed" in panel.reply.toPlainText()
    assert any("nothing of this turn was kept" in n.text for n in context.notifier.history)
    bar = context.window.notifications
    assert bar.current is not None and "nothing of this turn was kept" in bar.current.text
    # another session opened: the failure belongs to the one left, and goes with it
    run(context.document.aopen(v3_session(tmp_path / "other-home")))
    run(
        until(
            lambda: bar.current is None or "nothing of this turn was kept" not in bar.current.text
        )
    )
    assert bar.current is None or "nothing of this turn was kept" not in bar.current.text


def test_rho_writing_meanwhile_offers_reload(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    path = v4_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    loopback.queue(text_reply("First."))
    controller.send("One", profile="loopback")
    run(until(lambda: not controller.busy))
    ours = read_session(path, check_name=False).tree.active_leaf
    # Rho makes another revision active, and the window notices (live update)
    with open(path, "ab") as handle:
        handle.write(b'{"type":"set_leaf","timestamp":"1767100010","target_id":"n0"}\n')
    run(context.document.areload())
    size = path.stat().st_size
    panel.composer.setPlainText("Two")
    panel.send()
    run(until(lambda: controller.state is TurnState.BLOCKED and context.conflict_dock.isVisible()))
    banner = context.conflict_dock
    assert (
        controller.state is TurnState.BLOCKED and banner.isVisible() and not loopback.requests[1:]
    )
    assert path.stat().st_size == size  # never overwritten
    assert panel.composer.toPlainText() == "Two"  # the prompt was not sent
    context.conflict_dock.banner.reload_button.click()
    run(until(lambda: controller.state is TurnState.IDLE and not banner.isVisible()))
    assert controller.state is TurnState.IDLE and not banner.isVisible()
    loopback.queue(text_reply("Second."))
    panel.send()
    run(until(lambda: not controller.busy))
    tree = read_session(path, check_name=False).tree
    assert (
        tree.active_leaf.parent.id == "n0"
        and tree.history(tree.active_leaf)[-1].text() == "Second."
    )
    assert ours.id in tree.nodes  # our earlier turn stays in the file


@pytest.mark.parametrize("maker", [v3_session, v4_session], ids=["v3-new-session", "v4-branch"])
def test_a_conflict_during_a_run_keeps_the_turn_and_fork_saves_it(
    make_window, run, tmp_path: Path, maker, loopback: Loopback, loopback_profile
) -> None:
    path = maker(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    base = context.document.tree.active_leaf.id
    conflicts: list[object] = []
    controller.sig_conflict.connect(conflicts.append)
    ended = turn_events(controller, turn.TurnEnded)
    loopback.queue(text_reply("A slow", " answer", " worth keeping.", delay=0.15))
    controller.send("Question", profile="loopback")
    run(until(lambda: bool(loopback.requests)))
    _rho_appends_a_turn(path)  # another writer (Rho) saves a turn meanwhile
    rho_bytes = path.read_bytes()
    # the conflict blocks the controller (not busy) before the turn's last event reaches the panel
    run(until(lambda: not controller.busy and bool(ended)))
    assert conflicts and conflicts[-1].unsaved and controller.unsaved is not None
    assert path.read_bytes() == rho_bytes  # nothing written after the other writer
    assert context.conflict_dock.isVisible() and controller.state is TurnState.BLOCKED
    # the panel says what the banner says (walkthrough C8): held, not saved; never "kept"
    reply = panel.reply.toPlainText()
    assert "This turn is held here, not saved: Fork saves it, Reload drops it" in reply
    assert "partial reply were kept" not in reply
    # one banner says it, with its buttons: no second notice saying the same beside it
    assert not [n.text for n in context.notifier.history if "wrote to this session" in n.text]
    unsaved = controller.unsaved
    context.conflict_dock.banner.fork_button.click()
    run(
        until(
            lambda: (
                controller.conflict is None
                and controller.state is TurnState.IDLE
                and context.document.tree.history(context.document.tree.active_leaf)
                == unsaved.history
            )
        )
    )
    assert controller.conflict is None and controller.state is TurnState.IDLE
    tree = context.document.tree
    leaf = tree.active_leaf
    assert (
        tree.history(leaf) == unsaved.history
        and tree.history(leaf)[-1].text() == "A slow answer worth keeping."
    )
    if maker is v4_session:
        assert (
            context.document.path == path and leaf.parent.id == base
        )  # a branch beside Rho's turn
        assert read_session(path, check_name=False).tree.active_leaf.id == leaf.id
    else:
        new_path = context.document.path
        assert new_path != path and read_session(new_path).tree.session_id != unsaved.session_id
        assert path.read_bytes() == rho_bytes  # the original line is untouched
    # and the conversation goes on from the saved fork
    loopback.queue(text_reply("Onwards."))
    controller.send("Next", profile="loopback")
    run(until(lambda: not controller.busy))
    assert context.document.tree.history(context.document.tree.active_leaf)[-1].text() == "Onwards."


def test_a_failure_reason_ending_in_a_full_stop_reads_as_one_sentence(
    make_window, run, tmp_path: Path
) -> None:
    _context, controller, panel = _open(make_window, run, v3_session(tmp_path / "home"))
    controller.sig_turn_event.emit(
        turn.TurnEnded(
            "failed",
            "a profile can read its key from an environment variable instead.",
            "",
            None,
            False,
            None,
        )
    )
    text = panel.reply.toPlainText()
    assert "instead. Nothing of this turn was kept." in text and ".." not in text


def test_a_turn_that_reaches_its_step_limit_says_so(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    import json

    from rho_desk.providers.profiles import ProfileStore

    from ...providers.loopback import OPENAI_DONE, openai_chunk

    ProfileStore().upsert(loopback_profile.model_copy(update={"max_steps": 2}), make_default=True)
    path = v3_session(tmp_path / "home")
    context, controller, panel = _open(make_window, run, path)
    for i in range(3):
        call = {
            "index": 0,
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": f"f{i}"})},
        }
        loopback.queue(
            Reply(
                chunks=[
                    openai_chunk({"role": "assistant", "tool_calls": [call]}),
                    openai_chunk({}, finish="tool_calls"),
                    OPENAI_DONE,
                ]
            )
        )
    panel.composer.setPlainText("Keep reading")
    panel.send()
    run(until(lambda: not controller.busy))
    assert len(loopback.requests) == 2
    assert (
        "■ Stopped: the turn reached its limit of 2 model steps"
        in panel.reply.toPlainText().splitlines()
    )
    notices = [n.text for n in context.notifier.history]
    assert (
        "The turn stopped early: the turn reached its limit of 2 model steps. What it did is saved."
        in notices
    )


def test_a_tool_call_being_written_shows_how_far_it_got(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    """A model writing a long tool call (a runaway edit takes minutes) shows a live line with the
    call and its size so far, gone once the call is complete."""
    from ...providers.test_cli_continue_limits import _streamed_write

    path = v3_session(tmp_path / "home")
    _context, controller, panel = _open(make_window, run, path)
    seen = turn_events(
        controller,
        turn.CallsProgress | turn.CallsEnded,
        lambda e: e.due.words() if isinstance(e, turn.CallsProgress) else "",
    )
    loopback.queue(_streamed_write(20, "x" * 700), text_reply("Done."))
    panel.composer.setPlainText("Write the big file")
    panel.send()
    run(until(lambda: not controller.busy))
    shown = [s for s in seen if s]
    assert len(shown) >= 3 and all(s.startswith("● writing a write call… ") for s in shown), seen
    assert shown[-1].endswith(" KB") and seen[-1] == ""  # cleared once the call was complete
    assert (
        panel.call_progress.isHidden()
        and panel.call_progress.accessibleName() == "Tool call being written"
    )


def test_a_reset_mid_call_clears_the_live_line_and_counts_again(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile, qtbot
) -> None:
    """The stream breaks while a call is being written and the request is sent again: the live
    line goes with the broken call, and the retried call's line counts from zero."""
    from ...providers.test_cli_continue_limits import _streamed_write, _write_cut_mid_call

    path = v3_session(tmp_path / "home")
    _context, controller, panel = _open(make_window, run, path)
    seen = turn_events(
        controller,
        turn.CallsProgress | turn.CallsEnded,
        lambda e: e.due.words() if isinstance(e, turn.CallsProgress) else "",
    )
    loopback.queue(_write_cut_mid_call(), _streamed_write(6, "y" * 100), text_reply("Done."))
    panel.composer.setPlainText("Write the big file")
    panel.send()
    run(until(lambda: not controller.busy))
    cleared = seen.index("")
    assert seen[cleared - 1].endswith(" KB") and seen[cleared + 1].endswith(" B"), seen
    assert all(s.endswith(" B") for s in seen[cleared + 1 :] if s), seen
    assert seen[-1] == "" and panel.call_progress.isHidden()


def test_the_reply_shows_markdown_rendered(
    make_window, run, tmp_path: Path, loopback: Loopback, loopback_profile
) -> None:
    """The live reply renders the assistant's Markdown as the conversation does: no raw markers."""
    path = v3_session(tmp_path / "home")
    _context, controller, panel = _open(make_window, run, path)
    loopback.queue(
        text_reply("Done. The folder holds **READ", "ME.md** and `notes.txt`.\n\n- one\n- two")
    )
    panel.composer.setPlainText("List the folder")
    panel.send()
    run(until(lambda: not controller.busy))
    text = panel.reply.toPlainText()
    assert "Assistant: Done. The folder holds README.md and notes.txt." in text
    assert "**" not in text and "`" not in text
    assert "one\ntwo" in text and "Saved as revision" in text
    lines = text.splitlines()
    assert lines[-1].startswith("✓ Saved as revision")  # a line of its own, not an item of the list
    html = panel.reply.toHtml()
    assert "font-weight:700" in html or "font-weight:600" in html  # README.md is bold
