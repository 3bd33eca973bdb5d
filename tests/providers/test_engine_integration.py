"""The real adapters under the real engine: a tool loop, and cancellation mid-stream (the HTTP
stream closes at once, then the engine's cancellation commit keeps the partial output)."""

from __future__ import annotations

import asyncio

import pytest

from rho_desk.core.errors import Cancelled, ProviderError
from rho_desk.core.secrets.scrub import SecretString
from rho_desk.core.session import Rho, events
from rho_desk.core.tools import Tool, ToolOutput
from rho_desk.core.wire.model import Message, ToolSpec
from rho_desk.providers.anthropic import AnthropicProvider
from rho_desk.providers.openai_chat import OpenAIChatProvider

from .loopback import Loopback, Reply, anthropic_event, anthropic_message_start, openai_chunk


@pytest.mark.asyncio
async def test_openai_cancel_mid_stream_commits_the_partial_answer(server: Loopback) -> None:
    chunks = [
        openai_chunk({"role": "assistant", "content": "Half an "}),
        openai_chunk({"content": "answer"}),
        openai_chunk({"content": " never"}),
    ]
    server.queue(Reply(chunks=chunks, hang_after=2))
    provider = OpenAIChatProvider(
        base_url=server.url + "/v1", model="m", api_key=SecretString("sk-engine-0000")
    )
    async with provider:
        session = Rho.builder().provider(provider).build().session()
        run = session.start("tell me")
        seen = ""
        while (event := await run.next_event()) is not None:
            if isinstance(event, events.AssistantTextDelta):
                seen += event.text
                if seen == "Half an answer":
                    run.cancel()
        with pytest.raises(Cancelled):
            await run.outcome()
        await asyncio.wait_for(server.disconnected.wait(), timeout=10)
    history = session.history
    assert history[0] == Message.user_text("tell me")
    aborted = history[1].aborted_assistant
    assert aborted is not None and aborted.reasoning == ""
    assert "".join(b.text or "" for b in aborted.content) == "Half an answer"
    assert session.revision == 1


class ReadFile(Tool):
    def spec(self) -> ToolSpec:
        return ToolSpec(
            "read_file",
            "read a file",
            {"type": "object", "properties": {"path": {"type": "string"}}},
        )

    async def call(self, invocation, context):  # type: ignore[no-untyped-def]
        return ToolOutput(f"contents of {invocation.arguments['path']}")


@pytest.mark.asyncio
async def test_anthropic_tool_loop_under_the_engine(server: Loopback) -> None:
    step1 = [
        anthropic_message_start(input_tokens=20),
        anthropic_event(
            "content_block_start",
            index=0,
            content_block={"type": "thinking", "thinking": "", "signature": ""},
        ),
        anthropic_event(
            "content_block_delta",
            index=0,
            delta={"type": "thinking_delta", "thinking": "need the file"},
        ),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "signature_delta", "signature": "SIG1"}
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event(
            "content_block_start",
            index=1,
            content_block={"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}},
        ),
        anthropic_event(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": '{"path": "a.txt"}'},
        ),
        anthropic_event("content_block_stop", index=1),
        anthropic_event(
            "message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 12}
        ),
        anthropic_event("message_stop"),
    ]
    step2 = [
        anthropic_message_start(input_tokens=40),
        anthropic_event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "text_delta", "text": "It says hello."}
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event(
            "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 4}
        ),
        anthropic_event("message_stop"),
    ]
    server.queue(Reply(chunks=step1), Reply(chunks=step2))
    provider = AnthropicProvider(
        model="claude-test",
        api_key=SecretString("sk-ant-engine"),
        base_url=server.url + "/v1",
        thinking=True,
    )
    async with provider:
        session = Rho.builder().provider(provider).tool(ReadFile()).build().session()
        outcome = await session.complete("what is in a.txt?")
    assert outcome.text == "It says hello."
    assert outcome.usage.input_tokens == 60 and outcome.usage.output_tokens == 16
    history = session.history
    first = history[1].enriched_assistant
    assert first is not None and first.provenance == provider.identity()
    assert first.provider_context[0].kind == "anthropic_content_block"
    assert first.provider_context[0].data == {
        "type": "thinking",
        "thinking": "need the file",
        "signature": "SIG1",
    }
    assert history[2] == Message.result("toolu_1", True, "contents of a.txt")
    replayed = server.requests[1].body["messages"]
    assert replayed[1]["content"][0] == {
        "type": "thinking",
        "thinking": "need the file",
        "signature": "SIG1",
    }
    assert replayed[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "contents of a.txt",
    }


@pytest.mark.asyncio
async def test_anthropic_records_the_model_that_answered(server: Loopback) -> None:
    """An alias answers as its dated model (``message_start`` names it): the reply's provenance
    records that one; its thinking stays tagged with the requested identity, so the next turn
    replays it, and the next request still names the alias."""

    def reply(text: str) -> Reply:
        return Reply(
            chunks=[
                anthropic_message_start(model="claude-alias-20250101", input_tokens=20),
                anthropic_event(
                    "content_block_start",
                    index=0,
                    content_block={"type": "thinking", "thinking": "", "signature": ""},
                ),
                anthropic_event(
                    "content_block_delta",
                    index=0,
                    delta={"type": "thinking_delta", "thinking": "hm"},
                ),
                anthropic_event(
                    "content_block_delta",
                    index=0,
                    delta={"type": "signature_delta", "signature": "SIG"},
                ),
                anthropic_event("content_block_stop", index=0),
                anthropic_event(
                    "content_block_start", index=1, content_block={"type": "text", "text": ""}
                ),
                anthropic_event(
                    "content_block_delta", index=1, delta={"type": "text_delta", "text": text}
                ),
                anthropic_event("content_block_stop", index=1),
                anthropic_event(
                    "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 4}
                ),
                anthropic_event("message_stop"),
            ]
        )

    server.queue(reply("One."), reply("Two."))
    provider = AnthropicProvider(
        model="claude-alias",
        api_key=SecretString("sk-ant-engine"),
        base_url=server.url + "/v1",
        thinking=True,
    )
    async with provider:
        session = Rho.builder().provider(provider).build().session()
        await session.complete("first")
        await session.complete("second")
    first = session.history[1].enriched_assistant
    assert first is not None and first.provenance.model == "claude-alias-20250101"
    assert first.provenance.provider == provider.identity().provider
    assert [b.identity for b in first.provider_context] == [provider.identity()]
    assert [r.body["model"] for r in server.requests] == ["claude-alias", "claude-alias"]
    assert server.requests[1].body["messages"][1]["content"][0] == {
        "type": "thinking",
        "thinking": "hm",
        "signature": "SIG",
    }


@pytest.mark.asyncio
async def test_a_server_that_dies_mid_reply_is_said_to_have_lost_the_connection(
    server: Loopback,
) -> None:
    """The server process dies mid-stream: the reply breaks off, and every retry is refused. The
    error says the connection was lost mid-reply, not only that nothing could connect."""
    chunks = [
        openai_chunk({"role": "assistant", "content": "Half an "}),
        openai_chunk({"content": "answer"}),
        openai_chunk({"content": " never"}),
    ]
    server.queue(Reply(chunks=chunks, drop_after=2, die=True))

    async def no_wait(_delay: float) -> None:
        return None

    provider = OpenAIChatProvider(
        base_url=server.url + "/v1", model="m", api_key=SecretString("sk-engine-0000")
    )
    async with provider:
        session = Rho.builder().provider(provider).retry_sleep(no_wait).build().session()
        run = session.start("tell me")
        seen = [event async for event in run]
        with pytest.raises(ProviderError) as failure:
            await run.outcome()
    where = server.url + "/v1"
    assert len(server.requests) == 1  # the later attempts were refused
    assert failure.value.text() == (
        f"provider failed: the connection to {where} was lost mid-reply (the server closed it before the reply was"
        f" complete); 3 more attempts failed, the last: could not connect to {where} (connection refused, DNS or TLS failure)"
    )
    resets = [e.detail for e in seen if isinstance(e, events.ProviderStreamReset)]
    assert "was lost mid-reply" in resets[0] and all("could not connect" in r for r in resets[1:])
    assert session.history == ()  # a failed turn commits nothing


@pytest.mark.asyncio
async def test_a_stalled_token_count_never_holds_up_the_turn(server: Loopback) -> None:
    """llama.cpp's ``/tokenize`` answers a byte at a time and never finishes: the count gives up
    within its bound (2 s in all, not per read), the turn goes on with the plain estimate, and
    the server is not asked again in the next turn."""
    import time

    from rho_desk.providers.openai_chat import TOKENIZE_TIMEOUT

    server.tokenize_drip = 0.2
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Fine."}),
                openai_chunk({}, finish="stop"),
                b"data: [DONE]\n\n",
            ]
        )
    )
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Again."}),
                openai_chunk({}, finish="stop"),
                b"data: [DONE]\n\n",
            ]
        )
    )
    provider = OpenAIChatProvider(base_url=server.url + "/v1", model="m", context_window=32_000)
    async with provider:
        session = Rho.builder().provider(provider).build().session()
        started = time.monotonic()
        run = session.start("a prompt long enough to be worth counting " * 4)
        seen = [event async for event in run]
        await run.outcome()
        took = time.monotonic() - started
        await session.complete("and another one, long enough to be worth counting " * 4)
    assert TOKENIZE_TIMEOUT <= took < TOKENIZE_TIMEOUT + 3, took
    assert len(server.tokenized) == 1
    estimates = [e for e in seen if isinstance(e, events.ContextEstimated)]
    assert estimates and not any(e.calibrated for e in estimates)
    assert session.history[-1].text() == "Again."
