"""``rho-desk mcp`` over stdio: the handshake answered at once, the SDK loaded meanwhile.

Importing the MCP SDK costs most of a second (its protocol types are pydantic models for two
protocol eras, plus Starlette and the auth stack), far longer than starting rho-desk. A client
starts a server and waits for the answer to ``initialize``; Rho, Claude Code and Codex give up
after a timeout. So this front, which imports nothing heavy:

1. takes the wire: the process's stdin and stdout become private descriptors, fd 0 reads
   ``/dev/null`` and fd 1 writes to stderr, so nothing printed by a library can corrupt a frame;
2. starts loading the SDK and opening the library on a worker thread;
3. reads the first line; when it is a well-formed ``initialize`` request of the handshake era,
   answers it at once with what the SDK would answer (the protocol version negotiated by the
   SDK's rule, the same capabilities, server info and instructions; a test compares the two);
4. hands the connection to the SDK's own stdio transport and server, replaying that first line,
   and drops the SDK's answer to it (the client already has it; a different answer is logged).

Anything else (a modern-era request, a malformed line) is left to the SDK, which answers once it
is loaded. Nothing here parses more than the first line.
"""

from __future__ import annotations

import io
import json
import logging
import os
import sys
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

from .. import __version__
from ._identity import HANDSHAKE_VERSIONS, INSTRUCTIONS, SERVER_NAME, SERVER_TITLE

__all__ = ["fast_initialize", "serve_stdio"]

log = logging.getLogger(__name__)

MAX_FIRST_LINE: Final = 1 << 20


def fast_initialize(line: bytes) -> tuple[Any, bytes] | None:
    """``(request id, the answer line)`` for a handshake ``initialize`` request, else ``None``."""
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(message, dict)
        or message.get("jsonrpc") != "2.0"
        or message.get("method") != "initialize"
    ):
        return None
    request_id = message.get("id")
    params = message.get("params")
    if (
        isinstance(request_id, bool)
        or not isinstance(request_id, int | str)
        or not isinstance(params, dict)
    ):
        return None
    version, info = params.get("protocolVersion"), params.get("clientInfo")
    if (
        not isinstance(version, str)
        or not isinstance(params.get("capabilities"), dict)
        or not isinstance(info, dict)
    ):
        return None
    if not isinstance(info.get("name"), str) or not isinstance(info.get("version"), str):
        return None
    negotiated = version if version in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result = {
        "protocolVersion": negotiated,
        "capabilities": {"tools": {"listChanged": False}},
        "serverInfo": {"name": SERVER_NAME, "title": SERVER_TITLE, "version": __version__},
        "instructions": INSTRUCTIONS,
    }
    answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
    return request_id, json.dumps(
        answer, ensure_ascii=False, separators=(",", ":")
    ).encode() + b"\n"


def _take_wire() -> tuple[int, int]:
    """Private copies of stdin and stdout; fd 0 then reads ``/dev/null`` and fd 1 is stderr."""
    import fcntl

    wire_in = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)
    wire_out = fcntl.fcntl(1, fcntl.F_DUPFD_CLOEXEC, 3)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


class _Loader(threading.Thread):
    """Imports the SDK and builds the server (and whatever ``prepare`` opens) off the main thread."""

    def __init__(self, prepare: Callable[[], Any]) -> None:
        super().__init__(name="rho-desk-mcp-load", daemon=True)
        self._prepare = prepare
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self._prepare()
        except BaseException as exc:  # re-raised on the main thread
            self.error = exc

    def result(self) -> Any:
        self.join()
        if self.error is not None:
            raise self.error
        return self.value


def serve_stdio(prepare: Callable[[], Any]) -> None:
    """Serve MCP on this process's stdin and stdout until the client closes stdin.

    ``prepare()`` runs on a worker thread and returns the SDK ``Server`` to serve.
    """
    wire_in, wire_out = _take_wire()
    loader = _Loader(prepare)
    loader.start()
    reader = io.BufferedReader(io.FileIO(wire_in, "rb", closefd=False), buffer_size=1 << 16)
    writer = io.FileIO(wire_out, "wb", closefd=False)
    first = reader.readline(MAX_FIRST_LINE)
    answered = fast_initialize(first) if first.endswith(b"\n") else None
    if answered is not None:
        writer.write(answered[1])
    server = loader.result()
    _run_sdk(server, reader, writer, first, answered)


def _run_sdk(
    server: Any,
    reader: io.BufferedReader[io.FileIO],
    writer: io.FileIO,
    first: bytes,
    answered: tuple[Any, bytes] | None,
) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    text_in = anyio.wrap_file(io.TextIOWrapper(reader, encoding="utf-8", errors="replace"))
    text_out = anyio.wrap_file(io.TextIOWrapper(writer, encoding="utf-8", write_through=True))
    first_text = first.decode("utf-8", "replace")

    class Replay:
        def __aiter__(self) -> AsyncIterator[str]:
            return self._lines()

        async def _lines(self) -> AsyncIterator[str]:
            if first_text:
                yield first_text
            async for line in text_in:
                yield line

    class Sieve:
        """The SDK's stdout, less its answer to the ``initialize`` already answered."""

        def __init__(self) -> None:
            self.pending = answered

        async def write(self, text: str) -> int:
            if self.pending is not None and _answers(text, self.pending[0]):
                if json.loads(text).get("result") != json.loads(self.pending[1])["result"]:
                    log.warning("the SDK's initialize result differs from the one sent early")
                self.pending = None
                return len(text)
            return await text_out.write(text)

        async def flush(self) -> None:
            await text_out.flush()

    async def main() -> None:
        async with stdio_server(stdin=Replay(), stdout=Sieve()) as (read_stream, write_stream):  # type: ignore[arg-type]
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(main)
    sys.stdout.flush()


def _answers(text: str, request_id: Any) -> bool:
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return (
        isinstance(message, dict)
        and message.get("id") == request_id
        and ("result" in message or "error" in message)
    )
