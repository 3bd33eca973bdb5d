"""Running one shell command the way Rho's ``bash`` tool does, and stopping it for good.

``bash -lc COMMAND`` runs in the workspace folder with stdin closed, in a session of its own
(``start_new_session``), so the command and everything it starts share one process group.
Output is kept up to the budget (stdout and stderr together), shown live every 50 ms as
``stdout:`` / ``stderr:`` sections with ``time: running``, and finished with
``time: 1.2s`` (plus ``exit code: N`` on failure), as Rho writes it.

Stopping (cancellation, timeout, or the end of the command): the whole group gets SIGTERM, and
SIGKILL after a short grace if anything is left, so a command that ignores SIGTERM is still gone
within the grace period; background children of a finished command are killed too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from .text import truncate

__all__ = ["ShellOutcome", "format_shell_output", "run_shell"]

UPDATE_INTERVAL: Final = 0.05
TERM_GRACE: Final = 0.5
"""Seconds between SIGTERM and SIGKILL for the command's process group."""
FINAL_OUTPUT_GRACE: Final = 0.25


@dataclass(frozen=True, slots=True)
class ShellOutcome:
    ok: bool
    content: str
    timed_out: bool = False


def format_shell_output(stdout: str, stderr: str, footer: str | None) -> str:
    sections = []
    if stdout:
        sections.append(f"stdout:\n{stdout}")
    if stderr:
        sections.append(f"stderr:\n{stderr}")
    if footer:
        sections.append(footer)
    return "\n\n".join(sections)


def _signal_group(pgid: int, sig: signal.Signals) -> bool:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def _reaped(process: asyncio.subprocess.Process, limit: float) -> bool:
    """Wait up to ``limit`` seconds for the leader's exit status (not for its pipes to close)."""
    deadline = time.monotonic() + limit
    while process.returncode is None and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return process.returncode is not None


async def stop_group(
    process: asyncio.subprocess.Process, pgid: int, *, grace: float = TERM_GRACE
) -> None:
    """SIGTERM the group, SIGKILL it after ``grace`` seconds if anything is left, reap the leader."""
    if _signal_group(pgid, signal.SIGTERM):
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            if process.returncode is not None and not _group_alive(pgid):
                break
            await asyncio.sleep(0.01)
        _signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    await _reaped(process, 5.0)


def _close_pipes(process: asyncio.subprocess.Process) -> None:
    """Close the process's transport and its pipes once their readers are gone.

    asyncio closes them itself only when both pipes reach end of file; a process that left the
    group (``setsid … &``) keeps them open after the call returns, or a cancelled reader leaves a
    full buffer unread, and the transport is then left for the garbage collector, which warns
    about it in whatever code runs next. ``Process`` has no public close, hence the attribute.
    """
    transport = getattr(process, "_transport", None)
    if isinstance(transport, asyncio.SubprocessTransport):
        transport.close()


async def run_shell(
    command: str,
    cwd: str,
    *,
    max_output_bytes: int,
    timeout: float | None = None,
    on_update: Callable[[str], Awaitable[None]] | None = None,
    env: dict[str, str] | None = None,
) -> ShellOutcome:
    """Run ``command``; cancellation of the calling task stops the whole process group.

    Raises:
        OSError: bash could not be started.
        asyncio.CancelledError: the call was cancelled (after the group is gone).
    """
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        "bash",
        "-lc",
        command,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        env=env,
    )
    pgid = process.pid
    budget = max(max_output_bytes, 1)
    buffers: dict[str, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
    retained = 0
    dirty = False
    last_update = started

    async def pump(name: str, stream: asyncio.StreamReader | None) -> None:
        nonlocal retained, dirty
        if stream is None:
            return
        while True:
            chunk = await stream.read(8192)
            if not chunk:
                return
            room = budget - retained
            if room <= 0:
                continue
            take = chunk[:room]
            buffers[name] += take
            retained += len(take)
            dirty = True

    def text(name: str) -> str:
        return bytes(buffers[name]).decode("utf-8", errors="replace")

    readers = [
        asyncio.ensure_future(pump("stdout", process.stdout)),
        asyncio.ensure_future(pump("stderr", process.stderr)),
    ]
    deadline = None if timeout is None else started + timeout
    timed_out = False
    try:
        while True:
            await asyncio.sleep(0.01)
            if process.returncode is not None:
                break
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                timed_out = True
                await stop_group(process, pgid)
                break
            if dirty and on_update is not None and now - last_update >= UPDATE_INTERVAL:
                dirty = False
                last_update = now
                await on_update(
                    format_shell_output(text("stdout"), text("stderr"), "time: running")
                )
    except BaseException:
        await asyncio.shield(stop_group(process, pgid))
        for reader in readers:
            reader.cancel()
        _close_pipes(process)
        raise
    # The command is done: its background children go too (Rho kills the group after exit).
    _signal_group(pgid, signal.SIGKILL)
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(asyncio.gather(*readers, return_exceptions=True), FINAL_OUTPUT_GRACE)
    for reader in readers:
        reader.cancel()
    _close_pipes(process)
    stdout, stderr = text("stdout"), text("stderr")
    if timed_out:
        seconds = int(timeout or 0)
        streams = format_shell_output(stdout, stderr, None)
        message = f"command timed out after {seconds}s" + (f"\n\n{streams}" if streams else "")
        return ShellOutcome(False, truncate(message, budget), timed_out=True)
    code = process.returncode
    elapsed = f"{time.monotonic() - started:.1f}s"
    ok = code == 0
    if ok:
        footer = f"time: {elapsed}"
    else:
        exit_text = str(code) if code is not None and code >= 0 else "signal"
        footer = f"time: {elapsed}  exit code: {exit_text}"
    return ShellOutcome(ok, truncate(format_shell_output(stdout, stderr, footer), budget))
