"""Sessions: revisions, the one-operation rule, clones, reset, restore, provider handoff, state."""

from __future__ import annotations

import asyncio

import pytest

from rho_desk.core.compaction.api import CompactionPolicy
from rho_desk.core.errors import Cancelled, InvalidConfiguration, PersistenceError, SessionBusy
from rho_desk.core.provider import ReasoningLevel, ServiceTier
from rho_desk.core.session import SessionOptions, SessionState
from rho_desk.core.testing import ScriptedCompactor, ScriptedProvider, ScriptedTurn, text_response
from rho_desk.core.wire.model import (
    U64_MAX,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ProviderContextBlock,
)
from rho_desk.core.wire.snapshot import CompactionState, SessionSnapshot

from .conftest import build, collect

A = ModelIdentity("a", "api-a", "model-a")
B = ModelIdentity("b", "api-b", "model-b")


def test_idle_mutations_each_advance_the_revision_by_one() -> None:
    session = build().session()
    assert session.revision == 0
    assert session.append_message(Message.user_text("one")) == 1
    assert session.replace_history([Message.user_text("two"), Message.assistant_text("three")]) == 2
    assert [m.text() for m in session.history] == ["two", "three"]
    assert session.reset() == 3
    assert session.history == ()


def test_reset_keeps_metadata_and_cache_key_and_clears_compaction() -> None:
    rho = build(system_prompt="prompt")
    snapshot = SessionSnapshot.new(
        "s-1",
        7,
        [Message.user_text("hi")],
        A,
        CompactionState(2, 5, 10, 0, 30, 20, 6),
        metadata={"title": "t"},
        prompt_cache_key="cache",
    )
    session = rho.session(SessionOptions.from_snapshot(snapshot))
    assert session.reset() == 8
    assert [m.system for m in session.history] == ["prompt"]
    assert session.compaction_state == CompactionState.zero()
    assert session.metadata == {"title": "t"} and session.prompt_cache_key == "cache"


def test_revision_exhaustion_changes_nothing() -> None:
    session = build(system_prompt="p").session(
        SessionOptions(
            history=(Message.user_text("x"),), revision=U64_MAX, apply_system_prompt=False
        )
    )
    for mutate in (
        lambda: session.append_message(Message.user_text("y")),
        lambda: session.replace_history([]),
        session.reset,
    ):
        with pytest.raises(PersistenceError) as info:
            mutate()
        assert str(info.value) == "persistence failed: session revision is exhausted"
    assert session.revision == U64_MAX and [m.text() for m in session.history] == ["x"]


@pytest.mark.asyncio
async def test_a_second_operation_fails_at_once_while_a_run_is_active() -> None:
    compactor = ScriptedCompactor()
    session = build(turns=[ScriptedTurn.pending()], compactor=compactor).session()
    run = session.start("hi")
    assert session.is_running and session.state is SessionState.RUNNING
    clone = session.clone()
    for attempt in (
        lambda: session.start("again"),
        lambda: clone.start("again"),
        lambda: session.append_message(Message.user_text("x")),
        lambda: session.replace_history([]),
        session.reset,
        lambda: session.replace_provider(ScriptedProvider()),
        lambda: session.set_reasoning_level(ReasoningLevel.HIGH),
        lambda: session.set_service_tier(ServiceTier.PRIORITY),
        lambda: session.set_compaction(None),
    ):
        with pytest.raises(SessionBusy) as info:
            attempt()
        assert str(info.value) == "session already has an active run"
    with pytest.raises(SessionBusy):
        await asyncio.wait_for(session.compact(), timeout=10)  # fails, never waits
    # read-only operations never fail
    assert session.snapshot().revision == 0 and clone.history == () and clone.is_running
    run.cancel()
    with pytest.raises(Cancelled):
        await run.outcome()
    assert not session.is_running and session.state is SessionState.IDLE


@pytest.mark.asyncio
async def test_clones_share_state() -> None:
    session = build(turns=[ScriptedTurn.completed("answer")]).session()
    clone = session.clone()
    assert clone == session and hash(clone) == hash(session) and clone is not session
    outcome = await clone.complete("question")
    assert session.revision == outcome.revision == 1
    assert session.history is clone.history
    assert session.state is SessionState.COMPLETED


@pytest.mark.asyncio
async def test_restore_from_snapshot_continues_the_revision_sequence() -> None:
    # spec/engine.md §13.5: restore example
    first_rho = build(turns=[ScriptedTurn.completed("first")])
    session = first_rho.session()
    await session.complete("one")
    snapshot = session.snapshot()
    assert snapshot.revision == 1 and len(snapshot.history) == 2

    other = build(turns=[ScriptedTurn.completed("second")], system_prompt="do not insert me")
    restored = other.session(SessionOptions.from_snapshot(snapshot))
    assert restored.id == session.id and restored.revision == 1
    assert restored.history == snapshot.history  # no system prompt inserted
    outcome = await restored.complete("two")
    assert outcome.revision == 2 and len(restored.history) == 4


def test_from_snapshot_restores_every_field() -> None:
    compaction = CompactionState(1, 4, 0, 0, None, None, 2)
    snapshot = SessionSnapshot.new(
        "sid",
        3,
        [Message.user_text("q")],
        A,
        compaction,
        metadata={"k": "v"},
        prompt_cache_key="pck",
    )
    options = SessionOptions.from_snapshot(snapshot)
    assert (options.id, options.revision, options.compaction) == ("sid", 3, compaction)
    assert options.history == snapshot.history and dict(options.metadata) == {"k": "v"}
    assert options.prompt_cache_key == "pck" and options.apply_system_prompt is False
    session = build(system_prompt="x").session(options)
    assert session.snapshot().replace(provider=A) == snapshot


def test_replace_provider_reports_omissions_without_touching_history() -> None:
    blocks = (
        ProviderContextBlock(identity=A, kind="zeta", position=0, data={}),
        ProviderContextBlock(identity=A, kind="alpha", position=1, data={}),
    )
    history = (
        Message.enriched(
            AssistantMessage(content=text_response("x"), provenance=A, provider_context=blocks)
        ),
    )
    session = build(ScriptedProvider(identity=A)).session(SessionOptions(history=history))
    report = session.replace_provider(ScriptedProvider(identity=B))
    assert (report.omitted_provider_context, report.omitted_kinds) == (2, ("alpha", "zeta"))
    assert report.has_omissions()
    assert session.history == history and session.revision == 0
    assert session.snapshot().provider == B
    assert not session.replace_provider(ScriptedProvider(identity=A)).has_omissions()


def test_set_compaction_rejects_a_policy_without_compactor() -> None:
    session = build().session()
    with pytest.raises(
        InvalidConfiguration, match="automatic compaction policy requires a compactor"
    ):
        session.set_compaction(None, CompactionPolicy.after_messages(2))
    compactor = ScriptedCompactor()
    session.set_compaction(compactor, CompactionPolicy.after_messages(2))
    assert (
        session.compactor is compactor
        and session.compaction_policy == CompactionPolicy.after_messages(2)
    )
    session.set_compaction(None)
    assert session.compactor is None and session.compaction_policy is None


@pytest.mark.asyncio
async def test_settings_reach_the_provider_request() -> None:
    provider = ScriptedProvider([ScriptedTurn.completed("x")])
    session = build(provider).session(SessionOptions(prompt_cache_key="rho:key"))
    session.set_reasoning_level(ReasoningLevel.HIGH)
    session.set_service_tier(ServiceTier.PRIORITY)
    await session.complete("q")
    request = provider.requests[0]
    assert request.reasoning_level is ReasoningLevel.HIGH
    assert request.service_tier is ServiceTier.PRIORITY
    assert request.prompt_cache_key == "rho:key"


@pytest.mark.asyncio
async def test_is_running_holds_through_terminal_delivery() -> None:
    # capacity 1: the terminal event waits for the consumer, and so does the slot
    session = build(turns=[ScriptedTurn.completed("x")], capacity=1).session()
    run = session.start("q")
    seen = []
    async for event in run:
        seen.append((type(event).__name__, session.state, session.is_running))
    completed = [s for s in seen if s[0] == "Completed"]
    assert completed and completed[0][1] is SessionState.COMPLETED
    await run.outcome()
    assert not session.is_running and session.state is SessionState.COMPLETED


@pytest.mark.asyncio
async def test_state_after_a_failed_run_is_failed_until_the_next_operation() -> None:
    from rho_desk.core.errors import ProviderError, ProviderErrorKind

    error = ProviderError(ProviderErrorKind.AUTHENTICATION, "bad key")
    session = build(turns=[ScriptedTurn.failed(error), ScriptedTurn.completed("ok")]).session()
    with pytest.raises(ProviderError):
        await session.complete("q")
    assert session.state is SessionState.FAILED
    await session.complete("again")
    assert session.state is SessionState.COMPLETED


def test_live_history_is_committed_history_between_runs() -> None:
    session = build().session(SessionOptions(history=(Message.user_text("x"),)))
    assert session.live_history == session.history


@pytest.mark.asyncio
async def test_outcome_can_be_consumed_once() -> None:
    from rho_desk.core.errors import InvalidHostResponse

    session = build(turns=[ScriptedTurn.completed("x")]).session()
    run = session.start("q")
    await collect(run)
    await run.outcome()
    with pytest.raises(InvalidHostResponse, match="run outcome was already consumed"):
        await run.outcome()


def test_user_input_constructors() -> None:
    from rho_desk.core.session import UserInput
    from rho_desk.core.wire.model import ImageContent

    assert UserInput.text("").blocks == (ContentBlock(text=""),)
    image = ImageContent("aGk=", "image/png")
    assert UserInput.text_and_images("see", [image]).blocks == (
        ContentBlock(text="see"),
        ContentBlock(image=image),
    )
    with pytest.raises(
        InvalidConfiguration, match="user input must contain at least one content block"
    ):
        UserInput.content([])


@pytest.mark.asyncio
async def test_host_tool_call_must_be_well_formed() -> None:
    from rho_desk.core.wire.model import ToolCall

    session = build().session()
    for call in (ToolCall("", "read", {}), ToolCall("c", "", {}), ToolCall("c", "read", [1])):
        with pytest.raises(
            InvalidConfiguration, match="host tool call requires a nonempty ID and name"
        ):
            session.start_with_tool_call("q", call)
    assert not session.is_running
