"""``rho-desk continue``: a real process against the loopback model server, with and without
tools; the file then passes ``rho-desk check`` with its revision up by exactly one per turn."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.stores.rho_files import create_session, read_session
from rho_desk.core.tools.trust import TrustStore
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

from .loopback import OPENAI_DONE, Loopback, Reply, openai_chunk

IDENTITY = ModelIdentity("openai", "chat-completions", "m")
SESSION_ID = "0b6f3c1e-6d0a-4c3e-9b7a-2f1d9e8c7a55"


def text_reply(text: str) -> Reply:
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": text}),
            openai_chunk({}, finish="stop"),
            OPENAI_DONE,
        ]
    )


def tool_reply(call_id: str, name: str, arguments: dict[str, Any]) -> Reply:
    first = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": None, "tool_calls": [first]}),
            openai_chunk({}, finish="tool_calls"),
            OPENAI_DONE,
        ]
    )


def make_session(tmp_path: Path, workspace: Path, *, trusted: bool = True) -> Path:
    """A session recording ``workspace``; the folder is trusted for tools (in the test's config
    folder) when it exists and ``trusted``."""
    if trusted and workspace.is_dir():
        TrustStore(tmp_path / "config").trust(workspace)
    history = (
        Message.system_text("You are Rho."),
        Message.user_text("hello"),
        Message.enriched(
            AssistantMessage(content=(ContentBlock(text="Hi."),), provenance=IDENTITY)
        ),
    )
    snapshot = SessionSnapshot.new(SESSION_ID, 2, history, IDENTITY)
    with create_session(tmp_path / "rho", str(workspace), snapshot) as writer:
        return writer.path


async def rho_desk(tmp_path: Path, *argv: str) -> tuple[int, str, str]:
    env = {**os.environ, "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "rho_desk",
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def events_of(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.mark.asyncio
async def test_continue_without_tools_streams_and_saves_one_revision(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(text_reply("Carrying on."))
    status, out, err = await rho_desk(
        tmp_path,
        "continue",
        str(path),
        "-m",
        "go on",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--tools",
        "off",
    )
    assert status == 0, err
    assert out == "Carrying on.\n"
    assert "tools" not in server.requests[0].body  # off: nothing offered
    state = read_session(path).tree.snapshot()
    assert state.revision == 3
    assert state.history[-2] == Message.user_text("go on")
    status, out, err = await rho_desk(tmp_path, "check", str(path))
    assert status == 0, out + err


@pytest.mark.asyncio
async def test_continue_with_tools_runs_reads_refuses_writes_without_a_terminal(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\nbeta\n")
    path = make_session(tmp_path, workspace)
    server.queue(
        tool_reply("call_1", "read_file", {"path": "notes.txt"}),
        tool_reply("call_2", "write", {"path": "notes.txt", "content": "gamma\n"}),
        text_reply("Read it; the write was refused."),
        text_reply("Second turn."),
    )
    base = ["--base-url", server.url + "/v1", "--model", "m", "--json"]
    status, out, err = await rho_desk(tmp_path, "continue", str(path), "-m", "read notes", *base)
    assert status == 0, err
    events = events_of(out)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "started" and events[0]["tools"] == "supervised" and kinds[-1] == "completed"
    finished = {e["id"]: e for e in events if e["event"] == "tool_finished"}
    assert finished["call_1"]["ok"] and finished["call_1"]["content"].endswith("1:alpha\n2:beta")
    assert not finished["call_2"]["ok"]
    assert finished["call_2"]["content"].startswith(
        "write capability denied: no terminal to ask for approval"
    )
    assert (
        workspace / "notes.txt"
    ).read_text() == "alpha\nbeta\n"  # the refused write changed nothing
    offered = {tool["function"]["name"] for tool in server.requests[0].body["tools"]}
    assert offered == {"list_dir", "read_file", "write", "edit", "grep", "glob", "bash"}
    state = read_session(path).tree.snapshot()
    assert state.revision == 3
    results = [m.tool_result for m in state.history if m.tool_result is not None]
    assert [r.id for r in results] == ["call_1", "call_2"]
    assert results[0].ok and not results[1].ok

    status, out, err = await rho_desk(tmp_path, "continue", str(path), "-m", "again", *base)
    assert status == 0, err
    assert read_session(path).tree.snapshot().revision == 4  # exactly one per turn
    status, out, err = await rho_desk(tmp_path, "check", str(path))
    assert status == 0, out + err


@pytest.mark.asyncio
async def test_continue_reports_a_gone_workspace_and_bad_usage(
    server: Loopback, tmp_path: Path
) -> None:
    path = make_session(tmp_path, tmp_path / "not-here")
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "x", "--base-url", server.url + "/v1", "--model", "m"
    )
    assert status == 2
    assert "is not on this machine" in err and "--tools off" in err and "Traceback" not in err
    status, _out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "x", "--base-url", server.url
    )
    assert status == 2 and "--base-url and --model go together" in err
    assert not server.requests


@pytest.mark.asyncio
async def test_continue_provider_failure_exits_1_and_keeps_nothing(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(Reply(status=401, body=b'{"error": {"message": "bad key"}}'))
    status, _out, err = await rho_desk(
        tmp_path,
        "continue",
        str(path),
        "-m",
        "x",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--tools",
        "off",
    )
    assert status == 1, err
    assert "nothing of this turn was kept" in err
    assert read_session(path).tree.snapshot().revision == 2


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["ctrl-c", "sigterm", "sighup"]
)
async def test_ctrl_c_cancels_and_commits_the_prompt(
    server: Loopback, tmp_path: Path, stop: signal.Signals
) -> None:
    """Ctrl+C, and a SIGTERM or SIGHUP (a service stop, a closed terminal) alike."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(
        Reply(chunks=[openai_chunk({"role": "assistant", "content": "Partial"})], hang_after=1)
    )
    env = {**os.environ, "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "rho_desk",
        "continue",
        str(path),
        "-m",
        "go",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--tools",
        "off",
        "--json",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = await asyncio.wait_for(process.stdout.readline(), timeout=30)
        if line and json.loads(line)["event"] == "text":
            break
    process.send_signal(stop)
    _out, err = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 130, err.decode()
    state = read_session(path).tree.snapshot(trim=False)
    assert state.revision == 3
    assert state.history[3] == Message.user_text("go")
    aborted = state.history[4].aborted_assistant
    assert aborted is not None and aborted.content[0].text == "Partial"


@pytest.mark.asyncio
async def test_approvals_are_asked_on_the_terminal(server: Loopback, tmp_path: Path) -> None:
    import pty

    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("alpha\n")
    path = make_session(tmp_path, workspace)
    server.queue(
        tool_reply("call_w", "write", {"path": "notes.txt", "content": "beta\n"}),
        tool_reply("call_b", "bash", {"command": "touch made"}),
        text_reply("Wrote it; you refused the command."),
    )
    master, slave = pty.openpty()
    env = {**os.environ, "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "rho_desk",
        "continue",
        str(path),
        "-m",
        "go",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--json",
        stdin=slave,
        stdout=asyncio.subprocess.PIPE,
        stderr=slave,
        env=env,
    )
    os.close(slave)
    seen = b""

    async def answer(prompt_part: bytes, reply: bytes) -> None:
        nonlocal seen
        loop = asyncio.get_running_loop()
        deadline = time.monotonic() + 30
        while prompt_part not in seen and time.monotonic() < deadline:
            seen += await loop.run_in_executor(None, os.read, master, 4096)
        assert prompt_part in seen, seen.decode(errors="replace")
        if b"+beta" in prompt_part:
            assert (
                workspace / "notes.txt"
            ).read_text() == "alpha\n"  # nothing written before the answer
        os.write(master, reply)

    await answer(b"-alpha\r\n+beta", b"y\n")  # the diff is shown before the question
    seen = b""
    await answer(b"command: touch made", b"n: not now\n")
    out, _ = await asyncio.wait_for(process.communicate(), timeout=30)
    os.close(master)
    assert process.returncode == 0
    assert (workspace / "notes.txt").read_text() == "beta\n" and not (workspace / "made").exists()
    decisions = [
        (e["tool"], e["decision"], e["reason"])
        for e in events_of(out.decode())
        if e["event"] == "approval"
    ]
    assert decisions == [("write", "allow_once", ""), ("bash", "deny", "not now")]
    results = {
        r.id: r
        for m in read_session(path).tree.snapshot().history
        if (r := m.tool_result) is not None
    }
    assert results["call_b"].content == "process capability denied: not now"


@pytest.mark.asyncio
async def test_workspace_and_granted_folders_from_the_command_line(
    server: Loopback, tmp_path: Path
) -> None:
    path = make_session(tmp_path, tmp_path / "gone")  # recorded folder is not on this machine
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    TrustStore(tmp_path / "config").trust(chosen)
    (chosen / "here.txt").write_text("in the chosen folder\n")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "spec.md").write_text("granted\n")
    outside = tmp_path / "private.txt"
    outside.write_text("not granted\n")
    server.queue(
        tool_reply("c1", "read_file", {"path": "here.txt"}),
        tool_reply("c2", "read_file", {"path": str(shared / "spec.md")}),
        tool_reply("c3", "read_file", {"path": str(outside)}),
        text_reply("Read what I may."),
    )
    status, out, err = await rho_desk(
        tmp_path,
        "continue",
        str(path),
        "-m",
        "read",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
        "--tools",
        "plan",
        "--workspace",
        str(chosen),
        "--grant",
        str(shared),
        "--json",
    )
    assert status == 0, err
    finished = {e["id"]: e for e in events_of(out) if e["event"] == "tool_finished"}
    assert finished["c1"]["ok"] and finished["c1"]["content"].endswith("1:in the chosen folder")
    assert finished["c2"]["ok"] and finished["c2"]["content"].endswith("1:granted")
    assert (
        not finished["c3"]["ok"]
        and "outside the workspace and granted roots" in finished["c3"]["content"]
    )


@pytest.mark.asyncio
async def test_usage_is_printed_as_reported_or_as_estimated(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    endpoint = ("--base-url", server.url + "/v1", "--model", "m", "--tools", "off")
    # llama.cpp's servers send no usage: the turn's usage is the engine's estimate, said so
    server.queue(text_reply("No usage from me."))
    status, out, err = await rho_desk(tmp_path, "continue", str(path), "-m", "go on", *endpoint)
    assert status == 0, err
    assert "rho-desk: usage: ≈" in err and "tokens (estimated: the server reported no usage)" in err
    assert "$0" not in err
    # a server that reports usage: its figures
    reported = Reply(
        chunks=[
            openai_chunk({"role": "assistant", "content": "Counted."}),
            openai_chunk({}, finish="stop"),
            openai_chunk(
                choices=False,
                usage={"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57},
            ),
            OPENAI_DONE,
        ]
    )
    server.queue(reported)
    status, out, err = await rho_desk(
        tmp_path, "continue", str(path), "-m", "again", *endpoint, "--json"
    )
    assert status == 0, err
    usage = [e for e in events_of(out) if e["event"] == "usage"]
    assert usage and usage[0]["reported"]["total_tokens"] == 57 and usage[0]["estimated_tokens"] > 0


@pytest.mark.asyncio
async def test_the_cycle_collector_waits_for_the_request_then_runs_for_the_rest_of_the_turn(
    server: Loopback, tmp_path: Path
) -> None:
    """Setting up a turn pauses the collector (it would only walk the new imports); it runs again
    once the request is out, so a long turn's garbage cycles are freed."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    (workspace / "notes.txt").write_text("alpha\n")
    server.queue(tool_reply("call_1", "read_file", {"path": "notes.txt"}), text_reply("Done."))
    argv = [
        "continue",
        str(path),
        "-m",
        "read notes",
        "--base-url",
        server.url + "/v1",
        "--model",
        "m",
    ]
    code = (
        "import gc, sys\n"
        "seen = []\n"
        "def watch(event, args):\n"
        "    if event == 'socket.connect' and not seen:\n"
        "        seen.append(gc.isenabled())\n"
        "    elif event == 'open' and len(seen) == 1 and str(args[0]).endswith('notes.txt'):\n"
        "        seen.append(gc.isenabled())  # the tool reads the file: the reply came in\n"
        "sys.addaudithook(watch)\n"
        "from rho_desk.cli import main\n"
        f"status = main({argv!r})\n"
        "print('collector:', *seen, gc.isenabled(), gc.get_freeze_count() > 0)\n"
        "sys.exit(status)\n"
    )
    env = {**os.environ, "RHO_DESK_CONFIG_DIR": str(tmp_path / "config")}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        code,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    # at the request: paused; when the tool runs and after the turn: running, the setup frozen
    assert out.decode().splitlines()[-1] == "collector: False True True True"
