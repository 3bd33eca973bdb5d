"""The Anthropic Messages adapter: lowering, extended thinking, stream mapping, usage."""

from __future__ import annotations

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.errors import ProviderError, ProviderErrorKind
from rho_desk.core.provider import (
    ModelRequest,
    OutputDelta,
    ProviderContext,
    ReasoningDelta,
    ReasoningLevel,
    ToolCallDelta,
    Usage,
)
from rho_desk.core.secrets.scrub import SecretString
from rho_desk.core.wire.model import (
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
    ToolSpec,
)
from rho_desk.providers.anthropic import (
    ANTHROPIC_CONTENT_BLOCK_KIND,
    AnthropicProvider,
    build_messages_body,
    lower_anthropic_messages,
    thinking_budget,
)
from rho_desk.providers.usage import Pricing

from .conftest import Sink
from .loopback import Loopback, Reply, anthropic_event, anthropic_message_start

TARGET = ModelIdentity("anthropic", "anthropic-messages", "claude-test")
FOREIGN = ModelIdentity("openai", "responses", "gpt-5")
READ = ToolSpec(
    "read_file", "read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)
THINKING = {"type": "thinking", "thinking": "private plan", "signature": "sig-abc"}


def request(*messages: Message, tools: tuple[ToolSpec, ...] = (), **kw: object) -> ModelRequest:
    return ModelRequest(messages=messages, tools=tools, cancellation=CancellationToken(), **kw)  # type: ignore[arg-type]


def provider(server: Loopback, **kw: object) -> AnthropicProvider:
    options: dict[str, object] = {
        "model": "claude-test",
        "api_key": SecretString("sk-ant-test-0000"),
        "base_url": server.url + "/v1",
    }
    options.update(kw)
    return AnthropicProvider(**options)  # type: ignore[arg-type]


def thinking_message() -> Message:
    return Message.enriched(
        AssistantMessage(
            content=(
                ContentBlock(text="answer"),
                ContentBlock.of_tool_call("toolu_1", "read_file", {"path": "a"}),
            ),
            provenance=TARGET,
            reasoning_summary="safe summary",
            provider_context=(
                ProviderContextBlock(
                    identity=TARGET, kind=ANTHROPIC_CONTENT_BLOCK_KIND, position=0, data=THINKING
                ),
            ),
        )
    )


# --- lowering ------------------------------------------------------------------------------


def test_identity() -> None:
    assert AnthropicProvider(model="claude-x", api_key=None).identity() == ModelIdentity(
        "anthropic", "anthropic-messages", "claude-x"
    )


def test_system_joined_roles_merged_and_tool_results_as_user_blocks() -> None:
    history = (
        Message.system_text("one"),
        Message.system_text("two"),
        Message.user_text("a"),
        Message.user_blocks([ContentBlock.of_image("aGk=", "image/jpeg"), ContentBlock(text="")]),
        thinking_message(),
        Message.result("toolu_1", False, "denied"),
        Message.result("toolu_2", True, ""),
    )
    system, messages = lower_anthropic_messages(history, TARGET, replay_thinking=False)
    assert system == "one\n\ntwo"
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"] == [
        {"type": "text", "text": "a"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "aGk="}},
    ]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "denied", "is_error": True},
        {"type": "tool_result", "tool_use_id": "toolu_2"},
    ]


def test_signed_thinking_replays_in_place_to_the_exact_identity() -> None:
    _, messages = lower_anthropic_messages((thinking_message(),), TARGET, replay_thinking=True)
    assert messages[0]["content"] == [
        THINKING,
        {"type": "text", "text": "answer"},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a"}},
    ]


def test_thinking_is_not_replayed_when_thinking_is_off_or_to_another_model() -> None:
    for target, replay in (
        (TARGET, False),
        (ModelIdentity("anthropic", "anthropic-messages", "claude-other"), True),
    ):
        _, messages = lower_anthropic_messages(
            (thinking_message(),), target, replay_thinking=replay
        )
        content = messages[0]["content"]
        assert THINKING not in content
        assert {
            "type": "text",
            "text": "<reasoning_summary>\nsafe summary\n</reasoning_summary>",
        } in content


def test_foreign_context_is_omitted_and_fallback_used() -> None:
    message = Message.enriched(
        AssistantMessage(
            content=(ContentBlock(text="x"),),
            provenance=FOREIGN,
            provider_context=(
                ProviderContextBlock(
                    identity=FOREIGN,
                    kind="openai_response_output_item",
                    position=0,
                    data={"encrypted_content": "e"},
                ),
            ),
        ).with_portable_fallback("portable notice")
    )
    _, messages = lower_anthropic_messages((message,), TARGET)
    assert messages[0]["content"] == [
        {"type": "text", "text": "x"},
        {"type": "text", "text": "portable notice"},
    ]


def test_aborted_assistant_replay() -> None:
    aborted = AbortedAssistant(
        content=(ContentBlock(text="partial"),),
        reasoning="",
        tool_calls=(PartialToolCall(id=None, name="write", arguments='{"a"'),),
        usage=ModelUsage(),
    )
    _, messages = lower_anthropic_messages(
        (Message.user_text("go"), Message.aborted(aborted)), TARGET
    )
    texts = [b["text"] for b in messages[1]["content"]]
    assert texts == [
        "partial",
        '[Partial tool call (not executed)]\nID: [unknown]\nName: write\nArguments:\n{"a"',
        "[Operation aborted]",
    ]


def test_body_thinking_budget_and_tools() -> None:
    tool = ToolSpec("t", "d", {"anyOf": [{}], "properties": {}})
    body = build_messages_body(
        request(Message.user_text("hi"), tools=(tool,), reasoning_level=ReasoningLevel.HIGH),
        TARGET,
        max_output_tokens=16_384,
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert body["max_tokens"] == 16_384 and body["stream"] is True
    assert body["tools"] == [
        {"name": "t", "description": "d", "input_schema": {"properties": {}, "type": "object"}}
    ]
    off = build_messages_body(
        request(Message.user_text("hi"), reasoning_level=ReasoningLevel.OFF), TARGET
    )
    assert "thinking" not in off
    unsupported = build_messages_body(request(Message.user_text("hi")), TARGET, thinking=False)
    assert "thinking" not in unsupported
    assert thinking_budget(ReasoningLevel.MAX, 8192) == 7168
    assert thinking_budget(ReasoningLevel.LOW, 1500) is None


# --- streaming -----------------------------------------------------------------------------


def thinking_tool_stream() -> list[bytes]:
    return [
        anthropic_message_start(
            input_tokens=400, cache_read_input_tokens=1000, cache_creation_input_tokens=200
        ),
        anthropic_event(
            "content_block_start",
            index=0,
            content_block={"type": "thinking", "thinking": "", "signature": ""},
        ),
        anthropic_event("ping"),
        anthropic_event(
            "content_block_delta",
            index=0,
            delta={"type": "thinking_delta", "thinking": "I should "},
        ),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "read it."}
        ),
        anthropic_event(
            "content_block_delta",
            index=0,
            delta={"type": "signature_delta", "signature": "EqQBCgIYAh"},
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event("content_block_start", index=1, content_block={"type": "text", "text": ""}),
        anthropic_event(
            "content_block_delta", index=1, delta={"type": "text_delta", "text": "Reading "}
        ),
        anthropic_event(
            "content_block_delta", index=1, delta={"type": "text_delta", "text": "the file."}
        ),
        anthropic_event("content_block_stop", index=1),
        anthropic_event(
            "content_block_start",
            index=2,
            content_block={"type": "tool_use", "id": "toolu_01", "name": "read_file", "input": {}},
        ),
        anthropic_event(
            "content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": ""}
        ),
        anthropic_event(
            "content_block_delta",
            index=2,
            delta={"type": "input_json_delta", "partial_json": '{"path": "src/'},
        ),
        anthropic_event(
            "content_block_delta",
            index=2,
            delta={"type": "input_json_delta", "partial_json": 'lib.rs"}'},
        ),
        anthropic_event("content_block_stop", index=2),
        anthropic_event(
            "message_delta",
            delta={"stop_reason": "tool_use", "stop_sequence": None},
            usage={"output_tokens": 57},
        ),
        anthropic_event("message_stop"),
    ]


@pytest.mark.asyncio
async def test_thinking_with_signature_text_and_tool_use(server: Loopback, sink: Sink) -> None:
    server.queue(Reply(chunks=thinking_tool_stream()))
    async with provider(server, context_window=200_000) as p:
        content = await p.send_turn_stream(
            request(
                Message.user_text("read lib"), tools=(READ,), reasoning_level=ReasoningLevel.LOW
            ),
            sink,
        )
    assert content == (
        ContentBlock(text="Reading the file."),
        ContentBlock.of_tool_call("toolu_01", "read_file", {"path": "src/lib.rs"}),
    )
    assert [e.text for e in sink.of(ReasoningDelta)] == ["I should ", "read it."]
    assert [e.text for e in sink.of(OutputDelta)] == ["Reading ", "the file."]
    assert sink.of(ProviderContext) == [
        ProviderContext(
            ANTHROPIC_CONTENT_BLOCK_KIND,
            0,
            {"type": "thinking", "thinking": "I should read it.", "signature": "EqQBCgIYAh"},
        )
    ]
    deltas = sink.of(ToolCallDelta)
    assert deltas[0] == ToolCallDelta(index=2, id="toolu_01", name="read_file", arguments="")
    assert "".join(d.arguments for d in deltas) == '{"path": "src/lib.rs"}'
    usage = ModelUsage()
    for event in sink.of(Usage):
        usage = usage + event.usage
    assert usage == ModelUsage(
        input_tokens=400,
        output_tokens=57,
        cache_read_tokens=1000,
        cache_write_tokens=200,
        total_tokens=1657,
        context_window=200_000,
    )
    assert usage.inclusive_prompt_tokens() == 1600
    sent = server.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-ant-test-0000"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


@pytest.mark.asyncio
async def test_tool_loop_replays_signed_thinking_to_the_next_step(server: Loopback) -> None:
    final = [
        anthropic_message_start(input_tokens=10),
        anthropic_event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "text_delta", "text": "It is a lib."}
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event(
            "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 5}
        ),
        anthropic_event("message_stop"),
    ]
    server.queue(Reply(chunks=thinking_tool_stream()), Reply(chunks=final))
    async with provider(server) as p:
        first = Sink()
        content = await p.send_turn_stream(
            request(Message.user_text("read lib"), tools=(READ,)), first
        )
        contexts = tuple(
            ProviderContextBlock(
                identity=p.identity(), kind=e.kind, position=e.position, data=e.data
            )
            for e in first.of(ProviderContext)
        )
        history = (
            Message.user_text("read lib"),
            Message.enriched(
                AssistantMessage(
                    content=content, provenance=p.identity(), provider_context=contexts
                )
            ),
            Message.result("toolu_01", True, "pub fn x() {}"),
        )
        assert await p.send_turn_stream(request(*history, tools=(READ,)), Sink()) == (
            ContentBlock(text="It is a lib."),
        )
    replayed = server.requests[1].body["messages"][1]["content"]
    assert replayed[0] == {
        "type": "thinking",
        "thinking": "I should read it.",
        "signature": "EqQBCgIYAh",
    }
    assert replayed[2]["type"] == "tool_use"
    assert server.requests[1].body["messages"][2]["content"][0]["type"] == "tool_result"


@pytest.mark.asyncio
async def test_redacted_thinking_is_kept(server: Loopback, sink: Sink) -> None:
    chunks = [
        anthropic_message_start(input_tokens=3),
        anthropic_event(
            "content_block_start",
            index=0,
            content_block={"type": "redacted_thinking", "data": "opaque=="},
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event(
            "content_block_start", index=1, content_block={"type": "text", "text": "ok"}
        ),
        anthropic_event("content_block_stop", index=1),
        anthropic_event(
            "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 2}
        ),
        anthropic_event("message_stop"),
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server) as p:
        assert await p.send_turn_stream(request(Message.user_text("q")), sink) == (
            ContentBlock(text="ok"),
        )
    assert sink.of(ProviderContext) == [
        ProviderContext(
            ANTHROPIC_CONTENT_BLOCK_KIND, 0, {"type": "redacted_thinking", "data": "opaque=="}
        )
    ]
    assert sink.of(OutputDelta) == [OutputDelta("ok")]


@pytest.mark.asyncio
async def test_cost_from_pricing_and_cumulative_output(server: Loopback, sink: Sink) -> None:
    chunks = [
        anthropic_message_start(input_tokens=1000, cache_read_input_tokens=2000),
        anthropic_event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        anthropic_event("content_block_delta", index=0, delta={"type": "text_delta", "text": "a"}),
        anthropic_event("message_delta", delta={}, usage={"output_tokens": 10}),
        anthropic_event("content_block_stop", index=0),
        anthropic_event(
            "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 30}
        ),
        anthropic_event("message_stop"),
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server, pricing=Pricing(input=3.0, output=15.0, cache_read=0.3)) as p:
        await p.send_turn_stream(request(Message.user_text("q")), sink)
    total = ModelUsage()
    for event in sink.of(Usage):
        total = total + event.usage
    assert total.output_tokens == 30  # increments 10 + 20, not 10 + 30
    assert total.cost_usd_micros == 1000 * 3 + 2000 * 0.3 + 30 * 15


@pytest.mark.asyncio
async def test_error_event_mid_stream(server: Loopback, sink: Sink) -> None:
    chunks = [
        anthropic_message_start(input_tokens=3),
        anthropic_event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "text_delta", "text": "par"}
        ),
        anthropic_event("error", error={"type": "overloaded_error", "message": "Overloaded"}),
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server) as p:
        with pytest.raises(ProviderError) as caught:
            await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert caught.value.kind is ProviderErrorKind.UNAVAILABLE and caught.value.is_retryable()
    assert (
        str(caught.value)
        == "provider failed: Anthropic reported an error in the stream (overloaded_error)"
    )
    assert sink.of(OutputDelta) == [OutputDelta("par")]


@pytest.mark.asyncio
async def test_thinking_only_reply_is_empty_content(server: Loopback, sink: Sink) -> None:
    # the engine's protocol validation turns an empty reply into a retried malformed response
    chunks = [
        anthropic_message_start(input_tokens=3),
        anthropic_event(
            "content_block_start",
            index=0,
            content_block={"type": "thinking", "thinking": "", "signature": ""},
        ),
        anthropic_event(
            "content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "hmm"}
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event(
            "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 2}
        ),
        anthropic_event("message_stop"),
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server) as p:
        assert await p.send_turn_stream(request(Message.user_text("q")), sink) == ()


@pytest.mark.asyncio
async def test_a_reply_that_is_not_an_event_stream_is_malformed(
    server: Loopback, sink: Sink
) -> None:
    server.queue(Reply(status=200, body=b'{"type":"message","content":[]}'))
    async with provider(server) as p:
        with pytest.raises(ProviderError) as caught:
            await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert caught.value.kind is ProviderErrorKind.INVALID_RESPONSE
    assert "application/json" in str(caught.value)


@pytest.mark.asyncio
async def test_a_reply_cut_at_max_tokens_says_so(server: Loopback, sink: Sink) -> None:
    from rho_desk.core.provider import OutputLimited

    chunks = [
        anthropic_message_start(input_tokens=3),
        anthropic_event(
            "content_block_start", index=0, content_block={"type": "text", "text": "One, two"}
        ),
        anthropic_event("content_block_stop", index=0),
        anthropic_event(
            "message_delta", delta={"stop_reason": "max_tokens"}, usage={"output_tokens": 8}
        ),
        anthropic_event("message_stop"),
    ]
    server.queue(
        Reply(chunks=chunks),
        Reply(
            chunks=[
                *chunks[:3],
                anthropic_event(
                    "message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 2}
                ),
                anthropic_event("message_stop"),
            ]
        ),
    )
    async with provider(server) as p:
        assert await p.send_turn_stream(request(Message.user_text("q")), sink) == (
            ContentBlock(text="One, two"),
        )
        (cut,) = sink.of(OutputLimited)
        assert "output limit (max_tokens" in cut.detail and "stop_reason: max_tokens" in cut.detail
        await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert len(sink.of(OutputLimited)) == 1  # a reply that ended by itself says nothing
