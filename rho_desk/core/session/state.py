"""The shared core of a session: committed state, the active-operation slot, and the commit.

Every ``Session`` handle (and every clone of one) points at one ``SessionCore``. Committed
history, revision, compaction state, metadata and the prompt-cache key change only through
``commit`` (or ``reset``), synchronously, so a reader never sees a half-installed state: the
"session lock" of upstream is the event loop itself, since no commit spans an ``await``.
A session belongs to the event loop thread that uses it.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from ..compaction.api import CompactionPolicy, Compactor
from ..errors import PersistenceError, SessionBusy
from ..provider import ModelProvider, ReasoningLevel, ServiceTier
from ..wire.model import U64_MAX, Message
from ..wire.snapshot import CompactionState
from .config import Lifecycle, RuntimeConfig

__all__ = ["SessionCore", "SessionState"]


class SessionState(enum.Enum):
    """What the session is doing (observational only; spec/engine.md §6.2)."""

    IDLE = "Idle"
    """No operation, or the last one was cancelled, interrupted or aborted."""
    RUNNING = "Running"
    """A run or a manual compaction holds the active slot."""
    WAITING_FOR_HOST_INPUT = "WaitingForHostInput"
    """A tool waits for the host (never entered: host input is out of scope here)."""
    CANCELLING = "Cancelling"
    """The cancellation commit happened; the run is delivering its terminal event."""
    COMPLETED = "Completed"
    """The last run (or manual compaction) succeeded; persists until the next operation."""
    FAILED = "Failed"
    """The last run failed; persists until the next operation."""


class SessionCore:
    """State shared by all handles of one session."""

    __slots__ = (
        "active",
        "compaction",
        "compaction_policy",
        "compactor",
        "config",
        "history",
        "id",
        "lifecycle",
        "live",
        "metadata",
        "prompt_cache_key",
        "provider",
        "reasoning_level",
        "revision",
        "service_tier",
        "state",
    )

    def __init__(
        self,
        *,
        config: RuntimeConfig,
        lifecycle: Lifecycle,
        id: str,
        history: tuple[Message, ...],
        revision: int,
        compaction: CompactionState,
        metadata: dict[str, str],
        prompt_cache_key: str | None,
    ) -> None:
        self.config = config
        self.lifecycle = lifecycle
        self.id = id
        self.history = history
        self.revision = revision
        self.compaction = compaction
        self.metadata = metadata
        self.prompt_cache_key = prompt_cache_key
        # Per-session copies of runtime settings that idle-only setters may change.
        self.provider: ModelProvider = config.provider
        self.reasoning_level: ReasoningLevel = config.reasoning_level
        self.service_tier: ServiceTier | None = config.service_tier
        self.compactor: Compactor | None = config.compactor
        self.compaction_policy: CompactionPolicy | None = config.compaction_policy
        self.active: str | None = None
        """Id of the run or manual compaction holding the slot."""
        self.state = SessionState.IDLE
        self.live: tuple[Message, ...] | None = None
        """In-flight history published for tools that read it; ``None`` outside tool batches."""

    # -- the slot -------------------------------------------------------------------------

    def check_idle(self) -> None:
        if self.active is not None:
            raise SessionBusy()

    def claim(self, operation_id: str) -> None:
        self.check_idle()
        self.active = operation_id
        self.state = SessionState.RUNNING

    def release(self, operation_id: str) -> None:
        """Free the slot if ``operation_id`` still holds it (a stale release does nothing)."""
        if self.active != operation_id:
            return
        self.active = None
        self.live = None
        if self.state not in (SessionState.COMPLETED, SessionState.FAILED):
            self.state = SessionState.IDLE

    # -- commits --------------------------------------------------------------------------

    def next_revision(self) -> int:
        if self.revision >= U64_MAX:
            raise PersistenceError("session revision is exhausted")
        return self.revision + 1

    def commit(self, history: Sequence[Message]) -> int:
        """Install ``history`` and advance the revision by one; the new revision.

        Raises:
            PersistenceError: the revision is exhausted; nothing changed.
        """
        revision = self.next_revision()
        self.history = tuple(history)
        self.revision = revision
        return revision

    def commit_compaction(
        self,
        replacement: tuple[Message, ...],
        *,
        previous_messages: int,
        previous_tokens: int,
        current_tokens: int,
        cost_usd_micros: int | None,
    ) -> int:
        """Install a compactor's replacement and record its accounting, in one commit."""
        revision = self.next_revision()
        self.history = replacement
        self.revision = revision
        self.compaction = self.compaction.record(
            previous_messages=previous_messages,
            current_messages=len(replacement),
            previous_tokens=previous_tokens,
            current_tokens=current_tokens,
            cost_usd_micros=cost_usd_micros,
            revision=revision,
        )
        return revision
