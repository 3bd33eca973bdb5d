"""The redaction canary test of upstream's audit (spec/export.md §5.4), for both adapters.

Secret canaries are planted in the API key, the authorization/x-api-key headers, extra header
values, an endpoint query value, and provider error payloads; sensitive-content canaries in the
prompt and in provider context. Every test-controlled sink is captured: the events, errors
(``str``, ``repr``, diagnostic text), ``repr`` of the provider, every log record at DEBUG, and
the snapshot JSON of the resulting history. Secret canaries must appear nowhere, in raw or
encoded form (URL encoding, ``_`` as ``%5F``, base64, case changes, JSON escaping); the
content canaries only where they belong (request bodies, events, the snapshot), never in errors
or logs. Failures name the sink and the match class, never the value.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import logging
import urllib.parse
from collections.abc import Callable, Iterable

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.errors import ProviderError
from rho_desk.core.provider import ModelRequest, ProviderContext
from rho_desk.core.secrets.scrub import SecretString
from rho_desk.core.wire.codec import encode_pretty
from rho_desk.core.wire.model import AssistantMessage, Message, ProviderContextBlock
from rho_desk.core.wire.snapshot import SessionSnapshot
from rho_desk.logs import configure
from rho_desk.providers.anthropic import AnthropicProvider
from rho_desk.providers.base import HttpProvider
from rho_desk.providers.openai_chat import OpenAIChatProvider

from .conftest import Sink
from .loopback import (
    OPENAI_DONE,
    Loopback,
    Reply,
    anthropic_event,
    anthropic_message_start,
    openai_chunk,
)

API_KEY = "RHO_AUDIT_API_KEY_7f3a"
OAUTH = "RHO_AUDIT_OAUTH_ACCESS_1c9d"
REFRESH = "RHO_AUDIT_REFRESH_442e"
COOKIE = "RHO_AUDIT_COOKIE_88b1"
SIGNED_QUERY = "RHO_AUDIT_SIGNED_QUERY_629a"
PROMPT = "RHO_AUDIT_PROMPT_CONTENT_d120"
CONTEXT = "RHO_AUDIT_PROVIDER_CONTEXT_901b"
SECRETS = (API_KEY, OAUTH, REFRESH, COOKIE, SIGNED_QUERY)


def forms(canary: str) -> dict[str, str]:
    raw = canary.encode()
    return {
        "raw": canary,
        "lowercase": canary.lower(),
        "uppercase": canary.upper(),
        "url-encoded": urllib.parse.quote(canary, safe=""),
        "underscore-%5F": canary.replace("_", "%5F"),
        "base64": base64.b64encode(raw).decode(),
        "json-escaped": json.dumps(canary)[1:-1],
    }


def leaks(sinks: dict[str, str], canaries: Iterable[str]) -> list[str]:
    """``sink: class`` for every match; never the value itself."""
    found = []
    for sink, text in sinks.items():
        for index, canary in enumerate(canaries):
            for form, value in forms(canary).items():
                if value in text or value.lower() in text.lower():
                    found.append(f"{sink}: canary #{index} ({form})")
    return found


ERROR_BODY = json.dumps(
    {
        "type": "error",
        "error": {
            "type": "authentication_error",
            "message": f"bad key {API_KEY}; token {OAUTH}; refresh {REFRESH}; cookie {COOKIE}; url https://h/x?sig={SIGNED_QUERY}",
        },
    }
).encode()


def openai_provider(server: Loopback) -> HttpProvider:
    return OpenAIChatProvider(
        base_url=f"{server.url}/v1?sig={SIGNED_QUERY}",
        model="gpt-audit",
        api_key=SecretString(OAUTH),
        provider_name="canary",
        extra_headers={"X-Session-Hint": COOKIE},
    )


def anthropic_provider(server: Loopback) -> HttpProvider:
    return AnthropicProvider(
        model="claude-audit",
        api_key=SecretString(API_KEY),
        base_url=f"{server.url}/v1?sig={SIGNED_QUERY}",
        extra_headers={"X-Refresh-Hint": REFRESH},
    )


def openai_success() -> list[bytes]:
    return [
        openai_chunk({"role": "assistant", "reasoning_content": CONTEXT}),
        openai_chunk({"reasoning_details": [{"type": "reasoning.summary", "summary": "summary"}]}),
        openai_chunk({"content": "audit "}),
        openai_chunk({"content": "ok"}),
        openai_chunk({}, finish="stop"),
        openai_chunk(
            choices=False, usage={"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}
        ),
        OPENAI_DONE,
    ]


def anthropic_success() -> list[bytes]:
    return [
        anthropic_message_start(input_tokens=9),
        anthropic_event(
            "content_block_start",
            index=0,
            content_block={"type": "thinking", "thinking": "", "signature": ""},
        ),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "t"}
        ),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "signature_delta", "signature": CONTEXT}
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        anthropic_event(
            "content_block_delta", index=1, delta={"type": "text_delta", "text": "audit ok"}
        ),
        anthropic_event("content_block_stop", index=1),
        anthropic_event(
            "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 2}
        ),
        anthropic_event("message_stop"),
    ]


def openai_stream_error() -> list[bytes]:
    error = {
        "error": {
            "type": "server_error",
            "message": f"boom {OAUTH} {COOKIE}",
            "code": "server_error",
        }
    }
    return [openai_chunk({"content": "x"}), b"data: " + json.dumps(error).encode() + b"\n\n"]


def anthropic_stream_error() -> list[bytes]:
    return [
        anthropic_message_start(input_tokens=1),
        anthropic_event(
            "error", error={"type": "overloaded_error", "message": f"boom {API_KEY} {REFRESH}"}
        ),
    ]


CASES: dict[
    str,
    tuple[Callable[[Loopback], HttpProvider], Callable[[], list[bytes]], Callable[[], list[bytes]]],
] = {
    "openai": (openai_provider, openai_success, openai_stream_error),
    "anthropic": (anthropic_provider, anthropic_success, anthropic_stream_error),
}


@pytest.mark.asyncio
@pytest.mark.parametrize("api", sorted(CASES))
async def test_no_secret_canary_reaches_any_sink(
    server: Loopback, api: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    configured = io.StringIO()  # what rho-desk's own logging configuration writes (rho_desk.logs)
    configure("debug", stream=configured)
    make, success, stream_error = CASES[api]
    provider = make(server)
    history = (Message.system_text(PROMPT), Message.user_text("audit"))
    sink = Sink()
    errors: list[ProviderError] = []

    def request(token: CancellationToken | None = None) -> ModelRequest:
        return ModelRequest(messages=history, tools=(), cancellation=token or CancellationToken())

    async with provider:
        # 1. a streamed success
        server.queue(Reply(chunks=success()))
        content = await provider.send_turn_stream(request(), sink)
        # 2. authentication failure whose body echoes every secret
        server.queue(Reply(status=401, body=ERROR_BODY, headers={"x-request-id": COOKIE}))
        # 3. a gateway error page that is not JSON
        server.queue(
            Reply(status=502, body=f"<html>{API_KEY} {OAUTH} {SIGNED_QUERY}</html>".encode())
        )
        # 4. a malformed stream, 5. an error event inside the stream
        server.queue(Reply(chunks=[b"data: {" + SIGNED_QUERY.encode() + b"\n\n"]))
        server.queue(Reply(chunks=stream_error()))
        # 6. a mid-stream disconnect
        server.queue(Reply(chunks=success(), drop_after=3))
        for _ in range(5):
            try:
                await provider.send_turn_stream(request(), Sink())
            except ProviderError as exc:
                errors.append(exc)
        # 7. cancellation mid-stream
        token = CancellationToken()
        server.queue(Reply(chunks=success(), hang_after=3))
        cancelling = Sink(lambda e: token.cancel())
        try:
            await provider.send_turn_stream(request(token), cancelling)
        except ProviderError as exc:
            errors.append(exc)
        await asyncio.wait_for(server.disconnected.wait(), timeout=10)
    # 8. transport failure (nothing listens any more), key and query in the URL
    dead = make(server)
    async with dead:  # its HTTP client closed, not left to the collector
        try:
            await dead.send_turn_stream(request(), Sink())
        except ProviderError as exc:
            errors.append(exc)
    assert len(errors) == 7

    # the snapshot the engine would commit from the successful turn
    contexts = tuple(
        ProviderContextBlock(
            identity=provider.identity(), kind=e.kind, position=e.position, data=e.data
        )
        for e in sink.of(ProviderContext)
    )
    assistant = AssistantMessage(
        content=content, provenance=provider.identity(), provider_context=contexts
    )
    snapshot = SessionSnapshot.new(
        "audit-session", 1, (*history, Message.enriched(assistant)), provider.identity()
    )
    snapshot_json = encode_pretty(snapshot).decode()

    error_text = "\n".join(
        f"{exc}\n{exc!r}\n{exc.text()}\n{exc.diagnostic.text() if exc.diagnostic else ''}\n{exc.diagnostic!r}"
        for exc in errors
    )
    sinks = {
        "events": "\n".join(repr(e) for e in [*sink.events, *cancelling.events]),
        "errors": error_text,
        "provider repr": repr(provider) + repr(dead),
        "logs": "\n".join(f"{r.name} {r.getMessage()}" for r in caplog.records),
        "configured log output": configured.getvalue(),
        "snapshot": snapshot_json,
    }
    assert leaks(sinks, SECRETS) == []
    # httpx and httpcore did log (URLs, response headers): the filters rewrote them
    assert (
        "HTTP Request: POST" in sinks["logs"]
        and "receive_response_headers.complete" in sinks["logs"]
    )
    assert "HTTP Request: POST" in sinks["configured log output"]
    # sensitive content: present where it belongs, absent from errors and logs
    assert (
        leaks(
            {
                "errors": error_text,
                "logs": sinks["logs"],
                "configured log output": sinks["configured log output"],
            },
            (PROMPT, CONTEXT),
        )
        == []
    )
    assert PROMPT in snapshot_json and CONTEXT in snapshot_json
    assert CONTEXT in sinks["events"]
    # the secrets did go where they must: on the wire, to the server
    first = server.requests[0]
    assert SIGNED_QUERY in first.query.values()
    assert {OAUTH, API_KEY} & {v.removeprefix("Bearer ") for v in first.headers.values()}
    assert PROMPT in json.dumps(first.body)
    # the diagnostics kept something useful
    assert any(exc.diagnostic and "authentication_error" in exc.diagnostic.text() for exc in errors)


def test_leak_detector_is_not_vacuous() -> None:
    assert leaks({"s": "x " + API_KEY.replace("_", "%5F")}, SECRETS) == [
        "s: canary #0 (underscore-%5F)"
    ]
    assert leaks({"s": base64.b64encode(COOKIE.encode()).decode()}, SECRETS) == [
        "s: canary #3 (base64)"
    ]
    assert leaks({"s": "clean"}, SECRETS) == []
