"""Where Rho keeps session files: the data directory, workspace keys, session units and leases.

Restates storage.md §1–§2: the Rho home (``$RHO_HOME`` or ``<home>/.rho``), the session root
``sessions/``, one folder per workspace named ``<encoded cwd>-<FNV-1a hash>``, and inside it the
session units (folder ``<created>_<id>/session.jsonl`` or legacy flat ``<created>_<id>.jsonl``)
with their lease files ``.<id>.active.lock``. Nothing here reads a transcript beyond its name.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from enum import Enum
from pathlib import Path
from typing import Final

import msgspec

from ...errors import InputError

__all__ = [
    "SESSIONS_DIR",
    "SESSION_FILE",
    "SessionUnit",
    "UnitLayout",
    "discover_units",
    "encode_cwd",
    "find_units",
    "fnv1a64",
    "in_rho_home",
    "iter_workspaces",
    "lease_path",
    "no_sessions_text",
    "parse_unit_name",
    "rho_home",
    "sessions_root",
    "unit_for_path",
    "workspace_dir",
    "workspace_key",
]

SESSIONS_DIR: Final = "sessions"
SESSION_FILE: Final = "session.jsonl"
LEASE_SUFFIX: Final = ".active.lock"

_FNV_OFFSET: Final = 0xCBF29CE484222325
_FNV_PRIME: Final = 0x100000001B3
_MASK64: Final = 0xFFFFFFFFFFFFFFFF


def rho_home(env: Mapping[str, str] | None = None) -> Path:
    """The Rho data directory: ``$RHO_HOME`` if set and non-empty, else ``<home>/.rho``.

    ``<home>`` is ``$HOME`` (set and non-empty); on Windows only, ``USERPROFILE`` and then
    ``HOMEDRIVE`` + ``HOMEPATH`` are tried next (upstream ``paths.rs``).

    Raises:
        InputError: no home directory can be found (Rho refuses to run session code then).
    """
    env = os.environ if env is None else env
    explicit = env.get("RHO_HOME", "")
    if explicit:
        return Path(explicit)
    home = env.get("HOME", "")
    if not home and sys.platform == "win32":
        home = env.get("USERPROFILE", "") or (
            env.get("HOMEDRIVE", "") + env.get("HOMEPATH", "")
            if env.get("HOMEDRIVE") and env.get("HOMEPATH")
            else ""
        )
    if not home:
        raise InputError("cannot find the Rho data directory: neither RHO_HOME nor HOME is set")
    return Path(home) / ".rho"


def sessions_root(home: Path) -> Path:
    """``<home>/sessions``: one sub-folder per workspace, plus ``index.sqlite3``."""
    return home / SESSIONS_DIR


def fnv1a64(data: bytes) -> int:
    """64-bit FNV-1a (XOR, then multiply, wrapping)."""
    value = _FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * _FNV_PRIME) & _MASK64
    return value


def encode_cwd(cwd: str) -> str:
    """Every character that is not an ASCII letter or digit becomes one ``-`` (nothing collapsed)."""
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in cwd)


def workspace_key(cwd: str) -> str:
    """The folder name of a workspace: ``<encoded cwd>-<16 hex digits of FNV-1a(cwd)>``.

    The hash is over the UTF-8 bytes of the string exactly as recorded (no normalisation);
    a path that is not valid UTF-8 (``surrogateescape`` from ``os``) is made lossy first, each
    bad sequence becoming U+FFFD, as Rust's ``to_string_lossy`` does.
    """
    text = cwd.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")
    return f"{encode_cwd(text)}-{fnv1a64(text.encode('utf-8')):016x}"


def workspace_dir(home: Path, cwd: str) -> Path:
    """``<home>/sessions/<workspace-key>``."""
    return sessions_root(home) / workspace_key(cwd)


class UnitLayout(Enum):
    """How a session unit is stored on disk."""

    FOLDER = "folder"  # <created>_<id>/session.jsonl (current)
    FLAT = "flat"  # <created>_<id>.jsonl (legacy)


class SessionUnit(msgspec.Struct, frozen=True):
    """One session on disk: its transcript and what its name says."""

    layout: UnitLayout
    transcript: Path
    """The ``session.jsonl`` (folder layout) or the ``.jsonl`` file (flat layout)."""
    name: str
    """The unit name: the folder name, or the file stem of a flat unit."""
    session_id: str | None
    """Everything after the last ``_`` of the name; ``None`` when the name has no ``_``."""
    created: int | None
    """The text before the first ``_`` as unsigned Unix seconds, if it parses."""

    @property
    def unit_path(self) -> Path:
        """The folder of a folder unit, or the transcript of a flat one."""
        return self.transcript.parent if self.layout is UnitLayout.FOLDER else self.transcript

    @property
    def workspace(self) -> Path:
        """The folder holding the unit (and its lease file)."""
        return self.unit_path.parent

    @property
    def web_dir(self) -> Path:
        """Where the unit's fetched web content lives (storage.md §2.3, §13)."""
        if self.layout is UnitLayout.FOLDER:
            return self.unit_path / "web"
        return self.transcript.with_name(self.name + ".web")

    def lease(self, session_id: str | None = None) -> Path:
        """The lease file ``<workspace>/.<id>.active.lock`` (id from the name, else given)."""
        sid = self.session_id or session_id
        if not sid:
            raise InputError(
                "a session without an id has no lease file", source=str(self.transcript)
            )
        return lease_path(self.workspace, sid)


def in_rho_home(unit: SessionUnit, cwd: str) -> bool:
    """Whether the unit sits in ``sessions/<key of cwd>/`` (where Rho's index lists it)."""
    workspace = unit.workspace
    return workspace.parent.name == SESSIONS_DIR and workspace.name == workspace_key(cwd)


def parse_unit_name(name: str) -> tuple[int | None, str | None]:
    """``(created, session_id)`` from a unit name; each ``None`` when absent or unparseable."""
    if "_" not in name:
        return None, None
    head, _, _ = name.partition("_")
    session_id = name.rpartition("_")[2]
    created = int(head) if head.isascii() and head.isdigit() and int(head) < 2**64 else None
    return created, session_id


def lease_path(workspace: Path, session_id: str) -> Path:
    return workspace / f".{session_id}{LEASE_SUFFIX}"


def _folder_unit(folder: Path) -> SessionUnit:
    created, sid = parse_unit_name(folder.name)
    return SessionUnit(UnitLayout.FOLDER, folder / SESSION_FILE, folder.name, sid, created)


def _flat_unit(file: Path) -> SessionUnit:
    created, sid = parse_unit_name(file.stem)
    return SessionUnit(UnitLayout.FLAT, file, file.stem, sid, created)


def unit_for_path(path: Path) -> SessionUnit:
    """The unit a user-given path names: a session folder, its ``session.jsonl``, or a flat file.

    Files outside Rho's layout are treated as flat units (their stem may carry no id at all).
    """
    if path.is_dir():
        return _folder_unit(path)
    if path.name == SESSION_FILE:
        return _folder_unit(path.parent)
    return _flat_unit(path)


def discover_units(workspace: Path) -> list[SessionUnit]:
    """The session units of one workspace folder, sorted by name (§2.2 discovery rules).

    Folders count only with a regular ``session.jsonl`` inside; flat files need an ``_`` in the
    stem, the ``jsonl`` extension, and a name other than ``session.jsonl``. Everything else
    (lease files, ``.web`` folders, the index) is ignored. A missing folder has no units.
    """
    try:
        entries = sorted(os.scandir(workspace), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    units = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                transcript = Path(entry.path) / SESSION_FILE
                if transcript.is_file():
                    units.append(_folder_unit(Path(entry.path)))
            elif entry.is_file() and entry.name.endswith(".jsonl") and entry.name != SESSION_FILE:
                stem = entry.name[: -len(".jsonl")]
                if "_" in stem:
                    units.append(_flat_unit(Path(entry.path)))
        except OSError:
            continue  # vanished or unreadable while scanning: not a unit right now
    return units


def iter_workspaces(home: Path) -> Iterator[Path]:
    """Every workspace folder under ``<home>/sessions``, sorted by name."""
    root = sessions_root(home)
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            yield Path(entry.path)


def find_units(home: Path, session_id: str, *, cwd: str | None = None) -> list[SessionUnit]:
    """Units whose name carries ``session_id``: the ``cwd`` workspace first, then all others."""
    found: list[SessionUnit] = []
    seen: set[Path] = set()
    folders = ([workspace_dir(home, cwd)] if cwd is not None else []) + list(iter_workspaces(home))
    for folder in folders:
        if folder in seen:
            continue
        seen.add(folder)
        found += [u for u in discover_units(folder) if u.session_id == session_id]
    return found


def no_sessions_text(folder: Path | str) -> str:
    """What to tell a person when ``folder`` holds no sessions: where rho-desk looked, and for what."""
    return (
        f"No Rho sessions in {folder}: looked for {SESSIONS_DIR}/<workspace>/<created>_<id>/{SESSION_FILE}"
        f" (and legacy <created>_<id>.jsonl files) under a Rho home, for those directly in a workspace"
        f" folder, and for a session folder holding {SESSION_FILE}"
    )
