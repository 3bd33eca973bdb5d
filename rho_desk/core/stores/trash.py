"""rho-desk's trash: where deleted sessions go, and how they come back.

Deleting a session (:meth:`SessionLibrary.delete`) moves its unit, its web sidecar and its linked
delegated runs into one entry folder ``<trash>/<UTC time>_<workspace key>_<unit name>/`` with a
``trash-info.json`` that records where everything came from and the session's title (titles
live only in Rho's index, whose row the delete removes). :func:`list_trash` reads the entries,
:func:`restore` moves one back and re-adds its row to Rho's index (title included), and
:func:`empty_trash` deletes entries for good.

The trash is per user, not per Rho home (``$RHO_DESK_TRASH_DIR``, else rho-desk's data folder):
each entry names the absolute place it came from.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, StorageError
from ..system.dirs import TRASH_DIR_ENV, trash_dir
from .index import IndexState, record_session
from .summary import SessionSummary
from .units import UnitRef

__all__ = [
    "TERMINAL_RUN_STATES",
    "TRASH_DIR_ENV",
    "TRASH_INFO",
    "LinkedRun",
    "RestoredSession",
    "TrashEntry",
    "TrashItem",
    "default_trash_dir",
    "empty_trash",
    "find_items",
    "linked_runs",
    "list_trash",
    "move_to_trash",
    "restore",
]

TRASH_INFO = "trash-info.json"
TERMINAL_RUN_STATES = frozenset({"ok", "error", "stopped"})
"""Delegated-run states that are finished (upstream RunState: starting, running, ok, error,
stopped). Anything else, or no readable result.json, counts as possibly still running."""


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
class TrashItem:
    """One entry of the trash, as :func:`list_trash` reads it."""

    path: Path
    session_id: str
    workspace_key: str
    cwd: str | None
    original: Path
    """The unit (folder or flat file) as it was before the delete."""
    transcript: Path
    """The transcript's original path."""
    title: str | None
    deleted_at: int
    runs: tuple[dict[str, object], ...]
    first_prompt: str | None = None
    """The session's first user message, when the entry recorded it (a session without a title is
    known by it)."""
    messages: int | None = None
    updated_at: int | None = None
    """When the session was last active (seconds), when the entry recorded it."""

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def label(self) -> str:
        """What a person knows the session by: its title, else its first prompt, else its id."""
        text = self.title or " ".join((self.first_prompt or "").split())
        return text or self.session_id

    def to_json(self) -> dict[str, object]:
        return {
            "entry": str(self.path),
            "session_id": self.session_id,
            "workspace_key": self.workspace_key,
            "cwd": self.cwd,
            "original": str(self.original),
            "title": self.title,
            "deleted_at": self.deleted_at,
            "runs": len(self.runs),
            "first_prompt": self.first_prompt,
            "messages": self.messages,
            "updated_at": self.updated_at,
        }


@dataclass(frozen=True, slots=True)
class RestoredSession:
    """What :func:`restore` put back."""

    transcript: Path
    session_id: str
    title: str | None
    index_state: IndexState
    """How Rho's index took the row back (``OK``/``CREATED``; else its next listing adds it)."""
    runs: int


def default_trash_dir() -> Path:
    """``$RHO_DESK_TRASH_DIR`` if set, else ``<user data dir>/rho-desk/trash``."""
    return trash_dir()


def _read_run_status(run_dir: Path) -> dict[str, object]:
    try:
        data = json.loads((run_dir / "result.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _state(status: dict[str, object]) -> str | None:
    state = status.get("state")
    return state if isinstance(state, str) else None


def linked_runs(home: Path, unit: UnitRef, session_id: str) -> list[LinkedRun]:
    """The delegated runs of a session: nested in its folder, and global ones naming it."""
    runs: list[LinkedRun] = []
    nested = unit.unit_path / "subagents" if unit.is_folder else None
    if nested is not None and nested.is_dir():
        for entry in sorted(nested.iterdir()):
            if entry.is_dir():
                runs.append(LinkedRun(entry.name, entry, _state(_read_run_status(entry)), True))
    global_root = home / "subagents"
    if global_root.is_dir():
        for entry in sorted(global_root.iterdir()):
            if not entry.is_dir():
                continue
            status = _read_run_status(entry)
            if status.get("parent_session_id") == session_id:
                runs.append(LinkedRun(entry.name, entry, _state(status), False))
    return runs


def _move(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(source, target)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        # Trash on another file system: copy, then remove the original.
        shutil.move(str(source), str(target))


def move_to_trash(
    trash_dir: Path, unit: UnitRef, summary: SessionSummary, runs: Sequence[LinkedRun]
) -> TrashEntry:
    """Move a session's unit (and linked runs, web sidecar) into a new trash entry.

    Raises:
        StorageError: a move failed (global runs move first, so the session is still in place
            when one of them fails).
    """
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
    base = trash_dir / f"{stamp}_{summary.workspace_key}_{unit.name}"
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
            "first_prompt": (summary.first_user_message or "")[:300] or None,
            "messages": summary.message_count,
            "updated_at": summary.updated_at,
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


# --- reading, restoring and emptying ------------------------------------------------------------


def _item(entry: Path) -> TrashItem | None:
    try:
        info = json.loads((entry / TRASH_INFO).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(info, dict):
        return None
    try:
        original = Path(str(info["original"]))
        transcript = Path(str(info.get("transcript") or original))
        runs = tuple(r for r in info.get("runs") or () if isinstance(r, dict))
        title = info.get("title")
        cwd = info.get("cwd")
        first = info.get("first_prompt")
        messages, updated = info.get("messages"), info.get("updated_at")
        return TrashItem(
            path=entry,
            session_id=str(info["session_id"]),
            workspace_key=str(info["workspace_key"]),
            cwd=cwd if isinstance(cwd, str) else None,
            original=original,
            transcript=transcript,
            title=title if isinstance(title, str) and title else None,
            deleted_at=int(info.get("deleted_at") or 0),
            runs=runs,
            first_prompt=first if isinstance(first, str) and first else None,
            messages=messages
            if isinstance(messages, int) and not isinstance(messages, bool)
            else None,
            updated_at=updated
            if isinstance(updated, int) and not isinstance(updated, bool) and updated > 0
            else None,
        )
    except (KeyError, TypeError, ValueError):
        return None


def list_trash(trash_dir: Path | None = None) -> list[TrashItem]:
    """Every readable entry of the trash, most recently deleted first.

    Folders without a readable ``trash-info.json`` are not entries (nothing to restore them by).
    """
    folder = default_trash_dir() if trash_dir is None else trash_dir
    try:
        entries = [Path(e.path) for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise StorageError(f"{folder}: cannot read the trash: {exc.strerror or exc}") from exc
    items = [item for entry in entries if (item := _item(entry)) is not None]
    items.sort(key=lambda i: (-i.deleted_at, i.name))
    return items


def find_items(prefix: str, trash_dir: Path | None = None) -> list[TrashItem]:
    """Entries whose session id or entry name starts with ``prefix``."""
    return [
        i
        for i in list_trash(trash_dir)
        if i.session_id.startswith(prefix) or i.name.startswith(prefix)
    ]


def restore(item: TrashItem) -> RestoredSession:
    """Move a trashed session back where it was and re-add it to Rho's index (with its title).

    Raises:
        InputError: something already exists where the session was (nothing is moved).
        StorageError: a move failed (what was moved back stays; the entry keeps the rest).
    """
    source = item.path / item.original.name
    if not source.exists():
        raise InputError("the trash entry no longer holds its session", source=str(item.path))
    if item.original.exists():
        raise InputError(
            f"{item.original} exists already: move it away first, then restore",
            source=str(item.path),
        )
    moved_runs = 0
    try:
        item.original.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _move(source, item.original)
        web = item.path / (item.original.name.removesuffix(".jsonl") + ".web")
        if item.original.suffix == ".jsonl" and web.exists():
            _move(web, item.original.with_name(web.name))
        for run in item.runs:
            if run.get("nested"):
                continue
            run_source = item.path / "subagents" / str(run.get("run_id"))
            target = Path(str(run.get("original")))
            if run_source.exists() and not target.exists():
                _move(run_source, target)
                moved_runs += 1
    except OSError as exc:
        raise StorageError(
            f"{item.path}: cannot restore the session: {exc.strerror or exc}"
        ) from exc
    state = _index_restored(item)
    _remove_entry(item.path)
    return RestoredSession(item.transcript, item.session_id, item.title, state, moved_runs)


def _index_restored(item: TrashItem) -> IndexState:
    from .rho_files.summary import summarize

    try:
        summary = summarize(item.transcript)
    except (InputError, StorageError):
        return IndexState.MISSING  # a transcript that does not load gets no row (as in Rho)
    return record_session(summary, title=item.title)


def _remove_entry(entry: Path) -> None:
    """Delete what is left of an entry once its session is back (only the info and empty folders)."""
    (entry / TRASH_INFO).unlink(missing_ok=True)
    for folder in sorted((p for p in entry.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        with contextlib.suppress(OSError):
            folder.rmdir()
    with contextlib.suppress(OSError):
        entry.rmdir()  # fails when something unexpected stayed behind: keep it


def empty_trash(items: Iterable[TrashItem] | None = None, trash_dir: Path | None = None) -> int:
    """Delete trash entries for good (all of them, or ``items``). Returns how many went.

    Raises:
        StorageError: an entry could not be deleted (those before it are gone).
    """
    chosen = list_trash(trash_dir) if items is None else list(items)
    removed = 0
    for item in chosen:
        try:
            shutil.rmtree(item.path)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise StorageError(f"{item.path}: cannot delete: {exc.strerror or exc}") from exc
        removed += 1
    return removed
