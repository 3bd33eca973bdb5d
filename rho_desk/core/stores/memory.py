"""The in-memory session store: the reference ``SessionStore`` for examples, tests and simple hosts.

One lock-guarded map from session id to the snapshot's encoded bytes. Saving encodes first and
then replaces the entry in one assignment under the lock, so a reader sees the old or the new
complete snapshot, never a mix, and a failed save (a snapshot that cannot be encoded) leaves
the previous one loadable. Loading decodes a fresh copy, so callers never share mutable
payloads (tool arguments, provider-context data, metadata) with the store or with each other.
There is no revision check: saving an older revision overwrites a newer one (spec §14).
"""

from __future__ import annotations

import threading

import msgspec

from ..errors import StorageError
from ..wire.codec import decode, encode
from ..wire.snapshot import SessionSnapshot

__all__ = ["InMemorySessionStore"]


class InMemorySessionStore:
    """Snapshots by session id, in memory. Thread-safe; the async methods never block."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[str, bytes] = {}

    async def load(self, session_id: str) -> SessionSnapshot | None:
        """A copy of the stored snapshot, or ``None``."""
        return self.load_now(session_id)

    async def save(self, snapshot: SessionSnapshot) -> SessionSnapshot | None:
        """Replace the snapshot stored under ``snapshot.session_id``; the previous one, if any.

        Raises:
            StorageError: the snapshot cannot be encoded; the previous one stays.
        """
        return self.save_now(snapshot)

    async def remove(self, session_id: str) -> SessionSnapshot | None:
        """Delete a session's snapshot; the removed one, if any."""
        return self.remove_now(session_id)

    # Synchronous twins, for hosts and tests outside a coroutine.

    def load_now(self, session_id: str) -> SessionSnapshot | None:
        with self._lock:
            data = self._entries.get(session_id)
        return None if data is None else self._decode(data, session_id)

    def save_now(self, snapshot: SessionSnapshot) -> SessionSnapshot | None:
        if not isinstance(snapshot, SessionSnapshot):
            raise TypeError(f"expected SessionSnapshot, not {type(snapshot).__name__}")
        try:
            data = encode(snapshot)
        except (msgspec.EncodeError, TypeError, ValueError, OverflowError) as exc:
            raise StorageError(
                f"session {snapshot.session_id}: snapshot cannot be encoded: {exc}"
            ) from exc
        with self._lock:
            previous = self._entries.get(snapshot.session_id)
            self._entries[snapshot.session_id] = data
        return None if previous is None else self._decode(previous, snapshot.session_id)

    def remove_now(self, session_id: str) -> SessionSnapshot | None:
        with self._lock:
            data = self._entries.pop(session_id, None)
        return None if data is None else self._decode(data, session_id)

    def ids(self) -> list[str]:
        """Stored session ids, in byte-wise order."""
        with self._lock:
            return sorted(self._entries, key=lambda s: s.encode("utf-8"))

    def is_empty(self) -> bool:
        return not self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._entries

    @staticmethod
    def _decode(data: bytes, session_id: str) -> SessionSnapshot:
        return decode(data, SessionSnapshot, source=f"memory:{session_id}")

    def __repr__(self) -> str:
        return f"InMemorySessionStore({len(self)} sessions)"
