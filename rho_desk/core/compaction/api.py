"""Compaction contracts: the Compactor protocol, the automatic policy, and outcomes.

Compaction transport and policy are host supplied (seed, "Compaction"). A compactor takes an
owned, provider-neutral history and a cancellation token, and returns a complete replacement
history; the engine installs it only if the compactor succeeded.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Iterable
from typing import TYPE_CHECKING

import msgspec

from ..errors import InvalidConfiguration, InvalidHostResponse
from ..provider import CancellationMode
from ..wire.model import Message, ModelUsage

if TYPE_CHECKING:
    from ..cancellation import CancellationToken  # asyncio: only a running compaction needs it
    from ..wire.snapshot import SessionSnapshot

__all__ = [
    "CompactionOutcome",
    "CompactionOutput",
    "CompactionPolicy",
    "CompactionRequest",
    "CompactionTrigger",
    "Compactor",
]


class CompactionRequest(msgspec.Struct, frozen=True):
    messages: tuple[Message, ...]
    """The history to compact (the candidate history, for automatic compaction)."""
    cancellation: CancellationToken
    session_id: str | None = None
    parent_session_id: str | None = None
    run_id: str | None = None
    step_index: int | None = None
    """1-based step of an automatic compaction; ``None`` for a manual one."""
    workspace_path: str | None = None


class CompactionOutput:
    """A complete, non-empty replacement history, plus the usage of producing it."""

    __slots__ = ("messages", "usage")

    def __init__(self, messages: Iterable[Message], usage: ModelUsage | None = None) -> None:
        self.messages = tuple(messages)
        if not self.messages:
            raise InvalidHostResponse("compaction replacement history must not be empty")
        self.usage = usage if usage is not None else ModelUsage()

    def __repr__(self) -> str:
        return f"CompactionOutput({len(self.messages)} messages, usage={self.usage!r})"


class Compactor(abc.ABC):
    """Produces a replacement history. Must keep the structure valid (tool call/result pairs)."""

    cancellation_mode: CancellationMode = CancellationMode.EXTERNAL

    @abc.abstractmethod
    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        """Return the replacement, or raise (``Cancelled`` when the token fired)."""


class _PolicyKind(enum.Enum):
    MESSAGES = "messages"
    TOKENS = "tokens"


class CompactionPolicy(msgspec.Struct, frozen=True):
    """When automatic compaction triggers: at or above a nonzero threshold."""

    kind: _PolicyKind
    threshold: int

    def __post_init__(self) -> None:
        if (
            isinstance(self.threshold, bool)
            or not isinstance(self.threshold, int)
            or self.threshold < 1
        ):
            raise InvalidConfiguration("compaction threshold must be a nonzero count")

    @classmethod
    def after_messages(cls, count: int) -> CompactionPolicy:
        return cls(_PolicyKind.MESSAGES, count)

    @classmethod
    def at_context_tokens(cls, tokens: int) -> CompactionPolicy:
        return cls(_PolicyKind.TOKENS, tokens)

    @property
    def trigger_messages(self) -> int | None:
        return self.threshold if self.kind is _PolicyKind.MESSAGES else None

    @property
    def trigger_tokens(self) -> int | None:
        return self.threshold if self.kind is _PolicyKind.TOKENS else None

    def should_compact(self, message_count: int, context_tokens: int) -> bool:
        """Whether automatic compaction triggers for a history of ``message_count`` messages whose
        context estimate is ``context_tokens``: at or above the threshold (upstream
        ``CompactionPolicy::should_compact``). Only the figure the policy counts is consulted."""
        if self.kind is _PolicyKind.MESSAGES:
            return message_count >= self.threshold
        return context_tokens >= self.threshold


class CompactionTrigger(enum.Enum):
    AUTOMATIC = "Automatic"
    MANUAL = "Manual"


class CompactionOutcome(msgspec.Struct, frozen=True):
    """What one compaction did. Token figures are message estimates (no request overhead).

    Equality and the hash leave out the committed snapshot and the compacted history, and
    ``repr`` the compacted history (it may be long).
    """

    previous_messages: int
    current_messages: int
    previous_tokens: int
    current_tokens: int
    cost_usd_micros: int | None
    revision: int
    committed_snapshot: SessionSnapshot | None = None
    """The session right after the commit; only for automatic compactions."""
    compacted_history: tuple[Message, ...] | None = None
    """The history that was compacted (for an automatic compaction, the turn's candidate: the
    committed history plus the user's prompt and the steps so far). A save of the compaction
    shows what the turn had added to it, so the prompt stays in the display history."""

    def _compared(self) -> tuple[object, ...]:
        return (
            self.previous_messages,
            self.current_messages,
            self.previous_tokens,
            self.current_tokens,
            self.cost_usd_micros,
            self.revision,
        )

    def __eq__(self, other: object) -> bool:
        if type(other) is not CompactionOutcome:
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        return (
            f"CompactionOutcome(previous_messages={self.previous_messages!r}, current_messages={self.current_messages!r}, "
            f"previous_tokens={self.previous_tokens!r}, current_tokens={self.current_tokens!r}, "
            f"cost_usd_micros={self.cost_usd_micros!r}, revision={self.revision!r}, "
            f"committed_snapshot={self.committed_snapshot!r})"
        )

    @property
    def removed_tokens(self) -> int:
        return max(self.previous_tokens - self.current_tokens, 0)

    @property
    def removed_messages(self) -> int:
        return max(self.previous_messages - self.current_messages, 0)
