"""Steering (spec/engine.md §8.7): staged, retractable, applied at step start and after tools."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from rho_desk.core.errors import Cancelled, InvalidHostResponse
from rho_desk.core.provider import OutputDelta
from rho_desk.core.session import SteeringRetraction, StopReason, UserInput
from rho_desk.core.session import events as ev
from rho_desk.core.testing import ScriptedProvider, ScriptedTool, ScriptedTurn, tool_call_response
from rho_desk.core.wire.model import Message, MessageKind

from .conftest import build, collect, names, of_type

pytestmark = pytest.mark.asyncio


def gate() -> tuple[asyncio.Event, Any]:
    """A stream action that holds the provider until the test opens the gate."""
    event = asyncio.Event()

    async def wait(_: Any) -> None:
        await event.wait()

    return event, wait


async def test_steering_during_the_final_answer_forces_another_step() -> None:
    opened, hold = gate()
    provider = ScriptedProvider(
        [
            ScriptedTurn.streaming([OutputDelta("first"), hold], "first answer"),
            ScriptedTurn.completed("second answer"),
        ]
    )
    session = build(provider).session()
    run = session.start("q")
    events = []
    async for event in run:
        events.append(event)
        if isinstance(event, ev.AssistantTextDelta):
            steering_id = await run.steer("actually, be brief")
            opened.set()
    outcome = await run.outcome()
    assert outcome.text == "second answer" and outcome.revision == 1
    assert [m.text() for m in session.history] == [
        "q",
        "first answer",
        "actually, be brief",
        "second answer",
    ]
    applied = of_type(events, ev.SteeringApplied)
    assert applied == [ev.SteeringApplied((steering_id,))]
    i = events.index(applied[0])
    assert isinstance(events[i + 1], ev.StepStarted) and events[i + 1].step == 2
    assert provider.requests[1].messages == session.history[:3]


async def test_steering_follows_the_tool_results_of_its_step() -> None:
    opened, hold = gate()
    tool = ScriptedTool("t", "result")
    provider = ScriptedProvider(
        [
            ScriptedTurn.streaming([OutputDelta("x"), hold], tool_call_response(("c1", "t", {}))),
            ScriptedTurn.completed("done"),
        ]
    )
    session = build(provider, tools=[tool]).session()
    run = session.start("q")
    events = []
    async for event in run:
        events.append(event)
        if isinstance(event, ev.AssistantTextDelta):
            await run.steer(UserInput.text("steer"))
            opened.set()
    await run.outcome()
    kinds = [m.kind for m in session.history]
    assert kinds == [
        MessageKind.USER,
        MessageKind.ENRICHED_ASSISTANT,
        MessageKind.TOOL_RESULT,
        MessageKind.USER,
        MessageKind.ENRICHED_ASSISTANT,
    ]
    assert session.history[3].text() == "steer"
    # SteeringApplied comes after the tool phase, before the next step
    order = names(events)
    assert (
        order.index("ToolFinished") < order.index("SteeringApplied") < order.index("StepStarted", 3)
    )


async def test_steering_queued_between_steps_is_applied_at_the_next_step_start() -> None:
    tool = ScriptedTool("t", "r")
    provider = ScriptedProvider(
        [
            ScriptedTurn.completed(tool_call_response(("c1", "t", {}))),
            ScriptedTurn.completed("done"),
        ]
    )
    session = build(provider, tools=[tool], capacity=1).session()
    run = session.start("q")
    pending = None
    async for event in run:
        if isinstance(event, ev.ToolFinished):
            pending = run.request_steer("late")  # the batch is over: queued for the next drain
    await run.outcome()
    assert pending is not None and pending.done()
    assert [m.text() for m in session.history if m.kind is MessageKind.USER] == ["q", "late"]


async def test_retraction_before_application_removes_the_entry() -> None:
    opened, hold = gate()
    provider = ScriptedProvider([ScriptedTurn.streaming([OutputDelta("x"), hold], "answer")])
    session = build(provider).session()
    run = session.start("q")
    results = []
    async for event in run:
        if isinstance(event, ev.AssistantTextDelta):
            steering_id = await run.steer("never mind")
            results.append(await run.retract_steering(steering_id))
            results.append(await run.retract_steering("unknown-id"))
            opened.set()
    outcome = await run.outcome()
    assert results == [SteeringRetraction.RETRACTED, SteeringRetraction.NOT_FOUND]
    assert outcome.text == "answer" and len(session.history) == 2  # no second step


async def test_retracting_applied_steering_reports_already_applied() -> None:
    opened, hold = gate()
    second_open, second_hold = gate()
    provider = ScriptedProvider(
        [
            ScriptedTurn.streaming([OutputDelta("x"), hold], "first"),
            ScriptedTurn.streaming([OutputDelta("y"), second_hold], "second"),
        ]
    )
    session = build(provider).session()
    run = session.start("q")
    answer = None
    async for event in run:
        if isinstance(event, ev.AssistantTextDelta) and event.text == "x":
            steering_id = await run.steer("more")
            opened.set()
        elif isinstance(event, ev.AssistantTextDelta) and event.text == "y":
            answer = await run.retract_steering(steering_id)
            second_open.set()
    await run.outcome()
    assert answer is SteeringRetraction.ALREADY_APPLIED


async def test_steering_on_the_last_step_is_committed_unanswered() -> None:
    opened, hold = gate()
    provider = ScriptedProvider([ScriptedTurn.streaming([OutputDelta("x"), hold], "only answer")])
    session = build(provider, max_steps=1).session()
    run = session.start("q")
    async for event in run:
        if isinstance(event, ev.AssistantTextDelta):
            await run.steer("unanswered")
            opened.set()
    outcome = await run.outcome()
    assert outcome.stop_reason is StopReason.MAX_STEPS and outcome.text == "only answer"
    assert session.history[-1] == Message.user_text("unanswered")


async def test_steering_after_the_run_ended_is_refused() -> None:
    session = build(turns=[ScriptedTurn.completed("x")]).session()
    run = session.start("q")
    await collect(run)
    await run.outcome()
    with pytest.raises(InvalidHostResponse) as info:
        await run.steer("too late")
    assert str(info.value) == "invalid host response: run no longer accepts steering input"
    with pytest.raises(InvalidHostResponse, match="run no longer accepts steering retractions"):
        run.request_steering_retraction("x")


async def test_steering_queued_when_the_run_ends_is_answered_with_completion() -> None:
    # capacity 1: the steer is queued while the worker waits to deliver Completed
    session = build(turns=[ScriptedTurn.completed("x")], capacity=1).session()
    run = session.start("q")
    pending = None
    async for event in run:
        if isinstance(event, ev.ModelCallCompleted):
            pending = run.request_steer("after the last drain")
    await run.outcome()
    assert pending is not None
    with pytest.raises(InvalidHostResponse, match="run completed before accepting steering input"):
        await pending
    assert "after the last drain" not in [m.text() for m in session.history]


async def test_a_full_command_queue_refuses_non_blocking_requests() -> None:
    session = build(turns=[ScriptedTurn.pending()], capacity=1).session()
    run = session.start("q")
    first = run.request_steer("one")  # queued (no live handler before the provider call starts)
    with pytest.raises(InvalidHostResponse, match="run cannot queue steering input"):
        run.request_steer("two")
    run.cancel()
    with pytest.raises(Cancelled):
        await run.outcome()
    assert first.done()
