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
"""

from __future__ import annotations

import builtins
import functools
import json
import os
import shutil
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ..errors import InputError, KnownError, StorageError
from .index import (
    DEFAULT_BUSY_TIMEOUT,
    INDEX_FILE_NAME,
    SCHEMA_VERSION,
    IndexState,
    IndexUnavailable,
    RhoIndex,
    SeenUnit,
    row_belongs,
    row_is_current,
    salvage_titles,
    stat_transcript,
)
from .rho_files.check import CheckTarget, Finding, Severity, register_check
from .rho_files.deletion import SubagentsRunning
from .rho_files.errors import SessionInUse
from .rho_files.layout import SessionUnit, discover_units, unit_for_path
from .rho_files.layout import workspace_key as workspace_key_of
from .rho_files.lease import SessionLease
from .rho_files.reader import read_header
from .rho_files.summary import summarize as summarize_transcript
from .search import (
    SORT_KEYS,
    SearchResults,
    SessionCache,
    SummaryFailure,
    WorkspaceInfo,
    cache_file_for,
)
from .summary import SessionSummary

__all__ = [
    "TRASH_DIR_ENV",
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
]

TRASH_DIR_ENV = "RHO_DESK_TRASH_DIR"
TRASH_INFO = "trash-info.json"
# Delegated-run states that are finished (upstream RunState: starting, running, ok, error,
# stopped). Anything else, or no readable result.json, counts as possibly still running.
_TERMINAL_RUN_STATES = frozenset({"ok", "error", "stopped"})


@dataclass(frozen=True, slots=True)
class UnitRef:
    """One session unit on disk, as discovery names it (storage.md §2.2)."""

    workspace_key: str
    """The workspace folder the unit sits in."""
    session_id: str | None
    """From the unit name (after the last ``_``), if it has one."""
    transcript: Path
    unit_path: Path
    """The unit folder, or the flat ``.jsonl`` file."""
    lease_path: Path | None = None
    """``<workspace>/.<id>.active.lock`` if discovery already knows it; adapters may instead
    work it out in :meth:`SessionFiles.exclusive_lease` (the real one does, lazily)."""

    @property
    def is_folder(self) -> bool:
        return self.unit_path != self.transcript

    @property
    def name(self) -> str:
        return self.unit_path.name if self.is_folder else self.transcript.stem


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
            return ("the session index is from a newer Rho; listed from the session files"
                    " (titles read-only)")  # fmt: skip
        if self.index_state in (IndexState.CORRUPT, IndexState.MALFORMED):
            return (f"the session index is {self.index_state.value}; listed from the session files"
                    " (rho-desk does not repair or replace it)")  # fmt: skip
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


@dataclass(frozen=True, slots=True)
class LinkedRun:
    """A delegated run that belongs to a session (nested in its folder, or global and linked)."""

    run_id: str
    path: Path
    state: str | None
    nested: bool


@dataclass(frozen=True, slots=True)
class TrashEntry:
    """Where a deleted session went, and what it took with it."""

    path: Path
    """The trash entry folder (holds the unit, linked runs and ``trash-info.json``)."""
    session_id: str
    workspace_key: str
    original: Path
    title: str | None
    runs: tuple[LinkedRun, ...]
    index_row_removed: bool
    """``False`` when Rho's index could not be written; its next sync drops the stale row."""


@dataclass(frozen=True, slots=True)
class DriftItem:
    """One way Rho's index disagrees with the files."""

    kind: str
    """``missing-row`` (a session with no row), ``stale-row`` (size/mtime/cwd/summary out of
    date), ``orphan-row`` (no such session on disk), ``misplaced-row`` (cwd hash or path does not
    match its key), ``index-outdated`` (schema 0 or 1), or
    ``index-<state>`` when it cannot be read (``busy``, ``corrupt``, ``newer``, ``malformed``,
    ``unwritable``)."""
    workspace_key: str | None
    session_id: str | None
    path: str | None
    detail: str


@dataclass(slots=True)
class DriftReport:
    items: list[DriftItem] = field(default_factory=list)
    index_state: IndexState = IndexState.OK
    checked_sessions: int = 0
    checked_rows: int = 0

    @property
    def drifted(self) -> bool:
        return bool(self.items)


def default_trash_dir() -> Path:
    """``$RHO_DESK_TRASH_DIR`` if set, else ``<user data dir>/rho-desk/trash``."""
    explicit = os.environ.get(TRASH_DIR_ENV, "")
    if explicit:
        return Path(explicit)
    import platformdirs

    return Path(platformdirs.user_data_dir("rho-desk")) / "trash"


class SessionLibrary:
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
        self.cache_notice: str | None = None
        try:
            self._cache = SessionCache.open(cache_file_for(self.sessions_root, cache_dir))
        except StorageError as exc:
            # Listing must not depend on a writable cache folder: work from memory instead
            # (every refresh then re-reads every transcript once per process).
            self._cache = SessionCache.in_memory()
            self.cache_notice = f"{exc.text()}; rho-desk's session cache is kept in memory"
        self._lock = threading.RLock()
        self._last_state = IndexState.OK
        self._last_notice: str | None = None

    def close(self) -> None:
        self._cache.close()

    def __enter__(self) -> SessionLibrary:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
                scan.seen[path] = SeenUnit(unit.workspace_key, hit.id, unit.transcript, hit.cwd,
                                           stat[0], stat[1])  # fmt: skip
                report.unchanged += 1
                continue
            failure = known_failures.get(path)
            if failure is not None and (failure.file_size, failure.file_mtime_ns) == (stat[0], stat[2]):
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
            scan.seen[path] = SeenUnit(unit.workspace_key, summary.id, unit.transcript,
                                       summary.cwd, summary.file_size or 0,
                                       summary.file_mtime or 0)  # fmt: skip
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

    def _sync_rho_index(self, workspace_key: str | None, scan: _Scan, report: RefreshReport) -> None:
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
            if key not in before or not row_is_current(before[key], unit, self.sessions_root, key_of)
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
                mirrored = cached.get(str(transcript)) or self._cache.get(summary.workspace_key, summary.id)
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

    def list(
        self,
        workspace_key: str | None = None,
        *,
        sort: str = "updated",
        descending: bool = True,
        offset: int = 0,
        limit: int | None = None,
    ) -> SessionPage:
        """One page of sessions from the library as of the last :meth:`refresh`.

        Args:
            workspace_key: one workspace, or ``None`` for all.
            sort: ``updated`` (default), ``created``, ``size``, ``messages``, ``compactions``,
                ``title``.
        """
        if sort not in SORT_KEYS:
            raise InputError(f"unknown sort {sort!r}; choose from {', '.join(SORT_KEYS)}")
        with self._lock:
            rows = self._cache.list(
                workspace_key, sort=sort, descending=descending, offset=offset, limit=limit
            )
            total = self._cache.count(workspace_key) if limit is not None or offset else len(rows)
            return SessionPage(rows, total, self._last_state, self._last_notice)

    def search(
        self,
        text: str,
        workspace_key: str | None = None,
        *,
        limit: int = 50,
        sort: str = "updated",
        descending: bool = True,
    ) -> SearchResults:
        """Full-text search over titles and user/assistant text, with highlightable snippets.

        Every whitespace-separated term (or ``"quoted phrase"``) must occur, as a
        case-insensitive substring, in the title or the conversation text.
        """
        if sort not in SORT_KEYS:
            raise InputError(f"unknown sort {sort!r}; choose from {', '.join(SORT_KEYS)}")
        with self._lock:
            return self._cache.search(
                text, workspace_key, limit=limit, sort=sort, descending=descending
            )

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
            raise StorageError(f"{self.sessions_root}: no session index and no sessions folder") from None

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
                runs = self._linked_runs(unit, session_id)
                live = [run for run in runs if run.state not in _TERMINAL_RUN_STATES]
                if live and not force:
                    run = live[0]
                    raise SubagentsRunning(
                        f"refusing to delete session {session_id[:8]}: related run {run.run_id} is"
                        f" still {run.state or 'unknown'}; wait for it to finish or force it"
                    )
                entry = self._move_to_trash(unit, summary, runs)
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

    def _linked_runs(self, unit: UnitRef, session_id: str) -> builtins.list[LinkedRun]:
        runs: builtins.list[LinkedRun] = []
        nested = unit.unit_path / "subagents" if unit.is_folder else None
        if nested is not None and nested.is_dir():
            for entry in sorted(nested.iterdir()):
                if entry.is_dir():
                    status = _read_run_status(entry)
                    runs.append(LinkedRun(entry.name, entry, _run_state(status), True))
        global_root = self.home / "subagents"
        if global_root.is_dir():
            for entry in sorted(global_root.iterdir()):
                if not entry.is_dir():
                    continue
                status = _read_run_status(entry)
                if status.get("parent_session_id") == session_id:
                    runs.append(LinkedRun(entry.name, entry, _run_state(status), False))
        return runs

    def _move_to_trash(
        self, unit: UnitRef, summary: SessionSummary, runs: builtins.list[LinkedRun]
    ) -> TrashEntry:
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        base = self.trash_dir / f"{stamp}_{summary.workspace_key}_{unit.name}"
        entry_dir = base
        counter = 1
        while entry_dir.exists():
            counter += 1
            entry_dir = base.with_name(f"{base.name}-{counter}")
        try:
            entry_dir.mkdir(parents=True, mode=0o700)
            info = {
                "session_id": summary.id,
                "workspace_key": summary.workspace_key,
                "cwd": summary.cwd,
                "original": str(unit.unit_path),
                "transcript": summary.path,
                "title": summary.title,
                "deleted_at": int(time.time()),
                "runs": [
                    {"run_id": r.run_id, "original": str(r.path), "state": r.state, "nested": r.nested}
                    for r in runs
                ],
            }
            info_path = entry_dir / TRASH_INFO
            info_path.write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n", "utf-8")
            os.chmod(info_path, 0o600)
            # Global linked runs first: if one fails to move, the session is still in place
            # and the delete can be retried (upstream §14 step 5 does the same).
            for run in runs:
                if not run.nested:
                    _move(run.path, entry_dir / "subagents" / run.run_id)
            _move(unit.unit_path, entry_dir / unit.unit_path.name)
            if not unit.is_folder:
                web = unit.transcript.with_name(unit.transcript.stem + ".web")
                if web.exists():
                    _move(web, entry_dir / web.name)
        except OSError as exc:
            raise StorageError(
                f"{unit.unit_path}: cannot move the session to the trash: {exc.strerror or exc}"
            ) from exc
        return TrashEntry(
            path=entry_dir,
            session_id=summary.id,
            workspace_key=summary.workspace_key,
            original=unit.unit_path,
            title=summary.title,
            runs=tuple(runs),
            index_row_removed=False,
        )

    # --- drift (rho-desk check) ---------------------------------------------------------------

    def drift(self, workspace_key: str | None = None) -> DriftReport:
        """How Rho's index disagrees with the files, without writing to Rho's index.

        Rho's index is opened read-only (an old-schema index is read as it is, not migrated).
        rho-desk's own cache is refreshed on the way, so unchanged transcripts are not re-parsed.
        """
        with self._lock:
            report = RefreshReport(workspace_key)
            scan = self._scan(workspace_key, report)
            drift = DriftReport(checked_sessions=len(scan.seen))
            index_path = str(self.sessions_root / INDEX_FILE_NAME)
            try:
                index = RhoIndex.open_readonly(self.sessions_root, busy_timeout=self.busy_timeout)
            except FileNotFoundError:
                drift.index_state = IndexState.MISSING  # nothing to drift from (see below)
                return drift
            except IndexUnavailable as exc:
                drift.index_state = exc.state
                drift.items.append(DriftItem(f"index-{exc.state.value}", None, None, index_path,
                                             exc.text()))  # fmt: skip
                return drift
            try:
                rows = {(r.workspace_key, r.id): r for r in index.rows(workspace_key)}
                version = index.migration.from_version
            except IndexUnavailable as exc:
                drift.index_state = exc.state
                drift.items.append(DriftItem(f"index-{exc.state.value}", None, None, index_path,
                                             exc.text()))  # fmt: skip
                return drift
            finally:
                index.close()
            drift.checked_rows = len(rows)
            if version < SCHEMA_VERSION:
                drift.items.append(DriftItem("index-outdated", None, None, index_path,
                                             _outdated_text(version)))  # fmt: skip
            seen_by_key = {(u.workspace_key, u.id): u for u in scan.seen.values()}
            for key, unit in sorted(seen_by_key.items()):
                row = rows.get(key)
                if row is None:
                    drift.items.append(DriftItem("missing-row", *key, str(unit.transcript),
                                                 "the session has no index row"))  # fmt: skip
                elif version == SCHEMA_VERSION and not row_is_current(
                    row, unit, self.sessions_root, self._key_of
                ):
                    drift.items.append(DriftItem("stale-row", *key, str(unit.transcript),
                                                 _staleness(row, unit)))  # fmt: skip
            for key, row in sorted(rows.items()):
                if key in seen_by_key or key in scan.failed_keys:
                    continue
                kind, detail = _orphan_kind(row, self.sessions_root, self._key_of)
                drift.items.append(DriftItem(kind, *key, row.path, detail))
            return drift


def _outdated_text(version: int) -> str:
    return (f"the session index is at schema {version}; Rho migrates it to schema"
            f" {SCHEMA_VERSION} on its next use and re-reads every session")  # fmt: skip


def _orphan_kind(row: SessionSummary, sessions_root: Path, key_of: Callable[[str], str]) -> tuple[str, str]:
    if not row_belongs(row, sessions_root, key_of):
        return "misplaced-row", "the row's cwd or path does not match its workspace key"
    return "orphan-row", "no such session on disk"


# --- index drift as a `rho-desk check` check ----------------------------------------------------
#
# rho_files' check runs every registered check on each file it reads (one CheckTarget per
# transcript, already summarised). This one compares the target with its row in Rho's index,
# read-only. Findings about the index as a whole (unreadable, outdated, rows without sessions)
# are attached to the first session of the Rho home (or of the workspace folder, for its
# orphan rows), so checking a whole home reports each of them once, without per-run state.


@dataclass(frozen=True, slots=True)
class _IndexView:
    state: IndexState
    detail: str | None = None
    version: int = SCHEMA_VERSION
    rows: dict[tuple[str, str], SessionSummary] = field(default_factory=dict)


_VIEWS: dict[Path, tuple[object, _IndexView]] = {}
_FOLDERS: dict[Path, tuple[object, tuple[list[Path], set[str]]]] = {}
_ROOTS: dict[Path, tuple[object, tuple[list[str], Path | None]]] = {}
_CHECK_LOCK = threading.Lock()


def _stamp(path: Path) -> object:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


def _index_view(root: Path) -> _IndexView:
    stamp = _stamp(root / INDEX_FILE_NAME)
    cached = _VIEWS.get(root)
    if cached is not None and cached[0] == stamp and cached[1].state is not IndexState.BUSY:
        return cached[1]
    if stamp is None:
        view = _IndexView(IndexState.MISSING)
    else:
        try:
            with RhoIndex.open_readonly(root) as index:
                rows = {(r.workspace_key, r.id): r for r in index.rows()}
                view = _IndexView(IndexState.OK, None, index.migration.from_version, rows)
        except IndexUnavailable as exc:
            view = _IndexView(exc.state, exc.text())
        except FileNotFoundError:
            view = _IndexView(IndexState.MISSING)
    if len(_VIEWS) > 8:
        _VIEWS.clear()
    _VIEWS[root] = (stamp, view)
    return view


def _folder_units(folder: Path) -> tuple[list[Path], set[str]]:
    """(transcripts in discovery order, session ids named) of one workspace folder, cached."""
    stamp = _stamp(folder)
    cached = _FOLDERS.get(folder)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    units = discover_units(folder)
    value = ([Path(os.path.abspath(u.transcript)) for u in units],
             {u.session_id for u in units if u.session_id})  # fmt: skip
    if len(_FOLDERS) > 256:
        _FOLDERS.clear()
    _FOLDERS[folder] = (stamp, value)
    return value


def _root_layout(root: Path) -> tuple[list[str], Path | None]:
    """(workspace folder names, the home's first transcript in discovery order), cached."""
    stamp = _stamp(root)
    cached = _ROOTS.get(root)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        names = sorted(e.name for e in os.scandir(root) if e.is_dir(follow_symlinks=False))
    except OSError:
        names = []
    first = next((units[0] for n in names if (units := _folder_units(root / n)[0])), None)
    _ROOTS[root] = (stamp, (names, first))
    return names, first


def index_drift_findings(target: CheckTarget) -> list[Finding]:
    """The ``index-drift`` check: how Rho's index disagrees with this transcript (read-only).

    Codes (all warnings: the transcript loads; the index is out of step with it):
    ``index-missing-row``, ``index-stale-row``, ``index-misplaced-transcript`` (its header cwd
    names another workspace: Rho ignores it), and once per home or folder ``index-outdated``,
    ``index-<busy|corrupt|newer|malformed|unwritable>``, ``index-orphan-row``,
    ``index-misplaced-row``. A home without an index has nothing to drift from: no findings.
    """
    if target.kind != "transcript":
        return []
    transcript = Path(os.path.abspath(target.path))
    unit = unit_for_path(transcript)
    folder = unit.workspace
    root = folder.parent
    if root.name != "sessions" or not root.is_dir():
        return []  # not inside a Rho home: there is no index to drift from
    with _CHECK_LOCK:
        view = _index_view(root)
        folder_transcripts, folder_ids = _folder_units(folder)
        folders, home_first = _root_layout(root)
    findings: list[Finding] = []
    index_path = str(root / INDEX_FILE_NAME)
    first_in_home = home_first == unit.transcript
    first_in_folder = bool(folder_transcripts) and folder_transcripts[0] == unit.transcript

    def warn(path: str, code: str, message: str) -> None:
        findings.append(Finding(path, code, Severity.WARNING, message))

    if view.state is IndexState.MISSING:
        # Not drift: a home whose index nobody has created yet (Rho creates it on its next
        # listing, and `rho-desk sessions` does too). There are no rows to disagree with.
        return findings
    if not view.state.usable:
        if first_in_home:
            warn(index_path, f"index-{view.state.value}", view.detail or view.state.value)
        return findings
    if first_in_home and view.version < SCHEMA_VERSION:
        warn(index_path, "index-outdated", _outdated_text(view.version))
    summary = target.summary
    workspace = folder.name
    if summary is not None:
        actual = workspace_key_of(summary.cwd)
        if actual != workspace:
            warn(str(target.path), "index-misplaced-transcript",
                 f"its header cwd {summary.cwd!r} belongs to workspace folder {actual}, not"
                 f" {workspace}: Rho ignores this transcript")  # fmt: skip
        else:
            row = view.rows.get((workspace, summary.id))
            seen = SeenUnit(workspace, summary.id, transcript, summary.cwd,
                            summary.file_size or 0, summary.file_mtime or 0)  # fmt: skip
            if row is None:
                warn(str(target.path), "index-missing-row",
                     f"session {summary.id} has no row in {index_path}")  # fmt: skip
            elif view.version == SCHEMA_VERSION and not row_is_current(row, seen, root, workspace_key_of):
                warn(str(target.path), "index-stale-row",
                     f"the index row of session {summary.id} is out of date: {_staleness(row, seen)}")  # fmt: skip
    # Rows without a session: this folder's (on its first transcript), and rows of workspace
    # folders that do not exist at all (on the home's first transcript).
    present = set(folders)
    for (wk, sid), row in sorted(view.rows.items()):
        ours = first_in_folder and wk == workspace
        homeless = first_in_home and wk not in present
        if not (ours or homeless):
            continue
        if not row_belongs(row, root, workspace_key_of):
            warn(index_path, "index-misplaced-row",
                 f"row ({wk}, {sid}) for {row.path}: its cwd or path does not match its key")  # fmt: skip
        elif homeless or sid not in folder_ids:
            warn(index_path, "index-orphan-row",
                 f"row ({wk}, {sid}) for {row.path}: no such session on disk")  # fmt: skip
    return findings


register_check("index-drift", index_drift_findings)


@dataclass(slots=True)
class _Scan:
    seen: dict[str, SeenUnit] = field(default_factory=dict)
    """Transcripts that are current sessions of their folder, by path."""
    fresh: dict[str, SessionSummary] = field(default_factory=dict)
    """Summaries computed in this refresh, by path."""
    failed_paths: set[str] = field(default_factory=set)
    failed_keys: set[tuple[str, str]] = field(default_factory=set)
    """Units that belong to their folder but cannot be summarised: their rows are left alone."""


def _staleness(row: SessionSummary, unit: SeenUnit) -> str:
    reasons = []
    if row.path != str(unit.transcript):
        reasons.append(f"path {row.path!r} != {str(unit.transcript)!r}")
    if row.file_size != unit.file_size:
        reasons.append(f"file_size {row.file_size} != {unit.file_size}")
    if row.file_mtime != unit.file_mtime:
        reasons.append(f"file_mtime {row.file_mtime} != {unit.file_mtime}")
    if row.cwd != unit.cwd:
        reasons.append(f"cwd {row.cwd!r} != {unit.cwd!r}")
    if row.message_count and row.first_user_message is None:
        reasons.append("first_user_message missing")
    return "; ".join(reasons) or "the row does not belong to its workspace key"


def _read_run_status(run_dir: Path) -> dict[str, object]:
    try:
        data = json.loads((run_dir / "result.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _run_state(status: dict[str, object]) -> str | None:
    state = status.get("state")
    return state if isinstance(state, str) else None


def _move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(source, target)
    except OSError as exc:
        import errno

        if exc.errno != errno.EXDEV:
            raise
        # Trash on another file system: copy, then remove the original.
        shutil.move(str(source), str(target))


class RhoSessionFiles:
    """The real seam: rho-desk's Rho session-file reader (``rho_files``), nothing re-implemented.

    Discovery, workspace keys, the header reader, the summariser and the leases all come from
    ``rho_files``; this class only adapts their shapes to :class:`SessionFiles`.
    """

    def workspace_key(self, cwd: str) -> str:
        return workspace_key_of(cwd)

    def units(self, sessions_root: Path, workspace_key: str | None) -> list[UnitRef]:
        if workspace_key is not None:
            folders = [sessions_root / workspace_key]
        else:
            try:
                folders = sorted(
                    Path(e.path) for e in os.scandir(sessions_root) if e.is_dir(follow_symlinks=False)
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
        return summarize_transcript(transcript)

    def exclusive_lease(self, unit: UnitRef) -> AbstractContextManager[object]:
        found = unit_for_path(unit.transcript)
        # A unit whose name carries no id: its header names the session (and so the lease).
        session_id = found.session_id or read_header(unit.transcript).id
        return SessionLease.exclusive(found.lease(session_id))


def _default_files() -> SessionFiles:
    return RhoSessionFiles()
