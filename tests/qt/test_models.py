"""Every item model passes QAbstractItemModelTester, and does what the views rely on."""

from __future__ import annotations

from pathlib import Path

from rho_desk.core.compaction.stats import compute_stats, resolve_context_window
from rho_desk.core.revisions.diff import Sign, compute_diff
from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.stores.summary import SessionSummary
from rho_desk.core.wire import ContentBlock, Message
from rho_desk.core.wire.model import ToolResult
from rho_desk.qt.browser.sessions_model import SessionListModel
from rho_desk.qt.conversation.model import ConversationModel, RowKind, build_rows, plain_preview
from rho_desk.qt.revisions.diff_model import RevisionDiffModel
from rho_desk.qt.revisions.tree_model import RevisionTreeModel
from rho_desk.qt.ui.roles import Role
from rho_desk.qt.usage.compactions_model import CompactionTableModel

from .conftest import DEMO_SOURCE
from .helpers import PROVIDER, turn, v4_session


def _demo(session_id: str) -> Path:
    return next(p for p in DEMO_SOURCE.rglob("*.jsonl") if session_id in str(p))


WEBHOOK = "5f0c2a9e"
IDEMPOTENCY = "b2e47d10"


def test_conversation_model_passes_the_tester_through_reset_and_append(qtmodeltester) -> None:
    tree = read_session(_demo(WEBHOOK)).tree
    model = ConversationModel()
    qtmodeltester.check(model)
    node = tree.path()[-2]
    model.set_rows(build_rows(tree.display(node, trimmed=False)))
    qtmodeltester.check(model)
    inserted: list[tuple[int, int]] = []
    model.rowsInserted.connect(lambda _p, a, b: inserted.append((a, b)))
    before = model.rowCount()
    model.set_rows(
        build_rows(tree.display(tree.active_leaf, trimmed=False))
    )  # the next revision: an append
    assert inserted == [(before, model.rowCount() - 1)]
    qtmodeltester.check(model)


def test_tool_calls_pair_with_their_results_and_kinds_are_right() -> None:
    history = (Message.system_text("s"), *turn(1), *turn(2))
    rows = build_rows(history)
    assert list(rows.kinds) == [
        RowKind.SYSTEM,
        RowKind.USER,
        RowKind.ASSISTANT,
        RowKind.TOOL_RESULT,
        RowKind.ASSISTANT,
    ] * 1 + [RowKind.USER, RowKind.ASSISTANT, RowKind.TOOL_RESULT, RowKind.ASSISTANT]
    link = rows.links(2)[0]
    assert (link.name, link.result_row) == ("read_file", 3)
    assert rows.link_of_result(3).call_row == 2  # type: ignore[union-attr]
    assert rows.resume_cut == len(history)


def test_several_calls_of_one_message_pair_with_their_results_by_id() -> None:
    def calls(*ids: str) -> Message:
        return Message.assistant_blocks(ContentBlock.of_tool_call(i, f"tool_{i}", {}) for i in ids)

    history = (
        Message.user_text("go"),
        calls("a", "b", "c"),
        Message.result("b", True, "B"),
        Message.result("a", True, "A"),
        Message.result("zz", True, "orphan"),
        calls("d"),
        Message.result("d", False, "D"),
    )
    rows = build_rows(history)
    assert [(k.index, k.call_id, k.name, k.result_row) for k in rows.links(1)] == [
        (0, "a", "tool_a", 3),
        (1, "b", "tool_b", 2),
        (2, "c", "tool_c", None),
    ]
    assert [(k.call_row, k.index, k.call_id) for k in rows.links(5)] == [(5, 0, "d")]
    assert rows.links(0) == [] and rows.links(2) == []
    found = [rows.link_of_result(r) for r in (2, 3, 4, 6)]
    assert [(k.call_row, k.index, k.name) if k else None for k in found] == [
        (1, 1, "tool_b"),
        (1, 0, "tool_a"),
        None,
        (5, 0, "tool_d"),
    ]
    assert rows.link_of_result(1) is None
    assert rows.resume_cut == 1  # results out of order: that turn is not resumed


def test_an_unanswered_call_marks_the_rest_as_not_resumed() -> None:
    t = turn(1)
    history = (*t[:2], Message.user_text("interrupting"), *turn(2))  # call_1 never answered
    model = ConversationModel()
    model.set_rows(build_rows(history))
    assert model.rows.resume_cut == 1
    row = model.presentation(1)
    assert row.dropped and ("not resumed", "warning") in row.badges
    assert any("no result" in status for _i, _t, status in row.lines)


def test_aborted_turns_show_partial_tool_calls() -> None:
    tree = read_session(_demo(IDEMPOTENCY)).tree
    model = ConversationModel()
    model.set_rows(build_rows(tree.display(trimmed=False)))
    row = next(
        r
        for r in range(model.rowCount())
        if model.data(model.index(r), Role.KIND) == RowKind.ABORTED
    )
    p = model.presentation(row)
    assert p.title == "Aborted turn" and ("interrupted", "danger") in p.badges
    states = [status for _i, _t, status in p.lines]
    assert "muted:complete" in states and "warning:partial" in states


def test_provider_blocks_say_whether_they_replay_to_the_target() -> None:
    tree = read_session(_demo(WEBHOOK)).tree
    model = ConversationModel()
    model.set_rows(build_rows(tree.display(trimmed=False)), target=PROVIDER)
    row = next(r for r in range(model.rowCount()) if model.message(r).provider_context())
    line = next(t for i, t, _s in model.presentation(row).lines if i == "provider")
    assert "openai/responses/gpt-5" in line and "replays to openai/responses/gpt-5: yes" in line
    from rho_desk.core.wire import ModelIdentity

    model.set_rows(
        build_rows(tree.display(trimmed=False)),
        target=ModelIdentity("anthropic", "anthropic-messages", "x"),
    )
    line = next(t for i, t, _s in model.presentation(row).lines if i == "provider")
    assert line.endswith("replays to anthropic/anthropic-messages/x: no")


def test_images_decode_and_previews_drop_markdown_syntax() -> None:
    png = next(p for p in DEMO_SOURCE.rglob("*.jsonl") if "4a7e2c19" in str(p))
    tree = read_session(png).tree
    model = ConversationModel()
    model.set_rows(build_rows(tree.display(tree.path()[0], trimmed=False)))
    assert model.image(0, 0) is not None and model.image(0, 0).width() == 320  # type: ignore[union-attr]
    assert model.image(0, 5) is None
    assert (
        plain_preview(
            "# Title\n**bold** and `code` and [a link](https://x)\n| a | b |\n|---|---|\n| 1 | 2 |"
        )
        == "Title\nbold and code and a link\na  b\n1  2"
    )
    bad = Message.user_blocks([ContentBlock.of_image("bm90IGFuIGltYWdl", "image/png")])
    model.set_rows(build_rows((bad,)))
    assert model.image(0, 0) is None


def test_session_list_model(qtmodeltester) -> None:
    model = SessionListModel()
    qtmodeltester.check(model)
    summaries = [
        SessionSummary(
            f"ws{i}",
            "/w",
            f"id{i}",
            f"/p/{i}",
            1,
            2,
            3,
            f"first {i}",
            None,
            10,
            1,
            1,
            0,
            None,
            3,
            title="Title" if i == 0 else None,
        )
        for i in range(3)
    ]
    model.set_sessions(summaries)
    qtmodeltester.check(model)
    assert model.data(model.index(0)) == "Title" and model.data(model.index(1)) == "first 1"
    model.set_open_path("/p/1")
    assert model.data(model.index(1), Role.ACTIVE) and not model.data(model.index(0), Role.ACTIVE)
    assert model.row_of_path("/p/2") == 2


def test_revision_tree_model_flattens_chains_and_nests_branches(
    qtmodeltester, tmp_path: Path
) -> None:
    tree = read_session(v4_session(tmp_path)).tree
    model = RevisionTreeModel()
    qtmodeltester.check(model)
    model.set_tree(tree)
    qtmodeltester.check(model)
    top = [model.node(model.index(r, 0)).id for r in range(model.rowCount())]  # type: ignore[union-attr]
    assert top == ["n0", "n1", "n2", "n3"]  # the active path is the main line
    n1 = model.index(1, 0)
    assert [model.node(model.index(r, 0, n1)).id for r in range(model.rowCount(n1))] == ["b1"]  # type: ignore[union-attr]
    assert model.data(model.index_of(tree.nodes["n3"]), Role.ACTIVE)
    assert not model.data(model.index_of(tree.nodes["b1"]), Role.ON_ACTIVE_PATH)
    assert "Compacted" in model.data(model.index_of(tree.nodes["n2"], 3))


def test_diff_of_two_branches(qtmodeltester, tmp_path: Path) -> None:
    tree = read_session(v4_session(tmp_path)).tree
    back = compute_diff(tree, tree.nodes["b1"], tree.nodes["n1"])
    assert (back.added, back.removed, back.changed) == (0, 4, 0)
    assert back.token_delta == back.new_tokens - back.old_tokens < 0
    forward = compute_diff(tree, tree.nodes["n1"], tree.nodes["b1"])
    assert (forward.added, forward.removed, forward.changed) == (4, 0, 0) and forward.fields == ()
    branches = compute_diff(tree, tree.nodes["n3"], tree.nodes["b1"])  # across the compaction
    assert branches.changed >= 1 and "compaction" in branches.fields
    compaction = compute_diff(tree, tree.nodes["n1"], tree.nodes["n2"])
    assert compaction.common_suffix == 2 and compaction.fields == ("compaction",)
    assert compaction.removed >= 1 and compaction.token_delta < 0
    model = RevisionDiffModel()
    qtmodeltester.check(model)
    model.set_result(compaction)
    qtmodeltester.check(model)
    assert {model.data(model.index(r, 0), Role.KIND) for r in range(model.rowCount())} <= {
        s.value for s in Sign
    }
    kinds = {model.data(model.index(r, 2)) for r in range(model.rowCount())} - {""}
    assert kinds and kinds <= {"System", "User", "Assistant", "Aborted", "Tool result"}, (
        kinds
    )  # words, not type names


def test_compaction_stats_along_the_path(qtmodeltester, tmp_path: Path) -> None:
    tree = read_session(v4_session(tmp_path)).tree
    data = compute_stats(tree, tree.active_leaf, default_window=1000)  # type: ignore[arg-type]
    assert [p.compaction for p in data.series] == [False, False, True, False]
    row = data.compactions[0]
    assert (
        row.messages_before,
        row.messages_after,
        row.tokens_before,
        row.tokens_after,
        row.cost_usd_micros,
        row.from_facts,
    ) == (9, 4, 120, 40, 1500, True)
    from rho_desk.core.compaction import estimate_messages_tokens

    assert data.context_tokens == estimate_messages_tokens(tree.history())
    assert data.series[1].tokens == estimate_messages_tokens(tree.history(tree.nodes["n1"]))
    assert data.window == 400_000  # gpt-5
    model = CompactionTableModel()
    qtmodeltester.check(model)
    model.set_rows(data.compactions)
    qtmodeltester.check(model)
    assert model.data(model.index(0, 3)) == "9 → 4"


def test_the_context_window_comes_from_usage_then_profiles_then_the_model_then_the_default() -> (
    None
):
    from rho_desk.core.wire import AbortedAssistant, ModelIdentity, ModelUsage

    aborted = Message.aborted(
        AbortedAssistant(
            content=(), reasoning="", tool_calls=(), usage=ModelUsage(context_window=64_000)
        )
    )
    assert resolve_context_window([aborted], PROVIDER, 1)[0] == 64_000
    assert resolve_context_window([], PROVIDER, 1, [("mine", "gpt-5", 272_000)]) == (
        272_000,
        "from provider profile “mine”",
    )
    assert resolve_context_window([], PROVIDER, 1)[0] == 400_000
    assert resolve_context_window([], ModelIdentity("x", "y", "unknown-model"), 123) == (
        123,
        "default from the settings",
    )


def test_the_resume_cut_is_the_rule_of_complete_prefix_length_on_random_histories() -> None:
    import random

    from rho_desk.core.stores.rho_files.views import complete_prefix_length

    def call(cid: str) -> ContentBlock:
        return ContentBlock.of_tool_call(cid, "bash", {"command": "ls"})

    from rho_desk.core.wire import AbortedAssistant, AssistantMessage, ModelUsage

    rng = random.Random(5)
    for _ in range(400):
        history: list[Message] = []
        for _ in range(rng.randint(0, 14)):
            pick = rng.random()
            cids = [f"c{rng.randint(0, 4)}" for _ in range(rng.randint(1, 3))]
            if pick < 0.25:
                history.append(Message.user_text("u"))
            elif pick < 0.45:
                blocks = (ContentBlock.of_text("t"), *map(call, cids))
                history.append(
                    Message.enriched(AssistantMessage(content=blocks, provenance=PROVIDER))
                    if rng.random() < 0.5
                    else Message(assistant=blocks)
                )
            elif pick < 0.5:
                aborted = AbortedAssistant(
                    content=tuple(map(call, cids)),
                    reasoning="",
                    tool_calls=(),
                    usage=ModelUsage(context_window=64_000),
                )
                history.append(Message.aborted(aborted))
            elif pick < 0.9:
                history.append(Message.result(rng.choice(cids), True, "ok"))
            else:
                history.append(Message.assistant_text("done"))
        assert build_rows(history).resume_cut == complete_prefix_length(history), history


def _edit_conversation() -> ConversationModel:
    """A turn that calls Rho's ``edit`` with a hashline document of two files."""
    document = "[README.md#25CB]\nPUT 1:\n+# Title\n[src/app.py#0A1B]\nCUT 3\n"
    history = (
        Message.user_text("fix it"),
        Message.assistant_blocks(
            [ContentBlock.of_tool_call("call_1", "edit", {"input": document})]
        ),
        Message(tool_result=ToolResult("call_1", True, "ok")),
    )
    model = ConversationModel()
    model.set_rows(build_rows(history))
    return model


def test_an_edit_call_is_shown_by_the_files_it_edits() -> None:
    """Rho's ``edit`` takes one hashline document: its line shows the files, not the document."""
    model = _edit_conversation()
    texts = [text for _icon, text, _tone in model.presentation(1).lines]
    assert texts == ["edit  README.md, src/app.py"], texts


def test_an_edit_call_reads_as_its_hashline_document_in_the_detail_pane(qtbot) -> None:
    """The detail pane shows Rho's edit as the document the model wrote, line by line, under the
    files it edits, not as one JSON string of escaped newlines."""
    from rho_desk.qt.conversation.message_detail import MessageDetailView
    from rho_desk.qt.ui.theme import LIGHT

    model = _edit_conversation()
    view = MessageDetailView(LIGHT)
    qtbot.addWidget(view)
    view.set_model(model)
    view._collapsed = {"call0": False}
    view.show_row(1)
    shown = view.browser.toPlainText()
    assert "Edits README.md, src/app.py" in shown
    assert "PUT 1:\n+# Title\n[src/app.py#0A1B]\nCUT 3" in shown
    assert '"input"' not in shown and "\\n" not in shown


def test_a_change_to_files_ends_on_a_line_that_says_which_and_how_much() -> None:
    """The continue panel's line after a call: the files and the lines changed, not the first
    line of the output the model reads back ('[README.md#25CB]')."""
    from rho_desk.core.session.events import ToolCallFailure, ToolCallSuccess
    from rho_desk.core.tools.protocol import ToolErrorKind, ToolOutput
    from rho_desk.core.tools.words import result_line

    diff = "--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-# Old\n+# New\n"
    edited = ToolCallSuccess(
        ToolOutput(
            "PUT 1: (1 → 1 line(s))\n[README.md#25CB]\n1:# New",
            {"operation": "write", "path": "README.md", "diff": diff},
        )
    )
    assert result_line(edited) == "README.md: 1 line added, 1 removed"
    added = ToolCallSuccess(
        ToolOutput(
            "wrote notes.txt",
            {"operation": "write", "path": "notes.txt", "diff": "+++ b/notes.txt\n+a\n+b\n"},
        )
    )
    assert result_line(added) == "notes.txt: 2 lines added"
    same = ToolCallSuccess(
        ToolOutput("[x.py#00AA]", {"operation": "write", "path": "x.py", "diff": ""})
    )
    assert result_line(same) == "x.py: unchanged"
    listed = ToolCallSuccess(
        ToolOutput("\nstdout:\ntotal 8\n", {"operation": "execute", "command": "ls"})
    )
    assert result_line(listed) == "stdout:"
    assert (
        result_line(ToolCallFailure(ToolErrorKind.EXECUTION, "no such file\nmore"))
        == "no such file"
    )
