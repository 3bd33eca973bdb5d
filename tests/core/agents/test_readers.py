"""Every agent's fixture, read into the tree the Rho reader produces: the cases it was built for."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from rho_desk.core.agents import AGENTS, detect, open_session, read_log
from rho_desk.core.agents.build import INTERRUPTED_RESULT
from rho_desk.core.agents.formats import READERS
from rho_desk.core.stores.rho_files import NodeKind
from rho_desk.core.stores.rho_files.records import NodeRecord, SetLeafRecord
from rho_desk.core.stores.rho_files.views import complete_prefix_length
from rho_desk.core.wire import Message

from .conftest import MAIN, assert_built_by_the_rules


def _display(path: Path) -> list[Message]:
    return [entry.message for entry in open_session(path).tree.display()]


def test_there_is_a_fixture_for_every_agent() -> None:
    assert sorted(MAIN) == sorted(AGENTS)


@pytest.mark.parametrize("agent", AGENTS)
def test_the_format_is_detected(agent: str, sessions: dict[str, Path]) -> None:
    assert detect(sessions[agent]) == agent


@pytest.mark.parametrize("agent", AGENTS)
def test_every_call_is_followed_by_its_result_in_order(
    agent: str, sessions: dict[str, Path]
) -> None:
    """Rho's rule (storage.md §6.5) holds on every revision's history: nothing is trimmed."""
    tree = open_session(sessions[agent]).tree
    for node in tree.nodes.values():
        history = tree.history(node)
        assert complete_prefix_length(history) == len(history), (agent, node.id)
    calls = [
        b.tool_call.id
        for n in tree.nodes.values()
        for m in tree.history(n)
        for b in m.completed_assistant_content() or ()
        if b.tool_call is not None
    ]
    results = {
        m.tool_result.id
        for n in tree.nodes.values()
        for m in tree.history(n)
        if m.tool_result is not None
    }
    assert calls and set(calls) <= results


@pytest.mark.parametrize("agent", AGENTS)
def test_the_display_has_tool_calls_an_image_reasoning_and_a_compaction(
    agent: str, sessions: dict[str, Path]
) -> None:
    session = open_session(sessions[agent])
    tree = session.tree
    shown = [e.message for e in tree.display(tree.active_leaf)]
    everything = [m for n in tree.nodes.values() for m in tree.history(n)]
    assert any(m.tool_result is not None and not m.tool_result.ok for m in everything), (
        "a tool error"
    )
    assert any(b.image is not None for m in shown for b in m.content), "an image"
    assert any(
        m.enriched_assistant is not None and m.enriched_assistant.reasoning_summary
        for m in everything
    ), "reasoning"
    assert any(n.kind is NodeKind.COMPACTION for n in tree.path()), (
        "a compaction on the active path"
    )
    # opencode's undo leaves the undone messages past the leaf; Pi has no subagents of its own
    assert tree.branch_count >= 1 or (agent == "opencode" and tree.active_leaf.children), (
        "the agent's branch"
    )  # type: ignore[union-attr]
    assert session.log.subagents or agent == "pi", "a subagent"


@pytest.mark.parametrize("agent", AGENTS)
def test_each_fixture_reports_what_it_left_out(agent: str, sessions: dict[str, Path]) -> None:
    log = read_log(sessions[agent])
    assert log.loss.dropped
    assert all(":$" in path for path in log.loss.dropped)
    assert log.requests, "token usage per request"


def test_claude_code_joins_one_response_written_as_several_records(
    sessions: dict[str, Path],
) -> None:
    shown = _display(sessions["claude-code"])
    first = next(m for m in shown if m.enriched_assistant is not None)
    assert [c.name for c in first.tool_calls()] == ["Read", "Bash"]
    assert first.enriched_assistant is not None
    assert (
        first.enriched_assistant.reasoning_summary
        == "The screenshot shows unstyled HTML: the stylesheet is probably not loading."
    )
    assert first.enriched_assistant.provider_context[0].data["signature"] == "EqQBCkYIBxgCKkBsig1"
    # the results came in the other order; Rho wants them in call order
    at = shown.index(first)
    assert [shown[at + 1].tool_result.id, shown[at + 2].tool_result.id] == [
        "toolu_01Read",
        "toolu_01Bash",
    ]  # type: ignore[union-attr]


def test_claude_code_an_interrupted_call_gets_rhos_interrupted_result(
    sessions: dict[str, Path],
) -> None:
    session = open_session(sessions["claude-code"])
    log, tree = session.log, session.tree
    results = [
        m.tool_result
        for n in tree.nodes.values()
        for m in tree.history(n)
        if m.tool_result is not None
    ]
    edit = next(r for r in results if r.id == "toolu_01Edit")
    assert (edit.ok, edit.content) == (False, INTERRUPTED_RESULT)
    assert log.loss.made["results made for calls that never got one (interrupted)"] == 1


def test_claude_code_subagent_is_its_own_session(sessions: dict[str, Path]) -> None:
    log = read_log(sessions["claude-code"])
    (ref,) = log.subagents
    assert (ref.session_id, ref.title, ref.call_id) == (
        "agent-a5f1c2d",
        "Audit templates",
        "toolu_01Task",
    )
    child = read_log(ref.path)
    assert child.parent_session == log.session_id
    assert [c.name for e in child.entries.values() for m in e.messages for c in m.tool_calls()] == [
        "Grep"
    ]


def test_codex_rollback_keeps_the_taken_back_turn_as_a_branch(sessions: dict[str, Path]) -> None:
    tree = open_session(sessions["codex"]).tree
    on_path = {m.text() for n in tree.path() for e in n.display for m in [e.message]}
    assert "Never mind the compose file. Summarize what we changed." in on_path
    assert "Also delete the old docker-compose file." not in on_path
    branch = [m.text() for n in tree.nodes.values() for e in n.display for m in [e.message]]
    assert "Also delete the old docker-compose file." in branch


def test_codex_compaction_replaced_what_the_last_request_held(sessions: dict[str, Path]) -> None:
    """Codex records no size with its compaction: the last request's tokens before it are that
    size (recorded, not estimated)."""
    tree = open_session(sessions["codex"]).tree
    compaction = next(n for n in tree.nodes.values() if n.kind is NodeKind.COMPACTION)
    assert (
        compaction.compaction_facts is not None
        and compaction.compaction_facts.previous_tokens == 6020
    )


def test_codex_usage_counts_cached_input_apart(sessions: dict[str, Path]) -> None:
    first = read_log(sessions["codex"]).requests[0]
    assert (
        first.model,
        first.usage.input_tokens,
        first.usage.cache_read_tokens,
        first.usage.output_tokens,
    ) == ("gpt-5-codex", 2048, 3072, 210)


def _codex_token_counts(path: Path, figures: list[object]) -> Path:
    """A rollout with one turn and a token count per figure (its input tokens)."""
    stamp = "2026-03-01T10:00:00.000Z"

    def line(kind: str, payload: dict[str, object]) -> str:
        return json.dumps({"timestamp": stamp, "type": kind, "payload": payload}) + "\n"

    meta = {"id": "t1", "timestamp": stamp, "cwd": "/w"}
    prompt = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}
    lines = [line("session_meta", meta), line("response_item", prompt)]
    for n, figure in enumerate(figures):
        last = {"input_tokens": figure, "output_tokens": 2, "cached_input_tokens": 0}
        last["total_tokens"] = 10
        # a new running total: every count is a request of its own
        info = {"last_token_usage": last, "total_token_usage": {"total_tokens": 10 + n}}
        info["model_context_window"] = 100
        lines.append(line("event_msg", {"type": "token_count", "info": info}))
    path.write_text("".join(lines))
    return path


def _claude_usages(path: Path, figures: list[object]) -> Path:
    """A Claude Code session with one reply per figure (its input tokens)."""
    records = []
    parent = None
    for n, figure in enumerate(figures):
        usage = {"input_tokens": figure, "output_tokens": 2}
        usage |= {"cache_read_input_tokens": 0, "cache_creation_input_tokens": 0}
        message = {"role": "assistant", "id": f"m{n}", "model": "claude-x", "usage": usage}
        message["content"] = [{"type": "text", "text": "ok"}]
        uuid = f"a{n}"
        records.append(
            {"type": "assistant", "uuid": uuid, "parentUuid": parent, "message": message}
        )
        parent = uuid
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


@pytest.mark.parametrize("figures", [[1, True, 1.0, 1], [True, 1, 1.0, True]])
def test_a_usage_figure_that_is_no_integer_is_never_taken_for_one(
    tmp_path: Path, figures: list[object]
) -> None:
    """Requests with the same figures share their usage, but ``true`` is no count (and ``1.0``
    is one), whichever came first."""
    expected = [None if figure is True else 1 for figure in figures]
    codex = read_log(_codex_token_counts(tmp_path / "rollout-t.jsonl", figures))
    # OpenAI-style usage: the input counts its cache hits (none here)
    assert [r.usage.input_tokens for r in codex.requests] == expected
    claude = read_log(_claude_usages(tmp_path / "s.jsonl", figures), agent="claude-code")
    assert [r.usage.input_tokens for r in claude.requests] == expected


def test_gemini_rewind_and_rolled_back_prompt_are_branches(sessions: dict[str, Path]) -> None:
    tree = open_session(sessions["gemini"]).tree
    shown = [e.message.text() for e in tree.display()]
    assert "Now rewrite the cart in Svelte." not in shown
    assert "Run the whole test suite." not in shown
    every = [e.message.text() for n in tree.nodes.values() for e in n.display]
    assert "Now rewrite the cart in Svelte." in every and "Run the whole test suite." in every
    assert tree.branch_count == 1 and len(tree.path()[0].children) == 3


def test_gemini_tool_responses_are_not_duplicated(sessions: dict[str, Path]) -> None:
    tree = open_session(sessions["gemini"]).tree
    ids = [m.tool_result.id for m in tree.history(tree.path()[0]) if m.tool_result is not None]
    assert len(ids) == len(set(ids)) == 3


def test_opencode_undone_message_is_a_branch_past_the_leaf(sessions: dict[str, Path]) -> None:
    tree = open_session(sessions["opencode"]).tree
    assert tree.active_leaf is not None and tree.active_leaf.children
    assert tree.display()[-1].message.text() == "Add a test for it."


def test_opencode_steps_are_requests(sessions: dict[str, Path]) -> None:
    log = read_log(sessions["opencode"])
    assert len(log.requests) == 8
    assert sum(r.usage.cost_usd_micros or 0 for r in log.requests) == 51300


def test_pi_compaction_keeps_what_pi_kept(sessions: dict[str, Path]) -> None:
    tree = open_session(sessions["pi"]).tree
    compaction = next(n for n in tree.path() if n.kind is NodeKind.COMPACTION)
    texts = [m.text() for m in tree.history(compaction)]
    assert texts[0].startswith("The conversation history before this point was compacted")
    assert "Skip colors. Run the tests." in texts  # firstKeptEntryId
    assert (
        compaction.compaction_facts is not None
        and compaction.compaction_facts.previous_tokens == 14210
    )


def test_pi_aborted_answer_is_an_aborted_assistant(sessions: dict[str, Path]) -> None:
    tree = open_session(sessions["pi"]).tree
    aborted = [
        m for n in tree.nodes.values() for m in tree.history(n) if m.aborted_assistant is not None
    ]
    assert aborted and aborted[0].aborted_assistant is not None
    assert aborted[0].aborted_assistant.tool_calls[0].name == "bash"


@pytest.mark.parametrize("agent", AGENTS)
def test_building_twice_gives_the_same_tree(agent: str, sessions: dict[str, Path]) -> None:
    first, second = open_session(sessions[agent]), open_session(sessions[agent])
    assert list(first.tree.nodes) == list(second.tree.nodes)
    assert first.records == second.records


def test_codex_context_items_reach_the_model_but_are_not_shown(sessions: dict[str, Path]) -> None:
    tree = open_session(sessions["codex"]).tree
    assert (
        tree.history()[0].text().startswith("<environment_context>") is False
    )  # compacted away on the leaf
    first = tree.path()[0]
    assert tree.history(first)[0].text().startswith("<environment_context>")
    assert all(not e.message.text().startswith("<environment_context>") for e in tree.display())


@pytest.mark.parametrize("agent", AGENTS)
def test_the_built_tree_holds_the_rho_readers_rules(agent: str, sessions: dict[str, Path]) -> None:
    assert_built_by_the_rules(open_session(sessions[agent]))


def test_the_agents_names_agree_everywhere() -> None:
    """``AGENTS``, the readers' table and each reader's own ``AGENT`` name the same five agents:
    a reader added to one and not the others would be listed but not opened, or the reverse."""
    assert tuple(READERS) == AGENTS
    modules = ("claude_code", "codex", "gemini", "opencode", "pi")
    names = [importlib.import_module(f"rho_desk.core.agents.{m}").AGENT for m in modules]
    assert names == list(AGENTS)


def test_the_branch_holding_the_leaf_is_written_last(tmp_path: Path) -> None:
    """A prompt answered on two branches, the agent going on from the first one written: that
    branch's revisions come last, so the file needs no ``set_leaf`` record to end on it."""
    path = tmp_path / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"

    def record(uuid: str, parent: str | None, text: str) -> dict[str, object]:
        kind = "assistant" if uuid.startswith("a") else "user"
        message: dict[str, object] = {"role": kind, "content": text}
        if kind == "assistant":
            message = {
                "role": kind,
                "id": f"msg_{uuid}",
                "content": [{"type": "text", "text": text}],
            }
        return {
            "type": kind,
            "uuid": uuid,
            "parentUuid": parent,
            "sessionId": "s",
            "message": message,
        }

    records = [
        record("u1", None, "Which database?"),
        record("a1", "u1", "PostgreSQL or SQLite."),
        record("u2", "a1", "PostgreSQL, then."),
        record("a2", "u2", "Set up PostgreSQL."),
        record("u3", "a1", "SQLite, then."),
        record("a3", "u3", "Set up SQLite."),
        record("a4", "a2", "PostgreSQL is running."),
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    built = open_session(path)
    assert not any(isinstance(r, SetLeafRecord) for r in built.records)
    tree = built.tree
    assert tree.branch_count == 1
    assert [e.message.text() for e in tree.display()][-1] == "PostgreSQL is running."
    nodes = [r for r in built.records if isinstance(r, NodeRecord)]
    assert built.sources[nodes[-1].id] == ("u2", "a2", "a4")
    assert built.sources[nodes[-2].id] == ("u3", "a3")
