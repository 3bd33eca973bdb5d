"""Open whatever a user points at (an SDK snapshot document or a Rho session file) as a snapshot.

This is the one entry point the command line, export and the app use to turn a path into a
``SessionSnapshot``; the Rho session-file reader plugs in here.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, StorageError
from ..wire.codec import decode_snapshot
from ..wire.snapshot import SessionSnapshot

__all__ = ["open_snapshot"]


def open_snapshot(path: Path, revision: int | None = None) -> SessionSnapshot:
    """The complete snapshot stored at ``path`` (at ``revision``, if given).

    Raises:
        InputError: the file is not a readable snapshot or session file, or has no such revision.
        StorageError: the file cannot be read.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StorageError(f"{path}: {exc.strerror or exc}") from exc
    if path.suffix == ".jsonl":
        # TODO(storage): Rho session files (the reader lands in core/stores/rho_files).
        raise InputError("Rho session files are not readable yet", source=str(path))
    snapshot = decode_snapshot(data, source=str(path))
    if revision is not None and revision != snapshot.revision:
        raise InputError(
            f"a snapshot document holds only revision {snapshot.revision}, not {revision}",
            source=str(path),
        )
    return snapshot
