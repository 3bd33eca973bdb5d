"""A loopback model server for provider tests: aiohttp on 127.0.0.1, port 0, in the test's loop.

Each test queues ``Reply`` scripts; the server records every request and notices when a client
closes the connection mid-stream. The stream builders below write the shapes the real APIs send
(OpenAI ``chat.completion.chunk`` with ``tool_calls`` deltas and the ``include_usage`` chunk;
Anthropic's ``message_start`` ... ``message_stop`` events).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

__all__ = ["Loopback", "Recorded", "Reply", "anthropic_event", "openai_chunk", "serve"]


@dataclass
class Reply:
    """What the server does with the next request."""

    status: int = 200
    chunks: list[bytes] = field(default_factory=list)
    """Streamed body pieces (each written and flushed on its own)."""
    body: bytes | None = None
    """A whole, non-streamed body (error replies)."""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds between chunks (slow streams)."""
    hang_after: int | None = None
    """After this many chunks, hold the connection open until the client closes it."""
    drop_after: int | None = None
    """After this many chunks, abort the TCP connection (a mid-stream disconnect)."""
    hang_before_headers: bool = False
    """Never answer: hold the connection until the client closes it."""
    die: bool = False
    """With ``drop_after``: the server stops listening as it aborts the connection (a server
    process that died mid-stream; later connections are refused)."""


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


class Loopback:
    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Recorded] = []
        self.disconnected = asyncio.Event()
        self.disconnected_at: float | None = None
        self.url = ""
        self.tokens_per_char: float | None = None
        """Answer llama.cpp's ``POST /tokenize`` with this many tokens per character; ``None``: 404,
        as servers without it do. Token counts are kept apart from :attr:`requests`."""
        self.tokenized: list[str] = []
        self.tokenize_drip: float | None = None
        """Answer ``/tokenize`` one byte every this many seconds, for 15 s (a stalled server)."""
        self._listener: asyncio.AbstractServer | None = None

    def stop_listening(self) -> None:
        """Close the listening socket: every later connection is refused."""
        if self._listener is not None:
            self._listener.close()

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def _mark_disconnected(self) -> None:
        if not self.disconnected.is_set():
            self.disconnected_at = time.monotonic()
            self.disconnected.set()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw
        if request.path.endswith("/tokenize") and self.tokenize_drip is not None:
            self.tokenized.append(body["content"] if isinstance(body, dict) else "")
            dripping = web.StreamResponse(status=200, headers={"content-type": "application/json"})
            await dripping.prepare(request)
            try:
                for _ in range(int(15 / self.tokenize_drip)):
                    await dripping.write(b" ")
                    await asyncio.sleep(self.tokenize_drip)
            except (ConnectionResetError, ConnectionError):
                return dripping
        if request.path.endswith("/tokenize"):
            if self.tokens_per_char is None or not isinstance(body, dict):
                return web.Response(status=404, body=b"Not Found")
            self.tokenized.append(body["content"])
            count = round(len(body["content"]) * self.tokens_per_char)
            return web.json_response({"tokens": list(range(count))})
        self.requests.append(
            Recorded(request.method, request.path, dict(request.query), dict(request.headers), body)
        )
        reply = (
            self.replies.popleft()
            if self.replies
            else Reply(status=500, body=b'{"error":"no reply queued"}')
        )
        if reply.hang_before_headers:
            await self._hang(request)
            return web.Response(status=204)
        if reply.body is not None or reply.status != 200:
            return web.Response(
                status=reply.status,
                body=reply.body or b"",
                headers={"content-type": "application/json", **reply.headers},
            )
        response = web.StreamResponse(
            status=200, headers={"content-type": "text/event-stream", **reply.headers}
        )
        await response.prepare(request)
        transport = request.transport
        try:
            for index, chunk in enumerate(reply.chunks):
                if reply.drop_after is not None and index == reply.drop_after:
                    assert transport is not None
                    if reply.die:
                        self.stop_listening()
                    transport.abort()
                    return response
                if reply.hang_after is not None and index == reply.hang_after:
                    await self._hang(request)
                    return response
                if index and reply.delay:
                    await asyncio.sleep(reply.delay)
                await response.write(chunk)
            if reply.hang_after is not None and reply.hang_after >= len(reply.chunks):
                await self._hang(request)
                return response
            if reply.drop_after is not None and reply.drop_after >= len(reply.chunks):
                assert transport is not None
                transport.abort()
                return response
            await response.write_eof()
        except (ConnectionResetError, ConnectionError):
            self._mark_disconnected()
        return response

    async def _hang(self, request: web.Request) -> None:
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            transport = request.transport
            if transport is None or transport.is_closing():
                self._mark_disconnected()
                return
            await asyncio.sleep(0.002)


async def serve() -> AsyncIterator[Loopback]:
    """Start a loopback server (use as an async fixture body)."""
    loopback = Loopback()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", loopback.handle)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server = site._server
    assert server is not None and server.sockets
    port = server.sockets[0].getsockname()[1]
    loopback.url = f"http://127.0.0.1:{port}"
    loopback._listener = server
    try:
        yield loopback
    finally:
        await runner.cleanup()


# --- stream builders -----------------------------------------------------------------------


def openai_chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    model: str = "gpt-test",
    choices: bool = True,
) -> bytes:
    """One ``data: {chat.completion.chunk}`` event."""
    chunk: dict[str, Any] = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
        "system_fingerprint": "fp_test",
        "choices": (
            [{"index": 0, "delta": delta or {}, "logprobs": None, "finish_reason": finish}]
            if choices
            else []
        ),
    }
    if usage is not None:
        chunk["usage"] = usage
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


OPENAI_DONE = b"data: [DONE]\n\n"


def anthropic_event(kind: str, **payload: Any) -> bytes:
    """One ``event: <kind>`` / ``data: {...}`` pair."""
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n".encode()


def anthropic_message_start(model: str = "claude-test", **usage: int) -> bytes:
    return anthropic_event(
        "message_start",
        message={
            "id": "msg_test",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 1, **usage},
        },
    )
