"""Runs: the model loop of one user turn, its handle, and the history commit contract.

``Session.start`` returns a ``Run`` at once and spawns a worker task running ``RunWorker``:
the user message is appended to a private *candidate* history, then model steps run (steering,
automatic compaction, the provider request with validation and retries, tool batches) until
a final answer or the step budget. The candidate becomes committed history only at a commit
point (spec/engine.md §8, §9; the seed's table):

==============================================  ==========================================
outcome                                          history
==============================================  ==========================================
final answer (``EndTurn``) / step budget        commit the candidate (+1): user message,
(``MaxSteps``)                                  steps, tool results, steering, answer
cooperative cancellation                        commit the candidate plus an
                                                ``AbortedAssistant`` when the interrupted
                                                provider call captured anything (+1), then
                                                ``Cancelled``
fatal provider, policy, event-delivery or run   **commit nothing** of the candidate (the
error                                           seed; upstream now commits here, we do not)
dropped run handle (``Run.close``)              nothing guaranteed
==============================================  ==========================================

An automatic compaction commits on its own, at once, and stays committed whatever happens
later in the run. Raw streamed reasoning is never committed.

Speed: provider events reach the host without a second queue. The provider streams into a
sink that updates the capture and puts the mapped run event straight into the bounded event
channel (``put`` without suspending while there is room); each provider call is one sub-task
raced against the cancellation token; no task is created per event.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, NoReturn

from ..cancellation import CancellationToken, race
from ..compaction.api import (
    CompactionOutcome,
    CompactionOutput,
    CompactionRequest,
    CompactionTrigger,
    Compactor,
)
from ..compaction.tokens import (
    REQUEST_OVERHEAD,
    TOOL_SCHEMA_OVERHEAD,
    estimate_messages_tokens,
    estimate_text_tokens,
    json_tokens,
    message_tokens,
)
from ..errors import (
    Cancelled,
    ContextWindowExceeded,
    EngineError,
    Interrupted,
    InvalidHostResponse,
    PersistenceError,
    ProviderError,
    ProviderErrorKind,
    Retryability,
)
from ..provider import (
    CancellationMode,
    ModelRequest,
    OutputDelta,
    OutputLimited,
    ProviderContext,
    ReasoningDelta,
    ReasoningSummaryDelta,
    RequestAttemptFailed,
    ServedModel,
    ServiceTier,
    ToolCallDelta,
    Usage,
    WebSearch,
)
from ..wire.codec import encode
from ..wire.model import (
    U64_MAX,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelUsage,
    ToolCall,
    ToolSpec,
)
from ..wire.snapshot import SessionSnapshot
from . import events as ev
from .capture import StreamCapture
from .channel import END, EventChannel
from .state import SessionCore, SessionState
from .steering import (
    Command,
    CommandKind,
    CommandQueue,
    SteeringId,
    SteeringQueue,
    SteeringRetraction,
)
from .tool_batch import ToolBatch
from .user_input import UserInput, as_blocks

if TYPE_CHECKING:
    from ..usage.writer import RequestOutcome

__all__ = [
    "MAX_MALFORMED_RESPONSES",
    "MAX_PROVIDER_ATTEMPTS",
    "MAX_RETRY_AFTER",
    "Run",
    "RunWorker",
    "protocol_issue",
]

MAX_PROVIDER_ATTEMPTS = 4
"""Logical provider requests per model step (failed and malformed ones share the budget)."""
MAX_MALFORMED_RESPONSES = 2
RETRY_BASE_SECONDS = 1.0
MAX_RETRY_AFTER = 60.0
"""A provider's Retry-After is honoured up to this many seconds."""

_EMPTY_USAGE = ModelUsage()
_RUN_TIME: Final = re.compile(r"(?m)^time: \d+(?:\.\d+)?s\b")
"""The run time the shell tool's result ends with (``time: 0.4s  exit code: 0``): two runs of the
same command with the same output are the same result to the repetition guard."""
_GENERATION_TOKENS = "rho_model_call_generation_output_tokens"
_HOSTED_TOOL = "hosted_tool_activity"
_TIER_FALLBACK = "service_tier_fallback"


def protocol_issue(blocks: Sequence[ContentBlock]) -> str | None:
    """Why a provider response is malformed (spec/engine.md §8.4), or ``None`` if it is valid."""
    if not blocks:
        return "provider returned an empty assistant response"
    issues: list[str] = []
    seen: set[str] = set()
    for i, block in enumerate(blocks):
        call = block.tool_call
        if call is None:
            continue
        if not call.id:
            issues.append(f"tool call {i} has an empty id")
        elif call.id in seen:
            issues.append(f"duplicate tool call id '{call.id}'")
        seen.add(call.id)
        if not call.name:
            issues.append(f"tool call {i} has an empty name")
        if not isinstance(call.arguments, dict):
            issues.append(f"tool call {i} arguments are not a JSON object")
    if issues:
        return "provider returned a malformed assistant response: " + "; ".join(issues)
    return None


def _as_provider_error(exc: BaseException) -> ProviderError:
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, asyncio.CancelledError):
        return ProviderError.interrupted("provider request cancelled")
    if isinstance(exc, EngineError):
        return ProviderError.interrupted(str(exc))
    # Not a typed provider failure: name the type only, since a foreign exception's text may
    # carry request details (URLs, headers) that must not reach history, events or logs.
    error = ProviderError(
        ProviderErrorKind.OTHER, f"provider raised {type(exc).__name__}", Retryability.PERMANENT
    )
    error.__cause__ = exc
    return error


def _after_first_failure(
    error: ProviderError, first: ProviderError, attempts: int
) -> ProviderError:
    """The error a step gives up with, saying first how its first attempt failed when that was
    something else: a reply that broke off mid-stream, then a server that no longer answers, is
    "the connection … was lost mid-reply; 3 more attempts failed, the last: could not connect",
    not "could not connect" alone. Kind, retryability and diagnostic are the last error's."""
    if first is error or first.message == error.message:
        return error
    more = attempts - 1
    return ProviderError(
        error.kind,
        f"{first.message}; {more} more attempt{'s' if more != 1 else ''} failed, the last: {error.message}",
        error.retryability,
        diagnostic=error.diagnostic,
        retry_after=error.retry_after,
    )


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Done callback for abandoned tasks: read the outcome so asyncio does not log it."""
    if not task.cancelled():
        task.exception()


class _ContextEstimate:
    """``estimate_context_tokens`` for one run, remembering each message's estimate.

    A run estimates its whole candidate at every step (``ContextEstimated``, the token
    policy); messages are immutable and mostly the same from step to step, so each is counted
    once. Entries keep their message alive, so an ``id`` is never reused while cached.
    """

    __slots__ = ("_cache", "_tools", "calibrated", "scale")

    def __init__(self, specs: Sequence[ToolSpec]) -> None:
        self._tools = sum(TOOL_SCHEMA_OVERHEAD + json_tokens(s) for s in specs)
        self._cache: dict[int, tuple[Message, int]] = {}
        self.scale = 1.0
        """The served model's tokens per estimated token (:meth:`Run._calibrate`); 1 when unknown."""
        self.calibrated = False

    def messages(self, messages: Sequence[Message]) -> int:
        cache = self._cache
        total = 0
        for message in messages:
            hit = cache.get(id(message))
            if hit is None:
                hit = cache[id(message)] = (message, message_tokens(message))
            total += hit[1]
        return min(total, U64_MAX)

    def context(self, messages: Sequence[Message]) -> int:
        raw = REQUEST_OVERHEAD + self.messages(messages) + self._tools
        return min(raw if not self.calibrated else round(raw * self.scale), U64_MAX)


CALIBRATION_SAMPLE: Final = 64 * 1024
"""Characters of a request's text (the tools' schemas, then the history's) a run sends to the
server's tokenizer, at most."""


def _sample_text(messages: Sequence[Message], specs: Sequence[ToolSpec]) -> str:
    """What a request mostly is, as text: the tools' schemas (compact JSON), then the plain text of
    the most recent ``messages`` in their order; at most :data:`CALIBRATION_SAMPLE` characters."""
    tools = encode(list(specs)).decode("utf-8") if specs else ""
    parts: list[str] = [tools] if tools else []
    size = len(tools)
    for message in reversed(messages):
        if message.system is not None:
            text = message.system
        elif message.tool_result is not None:
            text = message.tool_result.content
        else:
            text = "\n".join(b.text for b in message.content if b.text is not None)
        parts.append(text)
        size += len(text)
        if size >= CALIBRATION_SAMPLE:
            break
    return "\n".join(parts[:1] + parts[:0:-1] if tools else parts[::-1])[:CALIBRATION_SAMPLE]


class _Sink:
    """The ``EventSink`` of one provider call: capture first, then emit the mapped run event."""

    __slots__ = (
        "_channel",
        "_token",
        "_wake",
        "_worker",
        "capture",
        "closed",
        "cooperative",
        "emit_error",
        "emitting",
        "first_generated",
        "generation_tokens",
        "generation_tokens_seen",
        "started",
    )

    def __init__(self, worker: RunWorker, capture: StreamCapture, wake: Any) -> None:
        self._worker = worker
        self._channel = worker.channel
        self._token = worker.token
        self.cooperative = worker.core.provider.cancellation_mode is CancellationMode.COOPERATIVE
        self._wake = wake
        self.capture = capture
        self.emitting = True
        """False once the call is being cancelled: events are captured, not emitted."""
        self.closed = False
        """True once the call is over: late events are refused."""
        self.emit_error: EngineError | None = None
        self.started = time.perf_counter()
        self.first_generated: float | None = None
        self.generation_tokens: int | None = None
        self.generation_tokens_seen = False

    async def send(self, event: Any) -> None:
        if self.closed:
            raise ProviderError.interrupted("provider request cancelled")
        capture = self.capture
        kind = type(event)
        second: ev.RunEvent | None = None
        if kind is OutputDelta:
            text = event.text
            capture.text(text)
            if text and self.first_generated is None:
                self.first_generated = time.perf_counter()
            out: ev.RunEvent = ev.AssistantTextDelta(text)
        elif kind is ToolCallDelta:
            known_id, known_name = capture.tool_call(
                event.index, event.id, event.name, event.arguments
            )
            if self.first_generated is None:
                self.first_generated = time.perf_counter()
            out = ev.ToolCallUpdated(event.index, known_id, known_name, event.arguments)
        elif kind is ReasoningDelta:
            capture.reasoning()
            if event.text and self.first_generated is None:
                self.first_generated = time.perf_counter()
            out = ev.ReasoningDelta(event.text)
        elif kind is ReasoningSummaryDelta:
            capture.reasoning_summary(event.text)
            if event.text and self.first_generated is None:
                self.first_generated = time.perf_counter()
            out = ev.ReasoningSummaryDelta(event.text)
        elif kind is Usage:
            capture.add_usage(event.usage)
            out = ev.UsageUpdated(self._worker.usage.saturating_add(capture.usage))
        elif kind is WebSearch:
            out = ev.WebSearch(event.detail)
            second = ev.ProviderActivity("web_search", event.detail)
        elif kind is ProviderContext:
            mapped = self._context(event)
            if mapped is None:
                return
            out = mapped
        elif kind is ServedModel:
            capture.served(event.name)
            return
        elif kind is OutputLimited:
            capture.limited = event.detail
            out = ev.ProviderActivity("output_limit", event.detail)
        elif kind is RequestAttemptFailed:
            await self._worker.record_request(capture.usage.saturating_add(event.usage), "failed")
            capture.reset_usage()
            self.started = time.perf_counter()
            self.first_generated = None
            out = ev.ProviderRequestRetry()
            second = ev.ProviderActivity(
                "provider_request_retry", "retrying after a failed physical provider request"
            )
        else:
            raise TypeError(f"not a ModelEvent: {kind.__name__}")
        if self.emitting:
            if not self._channel.try_send(out):
                await self._emit_slow(out)
            if second is not None and self.emitting and not self._channel.try_send(second):
                await self._emit_slow(second)

    def _context(self, event: ProviderContext) -> ev.RunEvent | None:
        data = event.data
        kind = event.kind
        if kind == _HOSTED_TOOL:
            name = data.get("name") if isinstance(data, dict) else None
            detail = data.get("detail") if isinstance(data, dict) else None
            return ev.HostedToolActivity(
                name if isinstance(name, str) else "unknown",
                detail if isinstance(detail, str) else "",
            )
        if kind == _TIER_FALLBACK:
            used = data.get("used") if isinstance(data, dict) else None
            return ev.ProviderServiceTierFallback(
                ServiceTier.PRIORITY, used if isinstance(used, str) else "unknown"
            )
        if kind == _GENERATION_TOKENS:
            tokens = data.get("tokens") if isinstance(data, dict) else None
            valid = isinstance(tokens, int) and not isinstance(tokens, bool) and tokens >= 0
            self.generation_tokens = tokens if valid else None
            self.generation_tokens_seen = True
            return None
        self.capture.provider_context(kind, event.position, data)
        return ev.ProviderContextUpdated(kind)

    async def _emit_slow(self, event: ev.RunEvent) -> None:
        try:
            await self._channel.send(event, self._token)
        except (Cancelled, Interrupted) as error:
            self.emit_error = error
            self.emitting = False
            if self.cooperative and isinstance(error, Cancelled):
                return  # a cooperative provider keeps streaming into the capture until it stops
            self._wake()
            raise ProviderError.interrupted(str(error)) from None


class RunWorker:
    """The body of one run (spawned as a task by ``Session.start``)."""

    def __init__(
        self,
        core: SessionCore,
        *,
        run_id: str,
        token: CancellationToken,
        channel: EventChannel,
        commands: CommandQueue,
        blocks: tuple[ContentBlock, ...],
        host_call: ToolCall | None = None,
    ) -> None:
        self.core = core
        self.config = core.config
        self.run_id = run_id
        self.token = token
        self.channel = channel
        self.commands = commands
        self.blocks = blocks
        self.host_call = host_call
        self.steering = SteeringQueue()
        self.candidate: list[Message] = []
        self.usage = _EMPTY_USAGE
        """Sum of each finished step's successful attempt usage."""
        self.cancel_capture: StreamCapture | None = None
        """The interrupted provider call's capture, for the cancellation commit."""
        self.estimate = _ContextEstimate(self.config.tool_specs)
        self._seen_calls: dict[tuple[str, str, bool, str], int] = {}
        """How often each (tool, arguments, ok, result) came back in this run (the repetition guard)."""
        self.step = 0
        self.attempt = 0
        """Physical provider requests sent in this step so far (the usage record's attempt index)."""

    # -- entry ----------------------------------------------------------------------------

    async def run(self) -> ev.RunOutcome:
        try:
            return await self._run()
        finally:
            self.finish()

    def finish(self, *_: object) -> None:
        """Release the session and close the run's channels (idempotent).

        Also installed as the task's done callback: a task cancelled before its first step
        never runs the ``finally`` above.
        """
        self.core.release(self.run_id)
        self.core.lifecycle.unregister(self.run_id)
        self.commands.close()
        self.channel.close_sender()

    async def _run(self) -> ev.RunOutcome:
        core = self.core
        self.candidate = [*core.history, Message(user=self.blocks)]
        try:
            return await self._steps(core.revision)
        except Cancelled:
            pass
        except (Interrupted, PersistenceError):
            raise  # no commit, no terminal event
        except EngineError as error:
            await self._fail(error)
        await self._cancellation_commit()
        raise AssertionError("unreachable")  # pragma: no cover

    # -- emission -------------------------------------------------------------------------

    async def emit(self, event: ev.RunEvent) -> None:
        """Send a non-terminal event (raises ``Cancelled`` or ``Interrupted``)."""
        if not self.channel.try_send(event):
            await self.channel.send(event, self.token)

    async def _emit_ignoring(self, event: ev.RunEvent) -> None:
        # Retry-path events (upstream ignores their failures): the next await point notices
        # cancellation, and a consumer that went away ends the run at the next emission.
        with contextlib.suppress(Cancelled, Interrupted):
            await self.emit(event)

    async def _emit_terminal(self, event: ev.RunEvent) -> None:
        # Terminal events wait for room without racing cancellation; delivery is best effort.
        with contextlib.suppress(Interrupted):
            await self.channel.send(event, None)

    # -- terminal paths -------------------------------------------------------------------

    async def _complete(
        self, content: tuple[ContentBlock, ...], stop: ev.StopReason, detail: str = ""
    ) -> ev.RunOutcome:
        revision = self.core.commit(self.candidate)
        self.core.state = SessionState.COMPLETED
        outcome = ev.RunOutcome(content, self.usage, stop, revision, detail)
        await self._emit_terminal(ev.Completed(outcome))
        return outcome

    async def _cancellation_commit(self) -> None:
        capture = self.cancel_capture
        if capture is not None:
            aborted = capture.aborted_assistant()
            if aborted is not None:
                self.candidate.append(Message(aborted_assistant=aborted))
        revision = self.core.commit(self.candidate)
        self.core.state = SessionState.CANCELLING
        await self._emit_terminal(ev.Cancelled(revision))
        raise Cancelled()

    async def _fail(self, error: EngineError) -> None:
        # The seed: a fatal error commits nothing of the candidate (upstream commits here).
        self.core.state = SessionState.FAILED
        if isinstance(error, ProviderError) and error.diagnostic is not None:
            await self._emit_terminal(ev.ProviderDiagnostic(error.diagnostic.text()))
        retryable = isinstance(error, ProviderError) and error.is_retryable()
        await self._emit_terminal(
            ev.Failed(str(error), Retryability.RETRYABLE if retryable else Retryability.PERMANENT)
        )
        raise error

    # -- the loop -------------------------------------------------------------------------

    async def _steps(self, start_revision: int) -> ev.RunOutcome:
        await self.emit(ev.Started(self.run_id, start_revision))
        if self.host_call is not None:
            self.candidate.append(Message(assistant=(ContentBlock(tool_call=self.host_call),)))
            await self._tool_phase([self.host_call])
        specs = self.config.tool_specs
        await self._calibrate()
        for step in range(1, self.config.max_steps + 1):
            self.commands.drain(self._handle_command)
            await self._apply_steering()
            compacted = await self._maybe_compact(step)
            await self._fit_context_window(step, compacted)
            self.step, self.attempt = step, 0
            await self.emit(ev.StepStarted(step))
            await self.emit(
                ev.ContextEstimated(self.estimate.context(self.candidate), self.estimate.calibrated)
            )
            content, capture = await self._request_valid_response(specs)
            self.usage = self.usage.saturating_add(capture.usage)
            assistant = AssistantMessage(
                content=content,
                provenance=capture.provenance,  # the model the server says answered, when it names one
                reasoning_summary=capture.summary_text(),
                provider_context=tuple(capture.context),
            )
            self.candidate.append(Message(enriched_assistant=assistant))
            self.commands.drain(self._handle_command)
            was_steered = bool(self.steering.staged)
            calls = [b.tool_call for b in content if b.tool_call is not None]
            if not calls and not was_steered:
                if capture.limited is not None:  # a final answer cut short: committed, and said
                    return await self._complete(
                        content, ev.StopReason.OUTPUT_LIMIT, capture.limited
                    )
                return await self._complete(content, ev.StopReason.END_TURN)
            await self._tool_phase(calls)
            repeated = self._repeated(calls)
            if repeated is not None:
                return await self._complete(
                    self._newest_content(),
                    ev.StopReason.REPETITION,
                    f"the model called {repeated} {self.config.repeat_limit} times with the same result; "
                    "the turn was stopped",
                )
        return await self._complete(
            self._newest_content(),
            ev.StopReason.MAX_STEPS,
            f"the turn reached its limit of {self.config.max_steps} model steps",
        )

    def _newest_content(self) -> tuple[ContentBlock, ...]:
        for message in reversed(self.candidate):
            found = message.completed_assistant_content()
            if found is not None:
                return found
        return ()

    def _repeated(self, calls: list[ToolCall]) -> str | None:
        """The call (``name`` and its arguments, in words) that has now returned the same result
        ``repeat_limit`` times in this run, if one has (the repetition guard)."""
        limit = self.config.repeat_limit
        if not limit or not calls:
            return None
        results = {
            m.tool_result.id: m.tool_result
            for m in self.candidate[-len(calls) :]
            if m.tool_result is not None
        }
        for call in calls:
            result = results.get(call.id)
            if result is None:
                continue
            content = (
                _RUN_TIME.sub("time:", result.content)
                if "time: " in result.content
                else result.content
            )
            key = (
                call.name,
                json.dumps(call.arguments, sort_keys=True, default=str),
                result.ok,
                content,
            )
            seen = self._seen_calls.get(key, 0) + 1
            self._seen_calls[key] = seen
            if seen >= limit:
                shown = key[1] if len(key[1]) <= 80 else key[1][:77] + "..."
                return f"{call.name} {shown}"
        return None

    # -- steering -------------------------------------------------------------------------

    def _handle_command(self, command: Command) -> None:
        if command.reply.done():
            return
        if command.kind is CommandKind.STEER:
            command.reply.set_result(self.steering.accept(command.payload))  # type: ignore[arg-type]
        else:
            command.reply.set_result(self.steering.retract(command.payload))  # type: ignore[arg-type]

    async def _apply_steering(self) -> None:
        staged = self.steering.staged
        if not staged:
            return
        # If this emission is cancelled the entries stay staged and never reach the candidate.
        await self.emit(ev.SteeringApplied(tuple(e.id for e in staged)))
        self.candidate.extend(e.message for e in self.steering.take())

    # -- tools ----------------------------------------------------------------------------

    async def _tool_phase(self, calls: list[ToolCall]) -> None:
        """Run the batch (if any), append its results, apply steering; ``Cancelled`` if cancelled."""
        if calls:
            core = self.core
            live = None
            if self.config.publish_live_history:
                core.live = tuple(self.candidate)

                def live() -> Sequence[Message]:
                    return core.live if core.live is not None else core.history

            batch = ToolBatch(
                calls=calls,
                tools=self.config.tools,
                emit=self.emit,
                token=self.token,
                max_parallel=self.config.max_parallel_tools,
                session_id=core.id,
                run_id=self.run_id,
                live_history=live,
            )
            self.commands.set_live(self._handle_command)
            try:
                result = await batch.run()
            finally:
                self.commands.set_live(None)
                core.live = None
            self.candidate.extend(result.results)
            core.state = SessionState.RUNNING
            if result.cancelled:
                raise Cancelled()  # no steering is applied after a cancelled batch
        await self._apply_steering()

    # -- compaction -----------------------------------------------------------------------

    async def _calibrate(self) -> None:
        """Scale the context estimate to the served model's own count of this history's text,
        when the provider can count (llama.cpp's ``/tokenize``; one call per run, bounded): the
        character rule of the estimate is 20% off for a small model's tokenizer either way, and
        the context window check and the token policy should count what the server counts.
        Only when one of them is in force: otherwise no request is spent on it (a cloud API would
        answer 404 after a round trip, before the first token)."""
        policy = self.core.compaction_policy
        if self.core.provider.context_window is None and (
            policy is None or policy.trigger_tokens is None
        ):
            return
        sample = _sample_text(self.candidate, self.config.tool_specs)
        estimated = estimate_text_tokens(sample)
        if estimated < 16:
            return  # too little text to say anything
        counted = await self.core.provider.count_tokens(sample)
        if counted is None or counted <= 0:
            return
        self.estimate.scale = min(max(counted / estimated, 0.25), 4.0)
        self.estimate.calibrated = True

    async def _fit_context_window(self, step: int, compacted: bool) -> None:
        """Never send a request larger than the provider's known context window.

        With automatic compaction configured, compact first (unless this step already did);
        if the request still does not fit, fail before anything is sent.
        """
        window = self.core.provider.context_window
        if window is None:
            return
        tokens = self.estimate.context(self.candidate)
        if tokens <= window:
            return
        if not compacted and await self._maybe_compact(step, force=True):
            tokens = self.estimate.context(self.candidate)
            if tokens <= window:
                return
        raise ContextWindowExceeded(tokens, window, self.estimate.calibrated)

    async def _maybe_compact(self, step: int, *, force: bool = False) -> bool:
        """Compact when the policy triggers (or ``force``); True when a compaction committed."""
        core = self.core
        policy, compactor = core.compaction_policy, core.compactor
        candidate = self.candidate
        if policy is None or compactor is None:
            return False
        # The token estimate is only computed when the policy counts tokens.
        tokens = self.estimate.context(candidate) if policy.trigger_tokens is not None else 0
        triggered = policy.should_compact(len(candidate), tokens)
        if not (triggered or force):
            return False
        await self.emit(ev.CompactionStarted(CompactionTrigger.AUTOMATIC, len(candidate)))
        previous_messages = len(candidate)
        previous_tokens = self.estimate.messages(candidate)
        request = CompactionRequest(
            messages=tuple(candidate),
            cancellation=self.token,
            session_id=core.id,
            run_id=self.run_id,
            step_index=step,
            workspace_path=self.config.workspace_path,
        )
        output = await self._call_compactor(compactor, request)
        replacement = output.messages
        current_tokens = estimate_messages_tokens(replacement)
        cost = output.usage.cost_usd_micros
        revision = core.commit_compaction(
            replacement,
            previous_messages=previous_messages,
            previous_tokens=previous_tokens,
            current_tokens=current_tokens,
            cost_usd_micros=cost,
        )
        snapshot = SessionSnapshot.new(
            core.id,
            revision,
            replacement,
            core.provider.identity(),
            core.compaction,
            metadata=core.metadata,
            prompt_cache_key=core.prompt_cache_key,
        )
        outcome = CompactionOutcome(
            previous_messages,
            len(replacement),
            previous_tokens,
            current_tokens,
            cost,
            revision,
            snapshot,
            compacted_history=request.messages,
        )
        self.candidate = list(replacement)
        # If this emission is cancelled, the compaction stays and the replacement is committed
        # once more by the cancellation commit (a second +1), as upstream does.
        await self.emit(ev.CompactionCompleted(CompactionTrigger.AUTOMATIC, outcome))
        return True

    async def _call_compactor(
        self, compactor: Compactor, request: CompactionRequest
    ) -> CompactionOutput:
        try:
            if compactor.cancellation_mode is CancellationMode.COOPERATIVE:
                output = await compactor.compact(request)
            else:
                output = await race(compactor.compact(request), self.token)
        except (EngineError, asyncio.CancelledError):
            raise
        except Exception as exc:
            # As for providers: name the type only, the text may hold request details.
            raise ProviderError(
                ProviderErrorKind.OTHER,
                f"compactor raised {type(exc).__name__}",
                Retryability.PERMANENT,
            ) from exc
        if not isinstance(output, CompactionOutput):
            raise InvalidHostResponse(
                f"compactor returned {type(output).__name__}, not CompactionOutput"
            )
        return output

    # -- provider requests ----------------------------------------------------------------

    async def _request_valid_response(
        self, specs: tuple[ToolSpec, ...]
    ) -> tuple[tuple[ContentBlock, ...], StreamCapture]:
        """A protocol-valid response, with the retry rules of spec/engine.md §8.4.

        Raises:
            Cancelled: the token fired (``cancel_capture`` holds the partial output).
            ProviderError: a permanent failure, or the retry budget is spent.
        """
        core = self.core
        request = ModelRequest(
            messages=tuple(self.candidate),
            tools=specs,
            cancellation=self.token,
            reasoning_level=core.reasoning_level,
            prompt_cache_key=core.prompt_cache_key,
            service_tier=core.service_tier,
        )
        attempts = malformed = failed = 0
        first: ProviderError | None = None
        while True:
            attempts += 1
            content, capture, error = await self._call_provider(request)
            issue = protocol_issue(content) if content is not None else None
            if error is None and issue is None:
                await self.record_request(capture.usage, "completed")
            else:
                await self.record_request(
                    capture.usage, "cancelled" if self.token.cancelled else "failed"
                )
            if error is not None:
                failed += 1
                first = first or error
                if (
                    self.token.cancelled
                    or not error.is_retryable()
                    or attempts >= MAX_PROVIDER_ATTEMPTS
                ):
                    return self._give_up(_after_first_failure(error, first, attempts), capture)
                wait = error.retry_after.total_seconds() if error.retry_after is not None else 0.0
                reason: ev.ProviderStreamResetReason = (
                    ev.RetryableFailureWithRetryAfter(error.kind, error.retry_after)  # type: ignore[arg-type]
                    if wait > 0
                    else ev.RetryableFailure(error.kind)
                )
                detail = f"retrying after provider attempt {attempts} of {MAX_PROVIDER_ATTEMPTS}: {error.message}"
                await self._emit_ignoring(ev.ProviderStreamReset(reason, detail))
                delay = RETRY_BASE_SECONDS * 2 ** (failed - 1)
                if wait > 0:
                    delay = max(min(wait, MAX_RETRY_AFTER), delay)
                if await self._sleep(delay):
                    # cancelled while waiting: the abandoned attempt's output is discarded
                    return self._give_up(error, StreamCapture(capture.identity))
                continue
            assert content is not None
            if issue is None:
                return content, capture
            malformed += 1
            if malformed >= MAX_MALFORMED_RESPONSES or attempts >= MAX_PROVIDER_ATTEMPTS:
                error = ProviderError(
                    ProviderErrorKind.INVALID_RESPONSE, issue, Retryability.PERMANENT
                )
                return self._give_up(error, StreamCapture(capture.identity))
            detail = f"retrying malformed provider response after provider attempt {attempts} of {MAX_PROVIDER_ATTEMPTS}"
            await self._emit_ignoring(ev.ProviderActivity("invalid_response_retry", detail))
            await self._emit_ignoring(ev.ProviderStreamReset(ev.InvalidResponseReset(), detail))

    async def record_request(self, usage: ModelUsage, outcome: RequestOutcome) -> None:
        """Report one physical provider request to the usage recorder (in a worker thread: the
        ledger may be locked by Rho for a moment); its failures are kept as diagnostics."""
        recording = self.config.usage_recording
        self.attempt += 1
        if recording is None:
            return
        from ..usage.writer import RequestUsage

        identity = self.core.provider.identity()
        event = RequestUsage(
            identity.provider,
            identity.model,
            self.config.usage_purpose,
            outcome,
            usage,
            session_id=self.core.id,
            run_id=self.run_id,
            step_index=self.step or None,
            attempt_index=self.attempt,
            workspace_path=self.config.workspace_path,
        )
        await asyncio.get_running_loop().run_in_executor(None, recording.record, event)

    def _give_up(self, error: ProviderError, capture: StreamCapture) -> NoReturn:
        if self.token.cancelled:
            self.cancel_capture = capture
            raise Cancelled()
        raise error

    async def _sleep(self, delay: float) -> bool:
        """Wait ``delay`` seconds with the injectable sleep; True if cancelled meanwhile."""
        if self.token.cancelled:
            return True
        try:
            await race(self.config.retry_sleep(delay), self.token)
        except Cancelled:
            return True
        return self.token.cancelled

    async def _call_provider(
        self, request: ModelRequest
    ) -> tuple[tuple[ContentBlock, ...] | None, StreamCapture, ProviderError | None]:
        """One provider call raced against cancellation: (content, capture, error)."""
        provider = self.core.provider
        capture = StreamCapture(provider.identity())
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()

        def wake(*_: object) -> None:
            if not waiter.done():
                waiter.set_result(None)

        sink = _Sink(self, capture, wake)
        self.commands.set_live(self._handle_command)
        try:
            task = loop.create_task(provider.send_turn_stream(request, sink))
            task.add_done_callback(wake)
            remove = self.token.add_callback(wake)
            try:
                await waiter
            except asyncio.CancelledError:
                task.cancel()  # the run is being aborted
                task.add_done_callback(_retrieve)
                raise
            finally:
                remove()
            if not task.done():
                sink.emitting = False
                # A cooperative provider is awaited until it notices the token; anything else
                # (an external provider, or a consumer that went away) is dropped at once.
                if (
                    self.token.cancelled
                    and sink.cooperative
                    and not isinstance(sink.emit_error, Interrupted)
                ):
                    try:
                        await asyncio.wait({task})
                    except asyncio.CancelledError:
                        task.cancel()
                        task.add_done_callback(_retrieve)
                        raise
                    _retrieve(task)
                else:
                    task.cancel()
                    task.add_done_callback(_retrieve)
                if self.token.cancelled:
                    return None, capture, ProviderError.interrupted("provider request cancelled")
                return None, capture, ProviderError.interrupted(str(sink.emit_error))
            if sink.emit_error is not None:
                _retrieve(task)
                return None, capture, ProviderError.interrupted(str(sink.emit_error))
            if task.cancelled():
                return None, capture, ProviderError.interrupted("provider request cancelled")
            exc = task.exception()
            if exc is not None:
                return None, capture, _as_provider_error(exc)
            result = task.result()
        finally:
            sink.closed = True
            sink.emitting = False
            self.commands.set_live(None)
        content = _as_content(result)
        if content is None:
            error = ProviderError(
                ProviderErrorKind.INVALID_RESPONSE,
                "provider returned something other than a list of content blocks",
                Retryability.PERMANENT,
            )
            return None, capture, error
        try:
            if sink.generation_tokens_seen:
                tokens = sink.generation_tokens
                await self.emit(
                    ev.ProviderActivity(
                        "model_call_generation_output_tokens",
                        str(tokens) if tokens is not None else "unavailable",
                    )
                )
            await self.emit(ev.ModelCallCompleted(self._profile(), self._metrics(sink)))
        except (Cancelled, Interrupted) as error:
            return None, capture, ProviderError.interrupted(str(error))
        return content, capture, None

    def _profile(self) -> ev.ModelCallProfile:
        identity = self.core.provider.identity()
        return ev.ModelCallProfile(
            identity.provider, identity.model, self.core.reasoning_level, self.core.service_tier
        )

    @staticmethod
    def _metrics(sink: _Sink) -> ev.ModelCallMetrics:
        end = time.perf_counter()
        tokens = sink.capture.usage.output_tokens
        first = sink.first_generated
        total = end - sink.started
        ttft = first - sink.started if first is not None else None
        generation = end - first if first is not None else None
        return ev.ModelCallMetrics(
            output_tokens=tokens,
            time_to_first_token=ttft,
            generation_time=generation,
            total_latency=total,
            generation_tokens_per_second=tokens / generation
            if tokens is not None and generation
            else None,
            response_tokens_per_second=tokens / total if tokens is not None and total > 0 else None,
        )


def _as_content(result: object) -> tuple[ContentBlock, ...] | None:
    """The provider's return value as content blocks, or ``None`` if it is anything else."""
    if not isinstance(result, (tuple, list)):
        return None
    content: tuple[object, ...] = tuple(result)
    if all(type(b) is ContentBlock for b in content):
        return content  # type: ignore[return-value]
    return None


class Run:
    """The handle of one running turn: its events, its outcome, cancellation and steering.

    Iterate it (``async for event in run``) to receive ``RunEvent``s until the stream ends, then
    ``await run.outcome()`` (which also drains unread events). ``cancel()`` requests cooperative
    cancellation (the run commits what the contract says and ends with ``Cancelled``).
    ``close()`` is dropping the handle: it cancels the token and aborts the worker, and nothing
    is guaranteed about history. A handle garbage-collected while its run is unfinished is
    closed the same way, like upstream's ``Drop``; keep a reference while the run matters.

    Events are bounded by the runtime's event capacity: a run whose events nobody reads waits
    (backpressure), and keeps its session busy until its terminal event is delivered. Consume
    the events, or call ``outcome()`` (which drains them), or ``close()`` the run.
    """

    __slots__ = ("__weakref__", "_channel", "_commands", "_outcome_taken", "_task", "_token", "id")

    def __init__(
        self,
        run_id: str,
        token: CancellationToken,
        channel: EventChannel,
        commands: CommandQueue,
        task: asyncio.Task[ev.RunOutcome],
    ) -> None:
        self.id = run_id
        self._token = token
        self._channel = channel
        self._commands = commands
        self._task = task
        self._outcome_taken = False

    # -- events ---------------------------------------------------------------------------

    def __aiter__(self) -> Run:
        return self

    async def __anext__(self) -> ev.RunEvent:
        channel = self._channel
        buffer = channel._buffer
        if buffer:  # fast path: no second coroutine per event
            item = buffer.popleft()
            if channel._space is not None:
                channel._wake_space()
            return item  # type: ignore[return-value]
        item = await channel.recv()
        if item is END:
            raise StopAsyncIteration
        return item  # type: ignore[return-value]

    async def next_event(self) -> ev.RunEvent | None:
        """The next event, or ``None`` once the stream has ended."""
        item = await self._channel.recv()
        return None if item is END else item  # type: ignore[return-value]

    # -- outcome --------------------------------------------------------------------------

    async def outcome(self) -> ev.RunOutcome:
        """Wait for the run to end (discarding unread events) and return its outcome.

        Raises:
            Cancelled: the run was cancelled (its cancellation commit happened).
            EngineError: the run failed (``ProviderError``, ``Interrupted``, ...).
            InvalidHostResponse: the outcome was already consumed.
        """
        if self._outcome_taken:
            raise InvalidHostResponse("run outcome was already consumed")
        self._outcome_taken = True
        while await self._channel.recv() is not END:
            pass
        task = self._task
        if not task.done():
            await asyncio.wait({task})
        if task.cancelled():
            raise Interrupted("run task failed: the run was aborted")
        exc = task.exception()
        if exc is None:
            return task.result()
        if isinstance(exc, EngineError):
            raise exc
        raise Interrupted(f"run task failed: {type(exc).__name__}: {exc}") from exc

    @property
    def done(self) -> bool:
        """True once the worker has finished (and released the session)."""
        return self._task.done()

    # -- cancellation ---------------------------------------------------------------------

    def cancel(self) -> None:
        """Request cooperative cancellation (idempotent)."""
        self._token.cancel()

    @property
    def cancellation_handle(self) -> CancellationToken:
        """The run's token (cancelling it cancels the run)."""
        return self._token

    def close(self) -> None:
        """Drop the handle: cancel the token and abort the worker. No commit is guaranteed."""
        self._channel.close_receiver()
        if not self._task.done():
            self._token.cancel()
            self._task.cancel()
            self._task.add_done_callback(_retrieve)

    async def __aenter__(self) -> Run:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if not self._task.done():
            self.close()
            await asyncio.wait({self._task})

    def __del__(self) -> None:
        # Dropping an unfinished handle aborts its run, like upstream's Drop. A finalizer must
        # never raise (it may run during interpreter shutdown, with the loop gone).
        with contextlib.suppress(Exception):
            if not self._task.done() and not self._task.get_loop().is_closed():
                self.close()

    # -- steering -------------------------------------------------------------------------

    async def steer(self, input: UserInput | str) -> SteeringId:
        """Send steering input; returns its id once the run accepted (staged) it.

        Raises:
            InvalidHostResponse: the run ended before accepting it.
        """
        return await self._commands.send(CommandKind.STEER, as_blocks(input))  # type: ignore[return-value]

    def request_steer(self, input: UserInput | str) -> asyncio.Future[SteeringId]:
        """Non-blocking ``steer``: queue the input and return a future of its id.

        Raises:
            InvalidHostResponse: the run ended, or the command queue is full.
        """
        return self._commands.request(CommandKind.STEER, as_blocks(input))  # type: ignore[return-value]

    async def retract_steering(self, steering_id: str) -> SteeringRetraction:
        """Withdraw staged steering if it has not reached the model yet."""
        return await self._commands.send(CommandKind.RETRACT, steering_id)  # type: ignore[return-value]

    def request_steering_retraction(self, steering_id: str) -> asyncio.Future[SteeringRetraction]:
        return self._commands.request(CommandKind.RETRACT, steering_id)  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"Run(id={self.id!r}, done={self.done})"
