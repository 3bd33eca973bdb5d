"""The model loop: event sequences, tool rounds, step budget, validation and retries (§8, §11)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from rho_desk.core.errors import ProviderDiagnostic, ProviderError, ProviderErrorKind, Retryability
from rho_desk.core.provider import OutputDelta, Usage
from rho_desk.core.session import StopReason, protocol_issue
from rho_desk.core.session import events as ev
from rho_desk.core.testing import (
    ScriptedProvider,
    ScriptedTool,
    ScriptedTurn,
    text_response,
    tool_call_response,
)
from rho_desk.core.tools import ToolErrorKind, ToolOutput
from rho_desk.core.wire.model import ContentBlock, Message, MessageKind, ModelUsage

from .conftest import SleepRecorder, build, collect, names, of_type

pytestmark = pytest.mark.asyncio


def retryable(
    kind: ProviderErrorKind = ProviderErrorKind.UNAVAILABLE, *, after: float | None = None
) -> ProviderError:
    return ProviderError(
        kind,
        "try later",
        Retryability.RETRYABLE,
        retry_after=timedelta(seconds=after) if after is not None else None,
    )


async def test_text_only_answer_event_sequence() -> None:
    turn = ScriptedTurn.streaming([OutputDelta("Hel"), OutputDelta("lo")], "Hello")
    session = build(turns=[turn]).session()
    run = session.start("hi")
    events = await collect(run)
    outcome = await run.outcome()
    assert names(events) == [
        "Started",
        "StepStarted",
        "ContextEstimated",
        "AssistantTextDelta",
        "AssistantTextDelta",
        "ModelCallCompleted",
        "Completed",
    ]
    assert events[0] == ev.Started(run.id, 0)
    assert events[1] == ev.StepStarted(1)
    assert events[-1] == ev.Completed(outcome)
    assert (
        outcome.text == "Hello"
        and outcome.stop_reason is StopReason.END_TURN
        and outcome.revision == 1
    )
    user, assistant = session.history
    assert user == Message.user_text("hi")
    assert assistant.enriched_assistant is not None
    assert assistant.enriched_assistant.provenance == session.provider.identity()
    assert assistant.enriched_assistant.content == text_response("Hello")


async def test_committed_content_comes_from_the_final_response_not_the_deltas() -> None:
    turn = ScriptedTurn.streaming([OutputDelta("streamed")], "final")
    session = build(turns=[turn]).session()
    outcome = await session.complete("q")
    assert outcome.text == "final" and session.history[-1].text() == "final"


async def test_context_estimate_follows_every_step_started() -> None:
    from rho_desk.core.compaction.tokens import estimate_context_tokens

    tool = ScriptedTool("read", "contents")
    turns = [
        ScriptedTurn.completed(tool_call_response(("c1", "read", {}))),
        ScriptedTurn.completed("done"),
    ]
    provider = ScriptedProvider(turns)
    session = build(provider, tools=[tool]).session()
    run = session.start("q")
    events = await collect(run)
    estimates = of_type(events, ev.ContextEstimated)
    assert [e.tokens for e in estimates] == [
        estimate_context_tokens(r.messages, r.tools) for r in provider.requests
    ]
    for i, event in enumerate(events):
        if isinstance(event, ev.StepStarted):
            assert isinstance(events[i + 1], ev.ContextEstimated)


async def test_one_tool_round() -> None:
    tool = ScriptedTool("read", "file contents", progress=["reading"])
    turns = [
        ScriptedTurn.completed(
            tool_call_response(("call-1", "read", {"path": "a"}), text="let me look")
        ),
        ScriptedTurn.completed("it says hi"),
    ]
    provider = ScriptedProvider(turns)
    session = build(provider, tools=[tool]).session()
    run = session.start("what is in a?")
    events = await collect(run)
    outcome = await run.outcome()
    assert names(events) == [
        "Started",
        "StepStarted",
        "ContextEstimated",
        "ModelCallCompleted",
        "ToolProposed",
        "ToolStarted",
        "ToolUpdated",
        "ToolFinished",
        "StepStarted",
        "ContextEstimated",
        "ModelCallCompleted",
        "Completed",
    ]
    assert [m.kind for m in session.history] == [
        MessageKind.USER,
        MessageKind.ENRICHED_ASSISTANT,
        MessageKind.TOOL_RESULT,
        MessageKind.ENRICHED_ASSISTANT,
    ]
    assert session.history[2] == Message.result("call-1", True, "file contents")
    assert outcome.revision == 1  # tool rounds do not commit on their own
    assert tool.invocations[0].arguments == {"path": "a"}
    # the second request carries the tool result
    assert provider.requests[1].messages == session.history[:3]
    assert provider.requests[0].tools == (tool.spec(),)


async def test_tool_failure_and_unavailable_tools_become_failed_results() -> None:
    failing = ScriptedTool.failing("write", "disk full")
    turns = [
        ScriptedTurn.completed(tool_call_response(("c1", "write", {}), ("c2", "nope", {}))),
        ScriptedTurn.completed("sorry"),
    ]
    session = build(turns=turns, tools=[failing]).session()
    run = session.start("save it")
    events = await collect(run)
    await run.outcome()
    results = [m.tool_result for m in session.history if m.tool_result is not None]
    assert [(r.id, r.ok, r.content) for r in results] == [
        ("c1", False, "disk full"),
        ("c2", False, "tool 'nope' is unavailable"),
    ]
    finished = {e.call_id: e.result for e in of_type(events, ev.ToolFinished)}
    assert finished["c1"] == ev.ToolCallFailure(ToolErrorKind.EXECUTION, "disk full")
    assert finished["c2"] == ev.ToolCallUnavailable()
    assert "c2" not in {e.call_id for e in of_type(events, ev.ToolStarted)}


async def test_max_steps_commits_and_reports_the_newest_assistant_content() -> None:
    tool = ScriptedTool("loop", "again")
    calls = [ScriptedTurn.completed(tool_call_response((f"c{i}", "loop", {}))) for i in range(3)]
    session = build(turns=calls, tools=[tool], max_steps=2).session()
    outcome = await session.complete("go")
    assert outcome.stop_reason is StopReason.MAX_STEPS and outcome.revision == 1
    assert outcome.detail == "the turn reached its limit of 2 model steps"
    assert outcome.content == tool_call_response(("c1", "loop", {}))
    assert outcome.text == ""
    assert session.history[-1] == Message.result("c1", True, "again")


async def test_the_same_call_with_the_same_result_stops_the_run_early() -> None:
    tool = ScriptedTool("read_file", "same contents")
    calls = [
        ScriptedTurn.completed(tool_call_response((f"c{i}", "read_file", {"path": "README.md"})))
        for i in range(40)
    ]
    session = build(turns=calls, tools=[tool], repeat_limit=5).session()
    outcome = await session.complete("go")
    assert outcome.stop_reason is StopReason.REPETITION and outcome.revision == 1
    assert outcome.detail == (
        'the model called read_file {"path": "README.md"} 5 times with the same result; the turn was stopped'
    )
    assert (
        sum(1 for m in session.history if m.tool_result is not None) == 5
    )  # what it did is committed


async def test_the_repetition_guard_counts_calls_and_results_together_and_can_be_off() -> None:
    # the same call with a different result each time is progress (a file that changes), not a loop
    class Changing(ScriptedTool):
        async def call(self, invocation: Any, context: Any) -> ToolOutput:
            await super().call(invocation, context)
            return ToolOutput(f"version {len(self.invocations)}")

    tool = Changing("read_file")
    calls = [
        ScriptedTurn.completed(tool_call_response((f"c{i}", "read_file", {"path": "log"})))
        for i in range(8)
    ]
    calls.append(ScriptedTurn.completed((ContentBlock(text="done"),)))
    outcome = await build(turns=calls, tools=[tool], repeat_limit=3).session().complete("go")
    assert outcome.stop_reason is StopReason.END_TURN and outcome.detail == ""
    same = ScriptedTool("loop", "again")
    loops = [ScriptedTurn.completed(tool_call_response((f"c{i}", "loop", {}))) for i in range(4)]
    outcome = (
        await build(turns=loops, tools=[same], max_steps=3, repeat_limit=0).session().complete("go")
    )
    assert outcome.stop_reason is StopReason.MAX_STEPS


async def test_usage_sums_successful_attempts_only() -> None:
    u = ModelUsage(input_tokens=10, output_tokens=2)
    turns = [
        ScriptedTurn.streaming_failed([Usage(ModelUsage(output_tokens=100))], retryable()),
        ScriptedTurn.streaming([Usage(u)], tool_call_response(("c", "t", {}))),
        ScriptedTurn.streaming([Usage(u)], "done"),
    ]
    session = build(turns=turns, tools=[ScriptedTool("t")]).session()
    run = session.start("q")
    events = await collect(run)
    outcome = await run.outcome()
    assert outcome.usage == ModelUsage(input_tokens=20, output_tokens=4)
    # UsageUpdated shows the run total so far plus the current attempt
    assert [e.usage.output_tokens for e in of_type(events, ev.UsageUpdated)] == [100, 2, 4]


# --- protocol validation (§8.4) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("blocks", "issue"),
    [
        ((), "provider returned an empty assistant response"),
        ((ContentBlock(text=""),), None),
        (tool_call_response(("a", "n", {}), ("b", "n", {})), None),
        (
            tool_call_response(("", "n", {})),
            "provider returned a malformed assistant response: tool call 0 has an empty id",
        ),
        (
            (ContentBlock(text="x"), *tool_call_response(("a", "n", {}), ("a", "", [1]))),
            "provider returned a malformed assistant response: duplicate tool call id 'a'; "
            "tool call 2 has an empty name; tool call 2 arguments are not a JSON object",
        ),
        (
            tool_call_response(("a", "n", None)),
            "provider returned a malformed assistant response: tool call 0 arguments are not a JSON object",
        ),
    ],
)
async def test_protocol_issues(blocks: tuple[ContentBlock, ...], issue: str | None) -> None:
    assert protocol_issue(blocks) == issue


async def test_one_malformed_response_is_retried_at_once(sleeps: SleepRecorder) -> None:
    turns = [ScriptedTurn.completed(()), ScriptedTurn.completed("fine")]
    provider = ScriptedProvider(turns)
    session = build(provider, sleep=sleeps).session()
    run = session.start("q")
    events = await collect(run)
    outcome = await run.outcome()
    assert outcome.text == "fine" and sleeps.delays == [] and len(provider.requests) == 2
    detail = "retrying malformed provider response after provider attempt 1 of 4"
    i = events.index(ev.ProviderActivity("invalid_response_retry", detail))
    assert events[i + 1] == ev.ProviderStreamReset(ev.InvalidResponseReset(), detail)
    assert names(events).count("StepStarted") == 1  # retries do not re-emit StepStarted
    assert names(events).count("ModelCallCompleted") == 2  # also for the malformed response
    assert provider.requests[0] == provider.requests[1]  # the identical request is resent


async def test_two_malformed_responses_fail_the_run_without_commit() -> None:
    turns = [ScriptedTurn.completed(()), ScriptedTurn.completed(tool_call_response(("", "x", {})))]
    session = build(turns=turns).session()
    run = session.start("q")
    events = await collect(run)
    with pytest.raises(ProviderError) as info:
        await run.outcome()
    assert info.value.kind is ProviderErrorKind.INVALID_RESPONSE
    assert (
        str(info.value)
        == "provider failed: provider returned a malformed assistant response: tool call 0 has an empty id"
    )
    assert events[-1] == ev.Failed(str(info.value), Retryability.PERMANENT)
    assert session.revision == 0 and session.history == ()


async def test_retryable_failures_back_off_1_2_4_then_give_up(sleeps: SleepRecorder) -> None:
    turns = [ScriptedTurn.failed(retryable()) for _ in range(4)]
    provider = ScriptedProvider(turns)
    session = build(provider, sleep=sleeps).session()
    run = session.start("q")
    events = await collect(run)
    with pytest.raises(ProviderError):
        await run.outcome()
    assert sleeps.delays == [1.0, 2.0, 4.0] and len(provider.requests) == 4
    resets = of_type(events, ev.ProviderStreamReset)
    assert [r.detail for r in resets] == [
        f"retrying after provider attempt {a} of 4: try later" for a in (1, 2, 3)
    ]
    assert resets[0].reason == ev.RetryableFailure(ProviderErrorKind.UNAVAILABLE)
    assert events[-1] == ev.Failed("provider failed: try later", Retryability.RETRYABLE)
    assert session.revision == 0


async def test_giving_up_says_how_the_first_attempt_failed_when_the_last_failed_otherwise(
    sleeps: SleepRecorder,
) -> None:
    """A reply that broke off, then a server that no longer answers: the error names both, so
    "could not connect" alone does not hide that the connection was lost mid-reply. Kind,
    retryability and diagnostic stay the last error's; identical failures keep their one message
    (above)."""
    lost = ProviderError(
        ProviderErrorKind.INVALID_RESPONSE,
        "the connection was lost mid-reply",
        Retryability.RETRYABLE,
    )
    refused = ProviderError(
        ProviderErrorKind.UNAVAILABLE,
        "could not connect",
        Retryability.RETRYABLE,
        diagnostic=ProviderDiagnostic("refused"),
    )
    session = build(
        turns=[ScriptedTurn.failed(lost), *(ScriptedTurn.failed(refused) for _ in range(3))],
        sleep=sleeps,
    ).session()
    run = session.start("q")
    events = await collect(run)
    with pytest.raises(ProviderError) as info:
        await run.outcome()
    error = info.value
    assert (
        error.message
        == "the connection was lost mid-reply; 3 more attempts failed, the last: could not connect"
    )
    assert (
        error.kind is ProviderErrorKind.UNAVAILABLE
        and error.is_retryable()
        and error.diagnostic is refused.diagnostic
    )
    assert events[-1] == ev.Failed(f"provider failed: {error.message}", Retryability.RETRYABLE)
    rejected = ProviderError(ProviderErrorKind.OTHER, "HTTP 400: bad request")
    session = build(
        turns=[ScriptedTurn.failed(lost), ScriptedTurn.failed(rejected)], sleep=sleeps
    ).session()
    with pytest.raises(ProviderError) as info:
        await session.complete("q")
    assert (
        info.value.message
        == "the connection was lost mid-reply; 1 more attempt failed, the last: HTTP 400: bad request"
    )
    assert not info.value.is_retryable()


async def test_retry_after_is_honoured_up_to_60_seconds(sleeps: SleepRecorder) -> None:
    turns = [
        ScriptedTurn.failed(retryable(ProviderErrorKind.RATE_LIMIT, after=0.5)),
        ScriptedTurn.failed(retryable(ProviderErrorKind.RATE_LIMIT, after=90)),
        ScriptedTurn.failed(retryable(ProviderErrorKind.RATE_LIMIT, after=3)),
        ScriptedTurn.completed("ok"),
    ]
    session = build(turns=turns, sleep=sleeps).session()
    run = session.start("q")
    events = await collect(run)
    await run.outcome()
    # max(min(w, 60), 1 * 2^(f-1))
    assert sleeps.delays == [1.0, 60.0, 4.0]
    reasons = [r.reason for r in of_type(events, ev.ProviderStreamReset)]
    assert reasons[1] == ev.RetryableFailureWithRetryAfter(
        ProviderErrorKind.RATE_LIMIT, timedelta(seconds=90)
    )


async def test_malformed_and_failed_attempts_share_the_budget_of_four(
    sleeps: SleepRecorder,
) -> None:
    turns = [
        ScriptedTurn.failed(retryable()),
        ScriptedTurn.completed(()),
        ScriptedTurn.failed(retryable()),
        ScriptedTurn.failed(retryable()),
        ScriptedTurn.completed("never asked"),
    ]
    provider = ScriptedProvider(turns)
    session = build(provider, sleep=sleeps).session()
    with pytest.raises(ProviderError):
        await session.complete("q")
    assert len(provider.requests) == 4
    assert sleeps.delays == [1.0, 2.0]  # the malformed attempt neither waits nor counts as failed


async def test_permanent_errors_are_not_retried(sleeps: SleepRecorder) -> None:
    error = ProviderError(
        ProviderErrorKind.AUTHENTICATION, "key rejected", diagnostic=ProviderDiagnostic("401 body")
    )
    provider = ScriptedProvider([ScriptedTurn.failed(error)])
    session = build(provider, sleep=sleeps).session()
    run = session.start("q")
    events = await collect(run)
    with pytest.raises(ProviderError) as info:
        await run.outcome()
    assert info.value is error and len(provider.requests) == 1 and sleeps.delays == []
    assert events[-2:] == [
        ev.ProviderDiagnostic("401 body"),
        ev.Failed("provider failed: key rejected", Retryability.PERMANENT),
    ]
    assert "401 body" not in repr(events[-2])


async def test_an_exhausted_scripted_provider_fails_the_run() -> None:
    session = build(turns=[]).session()
    with pytest.raises(ProviderError, match="scripted provider has no remaining turn"):
        await session.complete("q")


async def test_a_foreign_provider_exception_is_named_not_quoted() -> None:
    from rho_desk.core.provider import ModelProvider
    from rho_desk.core.wire.model import ModelIdentity

    class Leaky(ModelProvider):
        def identity(self) -> ModelIdentity:
            return ModelIdentity("l", "l", "l")

        async def send_turn(self, request):  # type: ignore[no-untyped-def]
            raise RuntimeError("GET https://api.example/?key=sk-secret failed")

    session = build(Leaky()).session()  # type: ignore[arg-type]
    with pytest.raises(ProviderError) as info:
        await session.complete("q")
    assert str(info.value) == "provider failed: provider raised RuntimeError"
    assert "sk-secret" not in str(info.value)


async def test_host_tool_call_runs_before_the_first_request() -> None:
    from rho_desk.core.wire.model import ToolCall

    tool = ScriptedTool("read", "notes")
    provider = ScriptedProvider([ScriptedTurn.completed("summary")])
    session = build(provider, tools=[tool]).session()
    run = session.start_with_tool_call("summarize notes", ToolCall("host-1", "read", {"path": "n"}))
    events = await collect(run)
    await run.outcome()
    assert names(events)[:5] == [
        "Started",
        "ToolProposed",
        "ToolStarted",
        "ToolFinished",
        "StepStarted",
    ]
    assert [m.kind for m in provider.requests[0].messages] == [
        MessageKind.USER,
        MessageKind.ASSISTANT,
        MessageKind.TOOL_RESULT,
    ]
    assert provider.requests[0].messages[1] == Message.assistant_blocks(
        [ContentBlock.of_tool_call("host-1", "read", {"path": "n"})]
    )


async def test_default_stream_adapter_replays_text_blocks() -> None:
    from rho_desk.core.provider import ModelProvider
    from rho_desk.core.wire.model import ModelIdentity

    class Plain(ModelProvider):
        def identity(self) -> ModelIdentity:
            return ModelIdentity("p", "p", "p")

        async def send_turn(self, request):  # type: ignore[no-untyped-def]
            return (
                ContentBlock(text="a"),
                ContentBlock.of_tool_call("c", "t", {}),
                ContentBlock(text="b"),
            )

    plain = Plain()
    session = build(plain, tools=[ScriptedTool("t")], max_steps=1).session()  # type: ignore[arg-type]
    run = session.start("q")
    events = await collect(run)
    await run.outcome()
    assert [e.text for e in of_type(events, ev.AssistantTextDelta)] == ["a", "b"]


async def test_next_event_returns_none_at_the_end() -> None:
    session = build(turns=[ScriptedTurn.completed("x")]).session()
    run = session.start("q")
    seen = []
    while (event := await run.next_event()) is not None:
        seen.append(event)
    assert isinstance(seen[-1], ev.Completed)
    assert await run.next_event() is None


async def test_the_cancellation_handle_is_the_runs_token() -> None:
    # spec/engine.md §9: Run exposes cancellation_handle(); cancelling it cancels the run
    from rho_desk.core.errors import Cancelled

    session = build(turns=[ScriptedTurn.pending([OutputDelta("partial")])]).session()
    run = session.start("q")
    first = await run.__anext__()
    assert isinstance(first, ev.Started)
    handle = run.cancellation_handle
    assert not handle.cancelled
    handle.cancel()
    await collect(run)
    with pytest.raises(Cancelled):
        await run.outcome()
    assert run.done and session.revision == 1  # the seed: the prompt is committed on cancel
