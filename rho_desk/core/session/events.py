"""Run events and run outcomes: what a run streams to its host, and what it finally returns.

Events are plain in-memory values (no serialization contract), frozen dataclasses named and
ordered as upstream's ``RunEvent`` variants (spec/engine.md §11). Hosts match on them by class
and must ignore classes they do not know. Several names (``ReasoningDelta``, ``WebSearch``,
``Cancelled``) also exist elsewhere (provider stream events, the ``Cancelled`` error), so hosts
import this module as a namespace::

    from rho_desk.core import events as ev

    async for event in run:
        match event:
            case ev.AssistantTextDelta(text=text): ...
            case ev.Cancelled(revision=revision): ...

Ordering guarantees (§11.1): ``Started`` first; per step [``SteeringApplied``]
[``CompactionStarted`` ``CompactionCompleted``] ``StepStarted`` ``ContextEstimated``, provider
events in arrival order, ``ModelCallCompleted``; then the tool phase (every ``ToolProposed`` in
model order, then per call ``ToolStarted`` ``ToolUpdated``* ``ToolFinished``); at most one
terminal event (``Completed`` | ``Cancelled`` | ``Failed``), last, optionally preceded by
``ProviderDiagnostic``. Terminal delivery is best effort; ``Run.outcome()`` is authoritative.

``HostInputRequested`` and ``ToolHostInputRequested`` exist for completeness but are never
produced: host-input requests from tools are out of scope in this port.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from ..compaction.api import CompactionOutcome, CompactionTrigger
from ..errors import ProviderErrorKind, Retryability
from ..provider import ReasoningLevel, ServiceTier
from ..tools import ToolErrorKind, ToolOutput, ToolProgress
from ..wire.model import ContentBlock, ModelUsage, ToolCall

__all__ = [
    "AssistantTextDelta",
    "Cancelled",
    "CompactionCompleted",
    "CompactionStarted",
    "Completed",
    "ContextEstimated",
    "Failed",
    "HostInputRequested",
    "HostedToolActivity",
    "InvalidResponseReset",
    "ModelCallCompleted",
    "ModelCallMetrics",
    "ModelCallProfile",
    "ProviderActivity",
    "ProviderContextUpdated",
    "ProviderDiagnostic",
    "ProviderRequestRetry",
    "ProviderServiceTierFallback",
    "ProviderStreamReset",
    "ProviderStreamResetReason",
    "ReasoningDelta",
    "ReasoningSummaryDelta",
    "RetryableFailure",
    "RetryableFailureWithRetryAfter",
    "RunEvent",
    "RunOutcome",
    "Started",
    "SteeringApplied",
    "StepStarted",
    "StopReason",
    "ToolCallFailure",
    "ToolCallResult",
    "ToolCallSuccess",
    "ToolCallUnavailable",
    "ToolCallUpdated",
    "ToolFinished",
    "ToolHostInputRequested",
    "ToolProposed",
    "ToolStarted",
    "ToolUpdated",
    "UsageUpdated",
    "WebSearch",
]

_EMPTY: Mapping[str, Any] = {}


class StopReason(enum.Enum):
    """Why a successful run stopped."""

    END_TURN = "EndTurn"
    """The model gave a final answer (no tool calls, no pending steering)."""
    MAX_STEPS = "MaxSteps"
    """The step budget ran out; what the run did so far is committed."""
    REPETITION = "Repetition"
    """rho-desk's own: the same tool call returned the same result ``repeat_limit`` times in the
    run (a model in a loop); what the run did so far is committed, as for ``MaxSteps``."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What a successful run returns (and what ``Completed`` carries)."""

    content: tuple[ContentBlock, ...]
    """The final assistant's content (``EndTurn``), or the newest completed assistant's content
    in the committed history (``MaxSteps``; may hold only tool calls)."""
    usage: ModelUsage
    """Sum over the steps of each step's successful provider attempt (retries excluded)."""
    stop_reason: StopReason
    revision: int
    """The revision of the run's final commit."""
    detail: str = ""
    """Why the run stopped early, for a person (empty for ``EndTurn``)."""

    @property
    def text(self) -> str:
        """The Text blocks of ``content`` concatenated in order, without separator."""
        return "".join(b.text for b in self.content if b.text is not None)


# --- tool results as reported by ToolFinished ----------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolCallSuccess:
    output: ToolOutput


@dataclass(frozen=True, slots=True)
class ToolCallFailure:
    kind: ToolErrorKind
    message: str


@dataclass(frozen=True, slots=True)
class ToolCallUnavailable:
    """The model called a tool that is not registered."""


ToolCallResult = ToolCallSuccess | ToolCallFailure | ToolCallUnavailable


# --- provider stream reset reasons ----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InvalidResponseReset:
    """The provider's response failed protocol validation; it is requested again at once."""


@dataclass(frozen=True, slots=True)
class RetryableFailure:
    kind: ProviderErrorKind


@dataclass(frozen=True, slots=True)
class RetryableFailureWithRetryAfter:
    kind: ProviderErrorKind
    retry_after: timedelta
    """The provider's non-zero Retry-After (the engine waits at most 60 s)."""


ProviderStreamResetReason = InvalidResponseReset | RetryableFailure | RetryableFailureWithRetryAfter


# --- model call profile and metrics ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ModelCallProfile:
    provider: str
    model: str
    reasoning: ReasoningLevel
    service_tier: ServiceTier | None


@dataclass(frozen=True, slots=True)
class ModelCallMetrics:
    """Timing of one successful provider call, from the engine's observation of its events.

    Times are seconds. Rates are absent when output tokens are unknown or the window is zero.
    """

    output_tokens: int | None
    time_to_first_token: float | None
    generation_time: float | None
    total_latency: float
    generation_tokens_per_second: float | None
    response_tokens_per_second: float | None


# --- the events, in upstream's declaration order --------------------------------------------


class RunEvent:
    """Base class of every run event. Hosts must ignore subclasses they do not know."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Started(RunEvent):
    """Always first. ``revision`` is the committed revision when the run began."""

    run_id: str
    revision: int


@dataclass(frozen=True, slots=True)
class StepStarted(RunEvent):
    step: int
    """1-based model step."""


@dataclass(frozen=True, slots=True)
class AssistantTextDelta(RunEvent):
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta(RunEvent):
    """Raw reasoning: display only, never persisted anywhere."""

    text: str


@dataclass(frozen=True, slots=True)
class ReasoningSummaryDelta(RunEvent):
    text: str


@dataclass(frozen=True, slots=True)
class ToolCallUpdated(RunEvent):
    """A streamed tool-call fragment; id and name are filled from earlier fragments."""

    index: int
    id: str | None
    name: str | None
    arguments_delta: str


@dataclass(frozen=True, slots=True)
class ToolProposed(RunEvent):
    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolStarted(RunEvent):
    call_id: str
    name: str
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolUpdated(RunEvent):
    call_id: str
    progress: ToolProgress


@dataclass(frozen=True, slots=True)
class ToolFinished(RunEvent):
    """A call resolved. Not emitted for calls interrupted by cancellation."""

    call_id: str
    result: ToolCallResult


@dataclass(frozen=True, slots=True)
class UsageUpdated(RunEvent):
    usage: ModelUsage
    """Run-accumulated usage plus the current attempt's usage so far."""


@dataclass(frozen=True, slots=True)
class ProviderActivity(RunEvent):
    """Deprecated legacy dual-emit: ``web_search``, ``provider_request_retry``,
    ``invalid_response_retry``, ``model_call_generation_output_tokens``."""

    kind: str
    detail: str


@dataclass(frozen=True, slots=True)
class ProviderContextUpdated(RunEvent):
    kind: str


@dataclass(frozen=True, slots=True)
class HostInputRequested(RunEvent):
    """Legacy; never emitted."""

    request: Any


@dataclass(frozen=True, slots=True)
class CompactionStarted(RunEvent):
    trigger: CompactionTrigger
    message_count: int


@dataclass(frozen=True, slots=True)
class CompactionCompleted(RunEvent):
    """Emitted only after the replacement history is committed."""

    trigger: CompactionTrigger
    outcome: CompactionOutcome


@dataclass(frozen=True, slots=True)
class Completed(RunEvent):
    outcome: RunOutcome


@dataclass(frozen=True, slots=True)
class Cancelled(RunEvent):
    """Terminal: the cancellation commit produced ``revision``."""

    revision: int


@dataclass(frozen=True, slots=True)
class Failed(RunEvent):
    """Terminal: the run failed and committed nothing new (seed contract).

    Carries no revision; read ``Session.revision`` (an automatic compaction earlier in the run
    may have committed).
    """

    message: str
    retryability: Retryability


@dataclass(frozen=True, slots=True)
class SteeringApplied(RunEvent):
    ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ProviderDiagnostic(RunEvent):
    """Bounded provider detail, right before ``Failed``: show it to the user only."""

    detail: str

    def __repr__(self) -> str:
        return "ProviderDiagnostic([redacted])"


@dataclass(frozen=True, slots=True)
class ProviderStreamReset(RunEvent):
    """An attempt was abandoned before a retry: discard that attempt's displayed deltas."""

    reason: ProviderStreamResetReason
    detail: str


@dataclass(frozen=True, slots=True)
class ToolHostInputRequested(RunEvent):
    """Never emitted by this port (host input from tools is out of scope)."""

    call_id: str
    request: Any


@dataclass(frozen=True, slots=True)
class WebSearch(RunEvent):
    detail: str


@dataclass(frozen=True, slots=True)
class ProviderRequestRetry(RunEvent):
    """A provider-internal physical request failed and was retried by the provider."""


@dataclass(frozen=True, slots=True)
class ModelCallCompleted(RunEvent):
    profile: ModelCallProfile
    metrics: ModelCallMetrics


@dataclass(frozen=True, slots=True)
class HostedToolActivity(RunEvent):
    name: str
    detail: str


@dataclass(frozen=True, slots=True)
class ProviderServiceTierFallback(RunEvent):
    requested: ServiceTier
    used: str


@dataclass(frozen=True, slots=True)
class ContextEstimated(RunEvent):
    """Immediately after every ``StepStarted``: the provider-neutral request estimate."""

    tokens: int
    calibrated: bool = False
    """Scaled to the served model's own token count (a server that counts: llama.cpp)."""
