"""The provider-neutral context-token estimate (spec/engine.md §3): a heuristic, not a tokenizer.

It drives ``CompactionPolicy.at_context_tokens``, the ``ContextEstimated`` event and compaction
accounting, so it must agree with upstream to the token: characters are Unicode code points,
JSON is the compact serde encoding, and every overhead constant is upstream's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from ..wire.codec import encode
from ..wire.model import U64_MAX, ContentBlock, Message, ProviderContextBlock, ToolSpec

__all__ = [
    "estimate_context_tokens",
    "estimate_messages_tokens",
    "estimate_text_tokens",
    "json_tokens",
    "message_tokens",
]

REQUEST_OVERHEAD: Final = 3
MESSAGE_OVERHEAD: Final = 4
BLOCK_OVERHEAD: Final = 1
TOOL_CALL_OVERHEAD: Final = 8
TOOL_RESULT_OVERHEAD: Final = 6
TOOL_SCHEMA_OVERHEAD: Final = 12
IMAGE_BASE: Final = 85
IMAGE_BYTES_PER_TOKEN: Final = 4096


def estimate_text_tokens(text: str) -> int:
    """ceil(code points / 4)."""
    return (len(text) + 3) // 4


def json_tokens(value: Any) -> int:
    """ceil(code points of the compact JSON of ``value`` / 4)."""
    return (len(encode(value).decode("utf-8")) + 3) // 4


def _block_tokens(block: ContentBlock) -> int:
    if block.text is not None:
        return BLOCK_OVERHEAD + (len(block.text) + 3) // 4
    if block.image is not None:
        # ceil(bytes of the base64 text / 4096); base64 is ASCII, so bytes == characters
        return (
            BLOCK_OVERHEAD
            + IMAGE_BASE
            + (len(block.image.data) + IMAGE_BYTES_PER_TOKEN - 1) // IMAGE_BYTES_PER_TOKEN
        )
    assert block.tool_call is not None
    return BLOCK_OVERHEAD + TOOL_CALL_OVERHEAD + json_tokens(block.tool_call)


def _replay_tokens(blocks: tuple[ProviderContextBlock, ...]) -> int:
    return sum(json_tokens(b.data) for b in blocks if not b.is_portable_fallback)


def message_tokens(message: Message) -> int:
    """The estimate for one message, per the table of spec/engine.md §3.3."""
    if message.user is not None:
        return MESSAGE_OVERHEAD + sum(_block_tokens(b) for b in message.user)
    if message.tool_result is not None:
        return TOOL_RESULT_OVERHEAD + json_tokens(message.tool_result)
    if message.enriched_assistant is not None:
        m = message.enriched_assistant
        prose = estimate_text_tokens(m.reasoning_summary or "") + estimate_text_tokens(
            m.portable_fallback_text() or ""
        )
        return (
            MESSAGE_OVERHEAD
            + sum(_block_tokens(b) for b in m.content)
            + max(prose, _replay_tokens(m.provider_context))
        )
    if message.assistant is not None:
        return MESSAGE_OVERHEAD + sum(_block_tokens(b) for b in message.assistant)
    if message.system is not None:
        return MESSAGE_OVERHEAD + estimate_text_tokens(message.system)
    a = message.aborted_assistant
    assert a is not None
    # Only the summary counts as prose here: the fallback text is not counted (upstream quirk).
    return (
        MESSAGE_OVERHEAD
        + sum(_block_tokens(b) for b in a.content)
        + max(estimate_text_tokens(a.reasoning_summary or ""), _replay_tokens(a.provider_context))
    )


def estimate_messages_tokens(messages: Iterable[Message]) -> int:
    """Sum of message estimates: no request overhead, no tool schemas (compaction accounting)."""
    return min(sum(message_tokens(m) for m in messages), U64_MAX)


def estimate_context_tokens(messages: Iterable[Message], tools: Iterable[ToolSpec] = ()) -> int:
    """What a request would cost: 3 + messages + (12 + schema) per tool (compaction policy)."""
    total = REQUEST_OVERHEAD + sum(message_tokens(m) for m in messages)
    total += sum(TOOL_SCHEMA_OVERHEAD + json_tokens(t) for t in tools)
    return min(total, U64_MAX)
