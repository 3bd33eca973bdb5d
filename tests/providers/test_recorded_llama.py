"""What a real llama.cpp server answered, replayed by the loopback server in the default suite.

The recordings in ``recorded/llama_cpp_python/`` were made by ``test_llama_server.py`` against
llama-cpp-python 0.3.36 serving SmolLM2-135M-Instruct (``RHO_DESK_LLAMA=1 RHO_DESK_RECORD=1``).
Each replay checks that our provider reads the real bytes the way it read them live.
"""

from __future__ import annotations

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.errors import ProviderError
from rho_desk.core.provider import ModelRequest, Usage
from rho_desk.core.wire.model import ContentBlock, Message, ToolResult
from rho_desk.providers.openai_chat import OpenAIChatProvider

from .conftest import Sink
from .llama_server import recording, sse_events
from .loopback import Loopback, Reply

TOOL_HISTORY = (
    Message.user_text("What is in notes.txt? Answer in one short sentence."),
    Message.assistant_blocks(
        [ContentBlock.of_tool_call("call_1", "read_file", {"path": "notes.txt"})]
    ),
    Message(tool_result=ToolResult("call_1", True, "buy milk")),
)


def _replay(server: Loopback, name: str) -> dict[str, object]:
    entry = recording(name)
    body = str(entry["body"])
    if int(entry["status"]) == 200 and str(entry["content_type"]).startswith("text/event-stream"):
        server.queue(Reply(chunks=sse_events(body)))
    else:
        server.queue(Reply(status=int(entry["status"]), body=body.encode()))
    return entry


def _provider(server: Loopback) -> OpenAIChatProvider:
    return OpenAIChatProvider(
        base_url=f"{server.url}/v1", model="smollm2", provider_name="llama.cpp"
    )


def _request(*messages: Message) -> ModelRequest:
    return ModelRequest(messages=messages, tools=(), cancellation=CancellationToken())


@pytest.mark.asyncio
async def test_a_real_stream_reads_as_text_without_usage(server: Loopback) -> None:
    _replay(server, "stream_text")
    sink = Sink()
    async with _provider(server) as provider:
        content = await provider.send_turn_stream(_request(Message.user_text("Say hello.")), sink)
    assert "".join(b.text or "" for b in content).strip()
    assert sink.of(Usage) == []


@pytest.mark.asyncio
async def test_the_tool_call_only_body_we_send_is_the_one_the_server_took(server: Loopback) -> None:
    entry = _replay(server, "tool_call_only")
    assert entry["status"] == 200
    async with _provider(server) as provider:
        await provider.send_turn_stream(_request(*TOOL_HISTORY), Sink())
    sent = server.requests[0].body
    recorded_request = entry["request"]
    assert isinstance(recorded_request, dict)
    assert sent["messages"] == recorded_request["messages"]
    assert sent["messages"][1]["content"] == ""


@pytest.mark.asyncio
async def test_the_real_500_for_null_content_shows_its_reason_and_is_not_retried(
    server: Loopback,
) -> None:
    _replay(server, "null_content_500")
    async with _provider(server) as provider:
        with pytest.raises(ProviderError) as caught:
            await provider.send_turn_stream(_request(*TOOL_HISTORY), Sink())
    error = caught.value
    assert not error.is_retryable() and len(server.requests) == 1
    assert "HTTP 500 (internal_server_error): 7 validation errors" in error.text()
    assert "rejected the request as invalid" in error.text()
    # the whole (scrubbed) reason is in the diagnostic the app shows on demand
    assert (
        error.diagnostic is not None and "Input should be a valid string" in error.diagnostic.text()
    )


@pytest.mark.asyncio
async def test_the_real_200_then_close_over_n_ctx(server: Loopback) -> None:
    _replay(server, "over_n_ctx")
    async with _provider(server) as provider:
        with pytest.raises(ProviderError) as caught:
            await provider.send_turn_stream(_request(Message.user_text("long")), Sink())
    assert not caught.value.is_retryable()
    assert "closed the stream without sending any event" in caught.value.text()
