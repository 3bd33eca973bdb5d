"""The session library as the app uses it: one Rho home and the other agents' sessions, listed,
searched and changed off-thread.

:class:`LibraryService` wraps the core :class:`~rho_desk.core.stores.library.SessionLibrary`
(which is synchronous and blocking by design) and, around it, the other agents' libraries in one
:class:`~rho_desk.core.agents.library.AllSessions` (Claude Code, Codex, Gemini CLI, opencode, Pi:
the agents and homes ``agent_homes`` names, from the settings), and runs every call in a worker
thread. It owns the library objects: opened when the app points it at a Rho home, closed on
shutdown. Mutations (rename, move to trash, refresh) return
:class:`~rho_desk.qt.services.outcomes.OpChanges` so the bridge fans them out; list and search
are plain queries. Only Rho's sessions are renamed or moved to the trash: another agent's are read.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from ...core.agents.base import RHO
from ...core.errors import InputError
from ...core.system.allocator import release_free_memory
from .bridge import EngineBridge, in_thread
from .outcomes import OpChanges, OpResult

if (
    TYPE_CHECKING
):  # the library's modules load when one is opened (after the first paint at start-up)
    from ...core.agents.library import AllSessions
    from ...core.stores.library import RefreshReport, SessionLibrary, SessionPage, TrashEntry
    from ...core.stores.search import SearchResults, SummaryFailure, WorkspaceInfo
    from ...core.stores.summary import SessionSummary

__all__ = ["LibraryService"]


class LibraryService(QObject):
    """The open Rho home's session library.

    Signals:
        sig_opened(object): a library was opened (its home ``Path``).
        sig_refreshed(object): a refresh finished (:class:`RefreshReport`).

    Args:
        bridge: runs the blocking calls in threads.
        cache_dir, trash_dir: passed to ``SessionLibrary`` (default: platform folders).
        known_summary: the summary of a transcript the app already holds unchanged
            (``SessionDocument.current_summary``), so that indexing does not read it again.
        agent_homes: the other agents to list with their data folders, asked each time a
            library opens (none for the demo library); ``None``: Rho's sessions only.
    """

    sig_opened = Signal(object)
    """A library was opened; carries its home folder."""
    sig_refreshed = Signal(object)
    """A refresh finished; carries the :class:`RefreshReport`."""

    def __init__(
        self,
        bridge: EngineBridge,
        *,
        cache_dir: Path | None = None,
        trash_dir: Path | None = None,
        known_summary: Callable[[Path], SessionSummary | None] | None = None,
        agent_homes: Callable[[], dict[str, Path]] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.known_summary = known_summary
        self.bridge = bridge
        self.cache_dir = cache_dir
        self.trash_dir = trash_dir
        self.home: Path | None = None
        self.demo = False
        self.agent_homes = agent_homes
        self._library: SessionLibrary | None = None
        self._all: AllSessions | None = None
        self.last_report: RefreshReport | None = None

    @property
    def is_open(self) -> bool:
        return self._library is not None

    def _lib(self) -> SessionLibrary:
        if self._library is None:
            raise InputError("no session library is open")
        return self._library

    def _every(self) -> AllSessions:
        if self._all is None:
            raise InputError("no session library is open")
        return self._all

    @property
    def agents(self) -> dict[str, Path]:
        """The other agents listed, with their data folders (empty: Rho's sessions only)."""
        return (
            {} if self._all is None else {name: lib.home for name, lib in self._all.agents.items()}
        )

    def workspace_key(self, cwd: str | os.PathLike[str]) -> str:
        return self._lib().workspace_key(cwd)

    async def aopen(self, home: Path, *, demo: bool = False) -> OpResult[RefreshReport]:
        """Open the library of ``home`` and refresh it (index rebuilt when stale, off-thread)."""
        from ...core.agents.library import AllSessions
        from ...core.stores.library import RhoSessionFiles, SessionLibrary

        await self.aclose()
        self._library = await in_thread(
            SessionLibrary,
            home,
            files=RhoSessionFiles(self.known_summary),
            cache_dir=self.cache_dir,
            trash_dir=self.trash_dir,
        )
        agents = {} if demo or self.agent_homes is None else self.agent_homes()
        self._all = await in_thread(AllSessions, self._library, agents, cache_dir=self.cache_dir)
        self.home = home
        self.demo = demo
        self.sig_opened.emit(home)
        return await self.arefresh()

    async def areopen(self) -> OpResult[RefreshReport] | None:
        """Open the same home again (the listed agents or their folders changed in the settings);
        ``None`` when no library is open."""
        if self.home is None or not self.is_open:
            return None
        return await self.aopen(self.home, demo=self.demo)

    async def arefresh(self, workspace_key: str | None = None) -> OpResult[RefreshReport]:
        """Re-scan the files and reconcile the index (stat only for unchanged transcripts); then
        the other agents' sessions (``sig_refreshed`` again when they changed, so that Rho's are
        listed before a large home of another agent's is first read)."""
        every = self._every()

        def refresh() -> RefreshReport:
            report = every.refresh_rho(workspace_key)
            if report.changed:
                release_free_memory()  # re-summarising read whole sessions and kept little
            return report

        def refresh_agents() -> bool:
            found = every.refresh_agents(workspace_key)
            changed = any(r.added or r.updated or r.removed or r.failed for r in found)
            if changed:
                release_free_memory()
            return changed

        report = await in_thread(refresh)
        self.last_report = report
        self.sig_refreshed.emit(report)
        if every.agents:
            changed = await in_thread(refresh_agents)
            if changed and self._all is every:
                self.sig_refreshed.emit(report)
        return OpResult(report, OpChanges(library=True))

    async def alist(
        self, workspace_key: str | None = None, *, sort: str = "updated", descending: bool = True
    ) -> SessionPage:
        """Every listed session (Rho's and the other agents'), each row naming its ``agent``."""
        every = self._every()
        return await in_thread(lambda: every.list(workspace_key, sort=sort, descending=descending))

    async def asearch(
        self,
        text: str,
        workspace_key: str | None = None,
        *,
        sort: str = "updated",
        limit: int = 200,
    ) -> SearchResults:
        every = self._every()
        return await in_thread(lambda: every.search(text, workspace_key, sort=sort, limit=limit))

    async def afailures(self, workspace_key: str | None = None) -> list[SummaryFailure]:
        """Transcripts the last refresh could not read (shown so they can be opened and repaired)."""
        return await in_thread(self._every().failures, workspace_key)

    async def afailures_by_agent(
        self, workspace_key: str | None = None
    ) -> list[tuple[str, SummaryFailure]]:
        """:meth:`afailures`, each with the agent whose session it is (``rho`` for Rho's)."""
        return await in_thread(self._every().failures_by_agent, workspace_key)

    async def aworkspaces(self) -> list[WorkspaceInfo]:
        return await in_thread(self._every().workspaces)

    @staticmethod
    def _refuse_other_agent(summary_agent: str, what: str) -> None:
        if summary_agent != RHO:
            raise InputError(
                f"rho-desk only reads another agent's sessions: it cannot {what} this one"
            )

    async def arename(
        self, workspace_key: str, session_id: str, title: str, *, agent: str = RHO
    ) -> OpResult[SessionSummary]:
        """Set a title in Rho's index (the only place titles live).

        Raises:
            InputError: ``agent`` is not Rho (another agent's session is never renamed here).
        """
        self._refuse_other_agent(agent, "rename")
        library = self._lib()
        async with self.bridge.exclusive():
            summary = await in_thread(library.rename, workspace_key, session_id, title)
        return OpResult(summary, OpChanges(library=True))

    async def atrash(
        self, workspace_key: str, session_id: str, *, agent: str = RHO
    ) -> OpResult[TrashEntry]:
        """Move a session to rho-desk's trash (refused while it is open somewhere).

        Raises:
            InputError: ``agent`` is not Rho (another agent's session is never deleted here).
        """
        self._refuse_other_agent(agent, "move to the trash")
        library = self._lib()
        async with self.bridge.exclusive():
            entry = await in_thread(library.delete, workspace_key, session_id)
        return OpResult(entry, OpChanges(library=True))

    async def auntrash(self, entry: Path) -> OpResult[Path]:
        """Put the session the trash entry ``entry`` holds back where it was (the undo of Move to
        Trash); the listing is refreshed.

        Raises:
            InputError: the entry is no longer in the trash, or something took the session's place.
        """
        from ...core.stores.trash import list_trash, restore

        def put_back() -> Path:
            found = [item for item in list_trash(self.trash_dir) if item.path == entry]
            if not found:
                raise InputError("the session is no longer in the trash", source=str(entry))
            return restore(found[0]).transcript

        async with self.bridge.exclusive():
            transcript = await in_thread(put_back)
        if self.is_open:
            await self.arefresh()
        return OpResult(transcript, OpChanges(library=True))

    async def aclose(self) -> None:
        every, self._all, self._library = self._all, None, None
        if every is not None:
            await in_thread(every.close)  # Rho's library with it
