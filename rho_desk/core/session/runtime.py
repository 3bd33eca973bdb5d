"""The ``Rho`` runtime and its builder: the entry point of the session engine.

::

    rho = (
        Rho.builder()
        .provider(provider)
        .tools([read_file, write_file])
        .system_prompt("You are careful.")
        .compactor(compactor)
        .compaction_policy(CompactionPolicy.after_messages(200))
        .build()
    )
    session = rho.session()                      # or rho.session(SessionOptions.from_snapshot(s))
    outcome = await session.complete("hello")    # or: async for event in session.start("hello")
    rho.shutdown()

Defaults and validation follow spec/engine.md §5: a provider is required; tool names are
unique (specs are offered sorted by name); event capacity 64, max steps 32 and max parallel
tools 1 (all nonzero); an automatic compaction policy needs a compactor; reasoning level
``medium``; usage purpose ``agent`` (non-blank).

A usage recorder (``usage_recorder``) hears of every physical provider request, as upstream's
``ProviderRequestUsageRecording`` does (spec/engine.md §8.4); rho-desk's writes Rho's ledger.

Out of scope in this port: workspace authority, approval policies and hooks (upstream's
deny-by-default settings have no counterpart here).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..compaction.api import CompactionPolicy, Compactor
from ..errors import InvalidConfiguration
from ..provider import ModelProvider, ReasoningLevel, ServiceTier
from ..tools import Tool
from .config import (
    DEFAULT_EVENT_CAPACITY,
    DEFAULT_MAX_PARALLEL_TOOLS,
    DEFAULT_MAX_STEPS,
    DEFAULT_REPEAT_LIMIT,
    DEFAULT_USAGE_PURPOSE,
    Lifecycle,
    RuntimeConfig,
)
from .session import Session, SessionOptions

if TYPE_CHECKING:
    from ..usage.writer import UsageRecording

__all__ = ["Rho", "RhoBuilder"]


class Rho:
    """A configured runtime: makes sessions, and cancels their work on ``shutdown``."""

    __slots__ = ("_config", "_lifecycle")

    def __init__(self, config: RuntimeConfig) -> None:
        """Internal: use ``Rho.builder()``."""
        self._config = config
        self._lifecycle = Lifecycle()

    @staticmethod
    def builder() -> RhoBuilder:
        return RhoBuilder()

    @property
    def config(self) -> RuntimeConfig:
        return self._config

    def session(self, options: SessionOptions | None = None) -> Session:
        """Open a session (a new conversation unless ``options`` restore one).

        Raises:
            RuntimeShutdown: the runtime was shut down.
        """
        return Session._open(self._config, self._lifecycle, options or SessionOptions())

    def shutdown(self) -> int:
        """Refuse new sessions, runs and compactions and cancel the active ones (idempotent).

        Returns:
            How many operations were cancelled (0 on later calls).
        """
        return self._lifecycle.shutdown()

    @property
    def is_shut_down(self) -> bool:
        return self._lifecycle.shut_down

    @property
    def active_operations(self) -> int:
        """Runs and manual compactions currently registered."""
        return len(self._lifecycle)

    async def wait_idle(self) -> None:
        """Wait until every run worker of this runtime has finished (e.g. after ``shutdown``)."""
        await self._lifecycle.wait_idle()

    def __repr__(self) -> str:
        return f"Rho(provider={self._config.provider!r}, tools={list(self._config.tools)})"


class RhoBuilder:
    """Chained configuration of a ``Rho`` runtime; ``build()`` validates it."""

    def __init__(self) -> None:
        self._provider: ModelProvider | None = None
        self._tools: list[Tool] = []
        self._system_prompt: str | None = None
        self._event_capacity = DEFAULT_EVENT_CAPACITY
        self._max_steps = DEFAULT_MAX_STEPS
        self._repeat_limit = DEFAULT_REPEAT_LIMIT
        self._max_parallel_tools = DEFAULT_MAX_PARALLEL_TOOLS
        self._compactor: Compactor | None = None
        self._policy: CompactionPolicy | None = None
        self._reasoning_level = ReasoningLevel.MEDIUM
        self._service_tier: ServiceTier | None = None
        self._usage_purpose = DEFAULT_USAGE_PURPOSE
        self._usage_recording: UsageRecording | None = None
        self._workspace_path: str | None = None
        self._retry_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep

    def provider(self, provider: ModelProvider) -> RhoBuilder:
        self._provider = provider
        return self

    def tools(self, tools: Iterable[Tool]) -> RhoBuilder:
        """Add tools (their names must be unique)."""
        self._tools.extend(tools)
        return self

    def tool(self, tool: Tool) -> RhoBuilder:
        self._tools.append(tool)
        return self

    def system_prompt(self, text: str | None) -> RhoBuilder:
        """A custom system prompt for new sessions (``None``: no system prompt)."""
        self._system_prompt = text
        return self

    def event_capacity(self, capacity: int) -> RhoBuilder:
        """Bound of each run's event channel (backpressure beyond it)."""
        self._event_capacity = capacity
        return self

    def max_steps(self, steps: int) -> RhoBuilder:
        """Model steps per run before it completes with ``MaxSteps``."""
        self._max_steps = steps
        return self

    def repeat_limit(self, times: int) -> RhoBuilder:
        """Stop a run (``Repetition``) once the same tool call returns the same result this many
        times in it; 0 turns the guard off."""
        self._repeat_limit = times
        return self

    def max_parallel_tools(self, limit: int) -> RhoBuilder:
        self._max_parallel_tools = limit
        return self

    def compactor(self, compactor: Compactor | None) -> RhoBuilder:
        self._compactor = compactor
        return self

    def compaction_policy(self, policy: CompactionPolicy | None) -> RhoBuilder:
        self._policy = policy
        return self

    def reasoning_level(self, level: ReasoningLevel) -> RhoBuilder:
        self._reasoning_level = level
        return self

    def service_tier(self, tier: ServiceTier | None) -> RhoBuilder:
        self._service_tier = tier
        return self

    def usage_purpose(self, purpose: str) -> RhoBuilder:
        self._usage_purpose = purpose
        return self

    def usage_recorder(self, recording: UsageRecording | None) -> RhoBuilder:
        """Record every physical provider request there (failures become its diagnostics)."""
        self._usage_recording = recording
        return self

    def workspace_path(self, path: str | None) -> RhoBuilder:
        """The workspace the usage records and compaction requests name."""
        self._workspace_path = path
        return self

    def retry_sleep(self, sleep: Callable[[float], Awaitable[None]]) -> RhoBuilder:
        """How to wait between provider retries (seconds); tests pass a sleep that returns at once."""
        self._retry_sleep = sleep
        return self

    def build(self) -> Rho:
        """The runtime.

        Raises:
            InvalidConfiguration: no provider, a duplicate tool name, a zero limit, a policy
                without a compactor, or a blank usage purpose.
        """
        if self._provider is None:
            raise InvalidConfiguration("a model provider is required")
        registry: dict[str, Tool] = {}
        for tool in self._tools:
            name = tool.spec().name
            if name in registry:
                raise InvalidConfiguration(f"duplicate tool name '{name}'")
            registry[name] = tool
        for label, value in (
            ("event capacity", self._event_capacity),
            ("max steps", self._max_steps),
            ("max parallel tools", self._max_parallel_tools),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidConfiguration(f"{label} must be a nonzero count")
        if (
            isinstance(self._repeat_limit, bool)
            or not isinstance(self._repeat_limit, int)
            or self._repeat_limit < 0
        ):
            raise InvalidConfiguration("repeat limit must be a count (0: no limit)")
        if self._policy is not None and self._compactor is None:
            raise InvalidConfiguration("automatic compaction policy requires a compactor")
        if not self._usage_purpose.strip():
            raise InvalidConfiguration("usage purpose must not be empty")
        ordered = dict(sorted(registry.items()))
        config = RuntimeConfig(
            provider=self._provider,
            tools=MappingProxyType(ordered),
            tool_specs=tuple(t.spec() for t in ordered.values()),
            system_prompt=self._system_prompt,
            event_capacity=self._event_capacity,
            max_steps=self._max_steps,
            repeat_limit=self._repeat_limit,
            max_parallel_tools=self._max_parallel_tools,
            compactor=self._compactor,
            compaction_policy=self._policy,
            reasoning_level=self._reasoning_level,
            service_tier=self._service_tier,
            usage_purpose=self._usage_purpose,
            usage_recording=self._usage_recording,
            workspace_path=self._workspace_path,
            retry_sleep=self._retry_sleep,
            publish_live_history=any(t.reads_live_history for t in ordered.values()),
        )
        return Rho(config)
