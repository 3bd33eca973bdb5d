"""The ``bash`` tool with real processes: Rho's output shape, live output, timeouts, and
cancellation that kills the whole process group, even a command that ignores SIGTERM."""

from __future__ import annotations

import asyncio
import gc
import os
import time
import warnings
from pathlib import Path

import pytest

from rho_desk.core.errors import Cancelled
from rho_desk.core.session import Rho, events
from rho_desk.core.testing import ScriptedProvider, ScriptedTurn, text_response, tool_call_response
from rho_desk.core.tools.permissions import DenyAll, PermissionMode
from rho_desk.core.tools.setup import tool_setup
from rho_desk.core.tools.shell import run_shell


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it is gone for our purpose
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.asyncio
async def test_output_has_rho_shape(tmp_path: Path) -> None:
    ok = await run_shell("printf 'out'; printf 'err' >&2", str(tmp_path), max_output_bytes=1000)
    assert ok.ok and ok.content.startswith("stdout:\nout\n\nstderr:\nerr\n\ntime: ")
    failed = await run_shell("exit 4", str(tmp_path), max_output_bytes=1000)
    assert (
        not failed.ok
        and failed.content.startswith("time: ")
        and failed.content.endswith("  exit code: 4")
    )
    long = await run_shell("yes x | head -c 5000", str(tmp_path), max_output_bytes=100)
    assert long.content.endswith("\n[truncated]") and len(long.content.encode()) <= 100 + len(
        "\n[truncated]"
    )
    timed = await run_shell(
        "echo started; sleep 30", str(tmp_path), max_output_bytes=1000, timeout=1
    )
    assert not timed.ok and timed.content == "command timed out after 1s\n\nstdout:\nstarted\n"


@pytest.mark.asyncio
async def test_cancelling_a_run_kills_a_command_that_ignores_sigterm(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    command = (
        f"trap '' TERM; (trap '' TERM; sleep 60) & echo $$ $! > {pidfile}; echo waiting; "
        "while true; do sleep 0.1; done"
    )
    provider = ScriptedProvider(
        [
            ScriptedTurn.completed(tool_call_response(("call-1", "bash", {"command": command}))),
            ScriptedTurn.completed(text_response("unused")),
        ]
    )
    setup = tool_setup(PermissionMode.BYPASS, DenyAll("unused"), cwd=str(tmp_path))
    session = Rho.builder().provider(provider).tools(setup.tools).build().session()
    run = session.start("run it")
    live: list[str] = []
    cancelled_at = 0.0
    async for event in run:
        if isinstance(event, events.ToolUpdated):
            live.append(event.progress.message)
            if "waiting" in event.progress.message and not cancelled_at and pidfile.exists():
                cancelled_at = time.monotonic()
                run.cancel()
    with pytest.raises(Cancelled):
        await run.outcome()
    elapsed = time.monotonic() - cancelled_at
    # within the grace (0.5 s) then SIGKILL, not never; the bound leaves room for a loaded machine
    assert cancelled_at and elapsed < 10.0, elapsed
    assert live[0] == "stdout:\nwaiting\n\n\ntime: running"
    shell_pid, child_pid = (int(p) for p in pidfile.read_text().split())
    deadline = time.monotonic() + 10
    while (alive(shell_pid) or alive(child_pid)) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not alive(shell_pid) and not alive(child_pid)
    results = [m.tool_result for m in session.history if m.tool_result is not None]
    assert [(r.id, r.ok, r.content) for r in results] == [
        ("call-1", False, "tool call interrupted before completion")
    ]
    assert session.revision == 1


@pytest.mark.asyncio
async def test_background_children_do_not_outlive_a_finished_command(tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    result = await run_shell(
        f"sleep 60 & echo $! > {pidfile}; echo done", str(tmp_path), max_output_bytes=1000
    )
    assert result.ok
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not alive(pid)


@pytest.mark.asyncio
async def test_no_pipe_is_left_open_for_the_collector(tmp_path: Path) -> None:
    """A process that left the group holds the pipes past the call, and a cancelled call leaves
    a full pipe unread: either way the call closes them, so no ResourceWarning fires later in
    unrelated code (the suite turns those into errors)."""
    pidfile = tmp_path / "pid"
    escaped = f"setsid sh -c 'echo $$ > {pidfile}; yes | head -c 3000000; sleep 30' & sleep 0.2; echo started"
    result = await run_shell(escaped, str(tmp_path), max_output_bytes=1000)
    assert result.ok
    cancelled = asyncio.ensure_future(
        run_shell("yes | head -c 5000000; sleep 30", str(tmp_path), max_output_bytes=1000)
    )
    await asyncio.sleep(0.3)
    cancelled.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        del result, cancelled
        gc.collect()
    deadline = time.monotonic() + 10  # the escaped process writes its pid first thing
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    os.kill(int(pidfile.read_text()), 9)
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []
