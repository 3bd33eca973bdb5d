"""A process-wide setting that nested and concurrent jobs share (the C heap's thresholds, the
cyclic GC's pause).

Each job takes a hold; the setting is made when the first hold begins and undone when the last
one ends, in whatever order and thread the holds end. One job ending inside another's never
undoes the setting under it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Final

__all__ = ["Hold", "SharedSetting"]


class SharedSetting:
    """``make`` runs when the first hold begins and ``undo`` when the last ends, both under one
    lock (so a hold beginning while the last one ends waits for the undo, then makes it again)."""

    __slots__ = ("_depth", "_lock", "_make", "_undo")

    def __init__(self, make: Callable[[], None], undo: Callable[[], None]) -> None:
        self._make: Final = make
        self._undo: Final = undo
        self._lock: Final = threading.Lock()
        self._depth = 0

    def hold(self, each: Callable[[], None] | None = None) -> Hold:
        """Begin a hold (``each``, if given, runs under the lock at every hold's beginning, the
        first one's after ``make``)."""
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                self._make()
            if each is not None:
                each()
        return Hold(self)

    def _release(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self._undo()


class Hold:
    """One job's hold on a shared setting; ``end()`` releases it once (a second call does nothing)."""

    __slots__ = ("_setting",)

    def __init__(self, setting: SharedSetting) -> None:
        self._setting: SharedSetting | None = setting

    def end(self) -> None:
        setting, self._setting = self._setting, None
        if setting is not None:
            setting._release()
