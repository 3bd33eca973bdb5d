"""Compaction: the Compactor protocol, the automatic policy, outcomes and the token estimate."""

from .api import (
    CompactionOutcome,
    CompactionOutput,
    CompactionPolicy,
    CompactionRequest,
    CompactionTrigger,
    Compactor,
)
from .tokens import (
    estimate_context_tokens,
    estimate_messages_tokens,
    estimate_text_tokens,
    json_tokens,
    message_tokens,
)

__all__ = [
    "CompactionOutcome",
    "CompactionOutput",
    "CompactionPolicy",
    "CompactionRequest",
    "CompactionTrigger",
    "Compactor",
    "estimate_context_tokens",
    "estimate_messages_tokens",
    "estimate_text_tokens",
    "json_tokens",
    "message_tokens",
]
