"""The engine reports every physical provider request to the usage recorder (spec/engine.md
§8.4): retries, provider-internal failed attempts, malformed replies and cancellation each get
their own record, in order, with the step and attempt, and a failing recorder never fails a run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rho_desk.core.compaction.api import CompactionPolicy
from rho_desk.core.errors import ProviderError, ProviderErrorKind, Retryability
from rho_desk.core.provider import RequestAttemptFailed, Usage
from rho_desk.core.session import Rho
from rho_desk.core.session import events as ev
from rho_desk.core.testing import (
    ScriptedCompactor,
    ScriptedProvider,
    ScriptedTool,
    ScriptedTurn,
    tool_call_response,
)
from rho_desk.core.usage.writer import LedgerWriter, RequestUsage, UsageRecording
from rho_desk.core.wire.model import Message, ModelUsage

from .conftest import SleepRecorder


class Collect:
    def __init__(self) -> None:
        self.events: list[RequestUsage] = []

    def record(self, event: RequestUsage) -> None:
        self.events.append(event)


def runtime(provider: ScriptedProvider, recorder: object, **options: object) -> Rho:
    builder = Rho.builder().provider(provider).retry_sleep(SleepRecorder())
    builder.usage_recorder(UsageRecording(recorder)).workspace_path("/w/project")  # type: ignore[arg-type]
    for name, value in options.items():
        getattr(builder, name)(value)
    return builder.build()


def used(tokens: int) -> Usage:
    return Usage(ModelUsage(input_tokens=tokens, output_tokens=1, total_tokens=tokens + 1))


def rate_limited() -> ProviderError:
    return ProviderError(ProviderErrorKind.RATE_LIMIT, "slow down", Retryability.RETRYABLE)


@pytest.mark.asyncio
async def test_every_physical_request_is_recorded_in_order() -> None:
    provider = ScriptedProvider(
        [
            # step 1: the provider retries by itself once, then answers with a tool call
            ScriptedTurn.streaming(
                [
                    used(10),
                    RequestAttemptFailed(
                        ProviderErrorKind.UNAVAILABLE, ModelUsage(output_tokens=3)
                    ),
                    used(20),
                ],
                tool_call_response(("c1", "echo", {})),
            ),
            # step 2: rate limited (the engine retries), a malformed (empty) reply, then the answer
            ScriptedTurn.streaming_failed([used(5)], rate_limited()),
            ScriptedTurn.completed(()),
            ScriptedTurn.streaming([used(30)], "done"),
        ]
    )
    recorder = Collect()
    rho = runtime(provider, recorder, tools=[ScriptedTool("echo", "ok")])
    session = rho.session()
    outcome = await session.complete("go")
    assert outcome.stop_reason is ev.StopReason.END_TURN
    got = [
        (e.step_index, e.attempt_index, e.outcome, e.usage.input_tokens, e.usage.output_tokens)
        for e in recorder.events
    ]
    assert got == [
        (1, 1, "failed", 10, 4),  # the provider's own retry: what it had used before failing
        (1, 2, "completed", 20, 1),
        (2, 1, "failed", 5, 1),  # rate limited
        (2, 2, "failed", None, None),  # malformed
        (2, 3, "completed", 30, 1),
    ]
    first = recorder.events[0]
    assert {e.run_id for e in recorder.events} == {first.run_id} and first.run_id
    assert all(e.session_id == session.id and e.purpose == "agent" for e in recorder.events)
    assert all(e.workspace_path == "/w/project" for e in recorder.events)
    assert (first.provider, first.model) == ("scripted", "scripted-model")
    assert len({e.event_id for e in recorder.events}) == 5


@pytest.mark.asyncio
async def test_a_cancelled_request_is_recorded_as_cancelled() -> None:
    started = asyncio.Event()
    provider = ScriptedProvider([ScriptedTurn.pending([used(7), lambda _request: started.set()])])
    recorder = Collect()
    session = runtime(provider, recorder).session()
    run = session.start("go")
    await started.wait()
    run.cancel()
    with pytest.raises(Exception, match="cancel"):
        await run.outcome()
    assert [(e.outcome, e.usage.input_tokens) for e in recorder.events] == [("cancelled", 7)]


@pytest.mark.asyncio
async def test_a_recorder_that_fails_never_fails_the_run(tmp_path: Path) -> None:
    recording = UsageRecording(LedgerWriter(tmp_path / "no-home" / "usage.sqlite3"))
    rho = (
        Rho.builder()
        .provider(ScriptedProvider([ScriptedTurn.completed("fine")]))
        .usage_recorder(recording)
        .build()
    )
    outcome = await rho.session().complete("go")
    assert outcome.stop_reason is ev.StopReason.END_TURN
    assert len(recording.diagnostics) == 1 and "no such Rho home" in recording.diagnostics[0]


@pytest.mark.asyncio
async def test_rows_reach_the_ledger_and_a_compaction_request_carries_the_workspace(
    tmp_path: Path,
) -> None:
    (tmp_path / "rho").mkdir()
    path = tmp_path / "rho" / "usage.sqlite3"
    compactor = ScriptedCompactor([[Message.user_text("digest")]])
    provider = ScriptedProvider([ScriptedTurn.streaming([used(40)], "answer")])
    rho = runtime(
        provider,
        LedgerWriter(path),
        compactor=compactor,
        compaction_policy=CompactionPolicy.after_messages(1),
    )
    session = rho.session()
    session.append_message(Message.user_text("earlier"))
    await session.complete("go")
    assert compactor.requests[0].workspace_path == "/w/project"
    from rho_desk.core.usage import UsageLedger

    with UsageLedger(path, cache_dir=False) as ledger:
        (row,) = ledger.session_requests(session.id)
    assert (row.purpose, row.outcome, row.input_tokens, row.step_index, row.attempt_index) == (
        "agent",
        "completed",
        40,
        1,
        1,
    )


@pytest.mark.asyncio
async def test_the_repetition_guard_ignores_the_shells_run_time() -> None:
    """The same command with the same output is the same result, whatever it took to run: a loop
    of ``bash`` calls ends at the fifth, not at the step limit (34.7: a real model needed six,
    and one whose runs took varying times would have run on)."""
    from rho_desk.core.tools import ToolOutput

    class Timed(ScriptedTool):
        runs = 0

        async def call(self, invocation, context):  # type: ignore[no-untyped-def]
            Timed.runs += 1
            return ToolOutput(
                f"total 8\n-rw-r--r-- notes.txt\n\ntime: {0.1 * Timed.runs:.1f}s  exit code: 0"
            )

    turns = [
        ScriptedTurn.completed(tool_call_response((f"c{i}", "bash", {"command": "ls -la"})))
        for i in range(12)
    ]
    rho = (
        Rho.builder().provider(ScriptedProvider(turns)).tools([Timed("bash")]).max_steps(12).build()
    )
    outcome = await rho.session().complete("loop")
    assert outcome.stop_reason is ev.StopReason.REPETITION and Timed.runs == 5
    assert outcome.detail.startswith(
        'the model called bash {"command": "ls -la"} 5 times with the same result'
    )


@pytest.mark.asyncio
async def test_a_final_answer_cut_at_the_output_limit_ends_the_run_saying_so() -> None:
    from rho_desk.core.provider import OutputDelta, OutputLimited, ServedModel

    provider = ScriptedProvider(
        [
            ScriptedTurn.streaming(
                [
                    ServedModel("/srv/models/q.gguf"),
                    OutputDelta("One, two, thr"),
                    OutputLimited("cut at 8 tokens"),
                ],
                "One, two, thr",
            )
        ]
    )
    session = Rho.builder().provider(provider).build().session()
    outcome = await session.complete("count")
    assert (outcome.stop_reason, outcome.detail) == (ev.StopReason.OUTPUT_LIMIT, "cut at 8 tokens")
    last = session.history[-1].enriched_assistant
    assert last is not None and last.provenance is not None and last.provenance.model == "q.gguf"
