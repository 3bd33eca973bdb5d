"""``rho-desk continue`` against llama.cpp's own server and Qwen2.5-Coder 1.5B, a real model that
calls tools, loops and runs away (opt-in: ``RHO_DESK_LLAMA=1``; see ``real_model.py``).

What scripted servers cannot show: the tool round trip with a model's own calls (its GGUF path
kept out of the session), a model that asks for the same file (or runs the same command, its run
time varying) again and again ending at the repetition guard, a call and a text reply that run
into the output cap named as such, a reply printed once, and a turn that fails after its write
listing the file it changed and leaving it in the checkpoint journal. The server runs one thread
(``-t 1``: on a busy two-core machine, twelve times faster than two). The prompts are imperative and the
server samples at temperature 0, as small models need; each run is bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.changes.checkpoint import journal_path, read_journal
from rho_desk.core.stores.rho_files import read_session

from .real_model import RealServer, Relay, missing, real_server
from .test_cli_continue import make_session

TURN_TIMEOUT = 600.0

pytestmark = [
    pytest.mark.skipif(missing() is not None, reason=missing() or ""),
    # a busy 2-core machine takes minutes over a first prompt: the turn's own bound applies
    pytest.mark.timeout(TURN_TIMEOUT + 120),
]


@pytest.fixture(scope="module")
def qwen() -> Iterator[RealServer]:
    with real_server("1.5b") as server:
        yield server


async def _continue(
    tmp_path: Path, server: RealServer, path: Path, prompt: str, *options: str, on_event: Any = None
) -> tuple[int, str, str, list[dict[str, Any]]]:
    """``rho-desk continue --json`` (unless ``--text``): status, stdout, stderr, the events."""
    as_json = "--text" not in options
    argv = [
        sys.executable,
        "-m",
        "rho_desk",
        "continue",
        str(path),
        "-m",
        prompt,
        "--base-url",
        server.base_url,
        "--model",
        "qwen",
        *(o for o in options if o != "--text"),
        *(["--json"] if as_json else []),
    ]
    env = {**os.environ, "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"), "PYTHONUNBUFFERED": "1"}
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    events: list[dict[str, Any]] = []
    lines: list[str] = []

    async def read() -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            line = raw.decode()
            lines.append(line)
            if as_json and line.strip():
                event = json.loads(line)
                events.append(event)
                if on_event is not None:
                    on_event(event)

    err = asyncio.ensure_future(process.stderr.read())
    await asyncio.wait_for(read(), TURN_TIMEOUT)
    status = await asyncio.wait_for(process.wait(), 60)
    return status, "".join(lines), (await err).decode(), events


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("buy milk\n")
    return workspace, make_session(tmp_path, workspace)


@pytest.mark.asyncio
async def test_the_model_calls_a_tool_and_answers(qwen: RealServer, tmp_path: Path) -> None:
    _, path = _workspace(tmp_path)
    status, _out, err, events = await _continue(
        tmp_path,
        qwen,
        path,
        "Call read_file on notes.txt now.",
        "--tools",
        "bypass",
        "--max-steps",
        "3",
        "--max-tokens",
        "256",
        "--auto-compact",
        "tokens:1000000",
    )
    assert status == 0, err
    started = [e for e in events if e["event"] == "tool_started"]
    assert started and started[0]["name"] == "read_file", events
    finished = [e for e in events if e["event"] == "tool_finished"]
    assert finished and finished[0]["ok"] and "buy milk" in finished[0]["content"]
    history = read_session(path).tree.snapshot().history
    calls = [
        b.tool_call
        for m in history
        if m.enriched_assistant is not None
        for b in m.enriched_assistant.content
        if b.tool_call is not None
    ]
    assert calls and calls[0].name == "read_file"
    assert any(m.tool_result is not None and "buy milk" in m.tool_result.content for m in history)
    replies = [m.enriched_assistant for m in history if m.enriched_assistant is not None]
    # llama-server names its model by the GGUF path it loaded: the session keeps the file name only
    assert qwen.served.endswith(".gguf")
    assert replies[-1].provenance.model == Path(qwen.served).name
    assert str(Path(qwen.served).parent).encode() not in path.read_bytes()
    # a token policy is in force: the estimate follows llama-server's own count (/tokenize)
    assert next(e for e in events if e["event"] == "usage")["estimate_calibrated"] is True


@pytest.mark.asyncio
async def test_a_looping_model_ends_at_the_repetition_guard(
    qwen: RealServer, tmp_path: Path
) -> None:
    _, path = _workspace(tmp_path)
    status, _out, err, events = await _continue(
        tmp_path,
        qwen,
        path,
        "Call read_file on notes.txt. After the result, call read_file on notes.txt again. Keep calling "
        "read_file on notes.txt again and again. Never answer with text.",
        "--tools",
        "bypass",
        "--max-steps",
        "12",
        "--max-tokens",
        "256",
    )
    assert status == 0, err
    completed = [e for e in events if e["event"] == "completed"]
    assert completed and completed[0]["stop_reason"] == "Repetition", (events, err)
    # what the user reads (text mode prints it as "rho-desk: stopped (Repetition): …")
    assert re.fullmatch(
        r"the model called read_file \{.*notes\.txt.*\} 5 times with the same result; "
        r"the turn was stopped",
        completed[0]["detail"],
    ), completed[0]["detail"]
    assert sum(e["event"] == "tool_started" for e in events) == 5  # stopped at the fifth same call


@pytest.mark.asyncio
async def test_a_runaway_tool_call_stops_at_the_output_cap(
    qwen: RealServer, tmp_path: Path
) -> None:
    workspace, path = _workspace(tmp_path)
    for _attempt in range(3):  # a small model may answer in words instead: ask again (a new turn)
        status, _out, err, events = await _continue(
            tmp_path,
            qwen,
            path,
            "Call write now with path numbers.txt and content listing every number from 1 to 3000, one per line.",
            "--tools",
            "bypass",
            "--max-steps",
            "2",
            "--max-tokens",
            "24",
        )
        if any(e["event"] == "progress" for e in events):
            break
    assert status == 1, (err, events)
    assert (
        "the server cut the reply at its output limit (max_tokens 24; finish_reason: length)" in err
    )
    assert sum(e["event"] == "reset" for e in events) == 0  # not sent again as if it were malformed
    assert any(e["event"] == "progress" and e["name"] == "write" for e in events)
    assert not (workspace / "numbers.txt").exists()


@pytest.mark.asyncio
async def test_the_reply_is_printed_once(qwen: RealServer, tmp_path: Path) -> None:
    _, path = _workspace(tmp_path)
    status, out, err, _events = await _continue(
        tmp_path,
        qwen,
        path,
        "Say hello in five words.",
        "--tools",
        "off",
        "--max-tokens",
        "64",
        "--text",
    )
    assert status == 0, err
    last = read_session(path).tree.snapshot().history[-1].enriched_assistant
    assert last is not None
    text = "".join(b.text or "" for b in last.content)
    assert text.strip() and out == text + ("" if text.endswith("\n") else "\n")


@pytest.mark.asyncio
async def test_a_turn_that_fails_after_a_write_lists_and_keeps_the_record(
    qwen: RealServer, tmp_path: Path
) -> None:
    workspace, path = _workspace(tmp_path)
    async with Relay(qwen.base_url) as relay:

        def cut_after_the_write(event: dict[str, Any]) -> None:
            if event["event"] == "tool_finished" and event["ok"]:
                relay.cut()  # the server is gone: the next model call of the turn fails

        status, _out, err, events = await _continue(
            tmp_path,
            replace(qwen, base_url=relay.base_url),
            path,
            "Call write now with path out.txt and content hello.",
            "--tools",
            "bypass",
            "--max-steps",
            "4",
            "--max-tokens",
            "128",
            on_event=cut_after_the_write,
        )
    assert status == 1, err
    assert (workspace / "out.txt").exists()
    assert "(what the tools did to files stays done)" in err, err
    unsaved = [e for e in events if e["event"] == "unsaved_changes"]
    assert unsaved and unsaved[0]["files"] == [
        {"path": str(workspace / "out.txt"), "action": "created"}
    ], events
    journal = read_journal(journal_path(path.parent))
    recorded = [f.path for c in journal.checkpoints for f in c.files]
    assert any(p.endswith("out.txt") for p in recorded)
    assert journal.checkpoints[-1].outcome.value == "failed"


@pytest.mark.asyncio
async def test_a_looping_shell_call_ends_at_the_guard_whatever_its_run_time(
    qwen: RealServer, tmp_path: Path
) -> None:
    _, path = _workspace(tmp_path)
    status, _out, err, events = await _continue(
        tmp_path,
        qwen,
        path,
        "Call bash with the command: sleep 0.$((RANDOM % 5)); ls. After the result, call bash with the same "
        "command again. Keep calling it again and again. Never answer with text.",
        "--tools",
        "bypass",
        "--max-steps",
        "12",
        "--max-tokens",
        "256",
    )
    assert status == 0, err
    completed = [e for e in events if e["event"] == "completed"]
    assert completed and completed[0]["stop_reason"] == "Repetition", (events, err)
    assert completed[0]["detail"].startswith("the model called bash "), completed[0]["detail"]
    assert (
        sum(e["event"] == "tool_started" for e in events) == 5
    )  # the fifth same command, not the sixth


@pytest.mark.asyncio
async def test_a_text_reply_cut_at_the_output_cap_says_so(qwen: RealServer, tmp_path: Path) -> None:
    _, path = _workspace(tmp_path)
    status, _out, err, events = await _continue(
        tmp_path,
        qwen,
        path,
        "Write every number from 1 to 300, separated by commas.",
        "--tools",
        "off",
        "--max-tokens",
        "16",
    )
    assert status == 0, err
    completed = [e for e in events if e["event"] == "completed"]
    assert completed and completed[0]["stop_reason"] == "OutputLimit", (events, err)
    assert (
        completed[0]["detail"]
        == "the server cut the reply at its output limit (max_tokens 16; finish_reason: length)"
    )
    last = read_session(path).tree.snapshot().history[-1].enriched_assistant
    assert (
        last is not None and "".join(b.text or "" for b in last.content).strip()
    )  # kept as written


def test_the_server_runs_one_thread(qwen: RealServer) -> None:
    args = list(qwen.process.args)  # type: ignore[arg-type]
    assert args[args.index("-t") + 1] == "1"
