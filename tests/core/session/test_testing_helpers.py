"""The scripted provider, tool and compactor of ``rho_desk.core.testing`` (spec §10.6, §15)."""

from __future__ import annotations

import pytest

from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.compaction.api import CompactionOutput, CompactionRequest
from rho_desk.core.errors import (
    Cancelled,
    InvalidHostResponse,
    ProviderError,
    ProviderErrorKind,
    Retryability,
)
from rho_desk.core.provider import ModelRequest, OutputDelta, ReasoningLevel
from rho_desk.core.testing import (
    ScriptedCompactor,
    ScriptedProvider,
    ScriptedTool,
    ScriptedTurn,
    text_response,
)
from rho_desk.core.tools import ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolOutput
from rho_desk.core.wire.model import Message

pytestmark = pytest.mark.asyncio


class Sink:
    def __init__(self) -> None:
        self.events: list[object] = []

    async def send(self, event: object) -> None:
        self.events.append(event)


def request(token: CancellationToken | None = None, text: str = "q") -> ModelRequest:
    return ModelRequest(
        messages=(Message.user_text(text),),
        tools=(),
        cancellation=token or CancellationToken(),
        reasoning_level=ReasoningLevel.LOW,
        prompt_cache_key="k",
    )


async def test_turns_are_answered_in_order_and_requests_recorded() -> None:
    error = ProviderError(ProviderErrorKind.TIMEOUT, "slow", Retryability.RETRYABLE)
    provider = ScriptedProvider(
        [
            ScriptedTurn.completed("one"),
            ScriptedTurn.streaming([OutputDelta("t")], "two"),
            ScriptedTurn.streaming_failed([OutputDelta("p")], error),
            ScriptedTurn.failed(error),
        ]
    )
    sink = Sink()
    assert await provider.send_turn_stream(request(text="a"), sink) == text_response("one")
    assert await provider.send_turn_stream(request(text="b"), sink) == text_response("two")
    with pytest.raises(ProviderError) as info:
        await provider.send_turn_stream(request(text="c"), sink)
    assert info.value is error
    with pytest.raises(ProviderError):
        await provider.send_turn(request(text="d"))  # non-streaming requests are recorded too
    assert sink.events == [OutputDelta("t"), OutputDelta("p")]
    assert [r.messages[0].text() for r in provider.requests] == ["a", "b", "c", "d"]
    assert (
        provider.requests[0].reasoning_level is ReasoningLevel.LOW
        and provider.requests[0].prompt_cache_key == "k"
    )
    with pytest.raises(ProviderError) as exhausted:
        await provider.send_turn(request())
    assert exhausted.value.kind is ProviderErrorKind.INVALID_RESPONSE
    assert exhausted.value.message == "scripted provider has no remaining turn"


async def test_an_already_cancelled_request_is_rejected_before_recording() -> None:
    provider = ScriptedProvider([ScriptedTurn.completed("x")])
    token = CancellationToken()
    token.cancel()
    with pytest.raises(ProviderError) as info:
        await provider.send_turn_stream(request(token), Sink())
    assert (
        info.value.kind is ProviderErrorKind.INTERRUPTED
        and info.value.message == "provider request cancelled"
    )
    assert provider.requests == [] and len(provider.turns) == 1


async def test_each_streamed_event_checks_cancellation() -> None:
    token = CancellationToken()

    class CancellingSink(Sink):
        async def send(self, event: object) -> None:
            await super().send(event)
            token.cancel()

    provider = ScriptedProvider([ScriptedTurn.streaming([OutputDelta("a"), OutputDelta("b")], "x")])
    sink = CancellingSink()
    with pytest.raises(ProviderError, match="provider request cancelled"):
        await provider.send_turn_stream(request(token), sink)
    assert sink.events == [OutputDelta("a")]


async def test_scripted_tool_outcomes() -> None:
    token = CancellationToken()
    context = ToolContext(call_id="c", cancellation=token, session_id="s", run_id="r")
    invocation = ToolInvocation("c", "t", {"a": 1})
    assert await ScriptedTool("t", "out").call(invocation, context) == ToolOutput("out")
    with pytest.raises(ToolError) as info:
        await ScriptedTool.failing("t", "nope", ToolErrorKind.INVALID_ARGUMENTS).call(
            invocation, context
        )
    assert (info.value.kind, info.value.message) == (ToolErrorKind.INVALID_ARGUMENTS, "nope")
    waiting = ScriptedTool.waiting("t")
    token.cancel()
    with pytest.raises(ToolError) as cancelled:
        await waiting.call(invocation, context)
    assert (
        cancelled.value.kind is ToolErrorKind.CANCELLED
        and cancelled.value.message == "tool call cancelled"
    )
    assert waiting.invocations == [invocation]


async def test_scripted_compactor_fifo_failure_and_exhaustion() -> None:
    def compaction_request(token: CancellationToken | None = None) -> CompactionRequest:
        return CompactionRequest(
            messages=(Message.user_text("x"),), cancellation=token or CancellationToken()
        )

    first, second = [Message.system_text("1")], [Message.system_text("2")]
    compactor = ScriptedCompactor([first, CompactionOutput(second)])
    assert (await compactor.compact(compaction_request())).messages == tuple(first)
    assert (await compactor.compact(compaction_request())).messages == tuple(second)
    with pytest.raises(InvalidHostResponse, match="scripted compactor has no remaining output"):
        await compactor.compact(compaction_request())
    assert len(compactor.requests) == 3

    failing = ScriptedCompactor.failing("summary failed").push(first)
    with pytest.raises(ProviderError) as info:
        await failing.compact(compaction_request())
    assert (info.value.kind, info.value.retryability) == (
        ProviderErrorKind.OTHER,
        Retryability.PERMANENT,
    )
    assert (await failing.compact(compaction_request())).messages == tuple(first)  # fails once only

    token = CancellationToken()
    token.cancel()
    with pytest.raises(Cancelled):
        await ScriptedCompactor([first]).compact(compaction_request(token))
