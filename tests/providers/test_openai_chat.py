"""The OpenAI-compatible adapter: request lowering and stream mapping against a loopback server."""

from __future__ import annotations

import json

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.errors import ProviderErrorKind
from rho_desk.core.provider import (
    ModelRequest,
    OutputDelta,
    ProviderContext,
    ReasoningDelta,
    ReasoningLevel,
    ReasoningSummaryDelta,
    ToolCallDelta,
    Usage,
)
from rho_desk.core.provider.handoff import report_message_omissions
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
from rho_desk.providers.openai_chat import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    OPENAI_CHAT_REASONING_CONTENT_KIND,
    OpenAIChatProvider,
    build_chat_body,
    lower_chat_messages,
)
from rho_desk.providers.usage import Pricing

from .loopback import OPENAI_DONE, Loopback, Reply, openai_chunk

TARGET = ModelIdentity("openrouter", "openai-chat-completions", "gpt-test")
OTHER = ModelIdentity("anthropic", "anthropic-messages", "claude-test")
READ = ToolSpec(
    "read_file", "read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)


def request(*messages: Message, tools: tuple[ToolSpec, ...] = (), **kw: object) -> ModelRequest:
    return ModelRequest(messages=messages, tools=tools, cancellation=CancellationToken(), **kw)  # type: ignore[arg-type]


def provider(server: Loopback, **kw: object) -> OpenAIChatProvider:
    options: dict[str, object] = {
        "base_url": server.url + "/v1",
        "model": "gpt-test",
        "api_key": SecretString("sk-test-key-0000"),
        "provider_name": "openrouter",
    }
    options.update(kw)
    return OpenAIChatProvider(**options)  # type: ignore[arg-type]


# --- lowering ------------------------------------------------------------------------------


def test_identity_is_profile_provider_and_chat_api() -> None:
    p = OpenAIChatProvider(base_url="http://127.0.0.1:9/v1", model="llama3", provider_name="ollama")
    assert p.identity() == ModelIdentity("ollama", "openai-chat-completions", "llama3")


def test_lowering_system_user_image_and_tool_round() -> None:
    history = (
        Message.system_text("be brief"),
        Message.user_blocks(
            [ContentBlock(text="what is this?"), ContentBlock.of_image("aGVsbG8=", "image/png")]
        ),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock(text="Let me look."),
                    ContentBlock.of_tool_call("call_1", "read_file", {"path": "a.txt"}),
                ),
                provenance=TARGET,
            )
        ),
        Message.result("call_1", False, "no such file"),
        Message.user_text("ok"),
    )
    lowered = lower_chat_messages(history, TARGET)
    assert lowered == [
        {"role": "system", "content": "be brief"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}},
            ],
        },
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "no such file"},
        {"role": "user", "content": "ok"},
    ]


@pytest.mark.parametrize(
    ("blocks", "content"),
    [
        ([ContentBlock.of_tool_call("c", "t", {})], ""),
        ([ContentBlock.of_tool_call("c", "t", {}), ContentBlock.of_tool_call("d", "t", {})], ""),
        (
            [ContentBlock(text="Let me look."), ContentBlock.of_tool_call("c", "t", {})],
            "Let me look.",
        ),
        ([ContentBlock(text="plain")], "plain"),
    ],
    ids=["tool-call-only", "two-tool-calls", "text-and-call", "text-only"],
)
def test_assistant_content_is_always_a_string(blocks: list[ContentBlock], content: str) -> None:
    # llama-cpp-python's server answers "content": null with HTTP 500; "" is accepted by it,
    # llama.cpp's server, vLLM, Ollama and OpenAI alike.
    lowered = lower_chat_messages((Message.assistant_blocks(blocks),), TARGET)[0]
    assert lowered["content"] == content


def test_reasoning_content_replays_only_to_the_exact_identity() -> None:
    block = ProviderContextBlock(
        identity=TARGET, kind=OPENAI_CHAT_REASONING_CONTENT_KIND, position=0, data="thought"
    )
    foreign = ProviderContextBlock(
        identity=OTHER, kind="anthropic_content_block", position=0, data={"type": "thinking"}
    )
    message = Message.enriched(
        AssistantMessage(
            content=(ContentBlock(text="answer"),),
            provenance=TARGET,
            reasoning_summary="checked",
            provider_context=(block, foreign),
        )
    )
    same = lower_chat_messages((message,), TARGET)[0]
    assert same == {"role": "assistant", "content": "answer", "reasoning_content": "thought"}
    # another model of the same server: nothing native is replayed, the summary stands in
    other_model = ModelIdentity("openrouter", "openai-chat-completions", "gpt-other")
    lowered = lower_chat_messages((message,), other_model)[0]
    assert "reasoning_content" not in lowered
    assert lowered["content"] == "answer\n<reasoning_summary>\nchecked\n</reasoning_summary>"
    report = report_message_omissions((message,), other_model)
    assert report.omitted_provider_context == 2
    assert report.omitted_kinds == ("anthropic_content_block", OPENAI_CHAT_REASONING_CONTENT_KIND)


def test_aborted_assistant_replays_as_plain_text_with_marker() -> None:
    aborted = AbortedAssistant(
        content=(
            ContentBlock(text="Reading"),
            ContentBlock.of_tool_call("call_1", "read_file", {"path": "a"}),
        ),
        reasoning="",
        tool_calls=(
            PartialToolCall(id="call_1", name="read_file", arguments='{"path": "a"}'),
            PartialToolCall(id="call_2", name="write_file", arguments='{"path":'),
        ),
        usage=ModelUsage(),
    )
    lowered = lower_chat_messages((Message.aborted(aborted),), TARGET)[0]
    assert lowered["role"] == "assistant"
    assert "tool_calls" not in lowered  # nothing executable is replayed
    text = lowered["content"]
    assert text.startswith('Reading\nTool call: read_file\n{\n  "path": "a"\n}\n')
    assert (
        '[Partial tool call (not executed)]\nID: call_2\nName: write_file\nArguments:\n{"path":'
        in text
    )
    assert "call_1\nName" not in text  # the completed call is not shown twice
    assert text.endswith("[Operation aborted]")


def test_body_has_stream_options_tools_and_opt_in_extensions() -> None:
    req = request(
        Message.user_text("hi"),
        tools=(READ,),
        reasoning_level=ReasoningLevel.HIGH,
        prompt_cache_key="k1",
    )
    plain = build_chat_body(req, TARGET)
    assert plain["stream"] is True and plain["stream_options"] == {"include_usage": True}
    assert plain["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "read a file",
                "parameters": READ.input_schema,
            },
        }
    ]
    assert "reasoning_effort" not in plain and "prompt_cache_key" not in plain
    extended = build_chat_body(
        req, TARGET, send_reasoning_effort=True, send_prompt_cache_key=True, max_output_tokens=99
    )
    assert extended["reasoning_effort"] == "high"
    assert extended["prompt_cache_key"] == "k1"
    assert extended["max_tokens"] == 99
    off = build_chat_body(
        request(Message.user_text("hi"), reasoning_level=ReasoningLevel.OFF),
        TARGET,
        send_reasoning_effort=True,
    )
    assert "reasoning_effort" not in off


# --- streaming -----------------------------------------------------------------------------


def text_stream(*pieces: str, usage: dict[str, object] | None = None) -> list[bytes]:
    chunks = [openai_chunk({"role": "assistant", "content": ""})]
    chunks += [openai_chunk({"content": p}) for p in pieces]
    chunks.append(openai_chunk({}, finish="stop"))
    if usage is not None:
        chunks.append(openai_chunk(choices=False, usage=usage))
    chunks.append(OPENAI_DONE)
    return chunks


@pytest.mark.asyncio
async def test_streams_text_and_usage(server: Loopback, sink) -> None:  # type: ignore[no-untyped-def]
    usage = {
        "prompt_tokens": 120,
        "completion_tokens": 8,
        "total_tokens": 128,
        "prompt_tokens_details": {"cached_tokens": 100},
        "cost": 0.00042,
    }
    server.queue(Reply(chunks=text_stream("Hel", "lo ", "world", usage=usage)))
    async with provider(server, context_window=128_000) as p:
        content = await p.send_turn_stream(request(Message.user_text("hi")), sink)
    assert content == (ContentBlock(text="Hello world"),)
    assert [e.text for e in sink.of(OutputDelta)] == ["Hel", "lo ", "world"]
    [usage_event] = sink.of(Usage)
    assert usage_event.usage == ModelUsage(
        input_tokens=20,
        output_tokens=8,
        cache_read_tokens=100,
        total_tokens=128,
        context_window=128_000,
        cost_usd_micros=420,
    )
    assert usage_event.usage.inclusive_prompt_tokens() == 120
    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["Authorization"] == "Bearer sk-test-key-0000"
    assert sent.body["messages"] == [{"role": "user", "content": "hi"}]
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["max_tokens"] == DEFAULT_MAX_OUTPUT_TOKENS  # an output cap on every request


@pytest.mark.asyncio
async def test_cost_from_profile_pricing_when_server_reports_none(server: Loopback, sink) -> None:  # type: ignore[no-untyped-def]
    usage = {"prompt_tokens": 1000, "completion_tokens": 100, "total_tokens": 1100}
    server.queue(Reply(chunks=text_stream("x", usage=usage)))
    async with provider(server, pricing=Pricing(input=2.0, output=8.0)) as p:
        await p.send_turn_stream(request(Message.user_text("hi")), sink)
    [event] = sink.of(Usage)
    # no cache split reported: input_tokens stays absent, the inclusive prompt is priced as input
    assert event.usage.input_tokens is None
    assert event.usage.cost_usd_micros == 1000 * 2 + 100 * 8


def tool_round(call_id: str, name: str, *fragments: str, index: int = 0) -> list[bytes]:
    first = {
        "index": index,
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": ""},
    }
    chunks = [openai_chunk({"role": "assistant", "content": None, "tool_calls": [first]})]
    chunks += [
        openai_chunk({"tool_calls": [{"index": index, "function": {"arguments": f}}]})
        for f in fragments
    ]
    return chunks


@pytest.mark.asyncio
async def test_tool_calls_over_several_steps(server: Loopback) -> None:
    from .conftest import Sink

    step1 = tool_round("call_a", "read_file", '{"pa', 'th": "src/', 'main.rs"}')
    step1 += [
        openai_chunk({}, finish="tool_calls"),
        openai_chunk(
            choices=False, usage={"prompt_tokens": 50, "completion_tokens": 9, "total_tokens": 59}
        ),
        OPENAI_DONE,
    ]
    step2 = [openai_chunk({"role": "assistant", "content": "Two files:"})]
    step2 += tool_round("call_b", "read_file", '{"path": "a"}', index=0)
    step2 += tool_round("call_c", "read_file", '{"path": "b"}', index=1)
    step2 += [openai_chunk({}, finish="tool_calls"), OPENAI_DONE]
    step3 = text_stream("Done.")
    server.queue(Reply(chunks=step1), Reply(chunks=step2), Reply(chunks=step3))

    history: list[Message] = [Message.user_text("read things")]
    async with provider(server) as p:
        sink1 = Sink()
        content1 = await p.send_turn_stream(request(*history, tools=(READ,)), sink1)
        assert content1 == (
            ContentBlock.of_tool_call("call_a", "read_file", {"path": "src/main.rs"}),
        )
        deltas = sink1.of(ToolCallDelta)
        assert deltas[0] == ToolCallDelta(index=0, id="call_a", name="read_file", arguments="")
        assert "".join(d.arguments for d in deltas) == '{"path": "src/main.rs"}'
        history += [
            Message.enriched(AssistantMessage(content=content1, provenance=p.identity())),
            Message.result("call_a", True, "fn main() {}"),
        ]

        sink2 = Sink()
        content2 = await p.send_turn_stream(request(*history, tools=(READ,)), sink2)
        assert content2 == (
            ContentBlock(text="Two files:"),
            ContentBlock.of_tool_call("call_b", "read_file", {"path": "a"}),
            ContentBlock.of_tool_call("call_c", "read_file", {"path": "b"}),
        )
        history += [
            Message.enriched(AssistantMessage(content=content2, provenance=p.identity())),
            Message.result("call_b", True, "A"),
            Message.result("call_c", True, "B"),
        ]
        sink3 = Sink()
        assert await p.send_turn_stream(request(*history, tools=(READ,)), sink3) == (
            ContentBlock(text="Done."),
        )

    third = server.requests[2].body["messages"]
    assert [m["role"] for m in third] == ["user", "assistant", "tool", "assistant", "tool", "tool"]
    assert third[1]["tool_calls"][0]["function"] == {
        "name": "read_file",
        "arguments": '{"path": "src/main.rs"}',
    }
    assert third[5] == {"role": "tool", "tool_call_id": "call_c", "content": "B"}


@pytest.mark.asyncio
async def test_reasoning_content_is_streamed_and_kept_as_context(server: Loopback, sink) -> None:  # type: ignore[no-untyped-def]
    chunks = [
        openai_chunk({"role": "assistant", "reasoning_content": "Let me "}),
        openai_chunk({"reasoning_content": "think."}),
        openai_chunk(
            {"reasoning_details": [{"type": "reasoning.summary", "summary": "Thought briefly."}]}
        ),
        openai_chunk({"content": "42"}),
        openai_chunk({}, finish="stop"),
        OPENAI_DONE,
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server) as p:
        content = await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert content == (ContentBlock(text="42"),)
    assert [e.text for e in sink.of(ReasoningDelta)] == ["Let me ", "think."]
    assert [e.text for e in sink.of(ReasoningSummaryDelta)] == ["Thought briefly."]
    assert sink.of(ProviderContext) == [
        ProviderContext(OPENAI_CHAT_REASONING_CONTENT_KIND, 0, "Let me think.")
    ]


@pytest.mark.asyncio
async def test_server_without_tool_ids_or_done_marker(server: Loopback, sink) -> None:  # type: ignore[no-untyped-def]
    # llama.cpp-style quirks: arguments as an object, no call id, no [DONE] after finish_reason
    chunks = [
        openai_chunk(
            {
                "tool_calls": [
                    {"index": 0, "function": {"name": "read_file", "arguments": {"path": "x"}}}
                ]
            }
        ),
        openai_chunk({}, finish="tool_calls"),
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server, api_key=None) as p:
        [block] = await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert block.tool_call is not None
    assert block.tool_call.name == "read_file" and block.tool_call.arguments == {"path": "x"}
    assert block.tool_call.id.startswith("call_")
    assert "Authorization" not in server.requests[0].headers


@pytest.mark.asyncio
async def test_invalid_tool_arguments_are_returned_raw_for_the_engine_to_reject(
    server: Loopback, sink
) -> None:  # type: ignore[no-untyped-def]
    chunks = [
        *tool_round("call_1", "read_file", '{"path": '),
        openai_chunk({}, finish="tool_calls"),
        OPENAI_DONE,
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server) as p:
        [block] = await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert block.tool_call is not None and block.tool_call.arguments == '{"path": '


@pytest.mark.asyncio
async def test_a_tool_call_cut_at_the_output_limit_is_a_named_error_not_a_malformed_reply(
    server: Loopback, sink
) -> None:  # type: ignore[no-untyped-def]
    from rho_desk.core.errors import ProviderError

    chunks = [
        *tool_round("call_1", "edit", '{"input": "+aaaaaaaa'),
        openai_chunk({}, finish="length"),
        OPENAI_DONE,
    ]
    server.queue(Reply(chunks=chunks))
    async with provider(server, max_output_tokens=64) as p:
        with pytest.raises(ProviderError) as caught:
            await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert (
        not caught.value.is_retryable()
        and caught.value.kind is not ProviderErrorKind.INVALID_RESPONSE
    )
    assert (
        "the server cut the reply at its output limit (max_tokens 64; finish_reason: length)"
        in str(caught.value)
    )
    assert server.requests[0].body["max_tokens"] == 64
    # a text reply cut at the limit is kept: it is what the model wrote
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"content": "a long ans"}),
                openai_chunk({}, finish="length"),
                OPENAI_DONE,
            ]
        )
    )
    async with provider(server) as p:
        assert await p.send_turn_stream(request(Message.user_text("q")), sink) == (
            ContentBlock(text="a long ans"),
        )


def test_openai_itself_gets_the_cap_under_its_own_name() -> None:
    official = OpenAIChatProvider(
        base_url="https://api.openai.com/v1", model="gpt-5", api_key=SecretString("sk-x")
    )
    body = official.build_body(request(Message.user_text("q")))
    assert body["max_completion_tokens"] == DEFAULT_MAX_OUTPUT_TOKENS and "max_tokens" not in body


@pytest.mark.asyncio
async def test_error_object_inside_the_stream(server: Loopback, sink) -> None:  # type: ignore[no-untyped-def]
    from rho_desk.core.errors import ProviderError

    error = {"error": {"message": "upstream overloaded", "type": "server_error", "code": 502}}
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"content": "par"}),
                b"data: " + json.dumps(error).encode() + b"\n\n",
            ]
        )
    )
    async with provider(server) as p:
        with pytest.raises(ProviderError) as caught:
            await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert caught.value.kind is ProviderErrorKind.UNAVAILABLE
    assert caught.value.is_retryable()
    assert "upstream overloaded" not in str(caught.value)
    assert (
        caught.value.diagnostic is not None
        and "upstream overloaded" in caught.value.diagnostic.text()
    )


@pytest.mark.asyncio
async def test_send_turn_non_streaming_entry_point(server: Loopback) -> None:
    server.queue(Reply(chunks=text_stream("plain")))
    async with provider(server) as p:
        assert await p.send_turn(request(Message.user_text("q"))) == (ContentBlock(text="plain"),)


@pytest.mark.asyncio
async def test_server_that_ignores_stream_true(server: Loopback, sink) -> None:  # type: ignore[no-untyped-def]
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "whole answer",
                    "tool_calls": [
                        {
                            "id": "call_9",
                            "type": "function",
                            "function": {"name": "read_file", "arguments": '{"path": "z"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }
    server.queue(Reply(status=200, body=json.dumps(completion).encode()))
    async with provider(server) as p:
        content = await p.send_turn_stream(request(Message.user_text("q")), sink)
    assert content == (
        ContentBlock(text="whole answer"),
        ContentBlock.of_tool_call("call_9", "read_file", {"path": "z"}),
    )
    assert sink.of(OutputDelta) == [OutputDelta("whole answer")]
    assert sink.of(Usage)[0].usage.total_tokens == 8


@pytest.mark.asyncio
async def test_handoff_omissions_reach_the_host_before_sending(server: Loopback, sink) -> None:  # type: ignore[no-untyped-def]
    foreign = ProviderContextBlock(
        identity=OTHER,
        kind="anthropic_content_block",
        position=0,
        data={"type": "thinking", "signature": "s"},
    )
    history = (
        Message.user_text("a"),
        Message.enriched(
            AssistantMessage(
                content=(ContentBlock(text="b"),), provenance=OTHER, provider_context=(foreign,)
            )
        ),
        Message.user_text("c"),
    )
    server.queue(Reply(chunks=text_stream("ok")))
    reports = []
    async with provider(server) as p:
        p.on_handoff = reports.append
        await p.send_turn_stream(request(*history), sink)
    assert [(r.omitted_provider_context, r.omitted_kinds) for r in reports] == [
        (1, ("anthropic_content_block",))
    ]
    assert "signature" not in json.dumps(server.requests[0].body)
