"""Durable file primitives: whole-file atomic replacement, directory fsync, private folders.

Every whole-file write in rho-desk goes through here: write a temporary file in the target's
folder, fsync it, ``os.replace`` it over the target, then fsync the folder so the rename itself
is durable. A crash at any point leaves the old file or the new one, never a mix; a failure
leaves the old file and no temporary behind. (Session transcripts are appended to instead; see
``stores.rho_files.writer``.)
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import time
from pathlib import Path
from typing import Final

from ..errors import StorageError

__all__ = [
    "STALE_TEMP_SECONDS",
    "atomic_write",
    "ensure_private_dir",
    "fsync_dir",
    "remove_stale_temps",
    "write_all",
    "write_temp",
]

STALE_TEMP_SECONDS: Final = 3600
"""A temporary file of ours this old is stale whatever its process."""
_TEMP_NAME: Final = re.compile(r"\.tmp-.+-(\d+)-[0-9a-f]{8}")
"""The name ``write_temp`` gives: ``.tmp-<target name>-<pid>-<8 hex>``."""


def write_all(fd: int, data: bytes | bytearray) -> None:
    """``os.write`` until every byte is written (short writes happen on full disks and pipes)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:  # pragma: no cover - write(2) never returns 0 for regular files
            raise OSError(errno.EIO, "short write")
        view = view[written:]


def fsync_dir(folder: Path) -> None:
    """Make the folder's entries (a rename, a new file) durable. No-op off POSIX."""
    if os.name != "posix":  # pragma: no cover
        return
    fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` (and parents) and make it mode 0700, as Rho does for session folders."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name == "posix":
        os.chmod(path, 0o700)


def write_temp(target: Path, data: bytes, *, mode: int = 0o600) -> Path:
    """A synced temporary file beside ``target`` holding ``data``; deleted again on failure.

    Raises:
        OSError: the write or the sync failed (nothing is left behind).
    """
    folder = target.parent if str(target.parent) else Path(".")
    temp = folder / f".tmp-{target.name}-{os.getpid()}-{os.urandom(4).hex()}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        try:
            if os.name == "posix":
                os.fchmod(fd, mode)  # the umask may have narrowed or widened it
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    return temp


def _process_gone(pid: int) -> bool:
    if pid <= 0 or os.name != "posix":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # alive, owned by someone else
    return False


def remove_stale_temps(folder: Path, *, max_age: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Remove temporary files ``write_temp`` left in ``folder`` (a killed process leaves them).

    Only files named as ours (``.tmp-<name>-<pid>-<8 hex>``) and only stale ones go: their
    process is gone, or they are older than ``max_age`` seconds. This process's own are kept
    unless old. Errors are ignored (a folder we cannot list has nothing of ours to clean).
    Returns what was removed.
    """
    removed: list[Path] = []
    cutoff = time.time() - max_age
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            pid = int(match.group(1))
            if not entry.is_file(follow_symlinks=False):
                continue
            if info.st_mtime < cutoff or (pid != os.getpid() and _process_gone(pid)):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except (OSError, ValueError):
            continue
    return removed


def atomic_write(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` atomically: temp file, fsync, rename, folder fsync.

    Missing parent folders are created (mode 0700).

    Raises:
        StorageError: the write failed; ``path`` is unchanged.
    """
    path = Path(path)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        temp = write_temp(path, data, mode=mode)
        try:
            os.replace(temp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                temp.unlink()
            raise
        fsync_dir(path.parent if str(path.parent) else Path("."))
    except OSError as exc:
        raise StorageError(f"{path}: cannot write: {exc.strerror or exc}") from exc
