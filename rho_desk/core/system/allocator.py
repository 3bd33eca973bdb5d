"""The C heap set up for session-sized buffers during a large job (glibc).

An export makes buffers the size of its session, one after another: the encoding and the
redacted encoding, the scanner's marks and lower-cased copies, the audit's decoded text. glibc
serves every allocation above its mmap threshold (at most 32 MiB) with fresh pages from the
kernel and hands them back when the buffer is freed, so each such buffer pays a page fault per
4 KiB the first time it is written: on these machines about 60 ms per 100 MB, longer than the
work it is for (a copy of 100 MB: 69 ms in fresh pages, 11 ms in reused ones).

Inside ``large_buffers()`` buffers up to ``KEEP`` come from the heap and freed ones stay there,
so each buffer reuses the pages of the last. When the outermost ``large_buffers()`` ends, the
heap gives back what it holds free (``malloc_trim``) and the thresholds return to where glibc's
own adjustment takes them for large buffers: a desktop session does not keep an export's memory.
Elsewhere (another C library, macOS, Windows) it does nothing.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Final

from .shared import SharedSetting

__all__ = ["KEEP", "large_buffers", "release_free_memory"]

KEEP: Final = 1 << 30
"""Inside ``large_buffers``: buffers up to this size come from the heap, which keeps up to this much free."""
_MMAP_AFTER: Final = 32 << 20
_TRIM_AFTER: Final = 64 << 20
"""After: glibc's mmap threshold at the top of its own adjustment, and the trim threshold it pairs with it."""
_M_TRIM_THRESHOLD: Final = -1
_M_MMAP_THRESHOLD: Final = -3


@functools.cache
def _glibc() -> tuple[Callable[[int, int], int], Callable[[int], int]] | None:
    """``mallopt`` and ``malloc_trim`` of glibc, or None (ctypes imported on first use only)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - glibc only: musl's mallopt does nothing
        mallopt, trim = libc.mallopt, libc.malloc_trim
    except (OSError, AttributeError):
        return None
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    trim.argtypes, trim.restype = (ctypes.c_size_t,), ctypes.c_int
    return mallopt, trim


def release_free_memory() -> None:
    """Give the C heap's free pages back to the system (``malloc_trim``; blocking, a few
    milliseconds: the app calls it in a worker thread after work that allocates much and keeps
    little). Does nothing where the C library is not glibc."""
    glibc = _glibc()
    if glibc is not None:
        glibc[1](0)


def _keep() -> None:
    glibc = _glibc()
    if glibc is not None:
        glibc[0](_M_MMAP_THRESHOLD, KEEP)
        glibc[0](_M_TRIM_THRESHOLD, KEEP)


def _give_back() -> None:
    glibc = _glibc()
    if glibc is not None:
        glibc[0](_M_MMAP_THRESHOLD, _MMAP_AFTER)
        glibc[0](_M_TRIM_THRESHOLD, _TRIM_AFTER)
    release_free_memory()


_KEEPING: Final = SharedSetting(_keep, _give_back)


@contextmanager
def large_buffers() -> Iterator[None]:
    """Keep freed large buffers in the C heap for reuse while the block runs (nested and
    concurrent blocks share one setting, undone when the last ends)."""
    hold = _KEEPING.hold()
    try:
        yield
    finally:
        hold.end()
