"""Helpers for work that runs in worker threads: keeping big loads from stalling the GUI thread.

Loading a 100k-message session allocates hundreds of thousands of tracked objects. When the
cyclic GC comes back on after the load, its first collection walks all of them while holding
the GIL: a 30 ms stall of the GUI thread measured here, for garbage that does not exist
(messages are acyclic; they die by reference counting). :func:`bulk_load` therefore pauses the
GC for the load and then *freezes* what survived (``gc.freeze()``, environment.md §0.5), so
later collections never walk it again. Frozen objects are still freed by reference counting
when the session is closed; only reference cycles among them would outlive it.

Work that allocates much and keeps little (indexing a library reads every session in it) leaves
the C heap with free pages the allocator keeps for later:
``rho_desk.core.system.allocator.release_free_memory`` gives them back to the system (~7 MB after
indexing a library of 100 sessions around a 64 MB one).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager

from ...core.system.collector import collection_paused

__all__ = ["bulk_load", "pause_collection"]


def bulk_load() -> AbstractContextManager[None]:
    """Pause the cyclic GC around a bulk load, then freeze the survivors (nestable, thread-safe;
    one pause shared with the export's, ``core.system.collector``)."""
    return collection_paused(freeze=True)


def pause_collection() -> Callable[[], None]:
    """Pause the cyclic GC as :func:`bulk_load` does, until the returned function is called
    (then what survived is frozen; calling it again does nothing).

    For the app's start-up: building the window and opening the first session (its modules,
    widgets and Qt's enum types) ran about a hundred collections before the first paint, which
    together found some 700 objects and cost 50-80 ms.
    """
    stack = contextlib.ExitStack()
    stack.enter_context(bulk_load())
    return stack.close
