"""Runtime configuration and lifecycle: what a built ``Rho`` runtime shares with its sessions.

``RuntimeConfig`` is immutable once built (``RhoBuilder.build`` validates it). ``Lifecycle``
registers every active run and manual compaction so that ``Rho.shutdown`` can cancel them,
and refuses new work after shutdown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

import msgspec

from ..cancellation import CancellationToken
from ..compaction.api import CompactionPolicy, Compactor
from ..errors import RuntimeShutdown
from ..provider import ModelProvider, ReasoningLevel, ServiceTier
from ..tools import Tool
from ..wire.model import ToolSpec

if TYPE_CHECKING:
    from ..usage.writer import UsageRecording

__all__ = [
    "DEFAULT_EVENT_CAPACITY",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_REPEAT_LIMIT",
    "Lifecycle",
    "RuntimeConfig",
]

DEFAULT_EVENT_CAPACITY = 64
DEFAULT_MAX_STEPS = 32
DEFAULT_REPEAT_LIMIT = 5
"""The same tool call (name and arguments) with the same result this many times in one run stops
the run (``StopReason.REPETITION``): a model in a loop is cut early, not at the step limit."""
DEFAULT_MAX_PARALLEL_TOOLS = 1
DEFAULT_USAGE_PURPOSE = "agent"


class RuntimeConfig(msgspec.Struct, frozen=True):
    """Everything a session inherits from its runtime (validated by the builder)."""

    provider: ModelProvider
    tools: Mapping[str, Tool]
    """Registry keyed by ``spec().name``, in name order."""
    tool_specs: tuple[ToolSpec, ...]
    """The specs offered to the model, sorted by name."""
    system_prompt: str | None = None
    """A custom system prompt inserted at index 0 of new sessions; ``None`` for none."""
    event_capacity: int = DEFAULT_EVENT_CAPACITY
    max_steps: int = DEFAULT_MAX_STEPS
    repeat_limit: int = DEFAULT_REPEAT_LIMIT
    """0: no repetition guard."""
    max_parallel_tools: int = DEFAULT_MAX_PARALLEL_TOOLS
    compactor: Compactor | None = None
    compaction_policy: CompactionPolicy | None = None
    reasoning_level: ReasoningLevel = ReasoningLevel.MEDIUM
    service_tier: ServiceTier | None = None
    usage_purpose: str = DEFAULT_USAGE_PURPOSE
    usage_recording: UsageRecording | None = None
    """Where each physical provider request is recorded (Rho's usage ledger); ``None``: nowhere."""
    workspace_path: str | None = None
    """The workspace the requests are recorded under (and compaction requests carry)."""
    retry_sleep: Callable[[float], Awaitable[None]] = msgspec.field(default=asyncio.sleep)
    """How the engine waits between provider retries (injectable so tests need not wait)."""
    publish_live_history: bool = False
    """True when a registered tool reads the run's in-flight history."""


class Lifecycle:
    """The runtime's registry of active operations and its shut-down flag."""

    __slots__ = ("_active", "_shut_down", "_workers")

    def __init__(self) -> None:
        self._shut_down = False
        self._active: dict[str, CancellationToken] = {}
        self._workers: set[asyncio.Future[object]] = set()

    @property
    def shut_down(self) -> bool:
        return self._shut_down

    def check_open(self) -> None:
        if self._shut_down:
            raise RuntimeShutdown()

    def register(self, operation_id: str, token: CancellationToken) -> None:
        self.check_open()
        self._active[operation_id] = token

    def unregister(self, operation_id: str) -> None:
        self._active.pop(operation_id, None)

    def track(self, worker: asyncio.Future[object]) -> None:
        self._workers.add(worker)
        worker.add_done_callback(self._workers.discard)

    def shutdown(self) -> int:
        """Mark shut down and cancel every registered operation; how many there were (0 later)."""
        if self._shut_down:
            return 0
        self._shut_down = True
        active, self._active = self._active, {}
        for token in active.values():
            token.cancel()
        return len(active)

    async def wait_idle(self) -> None:
        """Return once every run worker started by this runtime has finished."""
        while self._workers:
            await asyncio.wait(set(self._workers))

    def __len__(self) -> int:
        return len(self._active)
