"""Every agent's sessions in one library: listed, searched and sorted together with Rho's.

:class:`AgentLibrary` keeps one agent's sessions in rho-desk's session cache (``search.py``: the
same summaries, full-text index and sort keys as Rho's library), keyed by path and validated by
size and mtime (an opencode session by its row's update time), so that a listing re-reads only
what changed. A session's workspace key is Rho's (``<encoded cwd>-<hash>``), so one workspace
holds every agent's sessions of that folder. Subagents' sessions are not listed on their own
(the agents themselves list them under their parent): they are opened from their parent.

:class:`AllSessions` puts Rho's :class:`~rho_desk.core.stores.library.SessionLibrary` and the
agents' libraries behind one listing: each page is the merge of the libraries' pages in the
chosen order, every row naming its ``agent``. It is what ``rho-desk sessions --agent``, the
window's library and ``rho-desk mcp`` list and search through.
"""

from __future__ import annotations

import builtins
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final, Unpack

from ..errors import InputError, KnownError
from ..stores.index import IndexState
from ..stores.library import CachedLibrary, RefreshReport, SessionLibrary, SessionPage
from ..stores.rho_files.layout import unit_for_path, workspace_key
from ..stores.rho_files.summary import summary_of_tree
from ..stores.search import (
    SORT_KEYS,
    ListPage,
    MergedCaches,
    SearchPage,
    SearchResults,
    SummaryFailure,
    WorkspaceInfo,
)
from ..stores.summary import SessionSummary
from . import codex, opencode
from .base import AGENTS, RHO
from .build import build
from .formats import READERS, session_paths

__all__ = ["RHO", "AgentLibrary", "AgentRefresh", "AllSessions", "summarize"]


@dataclass(slots=True)
class AgentRefresh:
    """What one :meth:`AgentLibrary.refresh` found."""

    agent: str
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    failed: list[SummaryFailure] = field(default_factory=list)
    notice: str | None = None
    elapsed: float = 0.0


def _stat(agent: str, path: str, updated: Mapping[str, int]) -> tuple[int, int, int] | None:
    """``(size, whole seconds, ns)`` of a session: its file's, or its opencode row's update time."""
    if agent == opencode.AGENT:
        ms = updated.get(path)
        return None if ms is None else (0, ms // 1000, ms * 1_000_000)
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, int(st.st_mtime), st.st_mtime_ns


def summarize(agent: str, path: Path, size: int, mtime_ns: int) -> SessionSummary:
    """A session's summary as the library lists it (read and built like any viewer read).

    Raises:
        InputError: the log is malformed (file, line, reason).
        StorageError: it cannot be read.
    """
    log = READERS[agent](path)
    tree = build(log).tree
    summary = summary_of_tree(tree, unit_for_path(path), str(path), size or log.size, mtime_ns)
    return replace(
        summary,
        id=log.session_id,
        path=str(path),
        title=log.title,
        agent=agent,
        effective_format_version=0,
    )


class AgentLibrary(CachedLibrary):
    """List and search one agent's sessions (see the module docstring).

    Args:
        agent: one of :data:`~rho_desk.core.agents.AGENTS`.
        home: the agent's data folder.
        cache_dir: folder of rho-desk's cache databases (default: the user cache folder).
    """

    def __init__(self, agent: str, home: Path, *, cache_dir: Path | None = None) -> None:
        if agent not in AGENTS:
            raise InputError(f"unknown agent {agent!r}; one of {', '.join(AGENTS)}")
        self.agent = agent
        self.home = home.absolute()
        super().__init__(Path(f"{self.home}#{agent}"), cache_dir)

    def _discover(self) -> tuple[list[str], dict[str, int]]:
        """The sessions to list (subagents' left out), and opencode's update times."""
        if self.agent == opencode.AGENT:
            database = opencode.database_of(self.home)
            if not database.is_file():
                return [], {}
            updated = {f"{database}#{sid}": ms for sid, ms in opencode.top_sessions(database)}
            return list(updated), updated
        paths = [str(p) for p in session_paths(self.agent, self.home)]
        if self.agent == codex.AGENT:
            paths = [p for p in paths if not codex.is_subagent(Path(p))]
        return paths, {}

    def refresh(self, workspace_key: str | None = None) -> AgentRefresh:
        """Bring the cache in step with the agent's sessions (changed ones are read again).

        ``workspace_key`` limits what is re-read; every session is still discovered (the
        agents' layouts do not sort sessions by Rho's workspace keys).
        """
        start = time.perf_counter()
        report = AgentRefresh(self.agent)
        try:
            paths, updated = self._discover()
        except KnownError as exc:
            report.notice = exc.text()
            paths, updated = [], {}
        cached = self._cache.stats()
        known_failures = self._cache.failures()
        fresh: list[tuple[SessionSummary, int]] = []
        failures: list[SummaryFailure] = []
        listed = set(paths)
        for path in paths:
            stat = _stat(self.agent, path, updated)
            if stat is None:
                continue
            hit = cached.get(path)
            if hit is not None and (hit.file_size, hit.file_mtime_ns) == (stat[0], stat[2]):
                report.unchanged += 1
                continue
            if workspace_key is not None and hit is not None and hit.workspace_key != workspace_key:
                continue
            failure = known_failures.get(path)
            if failure is not None and (failure.file_size, failure.file_mtime_ns) == (
                stat[0],
                stat[2],
            ):
                report.failed.append(failure)
                continue
            try:
                summary = summarize(self.agent, Path(path), stat[0], stat[2])
            except KnownError as exc:
                failure = SummaryFailure(path, "", stat[0], stat[2], exc.text())
                failures.append(failure)
                report.failed.append(failure)
                continue
            fresh.append(
                (
                    replace(summary, file_size=stat[0] or summary.file_size, file_mtime=stat[1]),
                    stat[2],
                )
            )
            (report.updated if path in cached else report.added).append(path)
        removed = [p for p in cached if p not in listed]
        forgotten = [p for p in known_failures if p not in listed]
        report.removed = removed
        self._cache.store(summaries=fresh, failures=failures, removed=removed + forgotten)
        report.elapsed = time.perf_counter() - start
        return report

    def _tag(self, summary: SessionSummary) -> SessionSummary:
        return replace(summary, agent=self.agent)

    def list(self, workspace_key: str | None = None, **page: Unpack[ListPage]) -> SessionPage:
        rows = [self._tag(s) for s in self._cache.list(workspace_key, **page)]
        paged = page.get("limit") is not None or page.get("offset", 0)
        total = self._cache.count(workspace_key) if paged else len(rows)
        return SessionPage(rows, total, IndexState.OK, None)

    def count(self, workspace_key: str | None = None) -> int:
        return self._cache.count(workspace_key)

    def search(
        self, text: str, workspace_key: str | None = None, **page: Unpack[SearchPage]
    ) -> SearchResults:
        results = self._cache.search(text, workspace_key, **page)
        results.hits = [replace(hit, session=self._tag(hit.session)) for hit in results.hits]
        return results

    def failures(self, workspace_key: str | None = None) -> builtins.list[SummaryFailure]:
        return sorted(self._cache.failures(workspace_key).values(), key=lambda f: f.path)


_ASCII_LOWER: Final = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _ordered(rows: Iterable[SessionSummary], sort: str, descending: bool) -> list[SessionSummary]:
    """``rows`` in the order of ``search._order`` (a sort key, then newest update, creation, id)."""
    if sort not in SORT_KEYS:
        raise InputError(f"unknown sort {sort!r}; choose from {', '.join(SORT_KEYS)}")
    out = sorted(rows, key=lambda s: s.id)
    out.sort(key=lambda s: s.created_at, reverse=descending or sort != "updated")
    out.sort(key=lambda s: s.updated_at, reverse=descending or sort != "updated")
    if sort == "title":
        # NOCASE folds ASCII letters only
        out.sort(
            key=lambda s: (s.title or s.first_user_message or "").translate(_ASCII_LOWER),
            reverse=descending,
        )
    elif sort != "updated":
        column = {
            "created": "created_at",
            "size": "file_size",
            "messages": "message_count",
            "compactions": "compaction_count",
        }[sort]
        out.sort(key=lambda s: getattr(s, column) or 0, reverse=descending)
    return out


class AllSessions:
    """Rho's sessions and the agents' in one library (see the module docstring).

    Args:
        rho: Rho's library, or ``None`` to list only other agents.
        agents: the agents to list, by name, with their data folders.
        cache_dir: for the agents' caches.
    """

    def __init__(
        self,
        rho: SessionLibrary | None,
        agents: Mapping[str, Path],
        *,
        cache_dir: Path | None = None,
    ) -> None:
        self.rho = rho
        self.agents = {
            name: AgentLibrary(name, home, cache_dir=cache_dir) for name, home in agents.items()
        }
        self._merged: MergedCaches | None = None
        self._rho_state = IndexState.OK
        self._rho_notice: str | None = None
        """Rho's index as the last refresh found it (what a page reports)."""

    def close(self) -> None:
        if self._merged is not None:
            self._merged.close()
        for library in self.agents.values():
            library.close()
        if self.rho is not None:
            self.rho.close()

    def __enter__(self) -> AllSessions:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _sources(self) -> list[tuple[str, SessionLibrary | AgentLibrary]]:
        out: list[tuple[str, SessionLibrary | AgentLibrary]] = (
            [] if self.rho is None else [(RHO, self.rho)]
        )
        return out + list(self.agents.items())

    def refresh(self, workspace_key: str | None = None) -> list[str]:
        """Refresh every library; returns the notes worth a word (an index busy, a home unread)."""
        notes: list[str] = []
        if self.rho is not None:
            notice = self.refresh_rho(workspace_key).notice()
            if notice:
                notes.append(notice)
        for found in self.refresh_agents(workspace_key):
            if found.notice:
                notes.append(f"{found.agent}: {found.notice}")
        return notes

    def refresh_rho(self, workspace_key: str | None = None) -> RefreshReport:
        """Refresh Rho's library alone (what its pages then report).

        Raises:
            InputError: there is no Rho library here.
        """
        if self.rho is None:
            raise InputError("no Rho library is listed")
        report = self.rho.refresh(workspace_key)
        self._rho_state, self._rho_notice = report.index_state, report.notice()
        return report

    def refresh_agents(self, workspace_key: str | None = None) -> builtins.list[AgentRefresh]:
        """Refresh the other agents' libraries, one report each."""
        return [library.refresh(workspace_key) for library in self.agents.values()]

    def failures(self, workspace_key: str | None = None) -> builtins.list[SummaryFailure]:
        return [f for _, f in self.failures_by_agent(workspace_key)]

    def failures_by_agent(
        self, workspace_key: str | None = None
    ) -> builtins.list[tuple[str, SummaryFailure]]:
        """Sessions the last refresh could not read, each with the agent whose it is."""
        return [
            (name, f) for name, library in self._sources() for f in library.failures(workspace_key)
        ]

    def workspaces(self) -> builtins.list[WorkspaceInfo]:
        """Every workspace with sessions of any listed agent, most recently used first."""
        merged: dict[str, WorkspaceInfo] = {}
        for _, library in self._sources():
            infos = (
                library.workspaces()
                if isinstance(library, SessionLibrary)
                else library.cache.workspaces()
            )
            for info in infos:
                seen = merged.get(info.workspace_key)
                merged[info.workspace_key] = (
                    info
                    if seen is None
                    else WorkspaceInfo(
                        info.workspace_key,
                        seen.cwd or info.cwd,
                        seen.sessions + info.sessions,
                        max(seen.updated_at, info.updated_at),
                    )
                )
        return sorted(merged.values(), key=lambda w: (-w.updated_at, w.workspace_key))

    def list(self, workspace_key: str | None = None, **page: Unpack[ListPage]) -> SessionPage:
        """One page of every library's sessions, merged in ``sort`` order, each row naming its
        agent (``rho`` for Rho's): one query over every cache (:class:`~..stores.search.MergedCaches`)."""
        if self._merged is None:
            self._merged = MergedCaches({name: library.cache for name, library in self._sources()})
        sessions = self._merged.list(workspace_key, **page)
        paged = page.get("limit") is not None or page.get("offset", 0)
        total = self._merged.count(workspace_key) if paged else len(sessions)
        return SessionPage(sessions, total, self._rho_state, self._rho_notice)

    def search(
        self, text: str, workspace_key: str | None = None, **page: Unpack[SearchPage]
    ) -> SearchResults:
        """Full-text search across every library, hits merged in ``sort`` order."""
        sort, descending, limit = (
            page.get("sort", "updated"),
            page.get("descending", True),
            page.get("limit", 50),
        )
        hits = []
        truncated = False
        for name, library in self._sources():
            found = library.search(
                text, workspace_key, sort=sort, descending=descending, limit=limit
            )
            truncated = truncated or found.truncated
            hits.extend(
                found.hits
                if name != RHO
                else [replace(h, session=replace(h.session, agent=RHO)) for h in found.hits]
            )
        by_path = {id(h.session): h for h in hits}
        ordered = [by_path[id(s)] for s in _ordered([h.session for h in hits], sort, descending)]
        return SearchResults(ordered[:limit], truncated or len(ordered) > limit)

    def workspace_key(self, cwd: str | os.PathLike[str]) -> str:
        return workspace_key(os.fspath(cwd))
