"""Continuing a session from the command line.

* ``continue.time_to_request``: ``rho-desk continue PATH -m TEXT --base-url URL --model M``
  (``python -m rho_desk``) as a new process, from its start to the chat request arriving (its
  body read) at a loopback model server in this process. Baseline: ``rho-desk --version`` started
  the same way in the same run, wall time to exit. Target: median ≤ 5 × the baseline (about
  0.25 s on a developer machine). The session is a small real one on disk; its folder is trusted
  for tools (``--tools supervised``, the default), so the measured path opens the workspace and
  offers the tools as a real turn does. Both commands may use bytecode caches, as an installed
  program does (the warm-up runs write them).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rho_desk.benchkit import BenchResult, benchmark

_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
_REPLY = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
    b'"delta":{"role":"assistant","content":"ok"},"finish_reason":null}]}\n\n'
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
    b'"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


class _Server:
    """A minimal HTTP/1.1 model server: notes when each request's body has arrived."""

    def __init__(self) -> None:
        self.arrived: asyncio.Queue[float] = asyncio.Queue()
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            if b" /tokenize " in head.split(b"\r\n", 1)[0]:
                writer.write(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                )
                await writer.drain()
                return  # a token count is not the model request this measures
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            await reader.readexactly(length)
            self.arrived.put_nowait(time.perf_counter())
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n"
                + f"content-length: {len(_REPLY)}\r\n\r\n".encode()
                + _REPLY
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()


def small_session(root: Path) -> Path:
    """A three-message session under ``root/rho`` whose workspace is ``root/project`` (made here)."""
    from rho_desk.core.stores.rho_files import create_session
    from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
    from rho_desk.core.wire.snapshot import SessionSnapshot

    identity = ModelIdentity("openai", "chat-completions", "m")
    workspace = root / "project"
    workspace.mkdir()
    history = (
        Message.system_text("You are Rho."),
        Message.user_text("hello"),
        Message.enriched(
            AssistantMessage(content=(ContentBlock(text="Hi."),), provenance=identity)
        ),
    )
    snapshot = SessionSnapshot.new("0b6f3c1e-6d0a-4c3e-9b7a-2f1d9e8c7a55", 2, history, identity)
    with create_session(root / "rho", str(workspace), snapshot) as writer:
        return writer.path


async def _spawn(argv: list[str], env: dict[str, str]) -> tuple[float, asyncio.subprocess.Process]:
    start = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "rho_desk",
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    return start, process


async def _measure(repeat: int) -> tuple[list[float], list[float]]:
    server = _Server()
    listener = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.port = listener.sockets[0].getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="rho-desk-bench-") as folder:
        root = Path(folder)
        path = small_session(root)
        env = {**_ENV, "RHO_DESK_CONFIG_DIR": str(root / "config")}
        url = f"http://127.0.0.1:{server.port}/v1"
        turn = [
            "continue",
            str(path),
            "-m",
            "go on",
            "--base-url",
            url,
            "--model",
            "m",
            "--trust-workspace",
        ]
        samples, baseline = [], []
        for index in range(repeat + 1):  # the first of each is a warm-up (bytecode caches)
            start, process = await _spawn(turn, env)
            try:
                arrived = await asyncio.wait_for(server.arrived.get(), 30)
            finally:
                _out, err = await process.communicate()
            if process.returncode != 0:
                raise RuntimeError(
                    f"rho-desk continue failed ({process.returncode}): {err.decode()[-500:]}"
                )
            start_v, version = await _spawn(["--version"], env)
            await version.communicate()
            ended = time.perf_counter()
            if index:
                if arrived <= start:
                    raise RuntimeError("a request from an earlier run was taken for this one's")
                samples.append((arrived - start) * 1000)
                baseline.append((ended - start_v) * 1000)
    listener.close()
    await listener.wait_closed()
    return samples, baseline


@benchmark("continue.time_to_request")
def time_to_request(quick: bool) -> BenchResult:
    samples, baseline = asyncio.run(_measure(5 if quick else 15))
    median, base = statistics.median(samples), statistics.median(baseline)
    return BenchResult(
        "continue.time_to_request",
        "ms",
        samples,
        "median ≤ 5 × rho-desk --version",
        median <= 5 * base,
        baseline=base,
        ratio=median / base,
    )
