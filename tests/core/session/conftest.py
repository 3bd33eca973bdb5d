"""Helpers for the session-engine tests: runtimes over scripted parts, event collection."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from rho_desk.core.compaction.api import CompactionPolicy, Compactor
from rho_desk.core.session import Rho, Run
from rho_desk.core.session import events as ev
from rho_desk.core.testing import ScriptedProvider, ScriptedTurn
from rho_desk.core.tools import Tool


class SleepRecorder:
    """An injectable retry sleep that records the delays and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


def build(
    provider: ScriptedProvider | None = None,
    *,
    turns: Iterable[ScriptedTurn] = (),
    tools: Iterable[Tool] = (),
    system_prompt: str | None = None,
    compactor: Compactor | None = None,
    policy: CompactionPolicy | None = None,
    capacity: int = 64,
    max_steps: int = 32,
    repeat_limit: int = 5,
    max_parallel: int = 1,
    sleep: Any = None,
) -> Rho:
    builder = (
        Rho.builder()
        .provider(provider if provider is not None else ScriptedProvider(turns))
        .tools(tools)
        .system_prompt(system_prompt)
        .compactor(compactor)
        .compaction_policy(policy)
        .event_capacity(capacity)
        .max_steps(max_steps)
        .repeat_limit(repeat_limit)
        .max_parallel_tools(max_parallel)
    )
    builder.retry_sleep(sleep if sleep is not None else SleepRecorder())
    return builder.build()


async def collect(run: Run) -> list[ev.RunEvent]:
    return [event async for event in run]


def names(events: Iterable[ev.RunEvent]) -> list[str]:
    return [type(e).__name__ for e in events]


def of_type(events: Iterable[ev.RunEvent], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]
