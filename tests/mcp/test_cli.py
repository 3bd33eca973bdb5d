"""``rho-desk mcp`` as a command: the client snippets, the served log, bad input."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest

from rho_desk.mcp._log import ServedLog

from .seed import command, environment

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo" / "home"


def _run(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command(*args),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env=environment(tmp_path, **env),
    )


def test_the_rho_snippet_is_a_stdio_server_table(tmp_path: Path) -> None:
    out = _run(tmp_path, "--print-config", "rho", "--home", str(DEMO))
    assert out.returncode == 0, out.stderr
    server = tomllib.loads(out.stdout)["mcp"]["servers"]["rho-desk"]
    assert server["transport"] == "stdio"
    assert server["args"][-3:] == ["mcp", "--home", str(DEMO)]
    assert Path(server["command"]).is_absolute()
    # what it says to run does run
    check = subprocess.run(
        [server["command"], *server["args"], "--print-config", "codex"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment(tmp_path),
    )
    assert check.returncode == 0, check.stderr


def test_the_claude_code_and_codex_snippets(tmp_path: Path) -> None:
    claude = json.loads(_run(tmp_path, "--print-config", "claude-code", "--all").stdout)
    entry = claude["mcpServers"]["rho-desk"]
    assert entry["type"] == "stdio" and entry["args"][-1] == "--all" and "mcp" in entry["args"]
    assert entry["args"][entry["args"].index("--home") + 1] == str(
        tmp_path / "no-home"
    )  # $RHO_HOME, spelled out
    codex = tomllib.loads(
        _run(tmp_path, "--print-config", "codex", "--workspace", "/srv/app").stdout
    )
    assert codex["mcp_servers"]["rho-desk"]["args"][-2:] == ["--workspace", "/srv/app"]
    http = tomllib.loads(_run(tmp_path, "--print-config", "rho", "--http", "8765").stdout)["mcp"][
        "servers"
    ]["rho-desk"]
    assert http == {
        "transport": "streamable_http",
        "url": "http://127.0.0.1:8765/mcp",
        "headers_from_env": {"Authorization": "RHO_DESK_MCP_AUTHORIZATION"},
    }
    assert (
        "bearer_token_env_var" in _run(tmp_path, "--print-config", "codex", "--http", "8765").stdout
    )


def test_the_snippet_keeps_the_agents_served(tmp_path: Path) -> None:
    every = json.loads(_run(tmp_path, "--print-config", "claude-code").stdout)["mcpServers"][
        "rho-desk"
    ]["args"]
    assert "--agent" not in every  # every agent's sessions: the default
    some = json.loads(
        _run(tmp_path, "--print-config", "claude-code", "--agent", "rho", "--agent", "codex").stdout
    )
    args = some["mcpServers"]["rho-desk"]["args"]
    assert args[args.index("--agent") :][:4] == ["--agent", "rho", "--agent", "codex"]
    assert _run(tmp_path, "--agent", "cursor").returncode == 2


def test_the_log_prints_what_was_served(tmp_path: Path) -> None:
    log = ServedLog(tmp_path / "data" / "rho-desk" / "mcp" / "served.jsonl")
    log.record(
        "get_messages", session="5f0c2a9e", classes=["user"], redactions={"openai-api-key": 2}
    )
    log.record(
        "search_sessions",
        session=None,
        classes=None,
        redactions={},
        refused="the answer was not sent\x1b[2J",
    )
    out = _run(tmp_path, "--log")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert (
        "get_messages" in lines[0]
        and "served" in lines[0]
        and "session 5f0c2a9e classes user" in lines[0]
    )
    assert "redacted: openai-api-key 2" in lines[0]
    assert "refused" in lines[1] and "the answer was not sent" in lines[1]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--home", "/no/such/home"), "no such Rho home folder"),
        (("--http", "70000"), "--http: 70000 is not a port"),
        (("--http", "0", "--bind", "10.0.0.1"), "needs a bearer token"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    out = _run(tmp_path, *args)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert says in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
