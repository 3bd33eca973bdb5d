"""How Rho's index disagrees with the session files: the library's audit and ``check``'s finding.

Two views of the same question, both read-only towards Rho's index:

* :func:`audit` compares a library scan (:meth:`SessionLibrary.drift`) with the index rows of
  one workspace or of the whole home, giving a :class:`DriftReport`;
* :func:`index_drift_findings` is the ``index-drift`` check of ``rho-desk check``: it compares
  one checked transcript with its row (registered with ``rho_files.check`` on import).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Set
from dataclasses import dataclass, field
from pathlib import Path

from .index import (
    INDEX_FILE_NAME,
    SCHEMA_VERSION,
    IndexState,
    IndexUnavailable,
    RhoIndex,
    SeenUnit,
    row_belongs,
    row_is_current,
)
from .rho_files.check import CheckTarget, Finding, Severity, register_check
from .rho_files.layout import discover_units, unit_for_path
from .rho_files.layout import workspace_key as workspace_key_of
from .summary import SessionSummary

__all__ = ["DriftItem", "DriftReport", "audit", "index_drift_findings"]


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


def audit(
    sessions_root: Path,
    workspace_key: str | None,
    seen: Mapping[tuple[str, str], SeenUnit],
    failed_keys: Set[tuple[str, str]],
    key_of: Callable[[str], str],
    *,
    busy_timeout: float,
) -> DriftReport:
    """Compare the sessions a scan saw (``seen``; ``failed_keys``: units that do not load) with
    the rows of Rho's index, opened read-only (an old schema is read as it is, not migrated)."""
    drift = DriftReport(checked_sessions=len(seen))
    index_path = str(sessions_root / INDEX_FILE_NAME)
    try:
        index = RhoIndex.open_readonly(sessions_root, busy_timeout=busy_timeout)
    except FileNotFoundError:
        drift.index_state = IndexState.MISSING  # nothing to drift from
        return drift
    except IndexUnavailable as exc:
        drift.index_state = exc.state
        drift.items.append(
            DriftItem(f"index-{exc.state.value}", None, None, index_path, exc.text())
        )
        return drift
    try:
        rows = {(r.workspace_key, r.id): r for r in index.rows(workspace_key)}
        version = index.migration.from_version
    except IndexUnavailable as exc:
        drift.index_state = exc.state
        drift.items.append(
            DriftItem(f"index-{exc.state.value}", None, None, index_path, exc.text())
        )
        return drift
    finally:
        index.close()
    drift.checked_rows = len(rows)
    if version < SCHEMA_VERSION:
        drift.items.append(
            DriftItem("index-outdated", None, None, index_path, _outdated_text(version))
        )
    for key, unit in sorted(seen.items()):
        row = rows.get(key)
        if row is None:
            drift.items.append(
                DriftItem("missing-row", *key, str(unit.transcript), "the session has no index row")
            )
        elif version == SCHEMA_VERSION and not row_is_current(row, unit, sessions_root, key_of):
            drift.items.append(
                DriftItem("stale-row", *key, str(unit.transcript), _staleness(row, unit))
            )
    for key, row in sorted(rows.items()):
        if key in seen or key in failed_keys:
            continue
        kind, detail = _orphan_kind(row, sessions_root, key_of)
        drift.items.append(DriftItem(kind, *key, row.path, detail))
    return drift


def _outdated_text(version: int) -> str:
    return (
        f"the session index is at schema {version}; Rho migrates it to schema"
        f" {SCHEMA_VERSION} on its next use and re-reads every session"
    )


def _orphan_kind(
    row: SessionSummary, sessions_root: Path, key_of: Callable[[str], str]
) -> tuple[str, str]:
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
    value = (
        [Path(os.path.abspath(u.transcript)) for u in units],
        {u.session_id for u in units if u.session_id},
    )
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
            warn(
                str(target.path),
                "index-misplaced-transcript",
                f"its header cwd {summary.cwd!r} belongs to workspace folder {actual}, not"
                f" {workspace}: Rho ignores this transcript",
            )
        else:
            row = view.rows.get((workspace, summary.id))
            seen = SeenUnit(
                workspace,
                summary.id,
                transcript,
                summary.cwd,
                summary.file_size or 0,
                summary.file_mtime or 0,
            )
            if row is None:
                warn(
                    str(target.path),
                    "index-missing-row",
                    f"session {summary.id} has no row in {index_path}",
                )
            elif view.version == SCHEMA_VERSION and not row_is_current(
                row, seen, root, workspace_key_of
            ):
                warn(
                    str(target.path),
                    "index-stale-row",
                    f"the index row of session {summary.id} is out of date: {_staleness(row, seen)}",
                )
    # Rows without a session: this folder's (on its first transcript), and rows of workspace
    # folders that do not exist at all (on the home's first transcript).
    present = set(folders)
    for (wk, sid), row in sorted(view.rows.items()):
        ours = first_in_folder and wk == workspace
        homeless = first_in_home and wk not in present
        if not (ours or homeless):
            continue
        if not row_belongs(row, root, workspace_key_of):
            warn(
                index_path,
                "index-misplaced-row",
                f"row ({wk}, {sid}) for {row.path}: its cwd or path does not match its key",
            )
        elif homeless or sid not in folder_ids:
            warn(
                index_path,
                "index-orphan-row",
                f"row ({wk}, {sid}) for {row.path}: no such session on disk",
            )
    return findings


register_check("index-drift", index_drift_findings)


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
