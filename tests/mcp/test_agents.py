"""Every agent's sessions as memory: another agent's session (here Claude Code's fixture) is
listed, searched and read through the same library and export pipeline as Rho's, its secrets
redacted, by the server in process and by a real ``rho-desk mcp`` process driven by the SDK's
own client."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from rho_desk.mcp._gate import Gate
from rho_desk.mcp._memory import Memory
from rho_desk.mcp._scope import Scope

from ..core.agents.conftest import AGENT_FIXTURES, SECRETS
from .seed import answer_text, command, environment

SESSION = "7d3e9a51-2b6c-4f08-9a1e-5c4b3d2e1f00"
SECRET = SECRETS["claude-code"]
"""In a tool result of the fixture (the ``.env`` file the session read)."""


@pytest.fixture
def claude_home(tmp_path: Path) -> Path:
    home = tmp_path / "claude"
    shutil.copytree(AGENT_FIXTURES / "claude-code", home)
    return home


def _rho_home(root: Path) -> Path:
    home = root / "rho"
    (home / "sessions").mkdir(parents=True)
    return home


def _check(answers: dict[str, dict[str, Any]], texts: list[str]) -> None:
    hits = answers["search_sessions"]["results"]
    assert [(h["session_id"], h["agent"], h["title"]) for h in hits] == [
        (SESSION, "claude-code", "Fix unstyled login page")
    ]
    overview = answers["get_session"]
    assert (overview["agent"], overview["workspace"], overview["compactions"]) == (
        "claude-code",
        "/home/dev/webapp",
        1,
    )
    assert overview["revisions"] == {"count": 6, "first": 1, "latest": 6}
    page = answers["get_messages"]
    assert page["total"] == page["count"] >= 15
    results = [m for m in page["messages"] if m["role"] == "tool result"]
    env = [json.dumps(m["message"]) for m in results if "GITHUB_TOKEN" in json.dumps(m["message"])]
    assert len(env) == 1  # the tool result that held the secret is served, redacted
    assert SECRET[:12] not in env[0] and "DATABASE_URL" in env[0]
    touching = answers["sessions_touching_file"]["sessions"]
    assert [s["session_id"] for s in touching] == [SESSION]
    for text in texts:
        assert SECRET[:12] not in text


_CALLS = [
    ("search_sessions", {"query": "login page screenshot"}),
    ("get_session", {"session_id": SESSION}),
    ("get_messages", {"session_id": SESSION, "limit": 100}),
    ("sessions_touching_file", {"path": "/home/dev/webapp/templates/signup.html"}),
]


def test_another_agents_session_is_listed_searched_and_redacted(
    claude_home: Path, tmp_path: Path
) -> None:
    scope = Scope(_rho_home(tmp_path), None, (("claude-code", claude_home),))
    memory = Memory(scope, Gate(bytes(range(32))), gate_id="t", cache_dir=tmp_path / "cache")
    try:
        memory.sync()
        answers = {tool: memory.call(tool, arguments) for tool, arguments in _CALLS}
    finally:
        memory.close()
    _check(answers, [json.dumps(a, ensure_ascii=False) for a in answers.values()])


def test_a_scope_of_rho_alone_serves_no_other_agent(claude_home: Path, tmp_path: Path) -> None:
    memory = Memory(
        Scope(_rho_home(tmp_path), None),
        Gate(bytes(range(32))),
        gate_id="t",
        cache_dir=tmp_path / "cache",
    )
    try:
        memory.sync()
        assert memory.call("search_sessions", {"query": "login page"})["results"] == []
    finally:
        memory.close()


@pytest.mark.slow
def test_the_sdk_client_gets_another_agents_session_redacted(
    claude_home: Path, tmp_path: Path
) -> None:
    env = environment(tmp_path, CLAUDE_CONFIG_DIR=str(claude_home))
    home = _rho_home(tmp_path)

    async def main() -> tuple[dict[str, dict[str, Any]], list[str]]:
        params = StdioServerParameters(
            command=sys.executable, args=command("--home", str(home), "--all")[1:], env=env
        )
        answers: dict[str, dict[str, Any]] = {}
        texts: list[str] = []
        async with Client(params) as client:
            for tool, arguments in _CALLS:
                result = await client.call_tool(tool, arguments)
                assert not result.is_error, result.content
                assert result.structured_content is not None
                answers[tool] = result.structured_content
                texts.append(answer_text(result))
        return answers, texts

    answers, texts = anyio.run(main)
    _check(answers, texts)
