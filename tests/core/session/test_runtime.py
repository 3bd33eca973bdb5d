"""The runtime builder and lifecycle (spec/engine.md §5)."""

from __future__ import annotations

import asyncio
import re

import pytest

from rho_desk.core.compaction.api import CompactionPolicy
from rho_desk.core.errors import Cancelled, InvalidConfiguration, RuntimeShutdown
from rho_desk.core.provider import ReasoningLevel
from rho_desk.core.session import Rho, SessionOptions
from rho_desk.core.testing import ScriptedCompactor, ScriptedProvider, ScriptedTool, ScriptedTurn

from .conftest import build

UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def test_a_provider_is_required() -> None:
    with pytest.raises(InvalidConfiguration, match="a model provider is required"):
        Rho.builder().build()


def test_duplicate_tool_names_are_rejected() -> None:
    builder = (
        Rho.builder()
        .provider(ScriptedProvider())
        .tools([ScriptedTool("read"), ScriptedTool("read")])
    )
    with pytest.raises(InvalidConfiguration) as info:
        builder.build()
    assert str(info.value) == "invalid configuration: duplicate tool name 'read'"


def test_tool_specs_are_offered_sorted_by_name() -> None:
    rho = build(tools=[ScriptedTool("zeta"), ScriptedTool("alpha"), ScriptedTool("mid")])
    assert [s.name for s in rho.config.tool_specs] == ["alpha", "mid", "zeta"]
    assert list(rho.config.tools) == ["alpha", "mid", "zeta"]


@pytest.mark.parametrize("setting", ["event_capacity", "max_steps", "max_parallel_tools"])
def test_limits_must_be_nonzero(setting: str) -> None:
    builder = getattr(Rho.builder().provider(ScriptedProvider()), setting)(0)
    with pytest.raises(InvalidConfiguration, match="nonzero"):
        builder.build()


def test_policy_without_compactor_is_invalid() -> None:
    builder = (
        Rho.builder()
        .provider(ScriptedProvider())
        .compaction_policy(CompactionPolicy.after_messages(3))
    )
    with pytest.raises(InvalidConfiguration) as info:
        builder.build()
    assert (
        str(info.value) == "invalid configuration: automatic compaction policy requires a compactor"
    )


def test_blank_usage_purpose_is_invalid() -> None:
    with pytest.raises(InvalidConfiguration, match="usage purpose must not be empty"):
        Rho.builder().provider(ScriptedProvider()).usage_purpose("  ").build()


def test_defaults() -> None:
    config = Rho.builder().provider(ScriptedProvider()).build().config
    assert (config.event_capacity, config.max_steps, config.max_parallel_tools) == (64, 32, 1)
    assert config.reasoning_level is ReasoningLevel.MEDIUM
    assert (
        config.system_prompt is None
        and config.compactor is None
        and config.compaction_policy is None
    )
    assert config.usage_purpose == "agent"


def test_new_sessions_get_uuid4_ids_and_the_custom_prompt() -> None:
    rho = build(system_prompt="be brief")
    first, second = rho.session(), rho.session()
    assert UUID4.match(first.id) and UUID4.match(second.id) and first.id != second.id
    assert [m.system for m in first.history] == ["be brief"]
    assert first.revision == 0  # inserting the prompt is not a commit


def test_the_prompt_is_prepended_even_before_an_existing_system_message() -> None:
    from rho_desk.core.wire.model import Message

    rho = build(system_prompt="new")
    session = rho.session(SessionOptions(history=(Message(system="old"),)))
    assert [m.system for m in session.history] == ["new", "old"]


def test_session_ids_must_not_be_empty() -> None:
    from rho_desk.core.wire.ids import InvalidId

    with pytest.raises(InvalidId, match="identifier must not be empty"):
        SessionOptions(id="")
    assert build().session(SessionOptions(id=" ")).id == " "  # any non-empty string is valid


@pytest.mark.asyncio
async def test_shutdown_refuses_new_work_and_is_idempotent() -> None:
    rho = build(compactor=ScriptedCompactor())
    session = rho.session()
    assert rho.shutdown() == 0
    assert rho.shutdown() == 0
    assert rho.is_shut_down
    with pytest.raises(RuntimeShutdown, match="runtime has been shut down"):
        rho.session()
    with pytest.raises(RuntimeShutdown):
        session.start("hi")
    with pytest.raises(RuntimeShutdown):
        await session.compact()
    assert not session.is_running


@pytest.mark.asyncio
async def test_shutdown_cancels_active_runs_and_counts_them() -> None:
    rho = build(turns=[ScriptedTurn.pending(), ScriptedTurn.pending()])
    one, two = rho.session(), rho.session()
    run_one, run_two = one.start("a"), two.start("b")
    await asyncio.sleep(0)
    assert rho.active_operations == 2
    assert rho.shutdown() == 2
    assert rho.shutdown() == 0
    for run in (run_one, run_two):
        with pytest.raises(Cancelled):
            await run.outcome()
    await rho.wait_idle()
    assert rho.active_operations == 0
    # the cancellation commit kept the user message
    assert [m.text() for m in one.history] == ["a"] and one.revision == 1
