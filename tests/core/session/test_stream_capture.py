"""Stream capture rules (§8.5) and the AbortedAssistant built from a capture (§9.3)."""

from __future__ import annotations

import pytest

from rho_desk.core.errors import Cancelled, ProviderErrorKind
from rho_desk.core.provider import (
    OutputDelta,
    ProviderContext,
    ReasoningDelta,
    ReasoningSummaryDelta,
    RequestAttemptFailed,
    ServiceTier,
    ToolCallDelta,
    Usage,
    WebSearch,
)
from rho_desk.core.session import events as ev
from rho_desk.core.session.capture import StreamCapture
from rho_desk.core.testing import SCRIPTED_IDENTITY, ScriptedProvider, ScriptedTurn
from rho_desk.core.wire.model import (
    AbortedAssistant,
    ContentBlock,
    Message,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
    ToolCall,
)

from .conftest import build, collect, names


def texts(capture: StreamCapture) -> list[str | None]:
    return [b.text for b in capture.content()]


def test_text_deltas_merge_into_one_block() -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    for t in ("a", "b", "c"):
        c.text(t)
    assert texts(c) == ["abc"]


def test_reasoning_breaks_text_merging_but_is_not_kept() -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    c.text("a")
    c.reasoning()
    c.text("b")
    c.text("c")
    assert texts(c) == ["a", "bc"]
    assert c.aborted_assistant() is not None and c.aborted_assistant().reasoning == ""  # type: ignore[union-attr]


def test_text_after_provider_context_forms_a_one_delta_block() -> None:
    # Open question #12, replicated: the first delta after a context block stands alone.
    c = StreamCapture(SCRIPTED_IDENTITY)
    c.text("a")
    c.provider_context("k", 0, {})
    c.text("b")
    c.text("c")
    c.text("d")
    assert texts(c) == ["a", "b", "cd"]


def test_summary_deltas_concatenate_and_break_merging() -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    c.text("a")
    c.reasoning_summary("sum")
    c.reasoning_summary("mary")
    c.text("b")
    assert texts(c) == ["a", "b"] and c.summary_text() == "summary"


def test_raw_reasoning_alone_produces_no_aborted_assistant() -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    c.reasoning()
    assert c.is_empty() and c.aborted_assistant() is None


def test_usage_alone_produces_an_aborted_assistant() -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    c.add_usage(ModelUsage(output_tokens=1))
    aborted = c.aborted_assistant()
    assert aborted == AbortedAssistant(
        content=(), reasoning="", tool_calls=(), usage=ModelUsage(output_tokens=1)
    )
    c.reset_usage()
    assert c.aborted_assistant() is None


def test_tool_calls_materialize_in_completion_order_and_list_in_index_order() -> None:
    # spec/engine.md §9.3 example
    c = StreamCapture(SCRIPTED_IDENTITY)
    c.tool_call(2, "call-2", "write", '{"b":2}')
    c.tool_call(0, "call-0", "read", '{"a":1}')
    aborted = c.aborted_assistant()
    assert aborted is not None
    assert aborted.content == (
        ContentBlock(tool_call=ToolCall("call-2", "write", {"b": 2})),
        ContentBlock(tool_call=ToolCall("call-0", "read", {"a": 1})),
    )
    assert aborted.tool_calls == (
        PartialToolCall(id="call-0", name="read", arguments='{"a":1}'),
        PartialToolCall(id="call-2", name="write", arguments='{"b":2}'),
    )


@pytest.mark.parametrize(
    ("fragments", "complete"),
    [
        (['{"path":', ' "a}b"', "}"], True),  # a brace inside a string does not count
        (['{"s": "\\"}"', "}"], True),  # an escaped quote does not end the string
        (['{"s": "\\\\"', "}"], True),  # an escaped backslash does
        (['{"a": [1, {"b": 2}]', "}"], True),
        (['{"a": [1, {"b": 2}]'], False),
        (["noise {", '"x": 1}'], False),  # completes, but the text is not JSON
        (["[1, 2]"], False),  # only { starts the detector
        (['{"a":1}', " trailing"], True),  # completion is reported once, at the first balance
    ],
)
def test_completion_detector(fragments: list[str], complete: bool) -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    for fragment in fragments:
        c.tool_call(0, "id", "name", fragment)
    materialized = [b for b in c.content() if b.tool_call is not None]
    assert bool(materialized) is complete
    assert c.aborted_assistant().tool_calls[0].arguments == "".join(fragments)  # type: ignore[union-attr]


def test_non_object_arguments_are_never_materialized() -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    c.tool_call(0, "id", "name", '{"a": 1} {')
    assert c.content() == ()


def test_id_and_name_may_arrive_after_the_arguments_and_change_later() -> None:
    c = StreamCapture(SCRIPTED_IDENTITY)
    assert c.tool_call(0, None, None, '{"a":1}') == (None, None)
    assert c.content() == ()
    assert c.tool_call(0, "id-1", None, "") == ("id-1", None)
    assert c.tool_call(0, None, "read", "") == ("id-1", "read")
    assert c.content() == (ContentBlock(tool_call=ToolCall("id-1", "read", {"a": 1})),)
    c.tool_call(0, "id-2", None, "")
    assert c.content() == (ContentBlock(tool_call=ToolCall("id-2", "read", {"a": 1})),)
    c.tool_call(
        0, "", None, ""
    )  # an empty id overwrites too, but no longer qualifies for an update
    assert c.aborted_assistant().tool_calls[0].id == ""  # type: ignore[union-attr]


def test_large_arguments_stay_linear() -> None:
    import time

    def capture_time(size: int) -> float:
        payload = '{"data": "' + "x" * size + '"}'
        c = StreamCapture(SCRIPTED_IDENTITY)
        start = time.perf_counter()
        for i in range(0, len(payload), 256):
            c.tool_call(0, "id", "name", payload[i : i + 256])
        assert c.content()[0].tool_call is not None
        return (time.perf_counter() - start) / size

    capture_time(16_384)  # warm up
    small = min(capture_time(16_384) for _ in range(3))
    large = min(capture_time(262_144) for _ in range(3))
    assert large < small * 4  # quadratic growth would make this ~16x


# --- through the engine -------------------------------------------------------------------


@pytest.mark.asyncio
async def test_every_model_event_maps_to_its_run_events() -> None:
    stream = [
        OutputDelta("hi"),
        ReasoningDelta("thinking"),
        ReasoningSummaryDelta("summary"),
        WebSearch("query"),
        ToolCallDelta(0, "c1", "read", '{"p":'),
        ToolCallDelta(0, None, None, "1}"),
        ProviderContext("hosted_tool_activity", None, {"name": "search", "detail": "3 results"}),
        ProviderContext("hosted_tool_activity", None, "not an object"),
        ProviderContext(
            "service_tier_fallback", None, {"requested": "priority", "used": "default"}
        ),
        ProviderContext("rho_model_call_generation_output_tokens", None, {"tokens": 7}),
        ProviderContext("opaque", 3, {"blob": "x"}),
        Usage(ModelUsage(output_tokens=5)),
        RequestAttemptFailed(ProviderErrorKind.TIMEOUT),
    ]
    session = build(turns=[ScriptedTurn.streaming(stream, "answer")]).session()
    run = session.start("q")
    events = await collect(run)
    await run.outcome()
    body = events[3 : names(events).index("ModelCallCompleted") + 1]
    assert body == [
        ev.AssistantTextDelta("hi"),
        ev.ReasoningDelta("thinking"),
        ev.ReasoningSummaryDelta("summary"),
        ev.WebSearch("query"),
        ev.ProviderActivity("web_search", "query"),
        ev.ToolCallUpdated(0, "c1", "read", '{"p":'),
        ev.ToolCallUpdated(0, "c1", "read", "1}"),
        ev.HostedToolActivity("search", "3 results"),
        ev.HostedToolActivity("unknown", ""),
        ev.ProviderServiceTierFallback(ServiceTier.PRIORITY, "default"),
        ev.ProviderContextUpdated("opaque"),
        ev.UsageUpdated(ModelUsage(output_tokens=5)),
        ev.ProviderRequestRetry(),
        ev.ProviderActivity(
            "provider_request_retry", "retrying after a failed physical provider request"
        ),
        ev.ProviderActivity("model_call_generation_output_tokens", "7"),
        body[-1],
    ]
    assert isinstance(body[-1], ev.ModelCallCompleted)
    assistant = session.history[-1].enriched_assistant
    assert assistant is not None
    # summary and provider context come from the stream; reserved carriers are never stored
    assert assistant.reasoning_summary == "summary"
    assert assistant.provider_context == (
        ProviderContextBlock(
            identity=SCRIPTED_IDENTITY, kind="opaque", position=3, data={"blob": "x"}
        ),
    )
    assert "thinking" not in repr(session.history)


@pytest.mark.asyncio
async def test_invalid_generation_token_carrier_reports_unavailable() -> None:
    stream = [ProviderContext("rho_model_call_generation_output_tokens", None, {"tokens": -1})]
    session = build(turns=[ScriptedTurn.streaming(stream, "a")]).session()
    run = session.start("q")
    events = await collect(run)
    assert ev.ProviderActivity("model_call_generation_output_tokens", "unavailable") in events


@pytest.mark.asyncio
async def test_cancelled_stream_commits_the_capture_as_aborted_assistant() -> None:
    stream = [
        OutputDelta("The answer"),
        OutputDelta(" is"),
        ReasoningDelta("secret chain of thought"),
        ReasoningSummaryDelta("checked"),
        ProviderContext("encrypted_reasoning", 0, {"e": "opaque"}),
        ToolCallDelta(0, "call-1", "read_file", '{"path":'),
        Usage(ModelUsage(output_tokens=4)),
    ]
    provider = ScriptedProvider([ScriptedTurn.pending(stream)])
    session = build(provider).session()
    run = session.start("q")
    async for event in run:
        if isinstance(event, ev.UsageUpdated):
            run.cancel()
    with pytest.raises(Cancelled):
        await run.outcome()
    user, aborted_message = session.history
    assert user == Message.user_text("q")
    assert aborted_message.aborted_assistant == AbortedAssistant(
        content=(ContentBlock(text="The answer is"),),
        reasoning="",
        reasoning_summary="checked",
        provider_context=(
            ProviderContextBlock(
                identity=SCRIPTED_IDENTITY,
                kind="encrypted_reasoning",
                position=0,
                data={"e": "opaque"},
            ),
        ),
        tool_calls=(PartialToolCall(id="call-1", name="read_file", arguments='{"path":'),),
        usage=ModelUsage(output_tokens=4),
    )
    assert aborted_message.aborted_assistant.provenance is None  # type: ignore[union-attr]
    assert "secret chain of thought" not in repr(session.history)
