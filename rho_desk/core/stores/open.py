"""Open whatever a user points at (an SDK snapshot document, a Rho session file, or another
agent's session).

This is the one entry point the command line, export and the app use to turn a path into a
session. Another agent's session (Claude Code, Codex, Gemini CLI, opencode, Pi: detected by
``core.agents.detect``) is read by its reader into the same revision tree, read-only. A session
folder, a ``.jsonl`` file, or any file whose first line is a session header is read as a Rho
transcript; anything else must be a snapshot document (schema 1 or 2), or, for a viewer, a
display export.

* :func:`open_snapshot`: the complete snapshot (the active revision, or ``revision``, resumed as
  Rho would, storage.md §6.6);
* :func:`open_document`: the whole file as a revision tree, for a viewer: a damaged transcript
  is read up to its last good revision, a snapshot document becomes a one-revision tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ..errors import InputError
from ..wire.codec import decode_snapshot
from ..wire.display import decode_display_export, display_identity
from ..wire.snapshot import SessionSnapshot
from .rho_files.errors import read_failure

if TYPE_CHECKING:
    from .rho_files.reader import RecoveryNote, SessionFile

__all__ = [
    "agent_of",
    "decode_document",
    "exists",
    "is_session_file",
    "open_document",
    "open_snapshot",
    "read_transcript",
]

_SNIFF_BYTES = 64


def exists(path: Path) -> bool:
    """Whether ``path`` names something to open: a file or folder, or an opencode session
    (``<opencode.db>#<id>``, whose database file exists)."""
    from ..agents.formats import split

    return Path(path).exists() or split(path)[1] is not None


def agent_of(path: Path) -> str | None:
    """The other agent whose session ``path`` is (``core.agents.detect``), ``None`` for Rho's."""
    from ..agents.formats import detect  # the module: the package's lazy names parse its source

    return detect(path)


def read_transcript(
    path: Path | str,
    *,
    tolerant: bool = False,
    share: bool = True,
    check_name: bool = True,
    leaf_only: bool = False,
) -> SessionFile:
    """The transcript at ``path`` as a revision tree: Rho's (``read_session``), or another
    agent's built into the same tree (read-only; with ``leaf_only``, a tree good only for the
    snapshot of its active leaf: ``open_session``).

    Raises:
        SessionFileError: the file is malformed (file, line and reason).
        InputError: no such file.
        StorageError: it cannot be read.
    """
    path = Path(path)
    if agent_of(path) is not None:
        from ..agents.formats import open_session

        return open_session(path, tolerant=tolerant, leaf_only=leaf_only)
    from .rho_files.reader import read_session

    return read_session(path, share=share, tolerant=tolerant, check_name=check_name)


def is_session_file(path: Path) -> bool:
    """Whether ``path`` is a transcript (Rho's, a session folder, or another agent's session)
    rather than a snapshot document."""
    if path.is_dir() or path.suffix == ".jsonl" or agent_of(path) is not None:
        return True
    try:
        with open(path, "rb") as handle:
            start = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    # Rho writes records compactly with `type` first; a snapshot document never starts so.
    return start.lstrip().startswith(b'{"type":"session"')


def open_snapshot(
    path: Path, revision: int | None = None, *, notes: list[RecoveryNote] | None = None
) -> SessionSnapshot:
    """The complete snapshot stored at ``path`` (at ``revision``, if given); what the reader had
    to pass over in a session file (a torn tail, a newer Rho's record) is added to ``notes``.

    Raises:
        InputError: the file is not a readable snapshot or session file, or has no such revision.
        StorageError: the file cannot be read.
    """
    path = Path(path)
    if is_session_file(path):
        session = read_transcript(path, share=False, leaf_only=revision is None)
        if notes is not None:
            notes.extend(session.notes)
        tree = session.tree  # dropped once the snapshot is made
        node = tree.find_revision(revision) if revision is not None else None
        return tree.snapshot(node)
    snapshot = decode_document(_read_document(path), source=str(path))
    if revision is not None and revision != snapshot.revision:
        raise InputError(
            f"a snapshot document holds only revision {snapshot.revision}, not {revision}",
            source=str(path),
        )
    return snapshot


def _read_document(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise read_failure(exc, str(path)) from None


def open_document(path: Path) -> tuple[SessionFile, bool]:
    """The file at ``path`` as a revision tree, and whether it is a snapshot document
    (blocking). Another agent's session is an ``AgentSessionFile``: a whole tree with its
    display history, read-only.

    A transcript is read tolerantly: a damaged one up to its last good revision (``damage``
    names the bad line; it must not be written until repaired). A snapshot document becomes a
    one-revision tree of a version-3 file (its display history: the messages but the system
    prompt), so that a viewer handles both alike; it is read-only. So does a display export
    (``rho-desk.display-export``: the conversation as shown, with its times).

    Raises:
        NotASessionFile: neither a transcript nor a snapshot document.
        NoSessionState: an empty transcript.
        InputError: no such file, or unreadable as a session.
        StorageError: it cannot be read.
    """
    from .rho_files.errors import NoSessionState
    from .rho_files.reader import read_session, snapshot_session

    path = Path(path)
    if agent_of(path) is not None:
        from ..agents.formats import open_session

        return open_session(path, tolerant=True), False
    if is_session_file(path):
        file = read_session(path, check_name=False, tolerant=True)
        if file.header is None:
            raise NoSessionState(
                "the file is empty: it has no session header", source=str(file.path)
            )
        return file, False
    data = _read_document(path)
    shown = decode_display_export(data)  # a conversation exported or published as shown
    if shown is not None:
        snapshot, times = shown
        identity = display_identity(snapshot)  # (the document names no model of its own)
        if identity is not None:
            snapshot = msgspec.structs.replace(snapshot, provider=identity)
        return snapshot_session(snapshot, path, len(data), timestamps=times), True
    return snapshot_session(decode_document(data, source=str(path)), path, len(data)), True


def decode_document(data: bytes, *, source: str) -> SessionSnapshot:
    """Decode a snapshot document; anything else is "not a Rho session file".

    Raises:
        NotASessionFile: neither a transcript nor a snapshot document (the decoder's reason
            follows the headline, with its line).
        InputError: a display export, which holds no model context (what to do instead).
    """
    from .rho_files.errors import NotASessionFile

    try:
        return decode_snapshot(data, source=source)
    except InputError as exc:
        if decode_display_export(data) is not None:
            raise InputError(
                "a display export (the conversation as shown, no model context) is not a snapshot: "
                "open it in the app, or export the session with --history model",
                source=source,
            ) from None
        if not data.strip():
            detail = ": the file is empty"
        else:
            where = f"line {exc.line}: " if exc.line is not None else ""
            at = f" (at {exc.path})" if exc.path not in (None, "$") else ""
            detail = f", nor a snapshot document: {where}{exc.reason}{at}"
        raise NotASessionFile(f"{NotASessionFile.PREFIX}{detail}", source=source) from None
