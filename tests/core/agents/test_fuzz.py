"""Random records never crash a reader (hypothesis): each one reads them into a tree, or refuses
them with a located ``InputError``; nothing else escapes, nothing hangs.

Records are drawn near each agent's grammar: objects whose members come from the names the
agent uses (and a few others), with values of every JSON type, so that both the structure checks
and the lenient paths are reached; the first line is a valid header, so that the reader gets past
detection."""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.agents import build as build_module
from rho_desk.core.agents.formats import READERS
from rho_desk.core.errors import InputError

from .conftest import assert_built_by_the_rules

NAMES = {
    "claude-code": [
        "type",
        "uuid",
        "parentUuid",
        "message",
        "role",
        "content",
        "text",
        "tool_use_id",
        "id",
        "name",
        "input",
        "is_error",
        "thinking",
        "signature",
        "source",
        "data",
        "media_type",
        "usage",
        "input_tokens",
        "cache_read_input_tokens",
        "model",
        "subtype",
        "logicalParentUuid",
        "compactMetadata",
        "isCompactSummary",
        "isSidechain",
        "summary",
        "toolUseResult",
        "agentId",
        "timestamp",
    ],
    "codex": [
        "type",
        "payload",
        "timestamp",
        "role",
        "content",
        "text",
        "name",
        "arguments",
        "call_id",
        "output",
        "summary",
        "encrypted_content",
        "info",
        "last_token_usage",
        "total_token_usage",
        "num_turns",
        "input",
        "replacement_history",
        "message",
        "model",
        "image_url",
        "success",
        "action",
    ],
    "gemini": [
        "id",
        "type",
        "content",
        "toolCalls",
        "thoughts",
        "tokens",
        "model",
        "$rewindTo",
        "$set",
        "messages",
        "text",
        "functionCall",
        "functionResponse",
        "response",
        "args",
        "result",
        "status",
        "inlineData",
        "sessionId",
        "projectHash",
        "timestamp",
        "summary",
        "thought",
    ],
    "pi": [
        "type",
        "id",
        "parentId",
        "message",
        "role",
        "content",
        "text",
        "toolCallId",
        "isError",
        "thinking",
        "toolCall",
        "arguments",
        "usage",
        "stopReason",
        "summary",
        "firstKeptEntryId",
        "tokensBefore",
        "data",
        "mimeType",
        "name",
        "timestamp",
        "command",
        "output",
    ],
}
KINDS = {
    "claude-code": [
        "user",
        "assistant",
        "system",
        "summary",
        "progress",
        "compact_boundary",
        "text",
        "tool_use",
        "tool_result",
        "thinking",
        "image",
        "base64",
    ],
    "codex": [
        "response_item",
        "event_msg",
        "compacted",
        "turn_context",
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "token_count",
        "thread_rolled_back",
        "turn_aborted",
        "input_text",
        "output_text",
        "input_image",
        "user",
        "assistant",
    ],
    "gemini": ["user", "gemini", "info", "success", "error"],
    "pi": [
        "message",
        "compaction",
        "branch_summary",
        "user",
        "assistant",
        "toolResult",
        "text",
        "thinking",
        "toolCall",
        "image",
        "aborted",
        "label",
        "bashExecution",
    ],
}
HEADERS = {
    "claude-code": None,
    "codex": {
        "timestamp": "2026-01-01T00:00:00Z",
        "type": "session_meta",
        "payload": {"id": "t", "cwd": "/w"},
    },
    "gemini": {"sessionId": "s", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"},
    "pi": {
        "type": "session",
        "version": 3,
        "id": "p",
        "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/w",
    },
}
FILES = {
    "claude-code": "s.jsonl",
    "codex": "rollout-x.jsonl",
    "gemini": "session-x.jsonl",
    "pi": "1_p.jsonl",
}


def _values(agent: str) -> st.SearchStrategy[Any]:
    words = st.sampled_from(
        [
            *KINDS[agent],
            "a",
            "b",
            "u1",
            "c1",
            "x",
            "2026-01-01T00:00:00Z",
            "data:image/png;base64,AA==",
        ]
    )
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-5, 10**20),
        st.floats(allow_nan=False),
        words,
        st.text(max_size=8),
    )
    keys = st.one_of(st.sampled_from(NAMES[agent]), st.text(max_size=4))
    return st.recursive(
        scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=6)
        ),
        max_leaves=25,
    )


def _records(agent: str) -> st.SearchStrategy[list[dict[str, Any]]]:
    record = st.dictionaries(st.sampled_from(NAMES[agent]), _values(agent), min_size=1, max_size=7)
    return st.lists(record, min_size=1, max_size=12)


def _run(agent: str, folder: Path, records: list[dict[str, Any]]) -> None:
    path = folder / FILES[agent]
    lines = ([HEADERS[agent]] if HEADERS[agent] is not None else []) + records
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    try:
        built = build_module.build(READERS[agent](path))
    except InputError:
        return
    assert_built_by_the_rules(built)


def _fuzz(agent: str) -> Any:
    @settings(
        max_examples=60,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(records=_records(agent))
    def test(tmp_path: Path, records: list[dict[str, Any]]) -> None:
        _run(agent, tmp_path, records)

    return test


test_claude_code_random_records = _fuzz("claude-code")
test_codex_random_records = _fuzz("codex")
test_gemini_random_records = _fuzz("gemini")
test_pi_random_records = _fuzz("pi")


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    messages=st.lists(
        st.tuples(
            st.sampled_from(["user", "assistant", "system"]),
            st.lists(
                st.dictionaries(
                    st.sampled_from(
                        [
                            "type",
                            "text",
                            "callID",
                            "tool",
                            "state",
                            "status",
                            "input",
                            "output",
                            "error",
                            "tokens",
                            "cost",
                            "mime",
                            "url",
                            "auto",
                            "tail_start_id",
                        ]
                    ),
                    _values("codex"),
                    max_size=6,
                ),
                max_size=4,
            ),
            _values("codex"),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_opencode_random_rows(
    tmp_path: Path, messages: list[tuple[str, list[dict[str, Any]], Any]]
) -> None:
    database = tmp_path / f"opencode-{uuid.uuid4().hex}.db"
    with closing(sqlite3.connect(database)) as db, db:
        db.executescript(
            "create table session (id text primary key, parent_id text, directory text, title text, version text,"
            " time_created integer, time_updated integer, revert text);"
            "create table message (id text primary key, session_id text, time_created integer, data text);"
            "create table part (id text primary key, message_id text, session_id text, data text);"
            "insert into session values ('s', null, '/w', 't', '1', 0, 0, null);"
        )
        for n, (role, parts, extra) in enumerate(messages):
            data = {"role": role, "tokens": extra, "providerID": extra, "modelID": "m"}
            db.execute(
                "insert into message values (?, 's', ?, ?)", (f"m{n:03d}", n, json.dumps(data))
            )
            for k, part in enumerate(parts):
                db.execute(
                    "insert into part values (?, ?, 's', ?)",
                    (f"p{n:03d}{k}", f"m{n:03d}", json.dumps(part)),
                )
    db.close()
    try:
        built = build_module.build(READERS["opencode"](Path(f"{database}#s")))
    except InputError:
        return
    assert_built_by_the_rules(built)
