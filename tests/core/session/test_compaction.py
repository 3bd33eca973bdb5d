"""Automatic and manual compaction (spec/engine.md §10, the seed's "Compaction")."""

from __future__ import annotations

import asyncio

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.compaction.api import (
    CompactionOutput,
    CompactionPolicy,
    CompactionRequest,
    CompactionTrigger,
    Compactor,
)
from rho_desk.core.compaction.tokens import estimate_messages_tokens
from rho_desk.core.errors import (
    Cancelled,
    InvalidConfiguration,
    InvalidHostResponse,
    ProviderError,
    SessionBusy,
)
from rho_desk.core.provider import CancellationMode
from rho_desk.core.session import SessionOptions, SessionState
from rho_desk.core.session import events as ev
from rho_desk.core.testing import (
    ScriptedCompactor,
    ScriptedProvider,
    ScriptedTool,
    ScriptedTurn,
    tool_call_response,
)
from rho_desk.core.wire.model import Message, ModelUsage
from rho_desk.core.wire.snapshot import CompactionState

from .conftest import build, collect, names, of_type

pytestmark = pytest.mark.asyncio

OLD = (Message.user_text("old one"), Message.assistant_text("old two"))
REPLACEMENT = (Message.system_text("automatic summary"), Message.user_text("current"))


async def test_the_worked_example() -> None:
    # spec/engine.md §10.6 / §7.3
    provider = ScriptedProvider([ScriptedTurn.completed("answer")])
    compactor = ScriptedCompactor([REPLACEMENT])
    session = build(
        provider, compactor=compactor, policy=CompactionPolicy.after_messages(3)
    ).session(SessionOptions(history=OLD))
    run = session.start("current")
    events = await collect(run)
    outcome = await run.outcome()
    assert names(events)[:5] == [
        "Started",
        "CompactionStarted",
        "CompactionCompleted",
        "StepStarted",
        "ContextEstimated",
    ]
    started = of_type(events, ev.CompactionStarted)[0]
    assert started == ev.CompactionStarted(CompactionTrigger.AUTOMATIC, 3)
    compacted = of_type(events, ev.CompactionCompleted)[0].outcome
    assert (compacted.previous_messages, compacted.current_messages) == (3, 2)
    assert (compacted.previous_tokens, compacted.current_tokens, compacted.removed_tokens) == (
        21,
        16,
        5,
    )
    assert compacted.revision == 1 and compacted.cost_usd_micros is None
    assert compacted.committed_snapshot is not None
    assert (
        compacted.committed_snapshot.revision == 1
        and compacted.committed_snapshot.history == REPLACEMENT
    )
    assert session.compaction_state == CompactionState(1, 1, 5, 0, 21, 16, 1)
    assert provider.requests[0].messages == REPLACEMENT  # the provider sees only the replacement
    assert outcome.revision == 2
    assert session.history == (*REPLACEMENT, session.history[-1])
    assert of_type(events, ev.ContextEstimated) == [
        ev.ContextEstimated(3 + 21 - 5)
    ]  # on the replacement
    request = compactor.requests[0]
    assert request.messages == (*OLD, Message.user_text("current"))  # the uncommitted candidate
    assert (request.session_id, request.run_id, request.step_index) == (session.id, run.id, 1)


async def test_compaction_is_checked_before_every_step_and_counts_cost() -> None:
    tool = ScriptedTool("t", "r")
    turns = [
        ScriptedTurn.completed(tool_call_response(("c", "t", {}))),
        ScriptedTurn.completed("done"),
    ]
    summary = [Message.system_text("s")]
    compactor = ScriptedCompactor(
        [
            CompactionOutput(summary, ModelUsage(cost_usd_micros=250)),
            CompactionOutput(summary, ModelUsage(cost_usd_micros=50)),
        ]
    )
    session = build(
        turns=turns, tools=[tool], compactor=compactor, policy=CompactionPolicy.after_messages(1)
    ).session()
    run = session.start("q")
    events = await collect(run)
    outcome = await run.outcome()
    assert [e.outcome.revision for e in of_type(events, ev.CompactionCompleted)] == [1, 2]
    assert [r.step_index for r in compactor.requests] == [1, 2]
    assert outcome.revision == 3  # two compactions + the final commit
    state = session.compaction_state
    assert (
        state.completed_compactions == 2
        and state.removed_cost_usd_micros == 300
        and state.last_revision == 2
    )


async def test_token_policy_counts_request_overhead_and_tool_schemas() -> None:
    from rho_desk.core.compaction.tokens import estimate_context_tokens

    tool = ScriptedTool("read", description="read a file")
    candidate = (Message.user_text("q"),)
    threshold = estimate_context_tokens(candidate, [tool.spec()])
    for delta, expected in ((0, 1), (1, 0)):
        compactor = ScriptedCompactor([[Message.user_text("q")]])
        session = build(
            turns=[ScriptedTurn.completed("a")],
            tools=[tool],
            compactor=compactor,
            policy=CompactionPolicy.at_context_tokens(threshold + delta),
        ).session()
        await session.complete("q")
        assert len(compactor.requests) == expected, delta  # "at or above"


async def test_history_stays_bounded_over_300_turns() -> None:
    class KeepTail(Compactor):
        """Summarize everything but the last user message into one System message."""

        def __init__(self) -> None:
            self.calls = 0

        async def compact(self, request: CompactionRequest) -> CompactionOutput:
            self.calls += 1
            last_user = max(i for i, m in enumerate(request.messages) if m.user is not None)
            summary = Message.system_text(f"summary #{self.calls} of {last_user} messages")
            return CompactionOutput([summary, *request.messages[last_user:]])

    trigger = 6
    provider = ScriptedProvider([ScriptedTurn.completed(f"answer {i}") for i in range(300)])
    compactor = KeepTail()
    session = build(
        provider, compactor=compactor, policy=CompactionPolicy.after_messages(trigger)
    ).session()
    longest = 0
    for i in range(300):
        await session.complete(f"question {i}")
        longest = max(
            longest, len(session.history), *(len(r.messages) for r in provider.requests[-1:])
        )
    assert longest <= trigger + 1
    assert compactor.calls > 50
    assert session.compaction_state.completed_compactions == compactor.calls
    assert session.revision == 300 + compactor.calls


async def test_a_cancelled_external_compactor_is_abandoned_and_installs_nothing() -> None:
    gate = asyncio.Event()

    async def wait_forever(_: CancellationToken) -> None:
        await gate.wait()

    compactor = ScriptedCompactor([REPLACEMENT], wait=wait_forever)
    session = build(
        turns=[ScriptedTurn.completed("x")],
        compactor=compactor,
        policy=CompactionPolicy.after_messages(1),
    ).session()
    run = session.start("q")
    async for event in run:
        if isinstance(event, ev.CompactionStarted):
            run.cancel()
    with pytest.raises(Cancelled):
        await run.outcome()
    assert session.history == (
        Message.user_text("q"),
    )  # cancellation commit of the pre-compaction candidate
    assert session.compaction_state.completed_compactions == 0 and session.revision == 1


async def test_a_cooperative_compactor_is_awaited_until_it_observes_cancellation() -> None:
    observed = []

    async def until_cancelled(token: CancellationToken) -> None:
        await token.wait()
        observed.append(True)

    compactor = ScriptedCompactor(
        [REPLACEMENT], wait=until_cancelled, cancellation_mode=CancellationMode.COOPERATIVE
    )
    session = build(
        turns=[ScriptedTurn.completed("x")],
        compactor=compactor,
        policy=CompactionPolicy.after_messages(1),
    ).session()
    run = session.start("q")
    async for event in run:
        if isinstance(event, ev.CompactionStarted):
            run.cancel()
    with pytest.raises(Cancelled):
        await run.outcome()
    assert observed == [True]
    assert session.history == (Message.user_text("q"),)


async def test_cancelled_compaction_completed_emission_commits_twice() -> None:
    # The compactor succeeds, but the run is cancelled while CompactionCompleted waits for room:
    # the compaction stays (+1) and the cancellation commit commits the replacement again (+1).
    class CancelsThenReturns(Compactor):
        cancellation_mode = CancellationMode.COOPERATIVE

        async def compact(self, request: CompactionRequest) -> CompactionOutput:
            request.cancellation.cancel()
            return CompactionOutput(REPLACEMENT)

    session = build(
        turns=[ScriptedTurn.completed("x")],
        compactor=CancelsThenReturns(),
        policy=CompactionPolicy.after_messages(1),
        capacity=1,
    ).session()
    run = session.start("q")
    events = await collect(run)
    with pytest.raises(Cancelled):
        await run.outcome()
    assert names(events) == ["Started", "CompactionStarted", "Cancelled"]
    assert session.history == REPLACEMENT
    assert session.compaction_state.last_revision == 1 and session.revision == 2
    assert events[-1] == ev.Cancelled(2)


async def test_an_empty_replacement_is_rejected_at_construction() -> None:
    with pytest.raises(
        InvalidHostResponse, match="compaction replacement history must not be empty"
    ):
        CompactionOutput([])


async def test_an_exhausted_scripted_compactor_fails() -> None:
    session = build(compactor=ScriptedCompactor()).session(SessionOptions(history=OLD))
    with pytest.raises(InvalidHostResponse) as info:
        await session.compact()
    assert str(info.value) == "invalid host response: scripted compactor has no remaining output"


# --- manual compaction --------------------------------------------------------------------


async def test_manual_compaction_commits_and_reports() -> None:
    compactor = ScriptedCompactor(
        [CompactionOutput([Message.system_text("sum")], ModelUsage(cost_usd_micros=7))]
    )
    session = build(compactor=compactor).session(
        SessionOptions(history=OLD, revision=4, metadata={"k": "v"})
    )
    outcome = await session.compact()
    previous = estimate_messages_tokens(OLD)
    assert (outcome.previous_messages, outcome.current_messages) == (2, 1)
    assert (outcome.previous_tokens, outcome.current_tokens) == (previous, 5)  # 4 + ceil(3/4)
    assert (
        outcome.cost_usd_micros == 7
        and outcome.revision == 5
        and outcome.committed_snapshot is None
    )
    assert session.history == (Message.system_text("sum"),) and session.revision == 5
    assert session.compaction_state == CompactionState(1, 1, previous - 5, 7, previous, 5, 5)
    assert session.state is SessionState.COMPLETED and not session.is_running
    assert session.metadata == {"k": "v"}
    request = compactor.requests[0]
    assert request.messages == OLD and request.step_index is None and request.run_id


async def test_manual_compaction_needs_a_compactor_before_anything_else() -> None:
    session = build(turns=[ScriptedTurn.pending()]).session()
    run = session.start("q")  # busy, but the missing compactor is reported first
    with pytest.raises(InvalidConfiguration, match="no compactor is configured"):
        await session.compact()
    run.close()


async def test_manual_compaction_is_exclusive() -> None:
    gate = asyncio.Event()

    async def hold(_: CancellationToken) -> None:
        await gate.wait()

    session = build(
        compactor=ScriptedCompactor([REPLACEMENT], wait=hold), turns=[ScriptedTurn.completed("x")]
    ).session()
    task = asyncio.ensure_future(session.compact())
    await asyncio.sleep(0)
    assert session.is_running and session.state is SessionState.RUNNING
    with pytest.raises(SessionBusy):
        session.start("q")
    with pytest.raises(SessionBusy):
        await session.compact()
    gate.set()
    outcome = await task
    assert outcome.revision == 1 and session.history == REPLACEMENT


async def test_a_failed_manual_compaction_installs_nothing_and_emits_nothing() -> None:
    session = build(compactor=ScriptedCompactor.failing("down")).session(
        SessionOptions(history=OLD)
    )
    with pytest.raises(ProviderError, match="down"):
        await session.compact()
    assert session.history == OLD and session.revision == 0
    assert session.state is SessionState.IDLE and not session.is_running
    assert session.compaction_state == CompactionState.zero()


async def test_a_cancelled_manual_compaction_installs_nothing() -> None:
    async def wait_cancel(token: CancellationToken) -> None:
        await token.wait()

    rho = build(compactor=ScriptedCompactor([REPLACEMENT], wait=wait_cancel))
    session = rho.session(SessionOptions(history=OLD))
    task = asyncio.ensure_future(session.compact())
    await asyncio.sleep(0)
    assert rho.shutdown() == 1  # shutdown cancels manual compactions too
    with pytest.raises(Cancelled):
        await task
    assert session.history == OLD and session.revision == 0
