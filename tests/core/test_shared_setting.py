"""A process-wide setting shared by nested and concurrent jobs (``core/system/shared``): made
when the first hold begins, undone when the last ends, whatever the order of the ends."""

from __future__ import annotations

import gc
import threading

from rho_desk.core.system.collector import end_start_up, pause, pause_start_up
from rho_desk.core.system.shared import SharedSetting


def _recording() -> tuple[SharedSetting, list[str]]:
    seen: list[str] = []
    return SharedSetting(lambda: seen.append("make"), lambda: seen.append("undo")), seen


def test_made_at_the_first_hold_undone_at_the_last_in_any_order() -> None:
    setting, seen = _recording()
    first = setting.hold()
    second = setting.hold()
    assert seen == ["make"]
    first.end()  # the first ends before the second: the setting stays
    assert seen == ["make"]
    second.end()
    assert seen == ["make", "undo"]
    setting.hold().end()
    assert seen == ["make", "undo", "make", "undo"]


def test_a_hold_ended_twice_counts_once() -> None:
    setting, seen = _recording()
    outer = setting.hold()
    inner = setting.hold()
    inner.end()
    inner.end()  # were it counted again, the outer job would lose its setting
    assert seen == ["make"]
    outer.end()
    assert seen == ["make", "undo"]


def test_each_runs_at_every_hold_after_make() -> None:
    setting, seen = _recording()
    a = setting.hold(lambda: seen.append("each"))
    b = setting.hold(lambda: seen.append("each"))
    a.end()
    b.end()
    assert seen == ["make", "each", "each", "undo"]


def test_holds_from_many_threads_balance() -> None:
    setting, seen = _recording()
    outer = setting.hold()

    def work() -> None:
        for _ in range(500):
            setting.hold().end()

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert seen == ["make"]  # the outer hold kept it made throughout
    outer.end()
    assert seen == ["make", "undo"]


def test_the_start_up_pause_ends_once_and_leaves_a_job_paused() -> None:
    """``rho-desk continue`` ends its start-up pause when the request is out and again on the way
    out; neither end turns collection back on under a job that still runs."""
    gc.unfreeze()
    try:
        pause_start_up()
        pause_start_up()  # a second call (cli.main, then the command) is the same pause
        job = pause()
        end_start_up()
        end_start_up()
        assert not gc.isenabled()  # the job still runs
        job.end()
        assert gc.isenabled()
        assert gc.get_freeze_count() > 0  # what the set-up made is frozen
        end_start_up()
        assert gc.isenabled()
    finally:
        gc.unfreeze()
