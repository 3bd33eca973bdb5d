"""Tool batches (spec/engine.md §8.6): proposal order, planning, parallelism, results in model order."""

from __future__ import annotations

import asyncio

import pytest

from rho_desk.core.errors import Cancelled
from rho_desk.core.session import events as ev
from rho_desk.core.testing import ScriptedTool, ScriptedTurn, tool_call_response
from rho_desk.core.tools import (
    Tool,
    ToolAccess,
    ToolContext,
    ToolError,
    ToolErrorKind,
    ToolInvocation,
    ToolOutput,
)
from rho_desk.core.wire.model import Message, ToolSpec

from .conftest import build, collect, names, of_type

pytestmark = pytest.mark.asyncio


def calls(*names_: str) -> ScriptedTurn:
    return ScriptedTurn.completed(
        tool_call_response(*((f"c{i}", n, {"i": i}) for i, n in enumerate(names_)))
    )


async def run_batch(
    tools: list[Tool], turn: ScriptedTurn, **kw: object
) -> tuple[list[ev.RunEvent], tuple[Message, ...]]:
    session = build(turns=[turn, ScriptedTurn.completed("done")], tools=tools, **kw).session()  # type: ignore[arg-type]
    run = session.start("q")
    events = await collect(run)
    await run.outcome()
    return events, session.history


async def test_results_keep_model_order_when_calls_finish_out_of_order() -> None:
    slow = ScriptedTool("slow", "slow result", delay=0.02, access=ToolAccess.resources(reads=["a"]))
    fast = ScriptedTool("fast", "fast result", access=ToolAccess.resources(reads=["b"]))
    events, history = await run_batch([slow, fast], calls("slow", "fast"), max_parallel=2)
    assert [e.call_id for e in of_type(events, ev.ToolFinished)] == ["c1", "c0"]  # finish order
    assert [m.tool_result.id for m in history if m.tool_result] == ["c0", "c1"]  # model order
    first_started = names(events).index("ToolStarted")
    assert names(events)[first_started - 2 : first_started] == ["ToolProposed", "ToolProposed"]


async def test_max_parallel_tools_bounds_resource_aware_reads() -> None:
    for limit, expected in ((1, 1), (4, 4)):
        tool = ScriptedTool("read", "x", delay=0.005, access=ToolAccess.resources(reads=["file"]))
        await run_batch([tool], calls(*["read"] * 8), max_parallel=limit)
        assert tool.peak_running == expected, limit


async def test_exclusive_calls_and_resource_conflicts_serialize() -> None:
    exclusive = ScriptedTool("exclusive", "x", delay=0.005)
    await run_batch([exclusive], calls("exclusive", "exclusive", "exclusive"), max_parallel=4)
    assert exclusive.peak_running == 1
    writer = ScriptedTool("write", "x", delay=0.005, access=ToolAccess.resources(writes=["f"]))
    await run_batch([writer], calls("write", "write"), max_parallel=4)
    assert writer.peak_running == 1


async def test_access_conflicts() -> None:
    read_a, read_b = ToolAccess.resources(reads=["a"]), ToolAccess.resources(reads=["b"])
    write_a = ToolAccess.resources(writes=["a"])
    assert not read_a.conflicts_with(read_a) and not read_a.conflicts_with(read_b)
    assert (
        write_a.conflicts_with(read_a)
        and read_a.conflicts_with(write_a)
        and write_a.conflicts_with(write_a)
    )
    assert ToolAccess().conflicts_with(read_b) and read_b.conflicts_with(ToolAccess())


async def test_preparation_failure_reports_started_then_failure() -> None:
    broken = ScriptedTool(
        "broken", "never", prepare_error=ToolError.invalid_arguments("missing path")
    )
    events, history = await run_batch([broken], calls("broken"))
    assert [
        type(e).__name__ for e in events if isinstance(e, (ev.ToolStarted, ev.ToolFinished))
    ] == [
        "ToolStarted",
        "ToolFinished",
    ]
    assert of_type(events, ev.ToolStarted)[0].metadata == {}
    assert of_type(events, ev.ToolFinished)[0].result == ev.ToolCallFailure(
        ToolErrorKind.INVALID_ARGUMENTS, "missing path"
    )
    assert history[2] == Message.result("c0", False, "missing path")
    assert broken.invocations == []


async def test_progress_events_and_metadata() -> None:
    tool = ScriptedTool("t", ToolOutput("out", {"lines": 3}), progress=["half", "all"])
    events, _ = await run_batch([tool], calls("t"))
    assert [e.progress.message for e in of_type(events, ev.ToolUpdated)] == ["half", "all"]
    assert of_type(events, ev.ToolStarted)[0].metadata == {"tool": "t"}
    finished = of_type(events, ev.ToolFinished)[0].result
    assert finished == ev.ToolCallSuccess(ToolOutput("out", {"lines": 3}))


async def test_an_unexpected_tool_exception_becomes_a_failed_result() -> None:
    class Crashes(Tool):
        def spec(self) -> ToolSpec:
            return ToolSpec("crash", "", {"type": "object"})

        async def call(self, invocation: ToolInvocation, context: ToolContext) -> ToolOutput:
            raise KeyError("path")

    _, history = await run_batch([Crashes()], calls("crash"))
    assert history[2] == Message.result("c0", False, "tool 'crash' raised KeyError: 'path'")


async def test_a_tool_implementing_neither_call_nor_prepare_fails() -> None:
    class Empty(Tool):
        def spec(self) -> ToolSpec:
            return ToolSpec("empty", "", {"type": "object"})

    _, history = await run_batch([Empty()], calls("empty"))
    assert history[2].tool_result is not None and not history[2].tool_result.ok
    assert "implements neither" in history[2].tool_result.content


async def test_a_tool_that_reports_cancellation_is_interrupted() -> None:
    class Gives(Tool):
        def spec(self) -> ToolSpec:
            return ToolSpec("gives_up", "", {"type": "object"})

        async def call(self, invocation: ToolInvocation, context: ToolContext) -> ToolOutput:
            context.cancellation.cancel()
            raise ToolError.cancelled()

    session = build(turns=[calls("gives_up")], tools=[Gives()]).session()
    run = session.start("q")
    events = await collect(run)
    with pytest.raises(Cancelled):
        await run.outcome()
    assert of_type(events, ev.ToolFinished) == []
    assert session.history[-1] == Message.result(
        "c0", False, "tool call interrupted before completion"
    )


async def test_a_flooding_tool_is_bounded_by_backpressure() -> None:
    produced = []

    class Flood(Tool):
        def spec(self) -> ToolSpec:
            return ToolSpec("flood", "", {"type": "object"})

        async def call(self, invocation: ToolInvocation, context: ToolContext) -> ToolOutput:
            for i in range(10_000):
                await context.report(str(i))
                produced.append(i)
            return ToolOutput("done")

    session = build(turns=[calls("flood")], tools=[Flood()], capacity=1).session()
    run = session.start("q")
    async for event in run:
        if isinstance(event, ev.ToolUpdated):
            break  # the consumer stops reading
    await asyncio.sleep(0.01)
    assert len(produced) <= 2  # upstream's reliability bound is 18
    run.close()


async def test_live_history_is_published_for_tools_that_read_it() -> None:
    reader = ScriptedTool("reader", "x", reads_live_history=True)
    session = build(
        turns=[calls("reader"), ScriptedTurn.completed("done")], tools=[reader]
    ).session()
    await session.complete("q")
    (seen,) = reader.live_histories
    assert [m.text() for m in seen][:1] == ["q"] and len(
        seen
    ) == 2  # user + assistant with the call
    assert session.live_history == session.history  # cleared after the run


async def test_an_engine_error_escaping_a_tool_becomes_its_failed_result() -> None:
    from rho_desk.core.errors import ProviderError, ProviderErrorKind

    class CallsAModel(Tool):
        def spec(self) -> ToolSpec:
            return ToolSpec("ask", "", {"type": "object"})

        async def call(self, invocation: ToolInvocation, context: ToolContext) -> ToolOutput:
            raise ProviderError(ProviderErrorKind.RATE_LIMIT, "slow down")

    _, history = await run_batch([CallsAModel()], calls("ask"))
    assert history[2] == Message.result("c0", False, "provider failed: slow down")


async def test_leaving_a_run_context_closes_an_unfinished_run() -> None:
    from rho_desk.core.errors import Interrupted

    session = build(turns=[ScriptedTurn.pending()]).session()
    async with session.start("q") as run:
        assert isinstance(await run.next_event(), ev.Started)
    assert run.done and not session.is_running
    with pytest.raises(Interrupted):
        await run.outcome()
