"""No secret leaves through any tool: a library seeded with every secret the export tests plant,
in every location they know (message text, tool arguments and results, metadata, the title in
Rho's index, a file path, a workspace folder, a diff, the usage ledger), asked every way."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rho_desk.core.usage.report import GROUPINGS
from rho_desk.mcp._gate import Gate
from rho_desk.mcp._memory import Memory, ToolError
from rho_desk.mcp._scope import Scope

from ..core.export.builders import KNOWN, KNOWN_SPECIAL, SECRETS
from .seed import CANARY_CWD, CANARY_ID, PATH_ID, SECRET_CWD, canary_home, leaks

KEY = bytes(range(32))


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("canary")
    home = canary_home(root)
    memory = Memory(
        Scope(home, None),
        Gate(KEY, [KNOWN, KNOWN_SPECIAL]),
        gate_id="test",
        cache_dir=root / "cache",
    )
    memory.sync()
    yield memory
    memory.close()


def _calls() -> list[tuple[str, dict[str, Any]]]:
    queries = [
        "deploy",
        "password",
        "hunter2hunter2",
        SECRETS[0].value,
        "AKIAZ7Q3W5E1R9T2Y4U6",
        "Authorization",
        "github_pat",
        "kr-profile-Credential",
        "settings.toml",
        "canary",
        "sk-proj",
        "ghp_R4nd0m",
    ]
    calls: list[tuple[str, dict[str, Any]]] = [
        ("search_sessions", {"query": q, "limit": 50}) for q in queries
    ]
    for sid in (CANARY_ID, PATH_ID):
        calls += [
            ("get_session", {"session_id": sid}),
            ("get_session", {"session_id": sid, "revision": 1}),
            ("get_messages", {"session_id": sid, "limit": 1000}),
            ("get_messages", {"session_id": sid, "limit": 1000, "include": ["user"]}),
            (
                "get_messages",
                {
                    "session_id": sid,
                    "start": 5,
                    "limit": 7,
                    "include": ["tool_records", "metadata"],
                },
            ),
            ("get_changes", {"session_id": sid}),
        ]
    calls += [
        ("sessions_touching_file", {"path": p})
        for p in ("settings.toml", "a.py", f"keys/{SECRETS[2].value}.txt", "x")
    ]
    calls += [("sessions_touching_file", {"path": "settings.toml", "workspace": CANARY_CWD})]
    calls += [("get_usage", {"by": by}) for by in GROUPINGS]
    return calls


@pytest.mark.parametrize(
    ("tool", "arguments"), _calls(), ids=lambda v: v if isinstance(v, str) else None
)
def test_no_tool_answer_holds_a_secret(
    memory: Memory, tool: str, arguments: dict[str, Any]
) -> None:
    try:
        answer = memory.call(tool, arguments)
    except ToolError as exc:  # a session with no changes, say: the error must not leak either
        answer = {"error": exc.text()}
    text = json.dumps(answer, ensure_ascii=False)
    assert leaks(text) == [], text[:2000]


def test_the_secrets_are_found_and_redacted_not_dropped(memory: Memory) -> None:
    """The answers are useful: the sessions are found by their words, and where a secret stood
    there is a redaction marker."""
    hits = memory.call("search_sessions", {"query": "deploy"})["results"]
    assert {h["session_id"] for h in hits} == {CANARY_ID, PATH_ID}
    titles = {h["session_id"]: h["title"] for h in hits}
    assert titles[CANARY_ID].startswith("deploy with [secret redacted: github-token fp:")
    workspaces = {h["workspace"] for h in hits}
    assert CANARY_CWD in workspaces and SECRET_CWD not in workspaces
    page = memory.call("get_messages", {"session_id": CANARY_ID, "limit": 1000})
    text = json.dumps(page)
    assert (
        "[secret redacted: openai-api-key fp:" in text
        and "[secret redacted: known-credential fp:" in text
    )
    changes = memory.call("get_changes", {"session_id": CANARY_ID})
    assert "settings.toml" in changes["diff"] and "[secret redacted:" in changes["diff"]
    usage = memory.call("get_usage", {"by": "model"})
    assert {g["key"] for g in usage["groups"]} >= {"gpt-5"}
