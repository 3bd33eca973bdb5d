"""Atomic writing of an export and its receipt: temp files, fsync, replace, fsync the folder.

Both files are written completely (and flushed to disk) before either replaces anything, so a
failure while writing leaves neither the export nor the receipt, and no temp file. New files get
mode 0600, as upstream's exports do.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import InputError, StorageError
from ..fsio import fsync_dir, write_temp

__all__ = ["OutputExists", "write_files_atomic"]


class OutputExists(InputError):
    """The output file already exists and overwriting was not asked for."""


def write_files_atomic(files: list[tuple[Path, bytes]], *, overwrite: bool = False, mode: int = 0o600) -> None:
    """Write every ``(path, data)`` atomically, all or (as far as the OS allows) none.

    Raises:
        OutputExists: a target exists and ``overwrite`` is false (nothing is written).
        StorageError: the disk said no (nothing is left behind).
    """
    targets = [p.resolve() if p.exists() else p.absolute() for p, _ in files]
    existed = [p.exists() for p in targets]
    if not overwrite:
        for path, there in zip(targets, existed, strict=True):
            if there:
                raise OutputExists(f"refusing to overwrite {path}; pass --force to replace it")
    temps: list[Path] = []
    replaced: list[Path] = []
    try:
        for path, (_, data) in zip(targets, files, strict=True):
            path.parent.mkdir(parents=True, exist_ok=True)
            temps.append(write_temp(path, data, mode=mode))
        for temp, path in zip(temps, targets, strict=True):
            os.replace(temp, path)
            replaced.append(path)
        for folder in {p.parent for p in targets}:
            fsync_dir(folder)
    except OSError as exc:
        for temp in temps:
            with contextlib.suppress(OSError):
                temp.unlink()
        # roll back files this call created; an overwritten file cannot be restored
        for path in replaced:
            if not existed[targets.index(path)]:
                with contextlib.suppress(OSError):
                    path.unlink()
        where = exc.filename if isinstance(exc.filename, str) else targets[len(replaced) if replaced else 0]
        raise StorageError(f"{where}: {exc.strerror or exc}") from exc
