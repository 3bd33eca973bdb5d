"""The provider-neutral token estimate: every worked example of spec/engine.md §3.4."""

from __future__ import annotations

import pytest

from rho_desk.core.compaction.tokens import (
    estimate_context_tokens,
    estimate_messages_tokens,
    estimate_text_tokens,
    json_tokens,
    message_tokens,
)
from rho_desk.core.wire.model import (
    PORTABLE_FALLBACK_KIND,
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    ImageContent,
    Message,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
    ToolSpec,
)

ID = ModelIdentity("openai", "responses", "gpt-5")


def test_example_1_system_and_user() -> None:
    messages = [Message.system_text("12345678"), Message.user_text("123456789")]
    assert estimate_context_tokens(messages) == 3 + (4 + 2) + (4 + 1 + 3) == 17


def test_example_2_tool_call_and_result() -> None:
    call = Message.assistant_blocks(
        [ContentBlock.of_tool_call("call_1", "read_file", {"path": "src/main.rs"})]
    )
    result = Message.result("call_1", True, "file contents")
    assert json_tokens(call.assistant[0].tool_call) == 18  # type: ignore[index]
    assert json_tokens(result.tool_result) == 13
    assert estimate_context_tokens([call, result]) == 3 + (4 + 1 + 8 + 18) + (6 + 13) == 53


def test_example_3_tool_schema_only() -> None:
    spec = ToolSpec(
        "read_file", "read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
    )
    assert json_tokens(spec) == 31
    assert estimate_context_tokens([], [spec]) == 3 + 12 + 31 == 46


def test_example_4_image() -> None:
    message = Message.user_blocks(
        [ContentBlock(text="describe"), ContentBlock(image=ImageContent("A" * 10_000, "image/png"))]
    )
    assert message_tokens(message) == 4 + (1 + 2) + (1 + 85 + 3) == 96
    empty = Message.user_blocks([ContentBlock(image=ImageContent("", "image/png"))])
    assert message_tokens(empty) == 4 + 1 + 85  # empty data adds 0


def test_example_5_replay_block_outweighs_missing_summary() -> None:
    block = ProviderContextBlock(
        identity=ID,
        kind="k",
        position=0,
        data={"type": "reasoning", "encrypted_content": "x" * 400},
    )
    assert json_tokens(block.data) == 111
    message = Message.enriched(
        AssistantMessage(content=(ContentBlock(text="answer"),), provider_context=(block,))
    )
    assert message_tokens(message) == 4 + (1 + 2) + max(0, 111) == 118


def test_example_6_summary_plus_fallback_against_replay() -> None:
    block = ProviderContextBlock(identity=ID, kind="k", position=0, data={"id": "item-1"})
    message = AssistantMessage(
        content=(ContentBlock(text="answer"),),
        reasoning_summary="checked the arithmetic",
        provider_context=(block,),
    ).with_portable_fallback("portable notice")
    assert message_tokens(Message.enriched(message)) == 4 + 3 + max(6 + 4, 4) == 17


def test_example_7_unicode_and_escapes() -> None:
    assert estimate_text_tokens("héllo wörld") == 3
    assert estimate_text_tokens("🦀🦀🦀🦀🦀") == 2
    assert message_tokens(Message.result("c", True, "é中🦀")) == 6 + 9 == 15
    assert message_tokens(Message.result("c", False, "a\nb")) == 6 + 10 == 16


def test_aborted_assistant_ignores_fallback_reasoning_tool_calls_and_usage() -> None:
    fallback = ProviderContextBlock(
        identity=ID, kind=PORTABLE_FALLBACK_KIND, data="a fallback that is long"
    )
    aborted = AbortedAssistant(
        content=(ContentBlock(text="abcd"),),
        reasoning="lots of raw reasoning " * 20,
        reasoning_summary="abcdefgh",
        provider_context=(fallback,),
        tool_calls=(PartialToolCall(id="c", name="n", arguments="{" * 100),),
        usage=ModelUsage(output_tokens=99),
    )
    assert message_tokens(Message.aborted(aborted)) == 4 + (1 + 1) + 2


def test_messages_estimate_has_no_request_overhead() -> None:
    messages = [Message.system_text("12345678"), Message.user_text("123456789")]
    assert estimate_messages_tokens(messages) == 14
    assert estimate_messages_tokens([]) == 0 and estimate_context_tokens([]) == 3


@pytest.mark.parametrize(("text", "tokens"), [("", 0), ("a", 1), ("abcd", 1), ("abcde", 2)])
def test_text_tokens_round_up(text: str, tokens: int) -> None:
    assert estimate_text_tokens(text) == tokens
