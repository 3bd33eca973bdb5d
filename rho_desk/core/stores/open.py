"""Open whatever a user points at (an SDK snapshot document or a Rho session file) as a snapshot.

This is the one entry point the command line, export and the app use to turn a path into a
``SessionSnapshot``. A session folder, a ``.jsonl`` file, or any file whose first line is a
session header is read as a Rho transcript (its active revision, or ``revision``, resumed as
Rho would, storage.md §6.6); anything else must be a snapshot document (schema 1 or 2).
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, StorageError
from ..wire.codec import decode_snapshot
from ..wire.snapshot import SessionSnapshot

__all__ = ["decode_document", "is_session_file", "open_snapshot"]

_SNIFF_BYTES = 64


def is_session_file(path: Path) -> bool:
    """Whether ``path`` is a Rho transcript (or a session folder) rather than a snapshot document."""
    if path.is_dir() or path.suffix == ".jsonl":
        return True
    try:
        with open(path, "rb") as handle:
            start = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    # Rho writes records compactly with `type` first; a snapshot document never starts so.
    return start.lstrip().startswith(b'{"type":"session"')


def open_snapshot(path: Path, revision: int | None = None) -> SessionSnapshot:
    """The complete snapshot stored at ``path`` (at ``revision``, if given).

    Raises:
        InputError: the file is not a readable snapshot or session file, or has no such revision.
        StorageError: the file cannot be read.
    """
    path = Path(path)
    if is_session_file(path):
        from .rho_files.reader import read_session

        tree = read_session(path).tree
        node = tree.find_revision(revision) if revision is not None else None
        return tree.snapshot(node)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except OSError as exc:
        raise StorageError(f"{path}: {exc.strerror or exc}") from exc
    snapshot = decode_document(data, source=str(path))
    if revision is not None and revision != snapshot.revision:
        raise InputError(
            f"a snapshot document holds only revision {snapshot.revision}, not {revision}",
            source=str(path),
        )
    return snapshot


def decode_document(data: bytes, *, source: str) -> SessionSnapshot:
    """Decode a snapshot document; anything else is "not a Rho session file".

    Raises:
        NotASessionFile: neither a transcript nor a snapshot document (the decoder's reason
            follows the headline, with its line).
    """
    from .rho_files.errors import NotASessionFile

    try:
        return decode_snapshot(data, source=source)
    except InputError as exc:
        if not data.strip():
            detail = ": the file is empty"
        else:
            where = f"line {exc.line}: " if exc.line is not None else ""
            at = f" (at {exc.path})" if exc.path not in (None, "$") else ""
            detail = f", nor a snapshot document: {where}{exc.reason}{at}"
        raise NotASessionFile(f"{NotASessionFile.PREFIX}{detail}", source=source) from None
