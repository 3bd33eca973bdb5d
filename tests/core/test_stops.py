"""StopSignals: a signal before anything can stop is kept, and acted on when a stop is attached."""

from __future__ import annotations

import os
import signal

from rho_desk.core.system.stops import StopSignals


def test_a_signal_before_attach_runs_the_action_when_attached_and_the_handlers_come_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    stops = StopSignals().install()
    try:
        os.kill(os.getpid(), signal.SIGTERM)  # noted, not fatal
        assert stops.received == [signal.SIGTERM]
        ran: list[str] = []
        stops.attach(lambda: ran.append("stop"))
        assert ran == ["stop"]
        os.kill(os.getpid(), signal.SIGINT)  # no KeyboardInterrupt: the action runs again
        assert ran == ["stop", "stop"]
        assert stops.exit_status == 128 + signal.SIGTERM
    finally:
        stops.restore()
    assert signal.getsignal(signal.SIGTERM) is before


def test_no_signal_means_exit_status_zero_and_attach_does_nothing() -> None:
    stops = StopSignals().install()
    try:
        ran: list[str] = []
        stops.attach(lambda: ran.append("stop"))
        assert ran == [] and stops.exit_status == 0
    finally:
        stops.restore()
