"""``rho-desk continue`` on a real terminal (a pty read back by the pyte terminal emulator): a
reply that breaks off and is asked for again is shown once, a tool call being written shows a
live line that is gone once the call is complete, and escape sequences a model sends are shown
as text instead of acting on the terminal."""

from __future__ import annotations

import asyncio
import os
import pty
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pyte
import pytest
import pytest_asyncio

from .loopback import Loopback, Reply, openai_chunk, serve
from .test_cli_continue import make_session, text_reply
from .test_cli_continue_limits import _streamed_write, _write_cut_mid_call


@pytest_asyncio.fixture
async def server() -> AsyncIterator[Loopback]:
    async for loopback in serve():
        yield loopback


async def _on_a_terminal(tmp_path: Path, server: Loopback, path: Path) -> tuple[bytes, list[str]]:
    """Run the turn with stdin, stdout and stderr on one pty; its bytes and its final screen."""
    leader, follower = pty.openpty()
    env = {
        **os.environ,
        "RHO_DESK_CONFIG_DIR": str(tmp_path / "config"),
        "PYTHONUNBUFFERED": "1",
        "TERM": "xterm",
        "COLUMNS": "100",
        "LINES": "40",
    }
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
        "plan",
        stdin=follower,
        stdout=follower,
        stderr=follower,
        env=env,
    )
    os.close(follower)
    loop = asyncio.get_running_loop()
    seen = b""
    while True:
        try:
            chunk = await asyncio.wait_for(
                loop.run_in_executor(None, os.read, leader, 65536), timeout=60
            )
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    await asyncio.wait_for(process.wait(), timeout=30)
    os.close(leader)
    assert process.returncode == 0, seen.decode(errors="replace")
    screen = pyte.Screen(100, 40)
    pyte.ByteStream(screen).feed(seen)  # the pty already turned each newline into CR LF
    return seen, [line.rstrip() for line in screen.display]


@pytest.mark.asyncio
async def test_a_retried_reply_is_shown_once(server: Loopback, tmp_path: Path) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    broken = "Half a reply that runs long enough to wrap onto a second row of the terminal. " * 2
    server.queue(
        Reply(chunks=[openai_chunk({"role": "assistant", "content": broken}), b"x"], drop_after=1),
        text_reply("The whole reply."),
    )
    seen, screen = await _on_a_terminal(tmp_path, server, path)
    shown = "\n".join(screen)
    assert broken.encode() in seen  # it was on the screen while it streamed
    assert "The whole reply." in shown and "Half a reply" not in shown, shown


@pytest.mark.asyncio
async def test_a_tool_call_being_written_shows_a_live_line_until_it_is_complete(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(_streamed_write(20, "x" * 700), text_reply("Not written: plan mode."))
    seen, screen = await _on_a_terminal(tmp_path, server, path)
    shown = "\n".join(screen)
    assert "● writing a write call… " in seen.decode() and " KB" in seen.decode()
    assert "● writing" not in shown and "Not written: plan mode." in shown, shown


@pytest.mark.asyncio
async def test_a_reset_mid_call_clears_the_live_line(server: Loopback, tmp_path: Path) -> None:
    """The stream breaks while a call is being written: the live line goes with the broken call
    (rewritten in place, never stacked), a line says the request is sent again, and the retried
    call's line counts from zero."""
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(
        _write_cut_mid_call(), _streamed_write(6, "y" * 100), text_reply("Not written: plan mode.")
    )
    seen, screen = await _on_a_terminal(tmp_path, server, path)
    shown = "\n".join(screen)
    text = seen.decode()
    broken, _, retried = text.partition("retrying after provider attempt 1 of 4")
    assert re.search(r"\r\x1b\[2K● writing a write call… [2-9] KB\r\x1b\[2Krho-desk: ", broken), (
        repr(text)
    )
    assert re.findall(r"● writing a write call… (\d+ [BK]+)", retried)[-1].endswith(" B"), repr(
        text
    )
    assert "● writing" not in shown and "Not written: plan mode." in shown, shown
    assert sum("retrying after provider attempt 1 of 4" in line for line in screen) == 1, shown


@pytest.mark.asyncio
async def test_escape_sequences_from_the_model_are_shown_as_text(
    server: Loopback, tmp_path: Path
) -> None:
    workspace = tmp_path / "project"
    workspace.mkdir()
    path = make_session(tmp_path, workspace)
    server.queue(text_reply("All good.\x1b]0;PWNED\x07\x1b[2K\rTests passed."))
    seen, screen = await _on_a_terminal(tmp_path, server, path)
    assert b"\x1b]0;" not in seen
    assert "All good.\\x1b]0;PWNED\\x07\\x1b[2K␍Tests passed." in "\n".join(screen)
