"""Every way a provider exchange fails, for both APIs: typed errors, retryability, Retry-After,
cancellation closing the stream, slow streams. All against a loopback server."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.errors import ProviderError, ProviderErrorKind
from rho_desk.core.provider import ModelRequest, OutputDelta
from rho_desk.core.secrets.scrub import SecretString
from rho_desk.core.wire.model import ContentBlock, Message
from rho_desk.providers.anthropic import AnthropicProvider
from rho_desk.providers.base import HttpProvider
from rho_desk.providers.openai_chat import OpenAIChatProvider
from rho_desk.providers.transport import Timeouts, parse_retry_after

from .conftest import Sink
from .loopback import (
    OPENAI_DONE,
    Loopback,
    Reply,
    anthropic_event,
    anthropic_message_start,
    openai_chunk,
)

KEY = "sk-live-SECRETKEY0123456789"


@dataclass
class Api:
    name: str
    make: Callable[..., HttpProvider]
    head: list[bytes]
    """Events before any text."""
    text: Callable[[str], bytes]
    tail: list[bytes]
    """Events after the text that complete the stream."""

    def stream(self, *pieces: str) -> list[bytes]:
        return [*self.head, *(self.text(p) for p in pieces), *self.tail]


def _openai(base: str, **kw: object) -> HttpProvider:
    return OpenAIChatProvider(base_url=base + "/v1", model="m", api_key=SecretString(KEY), **kw)  # type: ignore[arg-type]


def _anthropic(base: str, **kw: object) -> HttpProvider:
    return AnthropicProvider(base_url=base + "/v1", model="m", api_key=SecretString(KEY), **kw)  # type: ignore[arg-type]


APIS = {
    "openai": Api(
        "openai",
        _openai,
        [openai_chunk({"role": "assistant", "content": ""})],
        lambda t: openai_chunk({"content": t}),
        [openai_chunk({}, finish="stop"), OPENAI_DONE],
    ),
    "anthropic": Api(
        "anthropic",
        _anthropic,
        [
            anthropic_message_start(input_tokens=5),
            anthropic_event(
                "content_block_start", index=0, content_block={"type": "text", "text": ""}
            ),
        ],
        lambda t: anthropic_event(
            "content_block_delta", index=0, delta={"type": "text_delta", "text": t}
        ),
        [
            anthropic_event("content_block_stop", index=0),
            anthropic_event(
                "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 3}
            ),
            anthropic_event("message_stop"),
        ],
    ),
}


@pytest.fixture(params=sorted(APIS))
def api(request: pytest.FixtureRequest) -> Api:
    return APIS[request.param]


def req(token: CancellationToken | None = None) -> ModelRequest:
    return ModelRequest(
        messages=(Message.user_text("hi"),), tools=(), cancellation=token or CancellationToken()
    )


async def fail(provider: HttpProvider, sink: Sink | None = None) -> ProviderError:
    async with provider:
        with pytest.raises(ProviderError) as caught:
            await provider.send_turn_stream(req(), sink or Sink())
    error = caught.value
    assert (
        error.__context__ is None and error.__cause__ is None
    )  # no httpx request (headers) attached
    assert KEY not in str(error) and KEY not in repr(error)
    if error.diagnostic is not None:
        assert KEY not in error.diagnostic.text()
    return error


# --- HTTP status -------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [401, 403])
async def test_authentication_failures(server: Loopback, api: Api, status: int) -> None:
    body = b'{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key sk-live-SECRETKEY0123456789"}}'
    server.queue(Reply(status=status, body=body))
    error = await fail(api.make(server.url))
    assert error.kind is ProviderErrorKind.AUTHENTICATION and not error.is_retryable()
    assert f"HTTP {status} (authentication_error)" in str(error)
    assert error.diagnostic is not None
    assert (
        "[REDACTED]" in error.diagnostic.text() and "invalid x-api-key" in error.diagnostic.text()
    )


@pytest.mark.asyncio
async def test_rate_limit_honours_retry_after_seconds(server: Loopback, api: Api) -> None:
    server.queue(
        Reply(
            status=429,
            body=b'{"error":{"type":"rate_limit_error","message":"slow down"}}',
            headers={"retry-after": "7"},
        )
    )
    error = await fail(api.make(server.url))
    assert error.kind is ProviderErrorKind.RATE_LIMIT and error.is_retryable()
    assert error.retry_after == timedelta(seconds=7)
    assert str(error).endswith("; retry in 7s")


@pytest.mark.asyncio
async def test_rate_limit_retry_after_ms_wins(server: Loopback) -> None:
    server.queue(
        Reply(status=429, body=b"{}", headers={"retry-after-ms": "1500", "retry-after": "9"})
    )
    error = await fail(_openai(server.url))
    assert error.retry_after == timedelta(milliseconds=1500)


def test_retry_after_http_date_and_junk() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after(
        {"retry-after": "Wed, 01 Jan 2025 12:00:30 GMT"}, now=now
    ) == timedelta(seconds=30)
    assert parse_retry_after({"retry-after": "Wed, 01 Jan 2025 11:00:00 GMT"}, now=now) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({"retry-after": "0"}) is None
    assert parse_retry_after({}) is None


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [500, 502, 503, 529])
async def test_server_errors_are_retryable_unavailable(
    server: Loopback, api: Api, status: int
) -> None:
    server.queue(
        Reply(
            status=status,
            body=b"<html>gateway SECRET-PAGE-BODY</html>",
            headers={"retry-after": "3"},
        )
    )
    error = await fail(api.make(server.url))
    assert error.kind is ProviderErrorKind.UNAVAILABLE and error.is_retryable()
    assert error.retry_after == timedelta(seconds=3)
    assert "SECRET-PAGE-BODY" not in str(error)
    assert error.diagnostic is not None
    assert "SECRET-PAGE-BODY" not in error.diagnostic.text()
    assert "not JSON" in error.diagnostic.text()


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("status", "kind", "retryable"),
    [
        (400, ProviderErrorKind.OTHER, False),
        (404, ProviderErrorKind.OTHER, False),
        (408, ProviderErrorKind.TIMEOUT, True),
        (504, ProviderErrorKind.TIMEOUT, True),
    ],
)
async def test_other_statuses(
    server: Loopback, status: int, kind: ProviderErrorKind, retryable: bool
) -> None:
    server.queue(
        Reply(status=status, body=b'{"error":{"message":"bad","type":"invalid_request_error"}}')
    )
    error = await fail(_anthropic(server.url))
    assert error.kind is kind and error.is_retryable() is retryable
    assert error.retry_after is None


# --- transport ---------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_connection_refused(api: Api) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # nothing listens there now
    error = await fail(api.make(f"http://127.0.0.1:{port}"))
    assert error.kind is ProviderErrorKind.UNAVAILABLE and error.is_retryable()
    assert f"127.0.0.1:{port}" in str(error)


@pytest.mark.asyncio
async def test_idle_timeout(server: Loopback, api: Api) -> None:
    server.queue(Reply(chunks=api.head, hang_after=len(api.head)))
    started = time.monotonic()
    error = await fail(api.make(server.url, timeouts=Timeouts(idle=0.2)))
    assert error.kind is ProviderErrorKind.TIMEOUT and error.is_retryable()
    assert time.monotonic() - started < 3
    assert "0.2s" in str(error)


@pytest.mark.asyncio
async def test_invalid_base_url() -> None:
    error = await fail(_openai("ftp://user:pw-SECRET-pass@example.invalid"))
    assert error.kind is ProviderErrorKind.OTHER and not error.is_retryable()
    assert "pw-SECRET-pass" not in str(error)


@pytest.mark.asyncio
async def test_malformed_stream(server: Loopback, api: Api) -> None:
    server.queue(Reply(chunks=[*api.head, b"data: {this is not json\n\n", *api.tail]))
    error = await fail(api.make(server.url))
    assert error.kind is ProviderErrorKind.INVALID_RESPONSE and not error.is_retryable()


@pytest.mark.asyncio
async def test_truncated_stream_after_output(server: Loopback, api: Api) -> None:
    # the server ends the body cleanly, but without the terminal event
    server.queue(Reply(chunks=api.stream("par", "tial")[: len(api.head) + 2]))
    sink = Sink()
    error = await fail(api.make(server.url), sink)
    assert error.kind is ProviderErrorKind.INVALID_RESPONSE and error.is_retryable()
    assert f"the reply from {server.url}/v1 ended mid-stream" in str(error)
    assert [e.text for e in sink.of(OutputDelta)] == ["par", "tial"]


@pytest.mark.asyncio
async def test_torn_last_event(server: Loopback, api: Api) -> None:
    chunks = api.stream("x")
    server.queue(Reply(chunks=[*chunks[:-1], chunks[-1][: len(chunks[-1]) // 2]]))
    error = await fail(api.make(server.url))
    assert error.kind is ProviderErrorKind.INVALID_RESPONSE and error.is_retryable()


@pytest.mark.asyncio
async def test_a_200_that_closes_before_any_event_says_so(server: Loopback, api: Api) -> None:
    # What llama.cpp's servers do with a prompt over n_ctx (environment.md §10): the same
    # request fails the same way again, so it is not retried.
    server.queue(Reply(chunks=[]))
    error = await fail(api.make(server.url))
    assert error.kind is ProviderErrorKind.INVALID_RESPONSE and not error.is_retryable()
    assert "answered HTTP 200 and then closed the stream without sending any event" in error.text()


@pytest.mark.asyncio
async def test_a_stream_cut_after_its_first_event_is_a_retryable_disconnect(
    server: Loopback, api: Api
) -> None:
    server.queue(Reply(chunks=api.head[:1]))
    error = await fail(api.make(server.url))
    assert (
        error.is_retryable() and "closed the stream without sending any event" not in error.text()
    )


# The body llama-cpp-python's server sends for an assistant message with "content": null
# (its shape; the recorded replay is in test_recorded_llama.py).
LLAMA_VALIDATION_500 = json.dumps(
    {
        "error": {
            "message": "[{'type': 'string_type', 'loc': ('body', 'messages', 1, 'typed-dict', 'content'), "
            "'msg': 'Input should be a valid string', 'input': None}]",
            "type": "internal_server_error",
            "param": None,
            "code": None,
        }
    }
).encode()


@pytest.mark.asyncio
async def test_the_servers_own_reason_is_shown_and_an_invalid_request_is_not_retried(
    server: Loopback, api: Api
) -> None:
    server.queue(Reply(status=500, body=LLAMA_VALIDATION_500))
    error = await fail(api.make(server.url))
    assert not error.is_retryable()
    assert "HTTP 500 (internal_server_error): " in error.text()
    assert "Input should be a valid string" in error.text()
    assert "rejected the request as invalid; not retried" in error.text()


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [400, 404, 413, 422, 429, 500, 503])
async def test_every_error_status_shows_the_reason_scrubbed_and_capped(
    server: Loopback, api: Api, status: int
) -> None:
    message = f"model 'x' says no; key {KEY} " + "detail " * 200 + "the cause comes last"
    server.queue(
        Reply(
            status=status,
            body=json.dumps({"error": {"message": message, "type": "server_said"}}).encode(),
        )
    )
    error = await fail(api.make(server.url))
    text = error.text()
    assert "model 'x' says no" in text and KEY not in text
    # capped at MAX_REASON_CHARS by dropping the middle: the cause at the end stays
    assert " … " in text and "the cause comes last" in text and len(text) < 500


@pytest.mark.asyncio
async def test_a_long_error_body_keeps_its_head_and_its_tail(server: Loopback, api: Api) -> None:
    """llama.cpp puts the cause at the end of its error; a body longer than what is kept loses
    its middle, not its end (in the reason and in the diagnostic)."""
    message = "request failed: " + "x" * 40_000 + " exceeds the available context size"
    server.queue(Reply(status=400, body=json.dumps({"error": {"message": message}}).encode()))
    sink = Sink()
    error = await fail(api.make(server.url), sink)
    assert error.text().endswith("exceeds the available context size")
    assert "request failed: xxx" in error.text()


@pytest.mark.asyncio
async def test_a_long_error_reason_is_cut_after_it_is_parsed_not_before(
    server: Loopback, api: Api
) -> None:
    """A long reason full of escapes and non-ASCII text: a cut of the raw body would land inside
    an escape and lose the whole reason; the message is parsed first, then its middle dropped."""
    message = "prompt: " + "é\n" * 12_000 + "the request exceeds the available context size"
    server.queue(
        Reply(
            status=400,
            body=json.dumps(
                {"error": {"message": message, "type": "exceed_context_size_error"}}
            ).encode(),
        )
    )
    error = await fail(api.make(server.url))
    text = error.text()
    assert "(exceed_context_size_error): prompt: é é" in text and text.endswith(
        "exceeds the available context size"
    )
    assert error.diagnostic is not None
    diagnostic = error.diagnostic.text()
    assert "message: prompt: é" in diagnostic and diagnostic.endswith(
        "exceeds the available context size"
    )
    assert 1_000 < len(diagnostic) < 3_000


@pytest.mark.asyncio
async def test_an_error_body_over_a_megabyte_is_not_read_whole(server: Loopback, api: Api) -> None:
    server.queue(
        Reply(status=400, body=json.dumps({"error": {"message": "x" * 2_000_000}}).encode())
    )
    error = await fail(api.make(server.url))
    assert "returned HTTP 400" in error.text()
    assert "x" * 100 not in error.text()
    assert error.diagnostic is not None and "not read whole, not shown" in error.diagnostic.text()


@pytest.mark.asyncio
async def test_mid_stream_disconnect(server: Loopback, api: Api) -> None:
    chunks = api.stream("one", "two", "three")
    server.queue(Reply(chunks=chunks, drop_after=len(api.head) + 1))
    sink = Sink()
    error = await fail(api.make(server.url), sink)
    assert error.kind is ProviderErrorKind.INVALID_RESPONSE and error.is_retryable()
    assert f"the connection to {server.url}/v1 was lost mid-reply" in str(error)
    assert [e.text for e in sink.of(OutputDelta)] == ["one"]


@pytest.mark.asyncio
async def test_disconnect_before_any_output(server: Loopback, api: Api) -> None:
    server.queue(Reply(chunks=api.stream("x"), drop_after=0))
    error = await fail(api.make(server.url))
    assert error.kind is ProviderErrorKind.UNAVAILABLE and error.is_retryable()


@pytest.mark.asyncio
async def test_slow_stream_arrives_progressively(server: Loopback, api: Api) -> None:
    pieces = [f"t{i} " for i in range(6)]
    server.queue(Reply(chunks=api.stream(*pieces), delay=0.03))
    seen: list[float] = []
    sink = Sink(lambda e: seen.append(time.monotonic()) if isinstance(e, OutputDelta) else None)
    async with api.make(server.url, timeouts=Timeouts(idle=2.0)) as provider:
        content = await provider.send_turn_stream(req(), sink)
    assert content == (ContentBlock(text="".join(pieces)),)
    assert len(seen) == 6
    assert seen[-1] - seen[0] >= 0.1  # each delta surfaced when it arrived, not at the end


# --- cancellation ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_token_cancellation_mid_token_closes_the_stream(server: Loopback, api: Api) -> None:
    token = CancellationToken()
    server.queue(Reply(chunks=api.stream("first", "never"), hang_after=len(api.head) + 1))
    sink = Sink(lambda e: token.cancel() if isinstance(e, OutputDelta) else None)
    async with api.make(server.url) as provider:
        with pytest.raises(ProviderError) as caught:
            await provider.send_turn_stream(req(token), sink)
        cancelled_at = time.monotonic()
        await asyncio.wait_for(server.disconnected.wait(), timeout=10)
    assert caught.value.kind is ProviderErrorKind.INTERRUPTED
    assert str(caught.value) == "provider failed: provider request cancelled"
    assert [e.text for e in sink.of(OutputDelta)] == ["first"]
    # at once, not at the idle timeout (180 s); the bound leaves room for a loaded machine
    assert server.disconnected_at is not None and server.disconnected_at - cancelled_at < 5.0


@pytest.mark.asyncio
async def test_task_cancellation_closes_the_stream(server: Loopback, api: Api) -> None:
    # External mode: the engine cancels the task running the call
    first = asyncio.Event()
    server.queue(Reply(chunks=api.stream("first", "never"), hang_after=len(api.head) + 1))
    sink = Sink(lambda e: first.set() if isinstance(e, OutputDelta) else None)
    async with api.make(server.url) as provider:
        task = asyncio.ensure_future(provider.send_turn_stream(req(), sink))
        await asyncio.wait_for(first.wait(), timeout=10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # the response is closed before the cancelled call returns
        await asyncio.wait_for(server.disconnected.wait(), timeout=10)


@pytest.mark.asyncio
async def test_cancelled_before_sending(server: Loopback, api: Api) -> None:
    token = CancellationToken()
    token.cancel()
    async with api.make(server.url) as provider:
        with pytest.raises(ProviderError) as caught:
            await provider.send_turn_stream(req(token), Sink())
    assert caught.value.kind is ProviderErrorKind.INTERRUPTED
    assert server.requests == []


@pytest.mark.asyncio
async def test_cancel_while_waiting_for_headers(server: Loopback, api: Api) -> None:
    token = CancellationToken()
    server.queue(Reply(hang_before_headers=True))
    async with api.make(server.url) as provider:
        call = asyncio.ensure_future(provider.send_turn_stream(req(token), Sink()))
        while not server.requests:
            await asyncio.sleep(0.005)
        token.cancel()
        with pytest.raises(ProviderError):
            await asyncio.wait_for(call, timeout=10)
        await asyncio.wait_for(server.disconnected.wait(), timeout=10)


@pytest.mark.asyncio
async def test_a_disconnect_after_only_the_served_models_name_is_before_the_reply(
    server: Loopback,
) -> None:
    """A first chunk that only names the model that answers (not the one asked for) is no output
    yet: a disconnect after it is one before the reply, not a reply lost midway."""
    server.queue(
        Reply(
            chunks=[openai_chunk({"role": "assistant"}, model="qwen2.5-coder-1.5b"), b"never"],
            drop_after=1,
        )
    )
    error = await fail(_openai(server.url))
    assert error.kind is ProviderErrorKind.UNAVAILABLE and error.is_retryable()
    assert "closed before the response completed" in error.text()
