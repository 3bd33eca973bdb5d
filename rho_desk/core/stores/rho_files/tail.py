"""Following a transcript another program appends to: read only what it added.

:func:`read_appended` (blocking; hosts run it in a worker thread) checks that the transcript is
still the file that was read (same inode, not shorter, the same last 4 KiB before the known end)
and decodes only the bytes after it, line by line, with the reader's one record decoder
(:func:`~.reader.decode_line`). :func:`apply_appended` then adds those records to the revision
tree with the tree's own rules (``SessionTree.apply``), so a live update is validated exactly
like a full read. Anything unusual (the file was replaced, shrank or was rewritten, a line does
not decode) raises :class:`NeedsFullReload`: the caller reads the whole file again, which
reports any problem with its line. Deciding *when* to look is the host's job (a file watcher
and a poll timer in the app).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from msgspec.structs import replace

from ...errors import StorageError
from .errors import SessionFileError
from .reader import TAIL_BYTES, FileEnd, SessionFile, decode_line, share_display
from .records import Record

__all__ = ["Appended", "NeedsFullReload", "apply_appended", "read_appended"]


class NeedsFullReload(StorageError):
    """The file did not simply grow; read it again from the start (a signal to the reader's
    host more than a failure: the full read reports any real problem with its line)."""


@dataclass(slots=True)
class Appended:
    """Records added to a transcript since it was read, and where the file now ends."""

    end: FileEnd
    """Where the file ends after these records (a new torn fragment, if any, excluded)."""
    records: list[tuple[Record, int, int]] = field(default_factory=list)
    """``(record, line, byte offset)`` in file order."""
    torn: bool = False
    """The file now ends in an unfinished line (ignored until it is completed)."""

    @property
    def empty(self) -> bool:
        return not self.records

    @property
    def size(self) -> int:
        return self.end.size


def read_appended(file: SessionFile) -> Appended:
    """What was appended to ``file``'s transcript since it was read (blocking; use a thread).

    Raises:
        NeedsFullReload: the file was replaced, shrank, changed before our end, ended in a
            torn line when we read it, or an appended line does not decode.
        OSError: the file cannot be read.
    """
    end = file.end
    if end.torn:
        raise NeedsFullReload("the file ended in an unfinished line when it was read")
    with open(file.path, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not end.same_file(st):
            raise NeedsFullReload("the file was replaced")
        if st.st_size < end.size:
            raise NeedsFullReload("the file shrank")
        if st.st_size == end.size:
            if st.st_mtime_ns != end.mtime_ns and end.size:
                # Same size, new mtime: rewritten in place, or touched. Only the tail tells.
                handle.seek(end.size - len(end.tail))
                if handle.read(len(end.tail)) != end.tail:
                    raise NeedsFullReload("the file was rewritten")
                return Appended(replace(end, mtime_ns=st.st_mtime_ns))
            return Appended(end)
        handle.seek(end.size - len(end.tail))
        if handle.read(len(end.tail)) != end.tail:
            raise NeedsFullReload("the file changed before the end we had read")
        data = handle.read(st.st_size - end.size)
    return _decode_appended(file, data, st.st_mtime_ns)


def _decode_appended(file: SessionFile, data: bytes, mtime_ns: int) -> Appended:
    end = file.end
    source = str(file.path)
    pos = 0
    if not end.ends_with_newline:
        # Our last record had no "\n": a writer adds one first (storage.md §8.3 step 5).
        if not data.startswith(b"\n"):
            raise NeedsFullReload("the last line was extended")
        pos = 1
    records: list[tuple[Record, int, int]] = []
    line = end.line_count
    complete = pos  # bytes of ``data`` up to the end of the last complete line
    torn = False
    length = len(data)
    while pos < length:
        cut = data.find(b"\n", pos)
        terminated = cut != -1
        stop = cut + 1 if terminated else length
        raw = data[pos:stop]
        if raw.strip():
            try:
                record = decode_line(raw, terminated, source, line + 1)
            except SessionFileError as exc:
                raise NeedsFullReload(exc.text()) from None
            if record is None:
                torn = True  # an append in progress; the next look reads it whole
                break
            share_display(record)
            records.append((record, line + 1, end.size + pos))
        elif not terminated:
            break  # trailing blanks without "\n": wait for the rest of the line
        line += 1
        complete = pos = stop
    # Only whole lines move the end on: a torn fragment is read again, whole, next time.
    read = data[:complete]
    new_end = replace(
        end,
        size=end.size + complete,
        valid_end=end.size + complete,
        ends_with_newline=end.ends_with_newline or complete > 0,
        tail=(end.tail + read)[-TAIL_BYTES:],
        mtime_ns=mtime_ns,
        line_count=line,
    )
    return Appended(new_end, records, torn)


def apply_appended(file: SessionFile, appended: Appended) -> int:
    """Apply ``appended`` to ``file``'s tree and move its end on. Returns the records applied.

    Call it while no one else reads the tree (the app holds the document's tree lock).

    Raises:
        SessionFileError: a record breaks the file's rules (the caller re-reads the file, which
            reports it with its line).
    """
    tree = file.tree
    for record, line, offset in appended.records:
        tree.apply(record, line=line, offset=offset)
    file.end = appended.end
    return len(appended.records)
