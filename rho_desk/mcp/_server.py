"""The MCP server: the official SDK's low-level ``Server`` over :class:`Memory`, on stdio or HTTP.

The SDK does the protocol (both eras: the ``initialize`` handshake and per-request envelopes),
the framing and the Streamable HTTP transport; this module lists the tools, runs each call in a
worker thread (the library and the scanner block), and turns answers and refusals into
``CallToolResult``: the answer as structured content and as JSON text, or ``is_error`` with one
sentence. An unexpected exception is reported by its type only (its message may quote a file).
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.models import InitializationOptions

from .. import __version__
from ._gate import Refused
from ._identity import INSTRUCTIONS, SERVER_NAME, SERVER_TITLE
from ._memory import Memory, ToolError
from ._tools import TOOL_SPECS

__all__ = ["bearer_guard", "build_server", "serve_http"]

log = logging.getLogger(__name__)

_TOOLS = [
    types.Tool(
        name=spec["name"],
        description=spec["description"],
        input_schema=spec["inputSchema"],
        annotations=types.ToolAnnotations(
            read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
        ),
    )
    for spec in TOOL_SPECS
]


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=True)


def build_server(memory: Callable[[], Memory]) -> Server[Any]:
    """The SDK server answering the six tools from ``memory()`` (called on each tool call, so
    the library may still be opening while the handshake is answered)."""

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=_TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments

        def run() -> dict[str, Any]:
            return memory().call(params.name, arguments)

        try:
            answer = await anyio.to_thread.run_sync(run)
        except (ToolError, Refused) as exc:
            return _error(exc.text())
        except Exception as exc:  # a bug or a hostile file: one call fails, the server stays up
            log.exception("tool %s failed", params.name)
            return _error(f"{params.name} failed: internal error ({type(exc).__name__})")
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
        return types.CallToolResult(
            content=[types.TextContent(text=text)], structured_content=answer
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        title=SERVER_TITLE,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def initialization_options(server: Server[Any]) -> InitializationOptions:
    return server.create_initialization_options()


ASGIApp = Callable[
    [dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]],
    Awaitable[None],
]


def bearer_guard(app: ASGIApp, token: str) -> ASGIApp:
    """``app`` behind ``Authorization: Bearer <token>`` (compared in constant time): any other
    HTTP request gets 401 and reaches nothing."""
    expected = f"Bearer {token}".encode()

    async def guarded(
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope.get("type") == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, expected):
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"text/plain"),
                            (b"www-authenticate", b"Bearer"),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": b"a bearer token is required\n"})
                return
        await app(scope, receive, send)

    return guarded


def serve_http(
    server: Server[Any],
    *,
    host: str,
    port: int,
    token: str | None,
    ready: Callable[[int], None] | None = None,
) -> None:
    """Serve Streamable HTTP at ``http://host:port/mcp`` until interrupted (blocking).

    ``ready`` is called with the bound port once the socket listens (``port`` 0 picks one).
    """
    import socket

    import uvicorn

    app: Any = server.streamable_http_app(host=host, json_response=False)
    if token is not None:
        app = bearer_guard(app, token)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    runner = uvicorn.Server(config)
    if ready is not None:
        ready(bound)
    try:
        runner.run(sockets=[sock])
    finally:
        sock.close()
