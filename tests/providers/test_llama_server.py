"""Against a real llama.cpp server (opt-in: ``RHO_DESK_LLAMA=1``; see ``llama_server.py``).

What environment.md §10 says of llama-cpp-python's server, checked against our provider: it
streams without usage, rejects ``"content": null`` on an assistant message with HTTP 500, takes
``""``, and answers a prompt over ``n_ctx`` with 200 and a closed stream. With
``RHO_DESK_RECORD=1`` each exchange is saved under ``recorded/`` for ``test_recorded_llama.py``,
which replays them in the default suite.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.errors import ContextWindowExceeded, ProviderError
from rho_desk.core.provider import ModelRequest, Usage
from rho_desk.core.session import Rho, SessionOptions
from rho_desk.core.wire.model import ContentBlock, Message, ToolResult
from rho_desk.providers.openai_chat import OpenAIChatProvider

from .conftest import Sink
from .llama_server import RECORDING, LlamaServer, llama_server, missing, record

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

N_CTX = 1024
TOOL_HISTORY = (
    Message.user_text("What is in notes.txt? Answer in one short sentence."),
    Message.assistant_blocks(
        [ContentBlock.of_tool_call("call_1", "read_file", {"path": "notes.txt"})]
    ),
    Message(tool_result=ToolResult("call_1", True, "buy milk")),
)
LONG_PROMPT = "Summarise this. " + "the quick brown fox jumps over the lazy dog " * 400


@pytest.fixture(scope="module")
def real() -> Iterator[LlamaServer]:
    with llama_server(n_ctx=N_CTX) as server:
        yield server


def _provider(server: LlamaServer, **kw: Any) -> OpenAIChatProvider:
    return OpenAIChatProvider(
        base_url=server.base_url,
        model=server.model,
        provider_name="llama.cpp",
        max_output_tokens=24,
        **kw,
    )


def _request(*messages: Message) -> ModelRequest:
    return ModelRequest(messages=messages, tools=(), cancellation=CancellationToken())


def _raw(server: LlamaServer, body: dict[str, Any], name: str) -> httpx.Response:
    """The same body sent with plain httpx, to see (and record) exactly what the server says."""
    response = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=120.0)
    if RECORDING:
        record(name, body, response)
    return response


@pytest.mark.asyncio
async def test_a_streamed_turn_has_text_and_no_usage(real: LlamaServer) -> None:
    provider = _provider(real)
    sink = Sink()
    async with provider:
        content = await provider.send_turn_stream(_request(Message.user_text("Say hello.")), sink)
    assert any(block.text for block in content)
    assert sink.of(Usage) == []  # llama.cpp sends no usage: shown as estimated, never as zero
    _raw(real, provider.build_body(_request(Message.user_text("Say hello."))), "stream_text")


@pytest.mark.asyncio
async def test_a_tool_call_only_turn_is_accepted(real: LlamaServer) -> None:
    provider = _provider(real)
    body = provider.build_body(_request(*TOOL_HISTORY))
    assert body["messages"][1]["content"] == ""
    async with provider:
        content = await provider.send_turn_stream(_request(*TOOL_HISTORY), Sink())
    assert any(block.text for block in content)
    assert _raw(real, body, "tool_call_only").status_code == 200


def test_null_content_is_what_the_server_rejects(real: LlamaServer) -> None:
    body = _provider(real).build_body(_request(*TOOL_HISTORY))
    nulled = copy.deepcopy(body)
    nulled["messages"][1]["content"] = None
    response = _raw(real, nulled, "null_content_500")
    assert response.status_code == 500
    assert "Input should be a valid string" in response.text


@pytest.mark.asyncio
async def test_a_prompt_over_n_ctx_gets_200_then_a_closed_stream(real: LlamaServer) -> None:
    provider = _provider(real)
    async with provider:
        with pytest.raises(ProviderError) as caught:
            await provider.send_turn_stream(_request(Message.user_text(LONG_PROMPT)), Sink())
    assert not caught.value.is_retryable()
    assert "closed the stream without sending any event" in caught.value.text()
    response = _raw(
        real, provider.build_body(_request(Message.user_text(LONG_PROMPT))), "over_n_ctx"
    )
    assert response.status_code == 200 and "data:" not in response.text


@pytest.mark.asyncio
async def test_the_engine_stops_before_sending_when_the_window_is_known(real: LlamaServer) -> None:
    provider = _provider(real, context_window=N_CTX)
    rho = Rho.builder().provider(provider).build()
    session = rho.session(SessionOptions())
    async with provider:
        run = session.start(LONG_PROMPT)
        async for _ in run:
            pass
        with pytest.raises(ContextWindowExceeded) as caught:
            await run.outcome()
    assert f"over the model's {N_CTX:,}-token context window" in caught.value.text()
    assert session.revision == 0
