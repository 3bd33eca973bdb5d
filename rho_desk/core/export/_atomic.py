"""Atomic writing of an export and its receipt: temp files, fsync, replace, fsync the folder.

Both files are written completely (and flushed to disk) before either replaces anything, so a
failure while writing leaves neither the export nor the receipt, and no temp file. New files get
mode 0600, as upstream's exports do.

Output safety:

* an output that is one of the inputs (the same file by another name, a hard link, or a symbolic
  link to it) is refused, ``--force`` or not: an export never replaces the session it came from;
* an output that is a symbolic link is replaced by the new file; the link's target is never
  written;
* temporary files of rho-desk's own that a killed writer left in an output folder are removed
  (``fsio.remove_stale_temps``: only names of ours, only when their process is gone or they
  are an hour old).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError, StorageError
from ..system.fsio import fsync_dir, remove_stale_temps, write_temp

__all__ = ["OutputExists", "OutputIsInput", "check_outputs", "write_files_atomic"]


class OutputExists(InputError):
    """The output file already exists and overwriting was not asked for."""


class OutputIsInput(InputError):
    """The output would replace an input of the export (the session it was made from)."""


def _target(path: Path) -> Path:
    """``path`` absolute, its folder resolved, its last component kept (a link stays a link)."""
    path = Path(path).absolute()
    return path.parent.resolve() / path.name


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_outputs(targets: Sequence[Path], inputs: Sequence[Path]) -> None:
    """Refuse outputs that are inputs, or one another.

    Raises:
        OutputIsInput: a target is an input, by any name or link.
    """
    for i, path in enumerate(targets):
        for source in inputs:
            source = Path(source)
            if _target(path) == _target(source) or _same_file(path, source):
                raise OutputIsInput(
                    f"refusing to write {path}: it is the input {source} (an export never replaces "
                    "its source); choose another file"
                )
        for other in targets[i + 1 :]:
            if _target(path) == _target(other) or _same_file(path, other):
                raise InputError(f"the export and its receipt cannot be the same file ({path})")


def write_files_atomic(
    files: list[tuple[Path, bytes]],
    *,
    overwrite: bool = False,
    mode: int = 0o600,
    inputs: Sequence[Path] = (),
) -> None:
    """Write every ``(path, data)`` atomically, all or (as far as the OS allows) none.

    Args:
        overwrite: replace existing files (a symbolic link is replaced, never written through).
        inputs: files the export was made from; a target that is one of them is refused.

    Raises:
        OutputIsInput: a target is one of ``inputs`` (nothing is written).
        OutputExists: a target exists and ``overwrite`` is false (nothing is written).
        StorageError: the disk said no (nothing is left behind).
    """
    targets = [_target(p) for p, _ in files]
    check_outputs(targets, inputs)
    existed = [os.path.lexists(p) for p in targets]
    if not overwrite:
        for path, there in zip(targets, existed, strict=True):
            if there:
                raise OutputExists(f"refusing to overwrite {path}; pass --force to replace it")
    for folder in {p.parent for p in targets}:
        remove_stale_temps(folder)
    temps: list[Path] = []
    replaced: list[Path] = []
    try:
        for path, (_, data) in zip(targets, files, strict=True):
            path.parent.mkdir(parents=True, exist_ok=True)
            temps.append(write_temp(path, data, mode=mode))
        for temp, path in zip(temps, targets, strict=True):
            os.replace(temp, path)  # replaces a symbolic link itself, not its target
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
        where = (
            exc.filename
            if isinstance(exc.filename, str)
            else targets[len(replaced) if replaced else 0]
        )
        raise StorageError(f"{where}: {exc.strerror or exc}") from exc
