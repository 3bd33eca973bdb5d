"""Scripted stand-ins for a model provider, a tool and a compactor (spec/engine.md §10.6, §15).

For tests, examples and the demo: everything here is deterministic and offline.

* ``ScriptedProvider``: answers requests from a FIFO of ``ScriptedTurn``s (completed,
  streaming, streaming then failing, failed, or streaming then waiting for cancellation) and
  records every request. A request whose token is already cancelled is rejected before it is
  recorded; every streamed event is preceded by a cancellation check.
* ``ScriptedTool``: reports scripted progress, then succeeds, fails, or waits for cancellation.
* ``ScriptedCompactor``: returns queued replacement histories in FIFO order.

A scripted stream may also hold *actions*: callables run at that point of the stream with the
request (sync or async), e.g. ``lambda request: request.cancellation.cancel()`` to cancel the
run after exactly the events before it.
"""

from __future__ import annotations

import asyncio
import inspect
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .cancellation import CancellationToken
from .compaction.api import CompactionOutput, CompactionRequest, Compactor
from .errors import Cancelled, InvalidHostResponse, ProviderError, ProviderErrorKind, Retryability
from .provider import (
    CancellationMode,
    EventSink,
    ModelEvent,
    ModelProvider,
    ModelRequest,
    OutputDelta,
    OutputLimited,
    ProviderContext,
    ReasoningDelta,
    ReasoningLevel,
    ReasoningSummaryDelta,
    RequestAttemptFailed,
    ServedModel,
    ServiceTier,
    ToolCallDelta,
    Usage,
    WebSearch,
)
from .tools import (
    EXCLUSIVE_ACCESS,
    PreparedCall,
    Tool,
    ToolAccess,
    ToolContext,
    ToolError,
    ToolErrorKind,
    ToolInvocation,
    ToolOutput,
    ToolProgress,
)
from .wire.model import ContentBlock, Message, ModelIdentity, ToolSpec

__all__ = [
    "SCRIPTED_IDENTITY",
    "RecordedRequest",
    "ScriptedCompactor",
    "ScriptedProvider",
    "ScriptedTool",
    "ScriptedTurn",
    "text_response",
    "tool_call_response",
]

SCRIPTED_IDENTITY = ModelIdentity("scripted", "scripted-api", "scripted-model")

StreamAction = Callable[[ModelRequest], "Awaitable[None] | None"]
"""A step of a scripted stream that is not an event: called with the request."""
_MODEL_EVENTS = (
    OutputDelta,
    ReasoningDelta,
    ReasoningSummaryDelta,
    WebSearch,
    ToolCallDelta,
    ProviderContext,
    Usage,
    RequestAttemptFailed,
    ServedModel,
    OutputLimited,
)


def text_response(text: str) -> tuple[ContentBlock, ...]:
    """``[Text(text)]``: the content of a plain final answer."""
    return (ContentBlock(text=text),)


def tool_call_response(
    *calls: tuple[str, str, Any], text: str | None = None
) -> tuple[ContentBlock, ...]:
    """Content with an optional leading text and ``(id, name, arguments)`` tool calls."""
    blocks = [ContentBlock(text=text)] if text is not None else []
    blocks.extend(ContentBlock.of_tool_call(i, n, a) for i, n, a in calls)
    return tuple(blocks)


@dataclass(frozen=True, slots=True)
class ScriptedTurn:
    """One scripted provider answer."""

    events: tuple[ModelEvent | StreamAction, ...] = ()
    content: tuple[ContentBlock, ...] | None = None
    """The final content (for completed and streaming turns)."""
    error: ProviderError | None = None
    """The failure (for failed turns); raised after the events."""
    wait_for_cancellation: bool = False
    """After the events, wait until the request's token fires, then fail as cancelled."""

    @classmethod
    def completed(cls, content: Sequence[ContentBlock] | str) -> ScriptedTurn:
        """Answer at once (a string means one Text block)."""
        return cls(content=_content(content))

    @classmethod
    def streaming(
        cls, events: Iterable[ModelEvent | StreamAction], content: Sequence[ContentBlock] | str
    ) -> ScriptedTurn:
        return cls(events=tuple(events), content=_content(content))

    @classmethod
    def streaming_failed(
        cls, events: Iterable[ModelEvent | StreamAction], error: ProviderError
    ) -> ScriptedTurn:
        return cls(events=tuple(events), error=error)

    @classmethod
    def failed(cls, error: ProviderError) -> ScriptedTurn:
        return cls(error=error)

    @classmethod
    def pending(cls, events: Iterable[ModelEvent | StreamAction] = ()) -> ScriptedTurn:
        """Stream ``events``, then hang until cancelled (for cancellation tests)."""
        return cls(events=tuple(events), wait_for_cancellation=True)


def _content(content: Sequence[ContentBlock] | str) -> tuple[ContentBlock, ...]:
    return text_response(content) if isinstance(content, str) else tuple(content)


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """What the scripted provider saw of one request."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    reasoning_level: ReasoningLevel
    service_tier: ServiceTier | None
    prompt_cache_key: str | None


def _cancelled_request() -> ProviderError:
    return ProviderError.interrupted("provider request cancelled")


class ScriptedProvider(ModelProvider):
    """A provider answering from a FIFO of ``ScriptedTurn``s and recording every request.

    Args:
        turns: the answers, in order.
        identity: the identity it reports (provenance, context tagging).
        cancellation_mode: ``External`` (default) or ``Cooperative``.
    """

    def __init__(
        self,
        turns: Iterable[ScriptedTurn] = (),
        *,
        identity: ModelIdentity = SCRIPTED_IDENTITY,
        cancellation_mode: CancellationMode = CancellationMode.EXTERNAL,
    ) -> None:
        self.turns: deque[ScriptedTurn] = deque(turns)
        self.requests: list[RecordedRequest] = []
        self.events_sent = 0
        """Stream events delivered to the engine so far (all turns)."""
        self._identity = identity
        self.cancellation_mode = cancellation_mode

    def identity(self) -> ModelIdentity:
        return self._identity

    def push(self, *turns: ScriptedTurn) -> ScriptedProvider:
        self.turns.extend(turns)
        return self

    def _begin(self, request: ModelRequest) -> ScriptedTurn:
        if request.cancellation.cancelled:
            raise _cancelled_request()
        self.requests.append(
            RecordedRequest(
                tuple(request.messages),
                tuple(request.tools),
                request.reasoning_level,
                request.service_tier,
                request.prompt_cache_key,
            )
        )
        if not self.turns:
            raise ProviderError(
                ProviderErrorKind.INVALID_RESPONSE,
                "scripted provider has no remaining turn",
                Retryability.PERMANENT,
            )
        return self.turns.popleft()

    async def send_turn(self, request: ModelRequest) -> tuple[ContentBlock, ...]:
        turn = self._begin(request)
        for item in turn.events:
            if not isinstance(item, _MODEL_EVENTS):
                await _act(item, request)
        return await self._finish(turn, request)

    async def send_turn_stream(
        self, request: ModelRequest, events: EventSink
    ) -> tuple[ContentBlock, ...]:
        turn = self._begin(request)
        token = request.cancellation
        for item in turn.events:
            if token.cancelled:
                raise _cancelled_request()
            if isinstance(item, _MODEL_EVENTS):
                await events.send(item)
                self.events_sent += 1
            else:
                await _act(item, request)
        return await self._finish(turn, request)

    async def _finish(self, turn: ScriptedTurn, request: ModelRequest) -> tuple[ContentBlock, ...]:
        if turn.wait_for_cancellation:
            await request.cancellation.wait()
            raise _cancelled_request()
        if request.cancellation.cancelled:
            raise _cancelled_request()
        if turn.error is not None:
            raise turn.error
        assert turn.content is not None
        return turn.content

    def __repr__(self) -> str:
        return f"ScriptedProvider({self._identity}, {len(self.turns)} turns left)"


async def _act(action: Any, request: ModelRequest) -> None:
    result = action(request)
    if inspect.isawaitable(result):
        await result


class ScriptedTool(Tool):
    """A tool with a scripted outcome: success, failure, or waiting for cancellation.

    Args:
        name: tool name (the spec has a generic description and an object schema).
        outcome: a ``ToolOutput`` (or a string: its content), a ``ToolError``, or ``None`` to
            wait until the run is cancelled (then it fails as cancelled).
        progress: progress reports sent before the outcome.
        access: how calls may overlap (exclusive by default).
        delay: seconds to sleep before the outcome (simulated work).
        prepare_error: if set, preparation fails with it (the call never executes).
    """

    def __init__(
        self,
        name: str,
        outcome: ToolOutput | ToolError | str | None = "ok",
        *,
        progress: Iterable[ToolProgress | str] = (),
        access: ToolAccess = EXCLUSIVE_ACCESS,
        delay: float = 0.0,
        prepare_error: ToolError | None = None,
        reads_live_history: bool = False,
        description: str = "a scripted tool",
        input_schema: Any = None,
    ) -> None:
        self._spec = ToolSpec(
            name, description, input_schema if input_schema is not None else {"type": "object"}
        )
        self.outcome = ToolOutput(outcome) if isinstance(outcome, str) else outcome
        self.progress = tuple(ToolProgress(p) if isinstance(p, str) else p for p in progress)
        self.access = access
        self.delay = delay
        self.prepare_error = prepare_error
        self.reads_live_history = reads_live_history
        self.invocations: list[ToolInvocation] = []
        self.live_histories: list[tuple[Message, ...]] = []
        self.running = 0
        """Calls executing right now (to observe parallelism)."""
        self.peak_running = 0

    @classmethod
    def failing(
        cls, name: str, message: str, kind: ToolErrorKind = ToolErrorKind.EXECUTION
    ) -> ScriptedTool:
        return cls(name, ToolError(kind, message))

    @classmethod
    def waiting(cls, name: str) -> ScriptedTool:
        """Runs until the run is cancelled."""
        return cls(name, None)

    def spec(self) -> ToolSpec:
        return self._spec

    async def prepare(self, invocation: ToolInvocation, context: ToolContext) -> PreparedCall:
        if self.prepare_error is not None:
            raise self.prepare_error
        return PreparedCall(
            self.access, lambda ctx: self.call(invocation, ctx), {"tool": invocation.name}
        )

    async def call(self, invocation: ToolInvocation, context: ToolContext) -> ToolOutput:
        self.invocations.append(invocation)
        if self.reads_live_history:
            self.live_histories.append(context.live_history())
        self.running += 1
        self.peak_running = max(self.peak_running, self.running)
        try:
            for item in self.progress:
                await context.report(item)
            if self.delay:
                await asyncio.sleep(self.delay)
            outcome = self.outcome
            if outcome is None:
                await context.cancellation.wait()
                raise ToolError.cancelled()
            if isinstance(outcome, ToolError):
                raise outcome
            return outcome
        finally:
            self.running -= 1


class ScriptedCompactor(Compactor):
    """Returns queued replacement histories in FIFO order and records every request.

    Fails with ``Cancelled`` when the request's token is already cancelled, and with
    ``InvalidHostResponse("scripted compactor has no remaining output")`` when exhausted.
    """

    def __init__(
        self,
        outputs: Iterable[CompactionOutput | Sequence[Message]] = (),
        *,
        cancellation_mode: CancellationMode = CancellationMode.EXTERNAL,
        wait: Callable[[CancellationToken], Awaitable[None]] | None = None,
    ) -> None:
        self.outputs: deque[CompactionOutput] = deque(
            o if isinstance(o, CompactionOutput) else CompactionOutput(o) for o in outputs
        )
        self.requests: list[CompactionRequest] = []
        self.cancellation_mode = cancellation_mode
        self._failure: ProviderError | None = None
        self._wait = wait

    @classmethod
    def failing(cls, message: str) -> ScriptedCompactor:
        """A compactor whose next call fails with a permanent ``ProviderError`` (kind Other)."""
        compactor = cls()
        compactor._failure = ProviderError(ProviderErrorKind.OTHER, message, Retryability.PERMANENT)
        return compactor

    def push(self, *outputs: CompactionOutput | Sequence[Message]) -> ScriptedCompactor:
        self.outputs.extend(
            o if isinstance(o, CompactionOutput) else CompactionOutput(o) for o in outputs
        )
        return self

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        self.requests.append(request)
        if self._wait is not None:
            await self._wait(request.cancellation)
        if request.cancellation.cancelled:
            raise Cancelled()
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        if not self.outputs:
            raise InvalidHostResponse("scripted compactor has no remaining output")
        return self.outputs.popleft()

    def __repr__(self) -> str:
        return f"ScriptedCompactor({len(self.outputs)} outputs left)"
