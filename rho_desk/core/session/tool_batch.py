"""Tool batches: proposing, preparing, planning and executing the tool calls of one response.

A batch (spec/engine.md §8.6) emits ``ToolProposed`` for every call in model order, prepares
every call concurrently, plans dependencies in model order (exclusive calls serialize against
everything; resource-aware calls overlap unless their resources conflict), executes with at
most ``max_parallel_tools`` calls at once, and returns one ``ToolResult`` per call **in model
order**, never finish order.

On run cancellation, running calls are cancelled and awaited; calls that had already finished
keep their real result, every other call gets the deterministic interrupted result, and the
batch reports "cancelled". Interrupted calls get no ``ToolFinished`` event.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import msgspec

from ..cancellation import CancellationToken
from ..errors import Cancelled, EngineError, Interrupted
from ..tools import (
    PreparedCall,
    Tool,
    ToolContext,
    ToolError,
    ToolErrorKind,
    ToolInvocation,
    ToolOutput,
    ToolProgress,
)
from ..wire.model import Message, ToolCall
from .events import (
    RunEvent,
    ToolCallFailure,
    ToolCallSuccess,
    ToolCallUnavailable,
    ToolFinished,
    ToolProposed,
    ToolStarted,
    ToolUpdated,
)

__all__ = ["INTERRUPTED_RESULT", "BatchResult", "ToolBatch"]

log = logging.getLogger(__name__)

INTERRUPTED_RESULT = "tool call interrupted before completion"


class BatchResult(msgspec.Struct):
    results: list[Message]
    """One ToolResult per call, in model order."""
    cancelled: bool


class _Call:
    __slots__ = ("access", "call", "failure", "prepared", "result", "tool")

    def __init__(self, call: ToolCall, tool: Tool | None) -> None:
        self.call = call
        self.tool = tool
        self.prepared: PreparedCall | None = None
        self.failure: ToolError | None = None
        """Preparation failure."""
        self.result: Message | None = None
        """The resolved ToolResult, once the call finished (success or non-cancel error)."""


def _failure_text(exc: BaseException, name: str) -> ToolError:
    if isinstance(exc, ToolError):
        return exc
    if isinstance(exc, EngineError):
        # e.g. a tool that calls a model and lets its ProviderError escape: the display text
        # of engine errors is built to be safe, so the model may see it.
        return ToolError(ToolErrorKind.EXECUTION, str(exc))
    # A tool raised something other than ToolError: report the type so the model sees a
    # failure, and log the traceback for the host (the message may be all the model needs).
    log.warning("tool %r raised %s", name, type(exc).__name__, exc_info=exc)
    return ToolError(ToolErrorKind.EXECUTION, f"tool '{name}' raised {type(exc).__name__}: {exc}")


class ToolBatch:
    """Runs one batch. Built by the run worker, used once."""

    def __init__(
        self,
        *,
        calls: Sequence[ToolCall],
        tools: Mapping[str, Tool],
        emit: Callable[[RunEvent], Awaitable[None]],
        token: CancellationToken,
        max_parallel: int,
        session_id: str,
        run_id: str,
        live_history: Callable[[], Sequence[Message]] | None,
    ) -> None:
        self._calls = [_Call(c, tools.get(c.name)) for c in calls]
        self._emit = emit
        self._token = token
        self._max_parallel = max_parallel
        self._session_id = session_id
        self._run_id = run_id
        self._live_history = live_history
        self._frozen = False
        """Set when the batch stops: results arriving later are not real results any more."""

    def _resolve(self, c: _Call, result: Message) -> None:
        if not self._frozen:
            c.result = result

    def _freeze(self) -> None:
        self._frozen = True

    def _context(self, call: ToolCall) -> ToolContext:
        call_id = call.id

        async def report(progress: ToolProgress) -> None:
            await self._emit(ToolUpdated(call_id, progress))

        return ToolContext(
            call_id=call_id,
            cancellation=self._token,
            session_id=self._session_id,
            run_id=self._run_id,
            report=report,
            live_history=self._live_history,
        )

    def _results(self) -> list[Message]:
        return [
            c.result
            if c.result is not None
            else Message.result(c.call.id, False, INTERRUPTED_RESULT)
            for c in self._calls
        ]

    async def run(self) -> BatchResult:
        """Execute the batch.

        Raises:
            Interrupted: the event consumer is gone (the caller commits nothing).
        """
        try:
            for c in self._calls:
                await self._emit(ToolProposed(c.call))
        except Cancelled:
            return BatchResult(self._results(), True)
        if not await self._prepare():
            return BatchResult(self._results(), True)
        cancelled = await self._execute()
        return BatchResult(self._results(), cancelled)

    # -- preparation ----------------------------------------------------------------------

    async def _prepare(self) -> bool:
        """Prepare every available call concurrently; False if cancelled meanwhile."""

        async def prepare(c: _Call) -> None:
            assert c.tool is not None
            invocation = ToolInvocation(c.call.id, c.call.name, c.call.arguments)
            try:
                c.prepared = await c.tool.prepare(invocation, self._context(c.call))
            except (asyncio.CancelledError, Cancelled, Interrupted):
                raise
            except Exception as exc:
                c.failure = _failure_text(exc, c.call.name)

        pending = [c for c in self._calls if c.tool is not None]
        if not pending:
            return True
        if self._token.cancelled:
            return False
        tasks = [asyncio.ensure_future(prepare(c)) for c in pending]
        finished = await _wait_all_or_cancel(tasks, self._token, self._freeze)
        if not finished:
            for c in self._calls:
                c.prepared = None
                c.failure = None
            return False
        return True

    # -- execution ------------------------------------------------------------------------

    async def _execute(self) -> bool:
        calls = self._calls
        if not calls:
            return False
        accesses = [c.prepared.access if c.prepared is not None else None for c in calls]
        done = [asyncio.Event() for _ in calls]
        deps: list[list[int]] = []
        for i, access in enumerate(accesses):
            if access is None:
                deps.append([])
                continue
            deps.append(
                [
                    j
                    for j, other in enumerate(accesses[:i])
                    if other is not None and access.conflicts_with(other)
                ]
            )
        limit = asyncio.Semaphore(self._max_parallel)

        async def run_call(i: int) -> None:
            c = calls[i]
            call = c.call
            try:
                if c.tool is None:
                    self._resolve(
                        c, Message.result(call.id, False, f"tool '{call.name}' is unavailable")
                    )
                    await self._emit(ToolFinished(call.id, ToolCallUnavailable()))
                    return
                if c.failure is not None:
                    await self._emit(ToolStarted(call.id, call.name, {}))
                    self._resolve(c, Message.result(call.id, False, c.failure.message))
                    await self._emit(
                        ToolFinished(call.id, ToolCallFailure(c.failure.kind, c.failure.message))
                    )
                    return
                for j in deps[i]:
                    await done[j].wait()
                async with limit:
                    prepared = c.prepared
                    assert prepared is not None
                    await self._emit(ToolStarted(call.id, call.name, dict(prepared.metadata)))
                    outcome = await self._invoke(prepared, call)
                    if isinstance(outcome, ToolOutput):
                        self._resolve(c, Message.result(call.id, True, outcome.content))
                        finished: Any = ToolCallSuccess(outcome)
                    elif outcome.kind is ToolErrorKind.CANCELLED:
                        return  # interrupted: no result, no ToolFinished
                    else:
                        self._resolve(c, Message.result(call.id, False, outcome.message))
                        finished = ToolCallFailure(outcome.kind, outcome.message)
                await self._emit(ToolFinished(call.id, finished))
            finally:
                done[i].set()

        tasks = [asyncio.ensure_future(run_call(i)) for i in range(len(calls))]
        return not await _wait_all_or_cancel(tasks, self._token, self._freeze)

    async def _invoke(self, prepared: PreparedCall, call: ToolCall) -> ToolOutput | ToolError:
        try:
            return await prepared.execute(self._context(call))
        except (asyncio.CancelledError, Cancelled, Interrupted):
            raise  # cancellation, or our own event delivery failing inside ``context.report``
        except Exception as exc:
            return _failure_text(exc, call.name)


async def _wait_all_or_cancel(
    tasks: Sequence[asyncio.Future[None]], token: CancellationToken, on_stop: Callable[[], None]
) -> bool:
    """Wait for every task, unless the token fires or one fails first.

    Returns True when all tasks finished normally, False when the run was cancelled (then
    every unfinished task is cancelled and awaited). A task that failed with ``Cancelled``
    counts as cancellation; any other failure cancels the rest and is raised.
    """
    loop = asyncio.get_running_loop()
    wake: asyncio.Future[None] = loop.create_future()
    remaining = len(tasks)

    def on_done(task: asyncio.Future[None]) -> None:
        nonlocal remaining
        remaining -= 1
        failed = not task.cancelled() and task.exception() is not None
        if (remaining == 0 or failed) and not wake.done():
            wake.set_result(None)

    def on_cancel() -> None:
        if not wake.done():
            wake.set_result(None)

    for task in tasks:
        task.add_done_callback(on_done)
    remove = token.add_callback(on_cancel)
    try:
        await wake
    except asyncio.CancelledError:
        on_stop()
        for task in tasks:
            task.cancel()
        raise
    finally:
        remove()
    error: BaseException | None = None
    cancelled = token.cancelled
    for task in tasks:
        if task.done() and not task.cancelled():
            exc = task.exception()
            if isinstance(exc, Cancelled):
                cancelled = True
            elif exc is not None and error is None:
                error = exc
    if cancelled or error is not None or remaining:
        on_stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if cancelled:
        return False
    if error is not None:
        raise error
    return True
