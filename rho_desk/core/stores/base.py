"""The SessionStore protocol: load and atomically replace complete snapshots.

A successful ``save`` replaces the entire previous snapshot stored under
``snapshot.session_id``; a failed save leaves the previous one loadable. The engine never calls
a store by itself: hosts choose when to save (rho-desk saves after every commit).
Adapters that do blocking I/O move it off the event loop (``asyncio.to_thread``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..wire.snapshot import SessionSnapshot

__all__ = ["SessionStore"]


@runtime_checkable
class SessionStore(Protocol):
    async def load(self, session_id: str) -> SessionSnapshot | None:
        """The stored snapshot for ``session_id``, or ``None`` if there is none."""
        ...

    async def save(self, snapshot: SessionSnapshot) -> None:
        """Atomically replace the stored snapshot of ``snapshot.session_id``.

        Raises:
            StorageError: the write failed; the previous snapshot is still loadable.
            RevisionConflict: (stores that check revisions) another writer got there first.
        """
        ...
