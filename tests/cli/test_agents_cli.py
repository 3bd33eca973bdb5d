"""Other agents' sessions on the command line, as subprocesses: ``import``, ``sessions --agent``,
and ``show``, ``export``, ``audit``, ``changes`` detecting the format."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.agents import AGENTS

from ..core.agents.conftest import SECRETS, main_sessions, make_homes
from .helpers_files import one_line_error, rho_desk


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return make_homes(tmp_path_factory.mktemp("agents"))


@pytest.fixture(scope="module")
def sessions(homes: dict[str, Path]) -> dict[str, Path]:
    return main_sessions(homes)


@pytest.mark.parametrize("agent", AGENTS)
def test_show_pairs_every_call_with_its_result(agent: str, sessions: dict[str, Path]) -> None:
    result = rho_desk("show", "--display", sessions[agent])
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert f"agent     {agent}" in out and "(tree)" in out
    lines = [
        line.strip()
        for line in out.split("display:\n", 1)[1].splitlines()
        if line.startswith("  [")
    ]
    calls = [re.findall(r"\[tool call (\S+):", line) for line in lines]
    for i, ids in enumerate(calls):
        if ids and "EnrichedAssistant" in lines[i]:
            answers = [re.search(r"ToolResult (\S+) ", lines[i + 1 + k]) for k in range(len(ids))]
            assert [a.group(1) if a else None for a in answers] == ids, lines[i : i + 1 + len(ids)]
    assert "[image image/" in out and "Compacted context" in out


@pytest.mark.parametrize("agent", AGENTS)
def test_show_json_lists_what_was_dropped(agent: str, sessions: dict[str, Path]) -> None:
    data = json.loads(rho_desk("show", "--json", sessions[agent]).stdout)
    assert data["agent"]["name"] == agent and data["agent"]["dropped"]
    assert data["branch_count"] >= 1 or agent == "opencode"


@pytest.mark.parametrize("agent", AGENTS)
def test_export_redacts_the_secret_in_a_tool_result(
    agent: str, sessions: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "export.json"
    result = rho_desk(
        "export", sessions[agent], "--include", "all", "-o", out, "--key-file", tmp_path / "keys"
    )
    assert result.returncode == 0, result.stderr
    text = out.read_text("utf-8")
    assert SECRETS[agent] not in text and "secret redacted" in text
    receipt = json.loads((tmp_path / "export.json.receipt.json").read_text("utf-8"))
    assert receipt["signature"] and receipt["redactions"]


@pytest.mark.parametrize("agent", AGENTS)
def test_audit_finds_the_secret_in_the_log(
    agent: str, sessions: dict[str, Path], tmp_path: Path
) -> None:
    result = rho_desk("audit", "--json", sessions[agent], "--key-file", tmp_path / "keys")
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["findings"]


def test_changes_from_another_agents_tool_calls(sessions: dict[str, Path]) -> None:
    result = rho_desk("changes", "--json", sessions["claude-code"])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    files = [(f["path"], f["action"]) for t in data["turns"] for f in t["files"]]
    assert ("templates/login.html", "created") in files


@pytest.mark.parametrize("agent", AGENTS)
def test_import_then_check_is_clean_and_again_is_a_noop(
    agent: str, sessions: dict[str, Path], tmp_path: Path
) -> None:
    home = tmp_path / "rho"
    first = rho_desk("import", sessions[agent], "--into", home, "--json")
    assert first.returncode == 0, first.stderr
    document = json.loads(first.stdout)
    assert document["created"] and document["receipt"]["dropped"]
    transcript = document["transcript"]
    check = rho_desk("check", home)
    assert check.returncode == 0, check.stdout + check.stderr
    again = rho_desk("import", sessions[agent], "--into", home)
    assert again.returncode == 0 and again.stdout.startswith("already imported, nothing new"), (
        again.stdout
    )
    shown = rho_desk("show", "--display", transcript)
    assert shown.returncode == 0 and "agent     " not in shown.stdout  # a Rho session now


def test_import_prints_the_loss_report(sessions: dict[str, Path], tmp_path: Path) -> None:
    result = rho_desk("import", sessions["gemini"], "-o", tmp_path / "g.jsonl")
    assert result.returncode == 0, result.stderr
    assert "imported gemini session" in result.stdout and "dropped" in result.stdout
    assert "× gemini:$.tokens.tool" in result.stdout
    assert (tmp_path / "g.jsonl.import.json").exists()


def test_import_of_a_malformed_log_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "rollout-x.jsonl"
    path.write_text(
        '{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w"}}\n{"type": oops}\n'
    )
    line = one_line_error(rho_desk("import", path, "-o", tmp_path / "out.jsonl"))
    assert f"{path}:2:" in line and "not JSON" in line
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize("agent", AGENTS)
def test_sessions_lists_each_agent(agent: str, homes: dict[str, Path]) -> None:
    result = rho_desk("sessions", "--agent", agent, "--home", homes[agent], "--all", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    (row,) = document["sessions"]
    assert row["agent"] == agent and row["message_count"] > 0


def test_sessions_agent_all_badges_every_row(homes: dict[str, Path], tmp_path: Path) -> None:
    env_home = tmp_path / "user"
    (env_home / ".rho").mkdir(parents=True)
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "HOME": str(env_home),
        "RHO_HOME": str(env_home / ".rho"),
        "RHO_DESK_CACHE_DIR": str(tmp_path / "cache"),
        "CLAUDE_CONFIG_DIR": str(homes["claude-code"]),
        "CODEX_HOME": str(homes["codex"]),
        "GEMINI_CLI_HOME": str(homes["gemini"].parent / "gemini-user"),
        "XDG_DATA_HOME": str(homes["opencode"].parent),
        "PI_CODING_AGENT_DIR": str(homes["pi"]),
    }
    (homes["gemini"].parent / "gemini-user").mkdir(exist_ok=True)
    link = homes["gemini"].parent / "gemini-user" / ".gemini"
    if not link.exists():
        link.symlink_to(homes["gemini"])
    result = subprocess.run(
        [sys.executable, "-m", "rho_desk", "sessions", "--agent", "all", "--all"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("AGENT")
    assert sorted(line.split()[0] for line in lines[1:]) == sorted(AGENTS)
    found = subprocess.run(
        [
            sys.executable,
            "-m",
            "rho_desk",
            "sessions",
            "--agent",
            "all",
            "--all",
            "--search",
            "qty",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert found.returncode == 0 and found.stdout.splitlines()[1].startswith("gemini"), found.stdout


def test_an_opencode_database_alone_asks_for_a_session(homes: dict[str, Path]) -> None:
    line = one_line_error(rho_desk("show", homes["opencode"] / "opencode.db"))
    assert "holds 2 sessions; name one as" in line


def _long_rollout(path: Path) -> Path:
    """A Codex rollout whose transcript takes several of the writer's chunks (1 MiB each)."""
    stamp = "2026-03-01T10:00:00.000Z"
    lines: list[dict[str, Any]] = [
        {
            "timestamp": stamp,
            "type": "session_meta",
            "payload": {"id": "t1", "cwd": "/w", "timestamp": stamp},
        }
    ]
    for n in range(4):
        for payload in (
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]},
            {"type": "function_call", "name": "shell", "call_id": f"c{n}", "arguments": "{}"},
            {"type": "function_call_output", "call_id": f"c{n}", "output": "x" * 600_000},
        ):
            lines.append({"timestamp": stamp, "type": "response_item", "payload": payload})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    return path


@pytest.mark.parametrize("chunks", ["one", "several"])
def test_an_import_whose_writes_fail_leaves_no_file(
    sessions: dict[str, Path], tmp_path: Path, chunks: str
) -> None:
    """The transcript is written while it is built: a write that fails (here the file size
    limit: a real EFBIG from the kernel) ends the import with the file and the reason, and
    removes what was written (at its only chunk, or after the first of several)."""
    import resource
    import signal
    import subprocess
    import sys

    out = tmp_path / "imported.jsonl"
    source = (
        sessions["codex"]
        if chunks == "one"
        else _long_rollout(tmp_path / "rollout-2026-03-01T10-00-00-t1.jsonl")
    )
    size = 2000 if chunks == "one" else 1_500_000

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    result = subprocess.run(
        [sys.executable, "-m", "rho_desk", "import", str(source), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit,
    )
    assert result.returncode == 1, result.stderr
    assert f"{out}: cannot write" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists() and not out.with_name(out.name + ".import.json").exists()
