"""``rho-desk mcp`` as a client meets it: a real process driven by the SDK's own client, over
stdio and over Streamable HTTP on a real loopback socket."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters

from rho_desk.mcp._identity import HANDSHAKE_VERSIONS
from rho_desk.mcp._tools import TOOL_NAMES

from ..core.export.builders import SECRETS
from ..core.export.builders import forbidden_forms as forms
from .seed import CANARY_ID, canary_home, command, environment

pytestmark = pytest.mark.slow

TOKEN = "test-token-0123456789abcdef"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("mcp-process")
    return canary_home(root), environment(root)


def _rule_leaks(text: str) -> list[str]:
    # the process holds no keyring, so only the rule secrets are known to it
    return [s.value[:12] for s in SECRETS for f in forms(s.value) if f in text]


async def _every_tool(client: Client) -> list[str]:
    """Each tool once; returns the text of every answer."""
    listed = await client.list_tools()
    assert [t.name for t in listed.tools] == list(TOOL_NAMES)
    assert all(t.annotations is not None and t.annotations.read_only_hint for t in listed.tools)
    texts = []
    for name, arguments in [
        ("search_sessions", {"query": "deploy"}),
        ("get_session", {"session_id": CANARY_ID}),
        ("get_messages", {"session_id": CANARY_ID, "limit": 1000}),
        ("sessions_touching_file", {"path": "settings.toml"}),
        ("get_changes", {"session_id": CANARY_ID}),
        ("get_usage", {"by": "workspace"}),
    ]:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, result.content
        assert result.structured_content is not None
        assert json.loads(result.content[0].text) == result.structured_content  # type: ignore[union-attr]
        texts.append(result.content[0].text)  # type: ignore[union-attr]
    hits = json.loads(texts[0])["results"]
    assert CANARY_ID in {h["session_id"] for h in hits}
    bad = await client.call_tool("get_messages", {"session_id": CANARY_ID, "limit": 0})
    assert bad.is_error and "limit must be between 1 and 1,000" in bad.content[0].text  # type: ignore[union-attr]
    return texts


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_stdio_serves_every_tool_to_the_sdk_client(
    world: tuple[Path, dict[str, str]], mode: str
) -> None:
    home, env = world

    async def main() -> list[str]:
        params = StdioServerParameters(
            command=sys.executable, args=command("--home", str(home), "--all")[1:], env=env
        )
        async with Client(params, mode=mode) as client:
            return await _every_tool(client)

    texts = anyio.run(main)
    assert _rule_leaks("\n".join(texts)) == []


def _raw_initialize(env: dict[str, str], home: Path, version: str) -> tuple[dict[str, Any], str]:
    request = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    listing = {"jsonrpc": "2.0", "id": 8, "method": "tools/list"}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    process = subprocess.Popen(
        command("--home", str(home), "--all"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write("".join(json.dumps(m) + "\n" for m in (request, initialized, listing)))
        process.stdin.flush()
        answers = [json.loads(process.stdout.readline()) for _ in range(2)]
    finally:
        process.stdin.close()
        process.wait(60)
    stderr = process.stderr.read() if process.stderr else ""
    assert [a.get("id") for a in answers] == [7, 8], (answers, stderr)
    return answers[0], stderr


@pytest.mark.parametrize("version", [*HANDSHAKE_VERSIONS, "2099-01-01"])
def test_the_early_initialize_answer_is_the_sdks(
    world: tuple[Path, dict[str, str]], version: str
) -> None:
    """The front answers ``initialize`` before the SDK loads; the SDK then answers the same
    request again, and the front compares the two (a difference is logged on stderr)."""
    home, env = world
    answer, stderr = _raw_initialize(env, home, version)
    expected = version if version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    assert answer["result"]["protocolVersion"] == expected
    assert answer["result"]["serverInfo"]["name"] == "rho-desk"
    assert "differs from the one sent early" not in stderr, stderr
    assert "Traceback" not in stderr


def test_the_handshake_versions_are_the_sdks() -> None:
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == HANDSHAKE_VERSIONS
    assert HANDSHAKE_VERSIONS[-1] == LATEST_HANDSHAKE_VERSION


def test_a_malformed_first_line_is_left_to_the_sdk(world: tuple[Path, dict[str, str]]) -> None:
    home, env = world
    first = (
        "this is not json\n"
        + json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        + "\n"
    )
    process = subprocess.Popen(
        command("--home", str(home), "--all"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(first)
        process.stdin.flush()
        answer = json.loads(process.stdout.readline())  # the line that is not JSON gets none
    finally:
        process.stdin.close()
        process.wait(60)
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-06-18", answer


class _Http:
    def __init__(self, env: dict[str, str], home: Path, *extra: str) -> None:
        self.process = subprocess.Popen(
            command("--home", str(home), "--all", "--http", "0", *extra),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        deadline = time.monotonic() + 60
        self.url = ""
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            found = re.search(r"serving MCP on (http://\S+/mcp)", line)
            if found:
                self.url = found.group(1)
                break
            if not line and self.process.poll() is not None:
                break
        assert self.url, f"the server did not start ({self.process.poll()})"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def test_http_serves_every_tool_behind_the_bearer_token(world: tuple[Path, dict[str, str]]) -> None:
    home, env = world
    server = _Http({**env, "RHO_DESK_MCP_TOKEN": TOKEN}, home)
    try:
        assert server.url.startswith("http://127.0.0.1:")
        refused = httpx.post(
            server.url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=10
        )
        assert refused.status_code == 401
        wrong = httpx.post(
            server.url, json={}, headers={"Authorization": "Bearer wrong"}, timeout=10
        )
        assert wrong.status_code == 401
        rebound = httpx.post(
            server.url,
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            timeout=10,
            headers={
                "Authorization": f"Bearer {TOKEN}",
                "Host": "evil.example",
                "Origin": "http://evil.example",
                "Accept": "application/json, text/event-stream",
            },
        )
        assert rebound.status_code in (400, 403, 421), rebound.status_code  # DNS rebinding: refused

        async def main() -> list[str]:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            async with (
                httpx2.AsyncClient(
                    headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60
                ) as http,
                Client(streamable_http_client(server.url, http_client=http)) as client,
            ):
                return await _every_tool(client)

        texts = anyio.run(main)
        assert _rule_leaks("\n".join(texts)) == []
    finally:
        server.stop()


def test_http_on_loopback_without_a_token_answers(world: tuple[Path, dict[str, str]]) -> None:
    home, env = world
    server = _Http(env, home)
    try:

        async def main() -> list[str]:
            async with Client(server.url) as client:
                result = await client.call_tool("search_sessions", {"query": "deploy"})
                return [result.content[0].text]  # type: ignore[union-attr]

        assert CANARY_ID in anyio.run(main)[0]
    finally:
        server.stop()


def test_any_other_bind_needs_a_token(world: tuple[Path, dict[str, str]]) -> None:
    home, env = world
    out = subprocess.run(
        command("--home", str(home), "--http", "0", "--bind", "0.0.0.0"),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2, out.stderr
    assert "needs a bearer token" in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
