"""The scanner's work counter: the bytes each pattern and decoder is offered, per thread.

The scanner's worst case is linear: every regex runs over a buffer once (``finditer``) or over a
bounded window (``match``/``search`` with an end position), and no pattern backtracks beyond its
window. ``spend`` counts the bytes so offered (and the bytes decoded), per thread, so a test can
check the bound deterministically: doubling the input at most doubles the count
(``SecretScanner.cost`` is the difference of ``spent`` around a scan).
"""

from __future__ import annotations

import threading
from typing import Final

__all__ = ["spend", "spent"]

_WORK: Final = threading.local()


def spend(n: int) -> None:
    """Count ``n`` bytes of work on this thread."""
    _WORK.n = getattr(_WORK, "n", 0) + n


def spent() -> int:
    """The work counted on this thread so far."""
    return int(getattr(_WORK, "n", 0))
