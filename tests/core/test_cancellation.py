"""``race``: the one answer to "the work or the token, which came first", in every order."""

from __future__ import annotations

import asyncio
import contextlib
import threading

import pytest

from rho_desk.core.cancellation import CancellationToken, race
from rho_desk.core.errors import Cancelled

pytestmark = pytest.mark.asyncio


async def test_the_work_that_finishes_first_gives_its_value() -> None:
    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    assert await race(work(), CancellationToken()) == 7


async def test_the_work_that_fails_first_gives_its_error() -> None:
    async def work() -> None:
        raise ValueError("broken")

    token = CancellationToken()
    with pytest.raises(ValueError, match="broken"):
        await race(work(), token)
    token.cancel()  # after the fact: changes nothing


async def test_a_token_fired_before_the_call_never_starts_the_work() -> None:
    started: list[bool] = []

    async def work() -> None:
        started.append(True)

    token = CancellationToken()
    token.cancel()
    with pytest.raises(Cancelled):
        await race(work(), token)
    await asyncio.sleep(0)
    assert started == []  # and no "coroutine was never awaited" warning: it was closed


async def test_the_token_firing_first_cancels_the_work_and_waits_for_its_cleanup() -> None:
    token = CancellationToken()
    steps: list[str] = []

    async def work() -> int:
        try:
            steps.append("started")
            await asyncio.sleep(10)
            return 1
        finally:
            await asyncio.sleep(0)  # cleanup that itself awaits (closing a stream)
            steps.append("cleaned up")

    asyncio.get_running_loop().call_later(0.01, token.cancel)
    with pytest.raises(Cancelled):
        await race(work(), token)
    assert steps == ["started", "cleaned up"]


async def test_a_failure_while_winding_down_is_reported_as_cancelled() -> None:
    token = CancellationToken()

    async def work() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            raise RuntimeError("interrupted") from None

    asyncio.get_running_loop().call_later(0.01, token.cancel)
    with pytest.raises(Cancelled):
        await race(work(), token)


async def test_work_that_swallows_its_cancellation_still_loses() -> None:
    token = CancellationToken()

    async def work() -> int:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(10)
        return 5

    asyncio.get_running_loop().call_later(0.01, token.cancel)
    with pytest.raises(Cancelled):
        await race(work(), token)


async def test_a_value_ready_when_the_token_fires_is_kept() -> None:
    # The race: the work has returned, then the token fires before the caller resumes.
    token = CancellationToken()
    returned: list[bool] = []

    async def work() -> str:
        returned.append(True)
        return "done"

    task = asyncio.ensure_future(race(work(), token))
    while not returned:
        await asyncio.sleep(0)
    assert not task.done()  # the work is done; the race has not looked yet
    token.cancel()
    assert await task == "done"


async def test_cancelling_the_caller_cancels_the_work_and_propagates() -> None:
    token = CancellationToken()
    steps: list[str] = []

    async def work() -> None:
        try:
            await asyncio.sleep(10)
        finally:
            steps.append("cleaned up")

    task = asyncio.ensure_future(race(work(), token))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert steps == ["cleaned up"] and not token.cancelled


async def test_a_thread_behind_the_work_is_abandoned_at_once() -> None:
    token = CancellationToken()
    release = threading.Event()
    asyncio.get_running_loop().call_later(0.01, token.cancel)
    try:
        with pytest.raises(Cancelled):
            await asyncio.wait_for(race(asyncio.to_thread(release.wait, 10), token), 2)
    finally:
        release.set()
