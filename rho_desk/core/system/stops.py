"""Ctrl+C (SIGINT) and SIGTERM for a program that needs seconds to start: noted from the first
moment, acted on once there is something to stop.

A long-running front end (the desktop app) can only close its window once the window exists; a
signal that arrives while it is still importing or building must neither raise
``KeyboardInterrupt`` inside a half-built object nor kill the process with the default SIGTERM
action. :class:`StopSignals` is installed first, remembers the signals, and calls the stop action
when one is attached (at once if a signal came before).
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """Notes SIGINT and SIGTERM from :meth:`install` on; :meth:`attach` says what stopping means.

    The stop action runs in the signal handler (Python's main thread, between bytecodes): it must
    only schedule work (``loop.call_soon_threadsafe``), never do it.
    """

    def __init__(self) -> None:
        self.received: list[int] = []
        self._action: Callable[[], None] | None = None
        self._previous: dict[int, object] = {}

    def install(self) -> StopSignals:
        """Take over SIGINT and SIGTERM (main thread only); returns ``self``."""
        for s in STOP_SIGNALS:
            self._previous[s] = signal.signal(s, self._on_signal)
        return self

    def attach(self, action: Callable[[], None]) -> None:
        """Stop with ``action`` from now on; run it now if a signal has already come."""
        self._action = action
        if self.received:
            action()

    def restore(self) -> None:
        """Give the signals back to the handlers they had before :meth:`install`."""
        for s, handler in self._previous.items():
            signal.signal(s, handler)  # type: ignore[arg-type]
        self._previous.clear()
        self._action = None

    @property
    def exit_status(self) -> int:
        """0, or 128 + the first signal received (the shell's convention)."""
        return 128 + self.received[0] if self.received else 0

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.received.append(signum)
        if self._action is not None:
            self._action()
