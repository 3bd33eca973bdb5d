"""The C heap set up for session-sized buffers (glibc).

rho-desk's large jobs make buffers the size of a session: an export's encoding and its
redacted encoding, the scanner's marks and lower-cased copies, the audit's decoded text. glibc
serves every allocation above its mmap threshold (at most 32 MB by default) with fresh pages
from the kernel and hands them back when the buffer is freed, so each such buffer pays a page
fault per 4 KB the first time it is written: on these machines about 70 ms per 100 MB, longer
than the work it is for (a copy of 100 MB: 69 ms fresh, 11 ms in reused memory). Served from
the heap instead, and with freed memory kept there, the next buffer reuses the pages of the
last.

The cost: memory a job freed stays with the process (up to ``KEEP``) for the next job rather
than going back to the system. ``main`` of the command line (which also starts the app) calls
``keep_large_buffers`` once. Elsewhere (another C library, macOS, Windows) it does nothing.
Only the main thread's heap is concerned: glibc gives other threads heaps of at most 64 MB, and
a larger buffer there is mapped as before.
"""

from __future__ import annotations

import sys
from typing import Final

__all__ = ["KEEP", "keep_large_buffers"]

KEEP: Final = 1 << 30
"""Buffers up to this size come from the heap, and the heap keeps up to this much free memory."""

_M_TRIM_THRESHOLD: Final = -1
_M_MMAP_THRESHOLD: Final = -3


def keep_large_buffers() -> bool:
    """Set glibc's mmap and trim thresholds to ``KEEP``; True if the C library took both."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here: a command that does not call this (continue) starts without it

    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - glibc only: musl's mallopt does nothing
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, KEEP)) and bool(mallopt(_M_TRIM_THRESHOLD, KEEP))
