"""The summarizing compactor: asks a real adapter (loopback server) for the summary; usage, cost,
cancellation, bounds, and the engine's manual and automatic compaction with it."""

from __future__ import annotations

import asyncio

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.compaction import CompactionPolicy, estimate_messages_tokens
from rho_desk.core.compaction.api import CompactionRequest
from rho_desk.core.compaction.local import (
    DIGEST_MARKER,
    SUMMARY_MARKER,
    RecentBudget,
    is_compaction_message,
)
from rho_desk.core.errors import Cancelled, ProviderError, ProviderErrorKind
from rho_desk.core.provider import (
    EventSink,
    ModelProvider,
    ModelRequest,
    OutputDelta,
    ReasoningLevel,
    Usage,
)
from rho_desk.core.secrets.scrub import SecretString
from rho_desk.core.session import Rho, SessionOptions
from rho_desk.core.wire.model import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
)
from rho_desk.providers.compactors import SummarizingCompactor, render_transcript
from rho_desk.providers.openai_chat import OpenAIChatProvider
from rho_desk.providers.usage import Pricing

from .loopback import OPENAI_DONE, Loopback, Reply, openai_chunk


def turn(n: int) -> list[Message]:
    return [
        Message.user_text(f"request {n}: update src/f{n}.py"),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock(text=f"Reading {n}."),
                    ContentBlock.of_tool_call(f"c{n}", "read_file", {"path": f"src/f{n}.py"}),
                )
            )
        ),
        Message.result(f"c{n}", True, "x" * 5000),
        Message.enriched(AssistantMessage(content=(ContentBlock(text=f"Updated f{n}."),))),
    ]


def summary_stream(text: str, usage: dict[str, object] | None = None) -> list[bytes]:
    chunks = [openai_chunk({"role": "assistant", "content": ""})]
    chunks += [openai_chunk({"content": text[i : i + 40]}) for i in range(0, len(text), 40)]
    chunks.append(openai_chunk({}, finish="stop"))
    if usage is not None:
        chunks.append(openai_chunk(choices=False, usage=usage))
    return [*chunks, OPENAI_DONE]


def provider(server: Loopback, **kw: object) -> OpenAIChatProvider:
    return OpenAIChatProvider(
        base_url=server.url + "/v1",
        model="sum-model",
        api_key=SecretString("sk-sum-0000"),
        provider_name="local",
        **kw,
    )  # type: ignore[arg-type]


def compaction(
    messages: list[Message] | tuple[Message, ...], token: CancellationToken | None = None
) -> CompactionRequest:
    return CompactionRequest(messages=tuple(messages), cancellation=token or CancellationToken())


@pytest.mark.asyncio
async def test_summary_replaces_older_part_and_reports_usage_and_cost(server: Loopback) -> None:
    history = [Message.system_text("You are Rho."), *turn(1), *turn(2), *turn(3)]
    usage = {"prompt_tokens": 3000, "completion_tokens": 200, "total_tokens": 3200}
    server.queue(
        Reply(
            chunks=summary_stream(
                "The user asked to update f1 and f2; both were read and updated.", usage
            )
        )
    )
    async with provider(server, pricing=Pricing(input=1.0, output=4.0)) as p:
        compactor = SummarizingCompactor(p, RecentBudget(max_tokens=None, max_messages=4))
        output = await compactor.compact(compaction(history))
    assert output.messages[0] == history[0]
    assert output.messages[2:] == tuple(history[-4:])
    summary = output.messages[1].user[0].text  # type: ignore[index]
    assert summary.startswith(
        f"{SUMMARY_MARKER} Summary of 8 earlier message(s) (about {estimate_messages_tokens(history[1:9])} tokens)"
    )
    assert "written by local/sum-model" in summary
    assert summary.endswith("both were read and updated.")
    assert output.usage.output_tokens == 200 and output.usage.total_tokens == 3200
    assert output.usage.cost_usd_micros == 3000 * 1 + 200 * 4
    body = server.requests[0].body
    assert body["messages"][0]["role"] == "system" and "compact" in body["messages"][0]["content"]
    prompt = body["messages"][1]["content"]
    assert "[user]\nrequest 1: update src/f1.py" in prompt
    assert "[tool call: read_file]" in prompt and "[tool result: read_file, ok]" in prompt
    assert "more characters clipped" in prompt  # 5000-char tool output was clipped
    assert "<facts>" in prompt and "- src/f2.py" in prompt
    assert "request 3" not in prompt  # the kept part is not summarized
    assert "tools" not in body and "reasoning_effort" not in body


@pytest.mark.asyncio
async def test_nothing_to_compact_makes_no_request(server: Loopback) -> None:
    async with provider(server) as p:
        output = await SummarizingCompactor(
            p, RecentBudget(max_tokens=None, max_messages=50)
        ).compact(compaction(turn(1)))
    assert output.messages == tuple(turn(1)) and server.requests == []


@pytest.mark.asyncio
async def test_cancellation_mid_summary_closes_the_stream(server: Loopback) -> None:
    token = CancellationToken()
    server.queue(Reply(chunks=summary_stream("partial summary that never ends"), hang_after=2))

    class CancellingProvider(OpenAIChatProvider):
        async def send_turn_stream(self, request: ModelRequest, events: EventSink):  # type: ignore[no-untyped-def]
            class Tap:
                async def send(self, event: object) -> None:
                    await events.send(event)  # type: ignore[arg-type]
                    if isinstance(event, OutputDelta):
                        token.cancel()

            return await super().send_turn_stream(request, Tap())

    p = CancellingProvider(base_url=server.url + "/v1", model="m", provider_name="local")
    async with p:
        with pytest.raises(Cancelled):
            await SummarizingCompactor(p, RecentBudget(max_tokens=None, max_messages=1)).compact(
                compaction([*turn(1), *turn(2)], token)
            )
        await asyncio.wait_for(server.disconnected.wait(), timeout=10)


@pytest.mark.asyncio
async def test_provider_errors_propagate_typed(server: Loopback) -> None:
    server.queue(
        Reply(
            status=429,
            body=b'{"error":{"type":"rate_limit_error","message":"later"}}',
            headers={"retry-after": "2"},
        )
    )
    async with provider(server) as p:
        with pytest.raises(ProviderError) as caught:
            await SummarizingCompactor(p, RecentBudget(max_tokens=None, max_messages=1)).compact(
                compaction(turn(1))
            )
    assert caught.value.kind is ProviderErrorKind.RATE_LIMIT


@pytest.mark.asyncio
async def test_empty_summary_is_an_error(server: Loopback) -> None:
    server.queue(Reply(chunks=summary_stream("   ")))
    async with provider(server) as p:
        with pytest.raises(ProviderError, match="empty summary"):
            await SummarizingCompactor(p, RecentBudget(max_tokens=None, max_messages=1)).compact(
                compaction(turn(1))
            )


@pytest.mark.asyncio
async def test_a_tool_call_is_not_a_summary(server: Loopback) -> None:
    """A model that answers the summary request with a tool call ("Step 1: I will call
    read_file.") wrote no summary: refused, nothing replaces the history."""
    import json

    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": "README.md"})},
    }
    server.queue(
        Reply(
            chunks=[
                openai_chunk({"role": "assistant", "content": "Step 1: I will call read_file."}),
                openai_chunk({"tool_calls": [call]}),
                openai_chunk({}, finish="tool_calls"),
                OPENAI_DONE,
            ]
        )
    )
    async with provider(server) as p:
        with pytest.raises(ProviderError, match=r"tool call \(read_file\) instead of a summary"):
            await SummarizingCompactor(p, RecentBudget(max_tokens=None, max_messages=1)).compact(
                compaction(turn(1))
            )


def test_transcript_drops_oldest_first_but_keeps_earlier_summaries() -> None:
    earlier = Message.user_text(f"{DIGEST_MARKER} Earlier conversation (40 messages) ...")
    messages = [earlier, *[Message.user_text(f"message {i} " + "y" * 200) for i in range(50)]]
    text = render_transcript(messages, max_chars=3000)
    assert text.startswith("[earlier summary — fold it into yours]")
    assert "older message(s) omitted to fit" in text
    assert "message 49" in text and "message 0 " not in text
    assert len(text) < 3600


class EchoProvider(ModelProvider):
    """Writes a long summary that contains the previous one: worst case for growth."""

    def __init__(self) -> None:
        self.calls = 0

    def identity(self) -> ModelIdentity:
        return ModelIdentity("echo", "test", "echo-1")

    async def send_turn_stream(
        self, request: ModelRequest, events: EventSink
    ) -> tuple[ContentBlock, ...]:
        self.calls += 1
        prompt = request.messages[1].user[0].text  # type: ignore[index]
        text = f"Summary {self.calls}. " + prompt[:50_000]
        await events.send(
            Usage(
                ModelUsage(
                    input_tokens=len(prompt) // 4, output_tokens=len(text) // 4, cost_usd_micros=7
                )
            )
        )
        return (ContentBlock(text=text),)


@pytest.mark.asyncio
async def test_300_summarizing_compactions_stay_bounded() -> None:
    echo = EchoProvider()
    budget = RecentBudget(max_tokens=3000, max_messages=6)
    compactor = SummarizingCompactor(echo, budget, max_summary_chars=4000)
    history: tuple[Message, ...] = (Message.system_text("sys"),)
    for n in range(300):
        history = (*history, *turn(n)[:2], Message.result(f"c{n}", True, "ok"), *turn(n)[3:])
        output = await compactor.compact(compaction(history))
        history = output.messages
        assert len(history) <= 2 + budget.max_messages
        assert sum(1 for m in history if is_compaction_message(m)) <= 1
        assert output.usage.cost_usd_micros in (None, 7)
    assert echo.calls >= 290
    summary = history[1].user[0].text  # type: ignore[index]
    assert len(summary) <= 4000 + 400  # cap plus header and cut notice


# --- with the engine -----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_engine_manual_compaction_accounts_the_summary_cost(server: Loopback) -> None:
    server.queue(
        Reply(
            chunks=summary_stream(
                "short summary",
                {
                    "prompt_tokens": 100,
                    "completion_tokens": 10,
                    "total_tokens": 110,
                    "cost": 0.000123,
                },
            )
        )
    )
    async with provider(server) as p:
        compactor = SummarizingCompactor(p, RecentBudget(max_tokens=None, max_messages=2))
        rho = Rho.builder().provider(p).compactor(compactor).build()
        session = rho.session(
            SessionOptions(history=(Message.system_text("sys"), *turn(1), *turn(2)))
        )
        outcome = await session.compact()
    assert (
        outcome.previous_messages == 9 and outcome.current_messages == 3
    )  # system, summary, answer
    assert outcome.cost_usd_micros == 123
    assert outcome.revision == 1
    snapshot = session.snapshot()
    assert snapshot.compaction.completed_compactions == 1
    assert snapshot.compaction.removed_cost_usd_micros == 123
    assert snapshot.history[1].user[0].text.startswith(SUMMARY_MARKER)  # type: ignore[index]


@pytest.mark.asyncio
async def test_engine_automatic_compaction_then_answer_over_the_same_server(
    server: Loopback,
) -> None:
    answer = [
        openai_chunk({"role": "assistant", "content": "All done."}),
        openai_chunk({}, finish="stop"),
        OPENAI_DONE,
    ]
    server.queue(Reply(chunks=summary_stream("summary of the earlier work")), Reply(chunks=answer))
    async with provider(server) as p:
        compactor = SummarizingCompactor(p, RecentBudget(max_tokens=None, max_messages=1))
        rho = (
            Rho.builder()
            .provider(p)
            .compactor(compactor)
            .compaction_policy(CompactionPolicy.after_messages(5))
            .reasoning_level(ReasoningLevel.OFF)
            .build()
        )
        session = rho.session(SessionOptions(history=tuple(turn(1))))
        run = session.start("and now?")
        seen = []
        while (event := await run.next_event()) is not None:
            seen.append(type(event).__name__)
        outcome = await run.outcome()
    assert outcome.text == "All done."
    assert "CompactionStarted" in seen and "CompactionCompleted" in seen
    assert seen.index("CompactionCompleted") < seen.index("StepStarted")
    history = session.history
    assert history[0].user[0].text.startswith(SUMMARY_MARKER)  # type: ignore[index]
    assert history[1] == Message.user_text("and now?")
    # the answer request carried the replacement, not the removed messages
    sent = server.requests[1].body["messages"]
    assert sent[0]["content"].startswith(SUMMARY_MARKER) and sent[1] == {
        "role": "user",
        "content": "and now?",
    }


# --- the usage ledger ------------------------------------------------------------------------


class Rows:
    def __init__(self) -> None:
        self.events: list[object] = []

    def record(self, event: object) -> None:
        self.events.append(event)


@pytest.mark.asyncio
async def test_automatic_compaction_records_its_summary_request_then_the_answer(
    server: Loopback,
) -> None:
    """Rho records a summary request with purpose ``compaction`` and the turn's ids; rho-desk too."""
    from rho_desk.core.usage.writer import UsageRecording

    answer = [
        openai_chunk({"role": "assistant", "content": "All done."}),
        openai_chunk({}, finish="stop"),
        openai_chunk(
            choices=False, usage={"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55}
        ),
        OPENAI_DONE,
    ]
    server.queue(
        Reply(
            chunks=summary_stream(
                "summary", {"prompt_tokens": 900, "completion_tokens": 30, "total_tokens": 930}
            )
        ),
        Reply(chunks=answer),
    )
    rows = Rows()
    recording = UsageRecording(rows)  # type: ignore[arg-type]
    async with provider(server, pricing=Pricing(input=1.0, output=4.0)) as p:
        compactor = SummarizingCompactor(
            p, RecentBudget(max_tokens=None, max_messages=1), recording=recording
        )
        rho = (
            Rho.builder()
            .provider(p)
            .compactor(compactor)
            .compaction_policy(CompactionPolicy.after_messages(5))
            .usage_recorder(recording)
            .workspace_path("/w/p")
            .build()
        )
        session = rho.session(SessionOptions(history=tuple(turn(1))))
        await session.complete("and now?")
    summary, reply = rows.events
    assert (summary.purpose, summary.outcome, summary.step_index, summary.attempt_index) == (
        "compaction",
        "completed",
        1,
        1,
    )  # type: ignore[attr-defined]
    # as the server reported it: an inclusive prompt without a cache split leaves input unknown (as Rho's rows)
    assert summary.usage.total_tokens == 930 and summary.usage.cost_usd_micros == 900 * 1 + 30 * 4  # type: ignore[attr-defined]
    assert (reply.purpose, reply.step_index, reply.usage.total_tokens) == ("agent", 1, 55)  # type: ignore[attr-defined]
    assert summary.run_id == reply.run_id and summary.session_id == reply.session_id == session.id  # type: ignore[attr-defined]
    assert summary.workspace_path == reply.workspace_path == "/w/p"  # type: ignore[attr-defined]
    assert (summary.provider, summary.model) == ("local", "sum-model")  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_a_failed_summary_request_is_recorded_as_failed(server: Loopback) -> None:
    from rho_desk.core.usage.writer import UsageRecording

    server.queue(Reply(status=500, body=b'{"error":{"message":"boom"}}'))
    rows = Rows()
    async with provider(server) as p:
        compactor = SummarizingCompactor(
            p, RecentBudget(max_tokens=None, max_messages=1), recording=UsageRecording(rows)
        )  # type: ignore[arg-type]
        with pytest.raises(ProviderError):
            await compactor.compact(compaction([*turn(1), *turn(2)]))
    (row,) = rows.events
    assert (row.purpose, row.outcome, row.step_index) == ("compaction", "failed", None)  # type: ignore[attr-defined]
