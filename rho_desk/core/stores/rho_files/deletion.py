"""Deleting a Rho session unit the way Rho does (storage.md §14).

Refuse the caller's current session; take the exclusive lease (refused while anyone has the
session open); refuse while a delegated run is still running unless forced; delete linked
global run folders first (so a failure leaves the transcript and the operation can be retried);
let the index drop its row; then delete the unit (the whole folder, or the flat file and its
``.web`` companion). The lease file, the usage ledger and exports are left alone.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ...errors import InputError, StorageError
from .layout import SessionUnit, UnitLayout
from .lease import SessionLease
from .reader import read_header

__all__ = ["DeletionReport", "SubagentsRunning", "delete_session"]

RUNNING_STATES: Final = frozenset({"running", "starting"})
"""Run states that are not terminal (upstream: runs a crash left "running"/"starting")."""


class SubagentsRunning(StorageError):
    """A delegated run of the session is not finished; pass ``force=True`` to delete anyway."""


@dataclass(frozen=True, slots=True)
class DeletionReport:
    session_id: str
    removed_unit: Path
    removed_runs: tuple[Path, ...] = field(default=())


def _run_state(result: Path) -> tuple[str | None, str | None]:
    """(parent_session_id, state) from a run's ``result.json``; ``(None, None)`` if unreadable."""
    try:
        data = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    if not isinstance(data, dict):
        return None, None
    parent, state = data.get("parent_session_id"), data.get("state")
    return (parent if isinstance(parent, str) else None, state if isinstance(state, str) else None)


def delete_session(
    unit: SessionUnit,
    *,
    home: Path | None = None,
    force: bool = False,
    current_session_id: str | None = None,
    before_remove: Callable[[str, SessionUnit], None] | None = None,
) -> DeletionReport:
    """Delete one session unit and its delegated runs.

    Args:
        unit: the unit to delete.
        home: the Rho home, to find global runs linked by ``parent_session_id``.
        force: delete even if a run is still ``running``/``starting`` (left so by a crash).
        current_session_id: the caller's own session, which is never deleted.
        before_remove: called with ``(session_id, unit)`` after the runs are gone and before
            the unit is removed (the index drops its row there, as Rho does).

    Raises:
        InputError: it is the caller's current session, or the unit names no session id.
        SessionInUse: the session is open somewhere (a shared lease is held).
        SubagentsRunning: a run is not finished and ``force`` is false.
        StorageError: a folder or file could not be removed.
    """
    session_id = unit.session_id or read_header(unit.transcript).id
    if current_session_id is not None and session_id == current_session_id:
        raise InputError(f"refusing to delete the current session {session_id}")
    with SessionLease.exclusive(unit.lease(session_id)):
        nested = []
        if unit.layout is UnitLayout.FOLDER:
            nested = sorted(p for p in (unit.unit_path / "subagents").glob("*") if p.is_dir())
        linked = []
        if home is not None:
            for run in sorted((home / "subagents").glob("*")):
                parent, _ = _run_state(run / "result.json")
                if run.is_dir() and parent == session_id:
                    linked.append(run)
        busy = [
            run for run in nested + linked if _run_state(run / "result.json")[1] in RUNNING_STATES
        ]
        if busy and not force:
            raise SubagentsRunning(
                f"session {session_id} has {len(busy)} delegated run(s) still running "
                f"({', '.join(p.name for p in busy)}); delete with force if they were left by a crash"
            )
        try:
            for run in linked:
                shutil.rmtree(run)
        except OSError as exc:
            raise StorageError(
                f"{exc.filename}: cannot delete a delegated run: {exc.strerror}"
            ) from exc
        if before_remove is not None:
            before_remove(session_id, unit)
        try:
            if unit.layout is UnitLayout.FOLDER:
                shutil.rmtree(unit.unit_path)
            else:
                unit.transcript.unlink()
                if unit.web_dir.is_dir():
                    shutil.rmtree(unit.web_dir)
        except OSError as exc:
            raise StorageError(
                f"{exc.filename}: cannot delete the session: {exc.strerror}"
            ) from exc
    return DeletionReport(session_id, unit.unit_path, tuple(linked))
