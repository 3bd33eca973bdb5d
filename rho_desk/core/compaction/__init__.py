"""Compaction: the Compactor protocol, the automatic policy, outcomes and the token estimate.

The names below load their module on first use (PEP 562): the session reader needs the token
estimate (``tokens``) and none of the compaction machinery behind ``api`` (providers'
cancellation modes, asyncio).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_API = frozenset(
    {
        "CompactionOutcome",
        "CompactionOutput",
        "CompactionPolicy",
        "CompactionRequest",
        "CompactionTrigger",
        "Compactor",
    }
)
_TOKENS = frozenset(
    {
        "estimate_context_tokens",
        "estimate_messages_tokens",
        "estimate_text_tokens",
        "json_tokens",
        "message_tokens",
    }
)


def __getattr__(name: str) -> Any:
    # static imports, one per module: the layer contracts see them (no dynamic imports in core)
    if name in _API:
        from . import api as module
    elif name in _TOKENS:
        from . import tokens as module  # type: ignore[no-redef]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


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
