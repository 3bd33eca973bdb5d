"""The GUI tests' waits (tests/qt/conftest.py): each waits for a condition, on the qasync loop."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QTimer, Signal

from rho_desk.qt.services.bridge import EngineBridge
from rho_desk.qt.services.messages import Notifier

from .conftest import emitted, idle, until

ROOT = Path(__file__).resolve().parents[1]


def test_until_returns_once_the_condition_holds_and_names_it_when_it_never_does(run) -> None:
    seen: list[int] = []
    QTimer.singleShot(30, lambda: seen.append(1))
    run(until(lambda: seen))
    assert seen == [1]
    with pytest.raises(AssertionError, match=r"test_waits.py:\d+ not reached in 0.05 s"):
        run(until(lambda: False, timeout=0.05))


def test_emitted_gives_the_signal_s_arguments_and_lets_go_of_it(run) -> None:
    class Source(QObject):
        sig = Signal(str, int)

    source = Source()
    args = run(emitted(source.sig, lambda: QTimer.singleShot(0, lambda: source.sig.emit("a", 2))))
    assert args == ("a", 2)
    assert source.receivers("2sig(QString,int)") == 0  # disconnected again


def test_idle_waits_for_the_work_a_task_sets_off_when_it_ends(qloop, run) -> None:
    bridge = EngineBridge(Notifier())
    done: list[str] = []

    async def second() -> None:
        await asyncio.sleep(0.02)
        done.append("second")

    async def first() -> None:
        await asyncio.sleep(0.02)
        done.append("first")

    # the follow-up starts from a Qt event the first one's callback posts, as views do
    bridge.run(first(), on_success=lambda _v: QTimer.singleShot(0, lambda: bridge.run(second())))
    run(idle(bridge))
    assert done == ["first", "second"] and not bridge.busy
    run(bridge.aclose())


def test_an_exception_in_a_loop_callback_is_caught_for_the_test(qloop, run) -> None:
    """asyncio only logs what a callback raises; the loop keeps it, and the fixture fails the
    test on it (emptied here, so that this test passes)."""

    def broken() -> None:
        raise RuntimeError("a done callback's bug")

    async def turn() -> None:
        qloop.call_soon(broken)
        await asyncio.sleep(0.01)

    run(turn())
    assert [str(c.get("exception")) for c in qloop.caught] == ["a done callback's bug"]
    qloop.caught.clear()


def test_no_gui_test_waits_by_settling() -> None:
    """settle() (idle waits with 10 ms sleeps between) is gone: a test waits for what it then
    checks (until, emitted, moved, laid_out) or, where nothing is to happen, for idle()."""
    files = [
        *(ROOT / "qt").rglob("*.py"),
        *(ROOT / "security").glob("*.py"),
        ROOT / "test_user_guide.py",
    ]
    here = Path(__file__)
    assert [str(f) for f in files if f != here and "settle(" in f.read_text(encoding="utf-8")] == []
