"""The model-provider protocol: what the engine asks of a provider and what it streams back.

A provider turns a ``ModelRequest`` (history, tool specs, settings, a cancellation token) into
a final list of content blocks, streaming ``ModelEvent``s through an ``EventSink`` as it goes
(spec/engine.md §15.1, §8.5). Providers never mutate history. Real adapters live in
``rho_desk.providers``; this module has no network code.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import msgspec

from ..errors import Cancelled, ProviderError, ProviderErrorKind
from ..wire.model import ContentBlock, Message, ModelIdentity, ModelUsage, ToolSpec

if TYPE_CHECKING:
    from ..cancellation import CancellationToken

__all__ = [
    "CancellationMode",
    "EventSink",
    "ModelEvent",
    "ModelProvider",
    "ModelRequest",
    "OutputDelta",
    "OutputLimited",
    "ProviderContext",
    "ReasoningDelta",
    "ReasoningLevel",
    "ReasoningSummaryDelta",
    "RequestAttemptFailed",
    "ServedModel",
    "ServiceTier",
    "ToolCallDelta",
    "Usage",
    "WebSearch",
]


class CancellationMode(enum.Enum):
    EXTERNAL = "External"
    """The engine may abandon the call the moment the token fires (the default)."""
    COOPERATIVE = "Cooperative"
    """The engine waits; the callee watches the token and returns promptly."""


class ReasoningLevel(enum.Enum):
    OFF = "off"
    MINIMAL = "minimal"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    XHIGH = "xhigh"
    MAX = "max"

    @classmethod
    def parse(cls, text: str) -> ReasoningLevel:
        value = text.strip().lower()
        if value in ("", "none"):
            return cls.OFF
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(level.value for level in cls)
            raise ValueError(
                f"invalid reasoning level '{text}'; expected one of: {names}"
            ) from None


class ServiceTier(enum.Enum):
    PRIORITY = "priority"


# --- stream events (provider -> engine) ----------------------------------------------------


class OutputDelta(msgspec.Struct, frozen=True):
    text: str


class ReasoningDelta(msgspec.Struct, frozen=True):
    """Raw reasoning text: shown live, never persisted."""

    text: str


class ReasoningSummaryDelta(msgspec.Struct, frozen=True):
    text: str


class WebSearch(msgspec.Struct, frozen=True):
    detail: str


class ToolCallDelta(msgspec.Struct, frozen=True):
    """A fragment of a streamed tool call; ``index`` keys fragments of one call."""

    index: int
    id: str | None
    name: str | None
    arguments: str


class ProviderContext(msgspec.Struct, frozen=True):
    """Provider-native context to keep (tagged with the provider's identity by the engine).

    Three kinds are reserved carriers and never stored: ``hosted_tool_activity``,
    ``service_tier_fallback`` and ``rho_model_call_generation_output_tokens``.
    """

    kind: str
    position: int | None
    data: Any


class ServedModel(msgspec.Struct, frozen=True):
    """The model the server says answered (an OpenAI-compatible chunk's ``model``), sent once
    when it is not the model that was asked for: a local server answers with the model it has
    loaded whatever the request named. The reply's provenance records it."""

    name: str


class Usage(msgspec.Struct, frozen=True):
    usage: ModelUsage


class OutputLimited(msgspec.Struct, frozen=True):
    """The server cut the reply at its output limit (OpenAI's ``finish_reason: length``,
    Anthropic's ``max_tokens``): the text is what the model wrote before the cut. A final answer
    cut so ends its run with ``StopReason.OUTPUT_LIMIT`` and ``detail`` in words."""

    detail: str


class RequestAttemptFailed(msgspec.Struct, frozen=True):
    """A provider-internal physical request failed and was retried inside the provider."""

    kind: ProviderErrorKind
    usage: ModelUsage = msgspec.field(default_factory=ModelUsage)


ModelEvent: TypeAlias = (
    OutputDelta
    | ReasoningDelta
    | ReasoningSummaryDelta
    | WebSearch
    | ToolCallDelta
    | ProviderContext
    | Usage
    | RequestAttemptFailed
    | ServedModel
    | OutputLimited
)


class ModelRequest(msgspec.Struct, frozen=True):
    """One provider request. ``messages`` is the canonical history: adapters filter it."""

    messages: Sequence[Message]
    tools: Sequence[ToolSpec]
    cancellation: CancellationToken
    reasoning_level: ReasoningLevel = ReasoningLevel.MEDIUM
    prompt_cache_key: str | None = None
    service_tier: ServiceTier | None = None


class EventSink(Protocol):
    """Where a provider streams its events; ``send`` applies backpressure."""

    async def send(self, event: ModelEvent) -> None: ...


class ModelProvider(abc.ABC):
    """A model provider. Implement ``identity`` and ``send_turn`` or ``send_turn_stream``.

    ``repr`` of a provider must never show a credential.
    """

    cancellation_mode: CancellationMode = CancellationMode.EXTERNAL
    context_window: int | None = None
    """The model's context window in tokens, when known. The engine never sends a request whose
    estimate is larger: it compacts first when automatic compaction is configured, else the run
    fails with ``ContextWindowExceeded``."""

    @abc.abstractmethod
    def identity(self) -> ModelIdentity:
        """The exact identity used for provenance, context tagging and handoff."""

    async def count_tokens(self, text: str) -> int | None:
        """``text``'s length in the served model's own tokens, when the server can count them
        (llama.cpp's ``/tokenize``), else ``None`` (the default). Never raises; bounded in time.
        The engine calibrates its context estimate with it."""
        return None

    async def send_turn(self, request: ModelRequest) -> tuple[ContentBlock, ...]:
        """Non-streaming request; the final assistant content."""
        raise ProviderError(
            ProviderErrorKind.OTHER,
            f"{type(self).__name__} implements neither send_turn nor send_turn_stream",
        )

    async def send_turn_stream(
        self, request: ModelRequest, events: EventSink
    ) -> tuple[ContentBlock, ...]:
        """Streaming request. The default races ``send_turn`` against cancellation (an
        interrupted ``ProviderError`` if the token wins), then replays each Text block as an
        ``OutputDelta``."""
        try:
            from ..cancellation import (
                race,  # asyncio loads with the first request, not with the reader
            )

            content = await race(self.send_turn(request), request.cancellation)
        except Cancelled:
            raise ProviderError.interrupted("provider request cancelled") from None
        for block in content:
            if block.text is not None:
                await events.send(OutputDelta(block.text))
        return tuple(content)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.identity()})"
