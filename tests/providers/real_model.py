"""llama.cpp's own ``llama-server`` with Qwen2.5-Coder Instruct, a model that really calls tools,
for the opt-in tests (``RHO_DESK_LLAMA=1``; set up by ``scripts/llama-server-setup.sh``).

The server runs with the model's chat template rewritten so that its tool-call markers are a
json code fence (``scripts/qwen2.5-tools.jinja``): llama.cpp then constrains the calls with a
grammar and streams them as ``tool_calls`` (environment.md §11).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx

ENABLED = os.environ.get("RHO_DESK_LLAMA") == "1"
REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "scripts" / "qwen2.5-tools.jinja"
LLAMA_DIR = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rho-desk" / "llama"
SERVER = LLAMA_DIR / "build" / "bin" / "llama-server"
MODELS = {
    "1.5b": LLAMA_DIR / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    "0.5b": LLAMA_DIR / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
}


def missing(model: str = "1.5b") -> str | None:
    """Why the real server cannot run ``model`` here, or ``None``."""
    if not ENABLED:
        return "opt-in: RHO_DESK_LLAMA=1 runs llama-server with a real model (scripts/llama-server-setup.sh)"
    if not SERVER.exists():
        return f"no {SERVER}: run scripts/llama-server-setup.sh"
    if not MODELS[model].exists():
        setup = "scripts/llama-server-setup.sh" + (" --with-0.5b" if model == "0.5b" else "")
        return f"no {MODELS[model]}: run {setup}"
    return None


@dataclass
class RealServer:
    base_url: str
    """The OpenAI-compatible root (``…/v1``)."""
    served: str
    """The model name the server puts in its replies (its ``/v1/models`` id)."""
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def real_server(
    model: str = "1.5b", n_ctx: int = 8192, startup_timeout: float = 180.0
) -> Iterator[RealServer]:
    """Start ``llama-server`` on 127.0.0.1, wait until it is healthy, kill it after."""
    port = _free_port()
    log = open(os.devnull, "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [
            str(SERVER),
            "-m",
            str(MODELS[model]),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "-c",
            str(n_ctx),
            "-t",
            "1",
            "--jinja",
            "--chat-template-file",
            str(TEMPLATE),
            "--seed",
            "7",
            "--temp",
            "0",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    root = f"http://127.0.0.1:{port}"
    server = RealServer(f"{root}/v1", MODELS[model].name, process)
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama-server exited with status {process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{root}/health", timeout=2.0).status_code == 200:
                    server.served = httpx.get(f"{root}/v1/models", timeout=5.0).json()["data"][0][
                        "id"
                    ]
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("llama-server did not become healthy")
            time.sleep(0.5)
        yield server
    finally:
        server.stop()
        log.close()


class Relay:
    """A TCP relay in front of a running server that can be cut: the connections open through it
    close and new ones are refused, as when the server dies, while the server itself keeps running
    with its prompt cache warm for the next test."""

    def __init__(self, base_url: str) -> None:
        parts = urlsplit(base_url)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._path = parts.path
        self._server: asyncio.Server | None = None
        self._open: list[asyncio.StreamWriter] = []
        self.base_url = ""

    async def __aenter__(self) -> Relay:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.base_url = f"http://127.0.0.1:{port}{self._path}"
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cut()

    def cut(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._open:
            writer.transport.abort()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        except OSError:
            writer.transport.abort()
            return
        self._open += [writer, up_writer]

        async def pipe(source: asyncio.StreamReader, target: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await source.read(65536):
                    target.write(data)
                    await target.drain()
            target.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
