"""The session library: what the session browser and ``rho-desk sessions`` list, search, rename
and delete through.

One :class:`SessionLibrary` serves one Rho home. It keeps two databases in step with the files:

* Rho's ``sessions/index.sqlite3`` (``index.py``), reconciled exactly as Rho reconciles it
  (storage.md §10.6) so that Rho finds it current, with titles read and written only there;
* rho-desk's own cache (``search.py``): full summaries (provider, model, compaction count) and
  the full-text index, keyed by transcript path + size + nanosecond mtime.

:meth:`SessionLibrary.refresh` scans the files (stat only, for unchanged transcripts), summarises
what changed, and writes both databases; it reports what changed. :meth:`SessionLibrary.list` and
:meth:`SessionLibrary.search` read only rho-desk's cache, so they are cheap on a current library
and keep working when Rho's index is busy, corrupt or from a newer Rho (the report says so, and
titles come from what could still be read). Every call is synchronous and blocking: the GUI calls
them through ``asyncio.to_thread``; one lock serialises them per library.

The file reader (discovery, header cwd, summaries, leases) is injected as :class:`SessionFiles`.
Where deleted sessions go (and how they come back) is ``trash.py``; how Rho's index disagrees
with the files (``rho-desk check``, :meth:`SessionLibrary.drift`) is ``drift.py``. Their names are
re-exported here.
"""

from __future__ import annotations

import builtins
import functools
import os
import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, Self, Unpack

from ..errors import InputError, KnownError, StorageError
from .drift import DriftItem, DriftReport, audit, index_drift_findings
from .index import (
    DEFAULT_BUSY_TIMEOUT,
    IndexState,
    IndexUnavailable,
    RhoIndex,
    SeenUnit,
    row_belongs,
    row_is_current,
    salvage_titles,
    stat_transcript,
)
from .rho_files.deletion import SubagentsRunning
from .rho_files.errors import SessionInUse
from .rho_files.layout import SessionUnit, discover_units, unit_for_path
from .rho_files.layout import workspace_key as workspace_key_of
from .rho_files.lease import SessionLease
from .rho_files.reader import read_header
from .rho_files.summary import summarize as summarize_transcript
from .search import (
    ListPage,
    SearchPage,
    SearchResults,
    SessionCache,
    SummaryFailure,
    WorkspaceInfo,
    cache_file_for,
)
from .summary import SessionSummary
from .trash import (
    TERMINAL_RUN_STATES,
    TRASH_DIR_ENV,
    LinkedRun,
    TrashEntry,
    default_trash_dir,
    linked_runs,
    move_to_trash,
)
from .units import UnitRef

__all__ = [
    "TRASH_DIR_ENV",
    "CachedLibrary",
    "DriftItem",
    "DriftReport",
    "LinkedRun",
    "RefreshReport",
    "RhoSessionFiles",
    "SessionFiles",
    "SessionInUse",
    "SessionLibrary",
    "SessionPage",
    "SubagentsRunning",
    "TrashEntry",
    "UnitRef",
    "WorkspaceInfo",
    "default_trash_dir",
    "index_drift_findings",
    "index_home",
]


class SessionFiles(Protocol):
    """The seam to the Rho session-file reader (``rho_files``); tests may pass their own."""

    def workspace_key(self, cwd: str) -> str:
        """``<encoded cwd>-<fnv1a hash>`` (storage.md §2.1)."""
        ...

    def units(self, sessions_root: Path, workspace_key: str | None) -> list[UnitRef]:
        """Every unit of one workspace folder, or of all of them (``None``)."""
        ...

    def unit_for(self, transcript: Path) -> UnitRef:
        """The unit a transcript path belongs to."""
        ...

    def header_cwd(self, transcript: Path) -> str:
        """The ``cwd`` of the header on line 1. Raises ``InputError``/``StorageError``."""
        ...

    def summarize(self, transcript: Path) -> SessionSummary:
        """The §10.5 summary plus rho-desk's extras. Raises ``InputError``/``StorageError``."""
        ...

    def exclusive_lease(self, unit: UnitRef) -> AbstractContextManager[object]:
        """Hold the unit's exclusive delete lease (§8.7); raise ``SessionInUse`` if it is taken."""
        ...


@dataclass(slots=True)
class RefreshReport:
    """What one :meth:`SessionLibrary.refresh` found and changed."""

    workspace_key: str | None
    """The scope: one workspace, or ``None`` for every workspace."""
    index_state: IndexState = IndexState.OK
    index_detail: str | None = None
    """Why Rho's index could not be used (SQLite's words), when it could not."""
    added: list[str] = field(default_factory=list)
    """Transcript paths new to the library."""
    updated: list[str] = field(default_factory=list)
    """Transcripts re-summarised because their size or mtime changed."""
    removed: list[str] = field(default_factory=list)
    """Transcripts gone from disk (or moved to another workspace's header)."""
    unchanged: int = 0
    failed: list[SummaryFailure] = field(default_factory=list)
    """Transcripts that cannot be summarised (file, line, reason), newly or still."""
    misplaced: list[str] = field(default_factory=list)
    """Transcripts whose header cwd belongs to a different workspace folder (ignored, as Rho does)."""
    index_upserted: int = 0
    index_deleted: int = 0
    titles_changed: int = 0
    titles_restored: int = 0
    """Titles written back into a freshly created index from rho-desk's mirror."""
    elapsed: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.titles_changed)

    @property
    def fell_back(self) -> bool:
        """Rho's index was not used: the listing comes from scanning the files."""
        return not self.index_state.usable and self.index_state is not IndexState.MISSING

    def notice(self) -> str | None:
        """One line for the user when something about the index deserves a word."""
        if self.index_state is IndexState.BUSY:
            return "Rho is using its session index; listed from the session files instead"
        if self.index_state is IndexState.NEWER:
            return (
                "the session index is from a newer Rho; listed from the session files"
                " (titles read-only)"
            )
        if self.index_state in (IndexState.CORRUPT, IndexState.MALFORMED):
            return (
                f"the session index is {self.index_state.value}; listed from the session files"
                " (rho-desk does not repair or replace it)"
            )
        if self.index_state is IndexState.UNWRITABLE:
            return "the session index cannot be written; listed from the session files"
        return None


@dataclass(frozen=True, slots=True)
class SessionPage:
    """One page of a listing."""

    sessions: list[SessionSummary]
    total: int
    """Sessions in the scope (all pages)."""
    index_state: IndexState
    notice: str | None


class CachedLibrary:
    """A library read from rho-desk's cache of one root (a Rho home's sessions, an agent's
    home): the cache opened with it and closed with it (``with`` closes it too).

    Listing must not depend on a writable cache folder: when the cache cannot be opened, the
    library works from memory instead (every refresh then reads every session once per process)
    and ``cache_notice`` says so.
    """

    def __init__(self, root: Path, cache_dir: Path | None) -> None:
        self.cache_notice: str | None = None
        try:
            self._cache = SessionCache.open(cache_file_for(root, cache_dir))
        except StorageError as exc:
            self._cache = SessionCache.in_memory()
            self.cache_notice = f"{exc.text()}; rho-desk's session cache is kept in memory"

    def close(self) -> None:
        self._cache.close()

    @property
    def cache(self) -> SessionCache:
        """rho-desk's cache of this library (what :meth:`list` and :meth:`search` read)."""
        return self._cache

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SessionLibrary(CachedLibrary):
    """List, search, rename and delete the sessions of one Rho home.

    Args:
        home: the Rho home (the folder holding ``sessions/``).
        files: the session-file reader seam (default: rho-desk's ``rho_files`` reader).
        cache_dir: folder of rho-desk's cache databases (default :func:`search.default_cache_dir`).
        trash_dir: where deleted sessions go (default :func:`default_trash_dir`).
        busy_timeout: seconds to wait on Rho's index lock before falling back to the files.
        create_index: create Rho's index when it is missing (as Rho itself would).
    """

    def __init__(
        self,
        home: Path,
        *,
        files: SessionFiles | None = None,
        cache_dir: Path | None = None,
        trash_dir: Path | None = None,
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        create_index: bool = True,
    ) -> None:
        self.home = home.absolute()
        self.sessions_root = self.home / "sessions"
        self.files: SessionFiles = files if files is not None else _default_files()
        # Every sync hashes each row's cwd (§10.6 "belongs"); a library has few distinct cwds.
        self._key_of = functools.lru_cache(maxsize=4096)(self.files.workspace_key)
        self.busy_timeout = busy_timeout
        self.create_index = create_index
        self._trash_dir = trash_dir
        super().__init__(self.sessions_root, cache_dir)
        self._lock = threading.RLock()
        self._last_state = IndexState.OK
        self._last_notice: str | None = None

    @property
    def trash_dir(self) -> Path:
        return self._trash_dir if self._trash_dir is not None else default_trash_dir()

    def workspace_key(self, cwd: str | os.PathLike[str]) -> str:
        """The workspace key of a working directory (the raw string, as Rho hashes it)."""
        return self.files.workspace_key(os.fspath(cwd))

    # --- refresh -----------------------------------------------------------------------------

    def refresh(self, workspace_key: str | None = None) -> RefreshReport:
        """Bring rho-desk's cache and Rho's index in step with the files (one workspace or all).

        Unchanged transcripts cost one ``stat``; changed ones are summarised again. Rho's index
        is reconciled per storage.md §10.6 when it can be opened within the busy timeout;
        otherwise the report says why and the listing is served from the files' summaries.
        """
        with self._lock:
            start = time.perf_counter()
            report = RefreshReport(workspace_key)
            scan = self._scan(workspace_key, report)
            self._sync_rho_index(workspace_key, scan, report)
            report.elapsed = time.perf_counter() - start
            self._last_state = report.index_state
            self._last_notice = report.notice()
            return report

    def _scan(self, workspace_key: str | None, report: RefreshReport) -> _Scan:
        key_of = self._key_of
        cached = self._cache.stats(workspace_key)
        known_failures = self._cache.failures(workspace_key)
        scan = _Scan()
        pending: list[tuple[UnitRef, tuple[int, int, int]]] = []
        listed: set[str] = set()
        for unit in self.files.units(self.sessions_root, workspace_key):
            stat = stat_transcript(unit.transcript)
            if stat is None:
                continue  # vanished while we scanned
            path = str(unit.transcript)
            listed.add(path)
            hit = cached.get(path)
            if (
                hit is not None
                and (hit.file_size, hit.file_mtime_ns) == (stat[0], stat[2])
                and hit.workspace_key == unit.workspace_key
            ):
                scan.seen[path] = SeenUnit(
                    unit.workspace_key, hit.id, unit.transcript, hit.cwd, stat[0], stat[1]
                )
                report.unchanged += 1
                continue
            failure = known_failures.get(path)
            if failure is not None and (failure.file_size, failure.file_mtime_ns) == (
                stat[0],
                stat[2],
            ):
                report.failed.append(failure)
                self._note_failed_unit(unit, scan)
                continue
            pending.append((unit, stat))
        fresh: list[tuple[SessionSummary, int]] = []
        failures: list[SummaryFailure] = []
        # Parsing happens outside every database transaction (§10.6 step 3).
        for unit, stat in pending:
            path = str(unit.transcript)
            try:
                summary = self.files.summarize(unit.transcript)
            except KnownError as exc:
                failure = SummaryFailure(path, unit.workspace_key, stat[0], stat[2], exc.text())
                failures.append(failure)
                report.failed.append(failure)
                self._note_failed_unit(unit, scan)
                continue
            if key_of(summary.cwd) != unit.workspace_key:
                report.misplaced.append(path)
                continue
            if summary.workspace_key != unit.workspace_key or summary.path != path:
                summary = replace(summary, workspace_key=unit.workspace_key, path=path)
            # A file that changed while we parsed it gets mtime_ns 0: stored, but stale.
            consistent = (summary.file_size, summary.file_mtime) == (stat[0], stat[1])
            fresh.append((summary, stat[2] if consistent else 0))
            scan.seen[path] = SeenUnit(
                unit.workspace_key,
                summary.id,
                unit.transcript,
                summary.cwd,
                summary.file_size or 0,
                summary.file_mtime or 0,
            )
            scan.fresh[path] = summary
            (report.updated if path in cached else report.added).append(path)
        keep = set(scan.seen) | scan.failed_paths
        removed = [path for path in cached if path not in keep]
        report.removed = removed
        # Failures of transcripts that are gone: forget them (a cached row goes with `removed`).
        forgotten = [path for path in known_failures if path not in listed and path not in cached]
        self._cache.store(summaries=fresh, failures=failures, removed=removed + forgotten)
        return scan

    def _note_failed_unit(self, unit: UnitRef, scan: _Scan) -> None:
        """A unit that cannot be summarised is still "seen" if its header names this folder."""
        try:
            cwd = self.files.header_cwd(unit.transcript)
        except KnownError:
            return
        if self._key_of(cwd) == unit.workspace_key and unit.session_id:
            scan.failed_paths.add(str(unit.transcript))
            scan.failed_keys.add((unit.workspace_key, unit.session_id))

    def _sync_rho_index(
        self, workspace_key: str | None, scan: _Scan, report: RefreshReport
    ) -> None:
        titles: dict[tuple[str, str], str] | None = None
        try:
            index = RhoIndex.open(
                self.sessions_root, create=self.create_index, busy_timeout=self.busy_timeout
            )
        except FileNotFoundError:
            report.index_state = IndexState.MISSING
            return
        except IndexUnavailable as exc:
            report.index_state, report.index_detail = exc.state, exc.detail
            if exc.state is not IndexState.BUSY:
                # Never written by us; read whatever titles it still yields. If it yields none
                # (truly corrupt), the mirror keeps the last titles we saw.
                titles = salvage_titles(self.sessions_root, busy_timeout=self.busy_timeout) or None
            if titles is not None:
                report.titles_changed = self._cache.mirror_titles(titles, workspace_key)
            return
        report.index_state = index.state
        try:
            self._reconcile(index, workspace_key, scan, report)
            titles = index.titles(workspace_key)
        except IndexUnavailable as exc:
            report.index_state, report.index_detail = exc.state, exc.detail
        finally:
            index.close()
        if titles is not None:
            report.titles_changed = self._cache.mirror_titles(titles, workspace_key)

    def _reconcile(
        self, index: RhoIndex, workspace_key: str | None, scan: _Scan, report: RefreshReport
    ) -> None:
        key_of = self._key_of
        before = {(row.workspace_key, row.id): row for row in index.rows(workspace_key)}
        seen_by_key = {(u.workspace_key, u.id): u for u in scan.seen.values()}
        need_keys = {
            key
            for key, unit in seen_by_key.items()
            if key not in before
            or not row_is_current(before[key], unit, self.sessions_root, key_of)
        }
        need = [seen_by_key[key].transcript for key in need_keys]
        # Summaries for the rows to refresh: fresh ones, else the cache's (same size and mtime,
        # so no re-parse). A freshly created index gets the mirrored titles back.
        cached = self._cache.summaries(str(p) for p in need if str(p) not in scan.fresh)
        refreshed = []
        restore = index.state is IndexState.CREATED
        for transcript in need:
            summary = scan.fresh.get(str(transcript)) or cached.get(str(transcript))
            if summary is None:
                continue
            title = None
            if restore:
                # store() kept the mirrored title on re-summarised rows; get() returns it.
                mirrored = cached.get(str(transcript)) or self._cache.get(
                    summary.workspace_key, summary.id
                )
                title = mirrored.title if mirrored is not None else None
                report.titles_restored += bool(title)
            refreshed.append(replace(summary, title=title, search_text=""))
        refreshed_keys = {(s.workspace_key, s.id) for s in refreshed}
        alive = set(seen_by_key) | scan.failed_keys
        # Seen rows that were current already passed the "belongs" test.
        stale = [
            key
            for key, row in before.items()
            if key not in alive
            or (
                key not in refreshed_keys
                and (key in need_keys or key in scan.failed_keys)
                and not row_belongs(row, self.sessions_root, key_of)
            )
        ]
        outcome = index.apply_sync(
            before=before,
            refreshed=refreshed,
            stale=stale,
            still_seen=self._still_seen,
            sessions_root=self.sessions_root,
            key_of=key_of,
        )
        report.index_upserted = len(outcome.upserted)
        report.index_deleted = len(outcome.deleted)

    def _still_seen(self, workspace_key: str, session_id: str) -> bool:
        """§10.6 step 5 re-scan: does a unit with this key exist and belong to its folder now?"""
        for unit in self.files.units(self.sessions_root, workspace_key):
            if unit.session_id != session_id:
                continue
            try:
                if self._key_of(self.files.header_cwd(unit.transcript)) == workspace_key:
                    return True
            except KnownError:
                continue
        return False

    # --- reading -----------------------------------------------------------------------------

    def list(self, workspace_key: str | None = None, **page: Unpack[ListPage]) -> SessionPage:
        """One page of sessions from the library as of the last :meth:`refresh`.

        Args:
            workspace_key: one workspace, or ``None`` for all.
            page: ``sort`` (a :data:`SORT_KEYS` name: ``updated``, the default, ``created``,
                ``size``, ``messages``, ``compactions``, ``title``), ``descending``, ``offset``,
                ``limit``.

        Raises:
            InputError: an unknown sort name.
        """
        with self._lock:
            rows = self._cache.list(workspace_key, **page)
            paged = page.get("limit") is not None or page.get("offset", 0)
            total = self._cache.count(workspace_key) if paged else len(rows)
            return SessionPage(rows, total, self._last_state, self._last_notice)

    def search(
        self, text: str, workspace_key: str | None = None, **page: Unpack[SearchPage]
    ) -> SearchResults:
        """Full-text search over titles and user/assistant text, with highlightable snippets.

        Every whitespace-separated term (or ``"quoted phrase"``) must occur, as a
        case-insensitive substring, in the title or the conversation text.

        Raises:
            InputError: an unknown sort name.
        """
        with self._lock:
            return self._cache.search(text, workspace_key, **page)

    def failures(self, workspace_key: str | None = None) -> builtins.list[SummaryFailure]:
        """Transcripts that could not be read at the last refresh (file, line, reason), by path.

        Rho lists none of them (it never indexes a file it cannot parse); the app still shows
        them, so that a damaged session can be opened up to its last good revision and repaired.
        """
        with self._lock:
            return sorted(self._cache.failures(workspace_key).values(), key=lambda f: f.path)

    def get(self, workspace_key: str, session_id: str) -> SessionSummary | None:
        with self._lock:
            return self._cache.get(workspace_key, session_id)

    def workspaces(self) -> builtins.list[WorkspaceInfo]:
        """Every workspace with sessions (as of the last refresh), most recently used first."""
        with self._lock:
            return self._cache.workspaces()

    def resolve(self, prefix: str, workspace_key: str | None = None) -> SessionSummary:
        """The one session whose id starts with ``prefix`` (this workspace first, then all).

        Raises:
            InputError: no session, or more than one, matches.
        """
        with self._lock:
            for scope in ([workspace_key] if workspace_key is not None else []) + [None]:
                found = self._cache.find_id(prefix, scope)
                if len(found) == 1:
                    return found[0]
                if len(found) > 1:
                    raise InputError(f"several sessions match {prefix!r}; use a longer id prefix")
            raise InputError(f"no session matches {prefix!r}")

    # --- writing -----------------------------------------------------------------------------

    def rename(self, workspace_key: str, session_id: str, title: str) -> SessionSummary:
        """Set a session's title in Rho's index (trimmed, non-empty), and in the mirror.

        Raises:
            InputError: empty title, or no such session.
            IndexUnavailable: Rho's index is busy, corrupt, newer or unwritable (nothing changed).
        """
        trimmed = title.strip()
        if not trimmed:
            raise InputError("a session title cannot be empty")
        with self._lock:
            if self._cache.get(workspace_key, session_id) is None:
                self.refresh(workspace_key)
                if self._cache.get(workspace_key, session_id) is None:
                    raise InputError(f"no session {session_id!r} in workspace {workspace_key}")
            index = self._open_index_or_raise()
            try:
                if not index.set_title(workspace_key, session_id, trimmed):
                    # The row does not exist yet (Rho never synced this workspace): add it as
                    # Rho would, then rename.
                    summary = self._cache.get(workspace_key, session_id)
                    assert summary is not None
                    index.upsert([replace(summary, title=None, search_text="")])
                    index.set_title(workspace_key, session_id, trimmed)
            finally:
                index.close()
            self._cache.set_title(workspace_key, session_id, trimmed)
            summary = self._cache.get(workspace_key, session_id)
            assert summary is not None
            return summary

    def _open_index_or_raise(self) -> RhoIndex:
        try:
            return RhoIndex.open(
                self.sessions_root, create=self.create_index, busy_timeout=self.busy_timeout
            )
        except FileNotFoundError:
            raise StorageError(
                f"{self.sessions_root}: no session index and no sessions folder"
            ) from None

    def delete(self, workspace_key: str, session_id: str, *, force: bool = False) -> TrashEntry:
        """Move a session (and its linked delegated runs) to rho-desk's trash (storage.md §14).

        Refused while anyone holds the session's lease, or while a linked run is not finished
        (unless ``force``: meant for runs left "running" by a crash). The unit is moved first,
        then the index rows (Rho's and ours) are removed, so a failure leaves either nothing
        changed or only a stale row that the next sync drops; the title travels in
        ``trash-info.json``.

        Raises:
            InputError: no such session.
            SessionInUse: the session is open somewhere (Rho's shared lease is held).
            SubagentsRunning: a linked delegated run is not finished and ``force`` is false.
            StorageError: the move failed (nothing was removed from the index).
        """
        with self._lock:
            summary = self._cache.get(workspace_key, session_id)
            if summary is None:
                raise InputError(f"no session {session_id!r} in workspace {workspace_key}")
            unit = self.files.unit_for(Path(summary.path))
            if not unit.transcript.exists():
                self._cache.remove([summary.path])
                raise InputError(f"{summary.path}: the session is no longer on disk")
            with self.files.exclusive_lease(unit):
                runs = linked_runs(self.home, unit, session_id)
                live = [run for run in runs if run.state not in TERMINAL_RUN_STATES]
                if live and not force:
                    run = live[0]
                    raise SubagentsRunning(
                        f"refusing to delete session {session_id[:8]}: related run {run.run_id} is"
                        f" still {run.state or 'unknown'}; wait for it to finish or force it"
                    )
                entry = move_to_trash(self.trash_dir, unit, summary, runs)
            removed = True
            try:
                index = RhoIndex.open(
                    self.sessions_root, create=False, busy_timeout=self.busy_timeout
                )
            except (FileNotFoundError, IndexUnavailable):
                removed = False
            else:
                try:
                    index.delete(workspace_key, session_id)
                except IndexUnavailable:
                    removed = False
                finally:
                    index.close()
            self._cache.remove([summary.path])
            return replace(entry, index_row_removed=removed)

    # --- drift (rho-desk check) ---------------------------------------------------------------

    def drift(self, workspace_key: str | None = None) -> DriftReport:
        """How Rho's index disagrees with the files, without writing to Rho's index.

        rho-desk's own cache is refreshed on the way, so unchanged transcripts are not re-parsed.
        """
        with self._lock:
            scan = self._scan(workspace_key, RefreshReport(workspace_key))
            seen = {(u.workspace_key, u.id): u for u in scan.seen.values()}
            return audit(
                self.sessions_root,
                workspace_key,
                seen,
                scan.failed_keys,
                self._key_of,
                busy_timeout=self.busy_timeout,
            )


@dataclass(slots=True)
class _Scan:
    seen: dict[str, SeenUnit] = field(default_factory=dict)
    """Transcripts that are current sessions of their folder, by path."""
    fresh: dict[str, SessionSummary] = field(default_factory=dict)
    """Summaries computed in this refresh, by path."""
    failed_paths: set[str] = field(default_factory=set)
    failed_keys: set[tuple[str, str]] = field(default_factory=set)
    """Units that belong to their folder but cannot be summarised: their rows are left alone."""


class RhoSessionFiles:
    """The real seam: rho-desk's Rho session-file reader (``rho_files``), nothing re-implemented.

    Discovery, workspace keys, the header reader, the summariser and the leases all come from
    ``rho_files``; this class only adapts their shapes to :class:`SessionFiles`.

    Args:
        known: gives the summary of a transcript already read and unchanged since (the one a
            person has open in the app), or ``None``; such a transcript is not read again.
    """

    def __init__(self, known: Callable[[Path], SessionSummary | None] | None = None) -> None:
        self.known = known

    def workspace_key(self, cwd: str) -> str:
        return workspace_key_of(cwd)

    def units(self, sessions_root: Path, workspace_key: str | None) -> list[UnitRef]:
        if workspace_key is not None:
            folders = [sessions_root / workspace_key]
        else:
            try:
                folders = sorted(
                    Path(e.path)
                    for e in os.scandir(sessions_root)
                    if e.is_dir(follow_symlinks=False)
                )
            except (FileNotFoundError, NotADirectoryError):
                folders = []
        return [self._ref(unit) for folder in folders for unit in discover_units(folder)]

    def unit_for(self, transcript: Path) -> UnitRef:
        return self._ref(unit_for_path(transcript))

    @staticmethod
    def _ref(unit: SessionUnit) -> UnitRef:
        # The lease path is worked out only when a delete needs it (discovery is a hot path).
        return UnitRef(unit.workspace.name, unit.session_id, unit.transcript, unit.unit_path)

    def header_cwd(self, transcript: Path) -> str:
        return read_header(transcript).cwd

    def summarize(self, transcript: Path) -> SessionSummary:
        if self.known is not None:
            summary = self.known(transcript)
            if summary is not None:
                return summary
        return summarize_transcript(transcript)

    def exclusive_lease(self, unit: UnitRef) -> AbstractContextManager[object]:
        found = unit_for_path(unit.transcript)
        # A unit whose name carries no id: its header names the session (and so the lease).
        session_id = found.session_id or read_header(unit.transcript).id
        return SessionLease.exclusive(found.lease(session_id))


def index_home(
    home: Path, titles: Iterable[tuple[str, str, str]] = (), **options: Any
) -> RefreshReport:
    """Build Rho's index of ``home`` as a listing does (creating it), then give sessions titles.

    Args:
        titles: ``(cwd, session id, title)`` for sessions that should have one.
        options: for :class:`SessionLibrary` (``cache_dir``, ``trash_dir``...).
    """
    with SessionLibrary(home, **options) as library:
        report = library.refresh()
        for cwd, session_id, title in titles:
            library.rename(library.workspace_key(cwd), session_id, title)
        return report


def _default_files() -> SessionFiles:
    return RhoSessionFiles()
