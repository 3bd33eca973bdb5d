"""The errors of Rho session files: what is wrong with a transcript, a lease or an append.

::

    InputError (core/errors.py)
     └── SessionFileError            a transcript that cannot be loaded: file, line, reason
          ├── UnsupportedSessionVersion  header version outside 1..=4
          ├── CorruptRecord          a line that is not a valid record (bad JSON, bad field, ...)
          │    └── NewerRecord       a well-formed record of a type only a newer Rho knows
          ├── IllegalRecord          a valid record where the grammar forbids it (§5.6-§5.9)
          │    ├── SnapshotDeltaMismatch  a delta that does not fit its base (§5.5)
          │    └── NotASessionFile   line 1 is not a session header: not a Rho session at all
          ├── SessionIdMismatch      header id differs from the id in the file/folder name
          └── NoSessionState         the file holds no saved state (no header, or no leaf)
    StorageError (core/errors.py)
     ├── SessionWriteError           an append failed; the file was cut back to its old length
     └── LeaseUnavailable            a lease file lock could not be taken
          ├── SessionBeingDeleted    another process holds the exclusive (delete) lease
          └── SessionInUse           someone holds a shared lease: refusing to delete

:func:`read_failure` is the one way a failed read of a session or snapshot file is named, for
every reader.
"""

from __future__ import annotations

from ...errors import InputError, StorageError

__all__ = [
    "CorruptRecord",
    "IllegalRecord",
    "LeaseUnavailable",
    "NewerRecord",
    "NoSessionState",
    "NotASessionFile",
    "SessionBeingDeleted",
    "SessionFileError",
    "SessionIdMismatch",
    "SessionInUse",
    "SessionWriteError",
    "SnapshotDeltaMismatch",
    "UnsupportedSessionVersion",
    "read_failure",
]


class SessionFileError(InputError):
    """A session transcript that cannot be loaded (the whole file fails, as in Rho)."""


class UnsupportedSessionVersion(SessionFileError):
    """The header's ``version`` is not 1 to 4 (newer Rho, or not a Rho file)."""


class CorruptRecord(SessionFileError):
    """A line that does not decode as a record: broken JSON, unknown type or variant, bad field."""


class NewerRecord(CorruptRecord):
    """A well-formed record whose ``type`` this version does not know: a newer Rho wrote it.

    The reader passes over it (keeping its text for the user to see) and reads on; a file that
    holds one is opened read-only, so that nothing rho-desk writes can contradict it.
    """

    def __init__(
        self, record_type: str, *, source: str | None = None, line: int | None = None
    ) -> None:
        super().__init__(
            f"record type {record_type!r} was written by a newer Rho; rho-desk does not know it",
            source=source,
            line=line,
        )
        self.record_type = record_type


class IllegalRecord(SessionFileError):
    """A well-formed record that the file's grammar or the tree rules forbid at that place."""


class SnapshotDeltaMismatch(IllegalRecord):
    """A ``snapshot_delta`` whose base revision, session id or revision does not fit its base."""


class NotASessionFile(IllegalRecord):
    """Line 1 is not a session header (or the file is neither a transcript nor a snapshot
    document): the file is not a Rho session file. Its message starts with those words."""

    PREFIX = "not a Rho session file"


class SessionIdMismatch(SessionFileError):
    """The header's session id differs from the id in the file or folder name."""


class NoSessionState(SessionFileError):
    """The transcript holds no saved state: no header, or a header and no state node."""


class SessionWriteError(StorageError):
    """Appending to a transcript failed; the file was cut back and the previous state stands."""


class LeaseUnavailable(StorageError):
    """A lease lock (``.<id>.active.lock``) could not be taken."""


class SessionBeingDeleted(LeaseUnavailable):
    """Another process holds the exclusive lease: the session is being deleted."""


class SessionInUse(LeaseUnavailable):
    """A shared lease is held (Rho or rho-desk has the session open): refusing to delete it."""


def read_failure(exc: OSError, source: str) -> InputError | StorageError:
    """What a failed read of the session or snapshot file ``source`` is, in the error vocabulary.

    A missing file or a folder is bad input (the command line exits 2); anything else the system
    refused (permissions, I/O) is a storage error.
    """
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", source=source)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a folder without a session.jsonl", source=source)
    return StorageError(f"{source}: cannot read: {exc.strerror or exc}")
