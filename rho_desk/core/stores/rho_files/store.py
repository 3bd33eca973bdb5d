"""The ``SessionStore`` over Rho's own session files: the engine persists straight into them.

``load(id)`` finds the session's unit under the Rho home (the store's workspace first), reads it
and returns the active leaf's complete snapshot (§6.6); ``save(snapshot)`` appends it to that
transcript in the file's own grammar (``writer.py``), or creates a new version-3 session in the
store's workspace. An opened session keeps its writer, and with it the shared lease, until
:meth:`RhoFileSessionStore.aclose`. All file work runs in a worker thread; saves of one session
are serialised.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from types import TracebackType

from ...errors import InputError
from ...wire.model import ModelIdentity
from ...wire.snapshot import SessionSnapshot
from .layout import find_units, rho_home
from .reader import read_session
from .writer import Clock, SessionWriter, create_session

__all__ = ["RhoFileSessionStore"]


class RhoFileSessionStore:
    """Load and save SDK snapshots as Rho session transcripts.

    Args:
        home: the Rho data directory (default ``$RHO_HOME`` or ``~/.rho``).
        workspace: absolute working directory for sessions this store creates; also searched
            first when loading. Without it the store can only continue existing sessions.
        provider: identity reported for message-only v1 sessions (the configured model).
        agent_id, agent_fingerprint: agent identity written into new sessions' headers.
        clock: Unix time for record timestamps.
    """

    def __init__(
        self,
        home: Path | None = None,
        *,
        workspace: str | None = None,
        provider: ModelIdentity | None = None,
        agent_id: str | None = None,
        agent_fingerprint: str | None = None,
        clock: Clock = time.time,
    ) -> None:
        self.home = rho_home() if home is None else home
        self.workspace = workspace
        self._provider = provider
        self._agent = (agent_id, agent_fingerprint)
        self._clock = clock
        self._writers: dict[str, SessionWriter] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def _lock(self, session_id: str) -> asyncio.Lock:
        return self._locks.setdefault(session_id, asyncio.Lock())

    def writer(self, session_id: str) -> SessionWriter | None:
        """The open writer of ``session_id`` (its ``tree`` is the live revision tree), if any."""
        return self._writers.get(session_id)

    async def load(self, session_id: str) -> SessionSnapshot | None:
        """The active revision of ``session_id``, or ``None`` if no transcript has it.

        A session already open is re-read only when its file changed on disk (so a load after a
        ``RevisionConflict`` picks up the other writer's work).

        Raises:
            SessionFileError: the transcript is invalid.
            StorageError: it cannot be read, or a deletion holds its lease.
        """
        async with self._lock(session_id):
            writer = await asyncio.to_thread(self._open, session_id)
            if writer is None or writer.tree.active_leaf is None:
                return None
            return await asyncio.to_thread(writer.tree.snapshot, provider=self._provider)

    async def save(self, snapshot: SessionSnapshot) -> None:
        """Append ``snapshot`` to its session's transcript (creating the session if needed).

        Raises:
            RevisionConflict: the transcript changed since this store read or wrote it.
            SessionWriteError: the append failed; the previous state stands.
            InputError: a new session but no workspace, or a snapshot the file's rules refuse.
        """
        session_id = snapshot.session_id
        async with self._lock(session_id):
            await asyncio.to_thread(self._save, snapshot)

    def _save(self, snapshot: SessionSnapshot) -> None:
        writer = self._writers.get(snapshot.session_id) or self._open(snapshot.session_id)
        if writer is not None:
            writer.save(snapshot)
            return
        if self.workspace is None:
            raise InputError(
                f"cannot create session {snapshot.session_id!r}: the store has no workspace"
            )
        agent_id, fingerprint = self._agent
        self._writers[snapshot.session_id] = create_session(
            self.home,
            self.workspace,
            snapshot,
            agent_id=agent_id,
            agent_fingerprint=fingerprint,
            clock=self._clock,
        )

    def _open(self, session_id: str) -> SessionWriter | None:
        writer = self._writers.get(session_id)
        if writer is not None:
            if writer.is_current():
                return writer
            writer.close()
            del self._writers[session_id]
        units = find_units(self.home, session_id, cwd=self.workspace)
        if not units:
            return None
        writer = SessionWriter(read_session(units[0].transcript), clock=self._clock)
        self._writers[session_id] = writer
        return writer

    async def aclose(self) -> None:
        """Release every lease. The store can be used again afterwards (it re-reads files)."""
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    async def __aenter__(self) -> RhoFileSessionStore:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
