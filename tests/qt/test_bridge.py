"""The bridge owns every task: results, failures, Changes fan-out, threads, serialisation, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import threading
from pathlib import Path

import pytest

from rho_desk.core.errors import BugError, InputError
from rho_desk.qt.services.bridge import BridgeClosed, EngineBridge, in_thread
from rho_desk.qt.services.messages import Level, Notifier
from rho_desk.qt.services.outcomes import OpChanges, OpResult


@pytest.fixture
def bridge(qloop) -> EngineBridge:
    return EngineBridge(Notifier())


def test_success_calls_back_and_fans_out_changes_once(bridge: EngineBridge, run) -> None:
    seen: list[object] = []
    fanned: list[tuple[OpChanges, object]] = []
    bridge.sig_operation_finished.connect(lambda c, i: fanned.append((c, i)))

    async def op() -> OpResult[int]:
        await asyncio.sleep(0)
        return OpResult(42, OpChanges(library=True))

    initiator = object()
    bridge.run(op(), on_success=seen.append, initiator=initiator)
    run(bridge.wait_idle())
    assert [r.value for r in seen] == [42]  # type: ignore[attr-defined]
    assert fanned == [(OpChanges(library=True), initiator)]


def test_failures_go_to_the_notifier_unless_handled(bridge: EngineBridge, run) -> None:
    async def bad() -> None:
        raise InputError("nope", source="f.jsonl")

    handled: list[BaseException] = []
    bridge.run(bad(), context="Doing it")
    bridge.run(bad(), on_error=handled.append)
    run(bridge.wait_idle())
    notices = list(bridge.notifier.history)
    assert [n.text for n in notices] == ["Doing it: f.jsonl: nope"] and notices[
        0
    ].level is Level.ERROR
    assert len(handled) == 1


def test_a_bug_in_a_success_callback_is_reported_not_lost(bridge: EngineBridge, run) -> None:
    async def ok() -> int:
        return 1

    bridge.run(ok(), on_success=lambda _v: 1 / 0)
    run(bridge.wait_idle())
    assert bridge.notifier.history[-1].level is Level.BUG


def test_blocking_work_runs_off_the_gui_thread(bridge: EngineBridge, run) -> None:
    results: list[int] = []
    bridge.run_in_thread(threading.get_ident, on_success=results.append)
    run(bridge.wait_idle())
    assert results and results[0] != threading.get_ident()


def test_exclusive_work_is_serialised(bridge: EngineBridge, run) -> None:
    order: list[str] = []

    async def job(name: str) -> None:
        async with bridge.exclusive():
            order.append(f"{name}+")
            await asyncio.sleep(0.01)
            order.append(f"{name}-")

    bridge.run(job("a"))
    bridge.run(job("b"))
    run(bridge.wait_idle())
    assert order == ["a+", "a-", "b+", "b-"]


def test_close_cancels_and_awaits_everything_then_refuses_work(bridge: EngineBridge, run) -> None:
    started = asyncio.Event()
    cleaned: list[bool] = []

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned.append(True)

    busy: list[bool] = []
    bridge.sig_busy_changed.connect(busy.append)
    task = bridge.run(forever())

    async def close() -> None:
        await started.wait()
        await bridge.aclose()

    run(close())
    assert task.cancelled() and cleaned == [True] and not bridge.busy
    assert busy == [True, False]
    assert not bridge.notifier.history  # a cancellation is not an error
    # work that comes after (a paint, a timer, a signal while the window closes) is dropped
    ran: list[str] = []

    async def late() -> None:
        ran.append("late")

    coro = late()
    refused = bridge.run(coro, on_success=ran.append, on_error=ran.append)
    assert refused.cancelled() and inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED
    run(asyncio.sleep(0))
    assert ran == [] and busy == [True, False] and not bridge.notifier.history


def test_a_bridge_closed_outside_its_loop_refuses_work_loudly(bridge: EngineBridge) -> None:
    bridge._closed = True  # never closed by aclose: no loop to cancel the work in
    coro = asyncio.sleep(0)
    with pytest.raises(BridgeClosed):
        bridge.run(coro)
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED


def test_a_task_finishing_during_close_announces_no_changes(bridge: EngineBridge, run) -> None:
    """The views answer Changes with new work, which a closed bridge refuses: none is announced."""
    started = asyncio.Event()
    fanned: list[object] = []
    bridge.sig_operation_finished.connect(lambda c, i: fanned.append(c))

    async def stubborn() -> OpResult[int]:
        started.set()
        with contextlib.suppress(asyncio.CancelledError):  # finishes anyway, with changes
            await asyncio.sleep(3600)
        return OpResult(1, OpChanges(library=True))

    task = bridge.run(stubborn())

    async def close() -> None:
        await started.wait()
        await bridge.aclose()

    run(close())
    assert task.done() and not task.cancelled() and task.result().value == 1
    assert fanned == [] and not bridge.notifier.history
    bridge.emit_changes(OpChanges(library=True))  # nor from outside a task
    assert fanned == []


def test_a_pending_timer_never_fires_after_close(bridge: EngineBridge, run) -> None:
    """A debounce still pending when the window closes starts no work on the closed bridge."""
    from PySide6.QtCore import QObject

    owner = QObject()
    fired: list[str] = []
    late = bridge.timer(owner, 60_000, lambda: fired.append("late"))
    early = bridge.timer(owner, 1, lambda: fired.append("early"))
    late.start()
    early.start()

    async def early_fired() -> (
        None
    ):  # wait for the condition, not for a time a busy machine stretches
        for _ in range(1000):
            if fired:
                return
            await asyncio.sleep(0.005)

    run(early_fired())
    assert fired == ["early"]
    late.setInterval(30)
    late.start()  # re-armed just before quitting
    run(bridge.aclose())
    assert not late.isActive()
    late.start()  # and even if something starts it again, the slot is not called
    run(asyncio.sleep(0.1))
    assert fired == ["early"] and not bridge.notifier.history


def test_in_thread_runs_the_call_in_a_worker_with_its_arguments(run) -> None:
    gui = threading.get_ident()

    def where(a: int, *, b: int) -> tuple[int, int]:
        return threading.get_ident(), a + b

    ident, total = run(in_thread(where, 1, b=2))
    assert ident != gui and total == 3


def test_a_worker_cannot_hop_again(run) -> None:
    def nested() -> None:
        coro = in_thread(lambda: None)
        try:
            coro.send(None)
        finally:
            coro.close()

    with pytest.raises(BugError, match="worker thread"):
        run(in_thread(nested))


ROOT = Path(__file__).resolve().parents[2]
_HOPS = re.compile(
    r"asyncio\.to_thread\(|run_in_executor\(|threading\.Thread\(|ThreadPoolExecutor\("
)


def test_work_leaves_the_gui_thread_only_through_the_bridge() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "rho_desk" / "qt").rglob("*.py"))
        if path.name != "bridge.py"
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if _HOPS.search(line)
    ]
    assert offenders == [], "use rho_desk.qt.services.bridge.in_thread:\n" + "\n".join(offenders)
