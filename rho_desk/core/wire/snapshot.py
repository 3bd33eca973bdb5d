"""The SDK session snapshot (schema 2) and the compaction state it carries.

The snapshot is the stable persistence boundary (seed, "Snapshot schema"). Reading accepts
schemas 1 and 2 (1 is relabelled 2; nothing else differs) and rejects anything else rather than
guessing. Writing always emits schema 2. Every ``AbortedAssistant`` in a snapshot has its raw
reasoning cleared, both when the snapshot is built and when it is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

import msgspec
from msgspec import field
from msgspec.structs import force_setattr

from .model import U64, U64_MAX, Message, ModelIdentity, check_u64

__all__ = [
    "MIN_SNAPSHOT_SCHEMA",
    "SNAPSHOT_SCHEMA",
    "CompactionState",
    "SessionSnapshot",
    "sanitize_history",
]

SNAPSHOT_SCHEMA: Final = 2
MIN_SNAPSHOT_SCHEMA: Final = 1


class CompactionState(msgspec.Struct, frozen=True, gc=False):
    """Compaction accounting carried across revisions. All seven keys are always written."""

    completed_compactions: U64
    """Successful compactions, automatic and manual."""
    removed_messages: U64
    """Sum of (previous message count - replacement count), floored at 0 each time."""
    removed_tokens: U64 = 0
    """Sum of (previous estimate - replacement estimate), floored at 0 each time."""
    removed_cost_usd_micros: U64 = 0
    """Sum of compactor-reported costs, in millionths of a US dollar."""
    last_previous_tokens: U64 | None = None
    """Message-token estimate before the latest compaction."""
    last_current_tokens: U64 | None = None
    """Message-token estimate after the latest compaction."""
    last_revision: U64 | None = None
    """Revision produced by the latest compaction."""

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            check_u64(name, value)

    @classmethod
    def zero(cls) -> CompactionState:
        return cls(0, 0)

    def record(
        self,
        *,
        previous_messages: int,
        current_messages: int,
        previous_tokens: int,
        current_tokens: int,
        cost_usd_micros: int | None,
        revision: int,
    ) -> CompactionState:
        """The state after one more completed compaction (all sums saturate)."""

        def sat(value: int) -> int:
            return min(value, U64_MAX)

        return CompactionState(
            completed_compactions=sat(self.completed_compactions + 1),
            removed_messages=sat(
                self.removed_messages + max(previous_messages - current_messages, 0)
            ),
            removed_tokens=sat(self.removed_tokens + max(previous_tokens - current_tokens, 0)),
            removed_cost_usd_micros=sat(self.removed_cost_usd_micros + (cost_usd_micros or 0)),
            last_previous_tokens=previous_tokens,
            last_current_tokens=current_tokens,
            last_revision=revision,
        )


def _zero_state() -> CompactionState:
    return CompactionState(0, 0)


def sanitize_history(history: Iterable[Message]) -> tuple[Message, ...]:
    """The history with every AbortedAssistant's raw reasoning cleared; nothing else changes."""
    return tuple(m.sanitized() for m in history)


class SessionSnapshot(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """A complete, portable session state: what a store saves and a session restores from.

    It never holds credentials, run state, tool instances, the compactor or policy, or raw
    reasoning; it does hold the whole conversation, so treat it as sensitive.
    """

    schema_version: int
    """Always 2 in memory and on output; 1 is accepted on input."""
    session_id: str
    """Non-empty session id (new ones are UUID v4)."""
    revision: U64
    """Monotonic revision this snapshot was taken at."""
    history: tuple[Message, ...]
    """Portable model history."""
    provider: ModelIdentity
    """Identity of the provider the session was running on: compatibility metadata only."""
    compaction: CompactionState = field(default_factory=_zero_state)
    """Compaction accounting; zero when missing on read, always written."""
    metadata: dict[str, str] = {}
    """Host metadata, string to string; written with sorted keys, omitted when empty."""
    prompt_cache_key: str | None = None
    """Opaque, non-secret prompt-cache key; omitted when absent."""

    def __post_init__(self) -> None:
        version = self.schema_version
        if isinstance(version, bool) or not MIN_SNAPSHOT_SCHEMA <= version <= SNAPSHOT_SCHEMA:
            raise ValueError(
                f"unsupported session snapshot schema {version}; "
                f"supported versions are {MIN_SNAPSHOT_SCHEMA} through {SNAPSHOT_SCHEMA}"
            )
        if version != SNAPSHOT_SCHEMA:
            force_setattr(self, "schema_version", SNAPSHOT_SCHEMA)
        if not self.session_id:
            raise ValueError("identifier must not be empty")
        check_u64("revision", self.revision)
        for message in self.history:
            if message.aborted_assistant is not None and message.aborted_assistant.reasoning:
                force_setattr(self, "history", sanitize_history(self.history))
                break
        metadata = self.metadata
        if len(metadata) > 1 and list(metadata) != sorted(metadata):
            force_setattr(self, "metadata", dict(sorted(metadata.items())))

    @classmethod
    def new(
        cls,
        session_id: str,
        revision: int,
        history: Iterable[Message],
        provider: ModelIdentity,
        compaction: CompactionState | None = None,
        *,
        metadata: Mapping[str, str] | None = None,
        prompt_cache_key: str | None = None,
    ) -> SessionSnapshot:
        return cls(
            SNAPSHOT_SCHEMA,
            session_id,
            revision,
            tuple(history),
            provider,
            compaction if compaction is not None else _zero_state(),
            dict(metadata) if metadata else {},
            prompt_cache_key,
        )

    def with_metadata(self, key: str, value: str) -> SessionSnapshot:
        return msgspec.structs.replace(self, metadata={**self.metadata, key: value})

    def with_prompt_cache_key(self, key: str | None) -> SessionSnapshot:
        return msgspec.structs.replace(self, prompt_cache_key=key)

    def replace(self, **changes: object) -> SessionSnapshot:
        """A copy with some fields changed (validated and sanitized like any snapshot)."""
        return msgspec.structs.replace(self, **changes)
