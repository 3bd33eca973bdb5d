"""Provider handoff: what of a history may be replayed to which provider (spec/engine.md §4).

Canonical history always keeps every provider-context block. Filtering happens only when an
adapter lowers history into a wire request (``prepare_assistant``) or when a report is asked for.
Hosts surface omissions before sending, and may strip native blocks as a retention policy.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from ..wire.model import (
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ProviderContextBlock,
)

__all__ = [
    "HandoffReport",
    "PreparedAssistant",
    "prepare_assistant",
    "report_message_omissions",
    "report_omissions",
    "strip_provider_context",
]


class PreparedAssistant(msgspec.Struct, frozen=True):
    """An assistant message lowered for one target identity."""

    content: tuple[ContentBlock, ...]
    replay_context: tuple[ProviderContextBlock, ...]


def prepare_assistant(message: AssistantMessage, target: ModelIdentity) -> PreparedAssistant:
    """Content plus the blocks replayable to ``target``; a text stand-in when none are."""
    fallback = message.portable_fallback_text()
    replay = tuple(b for b in message.provider_context if b.is_replayable_to(target))
    content = message.content
    if not replay:
        if fallback is not None and fallback.strip():
            content = (*content, ContentBlock(text=fallback))
        elif message.reasoning_summary is not None and message.reasoning_summary.strip():
            wrapped = f"<reasoning_summary>\n{message.reasoning_summary}\n</reasoning_summary>"
            content = (*content, ContentBlock(text=wrapped))
    return PreparedAssistant(content, replay)


class HandoffReport(msgspec.Struct, frozen=True):
    """Provider-context blocks that would not be replayed to a target identity."""

    omitted_provider_context: int = 0
    omitted_kinds: tuple[str, ...] = msgspec.field(default=())

    def has_omissions(self) -> bool:
        return self.omitted_provider_context > 0

    def describe(self, identity: str) -> str:
        """What the replay-safety check found, in one sentence (the window and the command line)."""
        kinds = ", ".join(self.omitted_kinds) or "provider context"
        n = self.omitted_provider_context
        return (
            f"{identity} cannot be sent {n} provider-native block{'s' if n != 1 else ''} of this history "
            f"({kinds}): they were produced by another provider or model and are left out. The text of every "
            "message is still sent."
        )


def _report(blocks: Iterable[ProviderContextBlock], target: ModelIdentity) -> HandoffReport:
    count = 0
    kinds: set[str] = set()
    for block in blocks:
        if block.is_portable_fallback:
            continue
        if not block.is_replayable_to(target):
            count += 1
            kinds.add(block.kind)
    return HandoffReport(count, tuple(sorted(kinds)))


def report_omissions(messages: Iterable[AssistantMessage], target: ModelIdentity) -> HandoffReport:
    return _report((b for m in messages for b in m.provider_context), target)


def report_message_omissions(messages: Iterable[Message], target: ModelIdentity) -> HandoffReport:
    """Over EnrichedAssistant and AbortedAssistant messages; other variants add nothing."""
    return _report((b for m in messages for b in m.provider_context()), target)


def strip_provider_context(messages: Iterable[Message]) -> tuple[Message, ...]:
    """Remove every provider-native block (fallbacks stay): a retention policy, not a handoff."""
    out = []
    for message in messages:
        if message.enriched_assistant is not None and message.enriched_assistant.provider_context:
            message = Message(
                enriched_assistant=message.enriched_assistant.retain_portable_context()
            )
        elif message.aborted_assistant is not None and message.aborted_assistant.provider_context:
            aborted: AbortedAssistant = message.aborted_assistant
            kept = tuple(b for b in aborted.provider_context if b.is_portable_fallback)
            message = Message(
                aborted_assistant=msgspec.structs.replace(aborted, provider_context=kept)
            )
        out.append(message)
    return tuple(out)
