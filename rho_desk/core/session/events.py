"""Run events and run outcomes: what a run streams to its host, and what it finally returns.

Events are plain in-memory values (no serialization contract), frozen ``msgspec.Struct`` classes
(several times cheaper to define than dataclasses: ``rho-desk continue`` defines them before its request)
named and ordered as upstream's ``RunEvent`` variants (spec/engine.md §11). Hosts match on them by class
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
from datetime import timedelta
from typing import Any

import msgspec

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
    OUTPUT_LIMIT = "OutputLimit"
    """rho-desk's own: the final answer was cut at the server's output limit (the provider said
    so: ``OutputLimited``); it is committed as written, and the outcome's detail says where."""


class RunOutcome(msgspec.Struct, frozen=True):
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


class ToolCallSuccess(msgspec.Struct, frozen=True):
    output: ToolOutput


class ToolCallFailure(msgspec.Struct, frozen=True):
    kind: ToolErrorKind
    message: str


class ToolCallUnavailable(msgspec.Struct, frozen=True):
    """The model called a tool that is not registered."""


ToolCallResult = ToolCallSuccess | ToolCallFailure | ToolCallUnavailable


# --- provider stream reset reasons ----------------------------------------------------------


class InvalidResponseReset(msgspec.Struct, frozen=True):
    """The provider's response failed protocol validation; it is requested again at once."""


class RetryableFailure(msgspec.Struct, frozen=True):
    kind: ProviderErrorKind


class RetryableFailureWithRetryAfter(msgspec.Struct, frozen=True):
    kind: ProviderErrorKind
    retry_after: timedelta
    """The provider's non-zero Retry-After (the engine waits at most 60 s)."""


ProviderStreamResetReason = InvalidResponseReset | RetryableFailure | RetryableFailureWithRetryAfter


# --- model call profile and metrics ---------------------------------------------------------


class ModelCallProfile(msgspec.Struct, frozen=True):
    provider: str
    model: str
    reasoning: ReasoningLevel
    service_tier: ServiceTier | None


class ModelCallMetrics(msgspec.Struct, frozen=True):
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


class Started(msgspec.Struct, RunEvent, frozen=True):
    """Always first. ``revision`` is the committed revision when the run began."""

    run_id: str
    revision: int


class StepStarted(msgspec.Struct, RunEvent, frozen=True):
    step: int
    """1-based model step."""


class AssistantTextDelta(msgspec.Struct, RunEvent, frozen=True):
    text: str


class ReasoningDelta(msgspec.Struct, RunEvent, frozen=True):
    """Raw reasoning: display only, never persisted anywhere."""

    text: str


class ReasoningSummaryDelta(msgspec.Struct, RunEvent, frozen=True):
    text: str


class ToolCallUpdated(msgspec.Struct, RunEvent, frozen=True):
    """A streamed tool-call fragment; id and name are filled from earlier fragments."""

    index: int
    id: str | None
    name: str | None
    arguments_delta: str


class ToolProposed(msgspec.Struct, RunEvent, frozen=True):
    call: ToolCall


class ToolStarted(msgspec.Struct, RunEvent, frozen=True):
    call_id: str
    name: str
    metadata: Mapping[str, Any] = msgspec.field(default_factory=dict)


class ToolUpdated(msgspec.Struct, RunEvent, frozen=True):
    call_id: str
    progress: ToolProgress


class ToolFinished(msgspec.Struct, RunEvent, frozen=True):
    """A call resolved. Not emitted for calls interrupted by cancellation."""

    call_id: str
    result: ToolCallResult


class UsageUpdated(msgspec.Struct, RunEvent, frozen=True):
    usage: ModelUsage
    """Run-accumulated usage plus the current attempt's usage so far."""


class ProviderActivity(msgspec.Struct, RunEvent, frozen=True):
    """Deprecated legacy dual-emit: ``web_search``, ``provider_request_retry``,
    ``invalid_response_retry``, ``model_call_generation_output_tokens``."""

    kind: str
    detail: str


class ProviderContextUpdated(msgspec.Struct, RunEvent, frozen=True):
    kind: str


class HostInputRequested(msgspec.Struct, RunEvent, frozen=True):
    """Legacy; never emitted."""

    request: Any


class CompactionStarted(msgspec.Struct, RunEvent, frozen=True):
    trigger: CompactionTrigger
    message_count: int


class CompactionCompleted(msgspec.Struct, RunEvent, frozen=True):
    """Emitted only after the replacement history is committed."""

    trigger: CompactionTrigger
    outcome: CompactionOutcome


class Completed(msgspec.Struct, RunEvent, frozen=True):
    outcome: RunOutcome


class Cancelled(msgspec.Struct, RunEvent, frozen=True):
    """Terminal: the cancellation commit produced ``revision``."""

    revision: int


class Failed(msgspec.Struct, RunEvent, frozen=True):
    """Terminal: the run failed and committed nothing new (seed contract).

    Carries no revision; read ``Session.revision`` (an automatic compaction earlier in the run
    may have committed).
    """

    message: str
    retryability: Retryability


class SteeringApplied(msgspec.Struct, RunEvent, frozen=True):
    ids: tuple[str, ...]


class ProviderDiagnostic(msgspec.Struct, RunEvent, frozen=True):
    """Bounded provider detail, right before ``Failed``: show it to the user only."""

    detail: str

    def __repr__(self) -> str:
        return "ProviderDiagnostic([redacted])"


class ProviderStreamReset(msgspec.Struct, RunEvent, frozen=True):
    """An attempt was abandoned before a retry: discard that attempt's displayed deltas."""

    reason: ProviderStreamResetReason
    detail: str


class ToolHostInputRequested(msgspec.Struct, RunEvent, frozen=True):
    """Never emitted by this port (host input from tools is out of scope)."""

    call_id: str
    request: Any


class WebSearch(msgspec.Struct, RunEvent, frozen=True):
    detail: str


class ProviderRequestRetry(msgspec.Struct, RunEvent, frozen=True):
    """A provider-internal physical request failed and was retried by the provider."""


class ModelCallCompleted(msgspec.Struct, RunEvent, frozen=True):
    profile: ModelCallProfile
    metrics: ModelCallMetrics


class HostedToolActivity(msgspec.Struct, RunEvent, frozen=True):
    name: str
    detail: str


class ProviderServiceTierFallback(msgspec.Struct, RunEvent, frozen=True):
    requested: ServiceTier
    used: str


class ContextEstimated(msgspec.Struct, RunEvent, frozen=True):
    """Immediately after every ``StepStarted``: the provider-neutral request estimate."""

    tokens: int
    calibrated: bool = False
    """Scaled to the served model's own token count (a server that counts: llama.cpp)."""
