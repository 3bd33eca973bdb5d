"""A reader that decodes the common shapes of its records into typed structs (in C) reads every
log exactly as its dict path does: the same steps, messages, requests, facts and loss report
(dropped members by JSON path, with counts), or the same error at the same line.

Records are drawn near the common shapes: each one of them, with members left out, written as
``null``, of another type, or unknown ones added, so that both the typed path and every way back
to the dict path are taken."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.agents import read_log
from rho_desk.core.agents.base import AgentLogError
from rho_desk.core.agents.build import build
from rho_desk.core.agents.jsonl import JsonLines

from .conftest import MAIN

_records = JsonLines._records


def _dicts_only(self: JsonLines, decode: object) -> Iterator[tuple[int, dict[str, Any]]]:
    return _records(self, None)


def outcome(path: Path, agent: str, *, typed: bool) -> Any:
    """What reading ``path`` gives: the log's facts, steps, loss and built records, or the error."""
    with mock.patch.object(JsonLines, "_records", _records if typed else _dicts_only):
        try:
            log = read_log(path, agent=agent)
        except AgentLogError as exc:
            return ("error", exc.reason, exc.line)
    facts = (log.session_id, log.cwd, log.created, log.version, log.title, log.leaf)
    built = msgspec.json.encode(build(log).records)
    return (
        facts,
        log.parent_session,
        list(log.entries.values()),
        log.loss.as_json(),
        log.requests,
        log.subagents,
        built,
    )


def _same(path: Path, agent: str) -> None:
    assert outcome(path, agent, typed=True) == outcome(path, agent, typed=False)


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_fixture_logs_read_alike(agent: str, sessions: dict[str, Path]) -> None:
    _same(sessions[agent], agent)


def test_many_records_of_one_shape_count_every_dropped_member(tmp_path: Path) -> None:
    """Unused members are counted a batch of rows at a time: a shape with one unused member
    (a Codex call's ``id``) and one with several (a Claude Code reply with its message and
    usage) each count every record that holds one, over several batches, as the dict path does."""
    n = 300  # more than two batches of rows
    rollout = tmp_path / "rollout-2026-03-01T10-00-00-019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c03.jsonl"
    lines = [
        {
            "timestamp": "2026-03-01T10:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": "019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c03", "cwd": "/w"},
        }
    ]
    for i in range(n):
        call: dict[str, Any] = {"type": "function_call", "name": "shell", "call_id": f"c{i}"}
        if i % 3:
            call["id"] = f"fc_{i}" if i % 3 == 1 else None  # held, null (nothing held), absent
        lines.append(
            {"timestamp": "2026-03-01T10:00:01.000Z", "type": "response_item", "payload": call}
        )
    rollout.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    _same(rollout, "codex")
    dropped = read_log(rollout, agent="codex").loss.dropped
    assert dropped["response_item/function_call:$.payload.id"] == n // 3

    session = tmp_path / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    records = []
    parent = None
    for i in range(n):
        usage: dict[str, Any] = {"input_tokens": 1, "output_tokens": 2}
        if i % 2:
            usage["service_tier"] = "standard"
        message: dict[str, Any] = {
            "role": "assistant",
            "id": f"msg_{i}",
            "content": [{"type": "text", "text": "t"}],
        }
        if i % 5:
            message["usage"] = usage
        if i % 7 == 0:
            message["stop_reason"] = "end_turn"
        record = {"type": "assistant", "uuid": f"a{i}", "parentUuid": parent, "message": message}
        if i % 4 == 0:
            record["gitBranch"] = "main"
        records.append(record)
        parent = f"a{i}"
    session.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    _same(session, "claude-code")
    dropped = read_log(session, agent="claude-code").loss.dropped
    assert dropped["assistant:$.message.usage.service_tier"] == sum(
        1 for i in range(n) if i % 2 and i % 5
    )
    assert dropped["assistant:$.message.stop_reason"] == len(range(0, n, 7))
    assert dropped["assistant:$.gitBranch"] == len(range(0, n, 4))


# -- Claude Code ------------------------------------------------------------------------------

ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from(["", "x", "u1", "m1", "Task", "<synthetic>", "agentId"]),
    st.just([]),
    st.just({}),
    st.just({"agentId": "a1"}),
    st.just([{"type": "text", "text": "t"}]),
)
EXTRA = [
    "userType",
    "gitBranch",
    "slug",
    "toolUseResult",
    "isMeta",
    "isSidechain",
    "isCompactSummary",
    "isApiErrorMessage",
    "requestId",
    "level",
    "unknownMember",
    "logicalParentUuid",
    "agentId",
]
TEXT = st.sampled_from(["", "hello", "the end", "line\nline"])


def _claude_block(role: str) -> st.SearchStrategy[dict[str, Any]]:
    text = st.fixed_dictionaries({"type": st.just("text"), "text": TEXT})
    if role == "user":
        content = st.one_of(
            st.none(),
            TEXT,
            st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": TEXT})),
        )
        result = st.fixed_dictionaries(
            {"type": st.just("tool_result"), "tool_use_id": st.sampled_from(["c1", "c2"])},
            optional={"content": content, "is_error": st.booleans()},
        )
        return st.one_of(text, result)
    use = st.fixed_dictionaries(
        {
            "type": st.just("tool_use"),
            "id": st.sampled_from(["c1", "c2"]),
            "name": st.sampled_from(["Read", "Task"]),
        },
        optional={"input": st.one_of(st.none(), st.just({"description": "d"}), st.just({}))},
    )
    thinking = st.fixed_dictionaries(
        {"type": st.just("thinking")},
        optional={"thinking": st.one_of(st.none(), TEXT), "signature": st.one_of(st.none(), TEXT)},
    )
    return st.one_of(text, use, thinking)


def _claude_message(role: str) -> st.SearchStrategy[dict[str, Any]]:
    blocks = st.lists(_claude_block(role), max_size=3)
    if role == "user":
        return st.fixed_dictionaries({"role": st.just("user"), "content": st.one_of(TEXT, blocks)})
    usage = st.fixed_dictionaries(
        {
            "input_tokens": st.one_of(
                st.integers(0, 5), st.just(True), st.just(1.0), st.just([1]), st.just({"n": 1})
            ),
            "output_tokens": st.integers(0, 5),
        },
        optional={
            "cache_read_input_tokens": st.one_of(st.none(), st.integers(0, 5), st.just(1.5)),
            "service_tier": st.one_of(st.none(), st.just("standard")),
        },
    )
    return st.fixed_dictionaries(
        {"role": st.just("assistant"), "content": blocks},
        optional={
            "model": st.sampled_from(["m1", "m2", "<synthetic>"]),
            "id": st.sampled_from(["r1", "r2", "r3"]),
            "type": st.just("message"),
            "stop_reason": st.one_of(st.none(), st.just("end_turn")),
            "usage": usage,
        },
    )


@st.composite
def _claude_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    records = []
    for n in range(draw(st.integers(1, 8))):
        role = draw(st.sampled_from(["user", "assistant", "assistant"]))
        record: dict[str, Any] = {
            "parentUuid": f"u{n - 1}" if n else None,
            "type": role,
            "uuid": f"u{n}",
            "timestamp": draw(
                st.sampled_from(["2026-02-01T10:00:00.000Z", "2026-02-01T10:00:01Z", "x"])
            ),
            "sessionId": "s1",
            "cwd": "/w",
            "version": "2.1.0",
            "message": draw(_claude_message(role)),
        }
        for name in draw(st.lists(st.sampled_from(EXTRA), max_size=3)):
            record[name] = draw(ODD)
        if draw(st.integers(0, 5)) == 0:  # a member of another type, or gone
            victim = draw(st.sampled_from(sorted(record)))
            if draw(st.booleans()):
                del record[victim]
            else:
                record[victim] = draw(ODD)
        if draw(st.integers(0, 5)) == 0 and isinstance(record.get("message"), dict):
            message = record["message"]
            victim = draw(st.sampled_from([*sorted(message), "extra"]))
            message[victim] = draw(ODD)
        records.append(record)
    return records


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(records=_claude_records())
def test_claude_code_records_read_alike_typed_or_not(
    tmp_path: Path, records: list[dict[str, Any]]
) -> None:
    path = tmp_path / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    _same(path, "claude-code")


# -- Codex ------------------------------------------------------------------------------------


def _codex_payload(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    if kind == "response_item":
        part = st.fixed_dictionaries(
            {"type": st.sampled_from(["input_text", "output_text", "text"])},
            optional={"text": st.one_of(st.none(), TEXT, st.just("<environment_context>x"))},
        )
        message = st.fixed_dictionaries(
            {
                "type": st.just("message"),
                "role": st.sampled_from(["user", "assistant", "assistant", "developer"]),
                "content": st.lists(part, max_size=2),
            }
        )
        reasoning = st.fixed_dictionaries(
            {"type": st.just("reasoning")},
            optional={
                "summary": st.one_of(
                    st.none(),
                    st.lists(
                        st.fixed_dictionaries(
                            {"type": st.just("summary_text"), "text": st.one_of(TEXT, ODD)}
                        ),
                        max_size=2,
                    ),
                ),
                "content": st.one_of(st.none(), st.just([])),
                "encrypted_content": st.one_of(st.none(), st.just("gAAA")),
            },
        )
        call = st.fixed_dictionaries(
            {"type": st.just("function_call"), "name": st.sampled_from(["shell", "x"])},
            optional={
                "call_id": st.sampled_from(["", "c1", "c2"]),
                "id": st.sampled_from(["i1"]),
                "arguments": st.sampled_from(['{"command": ["ls"]}', "[1]", "not json", None]),
            },
        )
        output = st.fixed_dictionaries(
            {"type": st.just("function_call_output"), "output": st.one_of(TEXT, ODD)},
            optional={"call_id": st.sampled_from(["c1", "c2"])},
        )
        return st.one_of(message, reasoning, call, output)
    if kind == "event_msg":
        usage = st.fixed_dictionaries(
            {"input_tokens": st.integers(0, 9), "total_tokens": st.integers(0, 9)},
            optional={
                "reasoning_output_tokens": st.integers(0, 2),
                "cached_input_tokens": st.one_of(st.integers(0, 2), ODD),
                "output_tokens": st.integers(0, 2),
                "odd": ODD,
            },
        )
        info = st.one_of(
            ODD,
            st.fixed_dictionaries(
                {"last_token_usage": st.one_of(usage, st.none(), ODD)},
                optional={
                    "total_token_usage": st.one_of(usage, st.none(), ODD),
                    "model_context_window": st.one_of(st.integers(0, 9), ODD),
                },
            ),
        )
        return st.fixed_dictionaries(
            {
                "type": st.sampled_from(
                    ["token_count", "user_message", "agent_message", "turn_aborted"]
                )
            },
            optional={"info": info, "message": TEXT, "num_turns": st.integers(0, 2)},
        )
    return st.fixed_dictionaries(
        {},
        optional={
            "model": st.one_of(st.sampled_from(["gpt-5", ""]), ODD),
            "cwd": st.just("/w"),
            "approval_policy": st.one_of(st.none(), st.just("on-request")),
            "unknownMember": ODD,
        },
    )


@st.composite
def _codex_lines(draw: st.DrawFn) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [
        {
            "timestamp": "2026-03-01T10:00:00.000Z",
            "type": "session_meta",
            "payload": {"id": "t1", "cwd": "/w", "timestamp": "2026-03-01T10:00:00.000Z"},
        }
    ]
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(
            st.sampled_from(["response_item", "response_item", "event_msg", "turn_context"])
        )
        line: dict[str, Any] = {
            "timestamp": draw(st.sampled_from(["2026-03-01T10:00:01.000Z", "x"])),
            "type": kind,
            "payload": draw(_codex_payload(kind)),
        }
        if draw(st.integers(0, 6)) == 0:  # a member of another type, or gone, or one more
            victim = draw(st.sampled_from([*sorted(line["payload"]), "extra"]))
            if draw(st.booleans()) and victim in line["payload"]:
                del line["payload"][victim]
            else:
                line["payload"][victim] = draw(ODD)
        if draw(st.integers(0, 8)) == 0:
            line[draw(st.sampled_from(["timestamp", "payload", "more"]))] = draw(ODD)
        lines.append(line)
    return lines


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=_codex_lines())
def test_codex_lines_read_alike_typed_or_not(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    path = tmp_path / "rollout-2026-03-01T10-00-00-t1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    _same(path, "codex")


@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_the_common_shapes_are_read_typed(agent: str, sessions: dict[str, Path]) -> None:
    """The typed path is taken (the comparison above would hold trivially if it never was)."""
    typed = 0
    original = JsonLines._records

    def counting(self: JsonLines, decode: Any) -> Iterator[tuple[int, Any]]:
        nonlocal typed
        for line, record in original(self, decode):
            typed += not isinstance(record, dict)
            yield line, record

    with mock.patch.object(JsonLines, "_records", counting):
        read_log(sessions[agent])
    assert typed >= 10
    assert MAIN[agent]


def test_a_long_log_counts_alike_across_batches(tmp_path: Path) -> None:
    """Dropped members of typed records are counted a batch at a time: a log of more records
    than a batch, with members present, absent and written as null, counts what the dict path
    counts."""
    records = []
    for n in range(1300):
        role = "user" if n % 3 == 0 else "assistant"
        message: dict[str, Any] = (
            {"role": "user", "content": f"prompt {n}"}
            if role == "user"
            else {
                "role": "assistant",
                "id": f"r{n}",
                "model": "m1",
                "content": [{"type": "text", "text": "ok"}],
                "stop_reason": [None, "end_turn", "tool_use"][n % 3],
                "usage": {
                    "input_tokens": 1,
                    "output_tokens": 2,
                    "service_tier": [None, "x"][n % 2],
                },
            }
        )
        record: dict[str, Any] = {
            "parentUuid": f"u{n - 1}" if n else None,
            "type": role,
            "uuid": f"u{n}",
            "timestamp": "2026-02-01T10:00:00.000Z",
            "message": message,
        }
        if n % 5:
            record["userType"] = "external"
        if n % 7 == 0:
            record["gitBranch"] = None
        if n % 11 == 0:
            record["slug"] = {"deep": [1, 2]}
        records.append(record)
    path = tmp_path / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    _same(path, "claude-code")
    dropped = read_log(path).loss.dropped
    assert dropped["user:$.userType"] + dropped["assistant:$.userType"] == 1040
    assert "user:$.gitBranch" not in dropped and "assistant:$.gitBranch" not in dropped
