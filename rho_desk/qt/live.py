"""Live updates: notice when another program appends to the open session, read only what it added.

:func:`read_appended` (no Qt; runs in a worker thread) checks that the transcript is still the
file we read (same inode, not shorter, the same last 4 KiB before our end) and decodes only the
bytes after it, with the reader's own record types. The document then applies those records
to its revision tree with the tree's own rules (``SessionTree.apply``), so a live update is
validated exactly like a full read; anything unusual (the file was replaced, shrank, rewritten,
a corrupt or torn line) raises :class:`NeedsFullReload` and the document re-reads the whole
file off the GUI thread instead.

:class:`LiveWatcher` says *when* to look: ``QFileSystemWatcher`` on the transcript (instant
where inotify works) plus a cheap poll as a fallback (network file systems, editors that
replace files), debounced so a burst of appends costs one read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import msgspec
from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from ..core.stores.rho_files.reader import TAIL_BYTES, SessionFile
from ..core.stores.rho_files.records import Record

__all__ = ["Appended", "LiveWatcher", "NeedsFullReload", "apply_appended", "read_appended"]

_DECODER: Final = msgspec.json.Decoder(Record)
DEBOUNCE_MS: Final = 120


class NeedsFullReload(Exception):
    """The file did not simply grow; read it again from the start."""


@dataclass(slots=True)
class Appended:
    """Records added to a transcript since it was read, and where the file now ends."""

    records: list[tuple[Record, int, int]] = field(default_factory=list)
    """``(record, line, byte offset)`` in file order."""
    size: int = 0
    valid_end: int = 0
    ends_with_newline: bool = True
    tail: bytes = b""
    mtime_ns: int = 0
    line_count: int = 0
    torn: bool = False
    """The file now ends in an unfinished line (ignored until it is completed)."""

    @property
    def empty(self) -> bool:
        return not self.records


def read_appended(file: SessionFile) -> Appended:
    """What was appended to ``file``'s transcript since it was read (blocking; use a thread).

    Raises:
        NeedsFullReload: the file was replaced, shrank, changed before our end, ended in a
            torn line when we read it, or an appended line does not decode.
        OSError: the file cannot be read.
    """
    if file.torn:
        raise NeedsFullReload("the file ended in an unfinished line when it was read")
    with open(file.path, "rb") as handle:
        st = os.fstat(handle.fileno())
        if (st.st_dev, st.st_ino) != file.identity:
            raise NeedsFullReload("the file was replaced")
        if st.st_size < file.size:
            raise NeedsFullReload("the file shrank")
        same = Appended(
            size=file.size,
            valid_end=file.valid_end,
            ends_with_newline=file.ends_with_newline,
            tail=file.tail,
            mtime_ns=file.mtime_ns,
            line_count=file.line_count,
        )
        if st.st_size == file.size:
            if st.st_mtime_ns != file.mtime_ns and file.size:
                # Same size, new mtime: rewritten in place, or touched. Only the tail tells.
                handle.seek(file.size - len(file.tail))
                if handle.read(len(file.tail)) != file.tail:
                    raise NeedsFullReload("the file was rewritten")
                same.mtime_ns = st.st_mtime_ns
            return same
        start = file.size - len(file.tail)
        handle.seek(start)
        if handle.read(len(file.tail)) != file.tail:
            raise NeedsFullReload("the file changed before the end we had read")
        data = handle.read(st.st_size - file.size)
    return _decode_appended(file, data, st.st_mtime_ns)


def _decode_appended(file: SessionFile, data: bytes, mtime_ns: int) -> Appended:
    out = Appended(mtime_ns=mtime_ns, line_count=file.line_count, ends_with_newline=file.ends_with_newline)
    pos = 0
    if not file.ends_with_newline:
        # Our last record had no "\n": a writer adds one first (storage.md §8.3 step 5).
        if not data.startswith(b"\n"):
            raise NeedsFullReload("the last line was extended")
        pos = 1
        out.ends_with_newline = True
    valid_end = file.valid_end + pos
    line = file.line_count
    length = len(data)
    while pos < length:
        end = data.find(b"\n", pos)
        terminated = end != -1
        stop = end + 1 if terminated else length
        raw = data[pos:stop]
        line += 1
        if raw.strip():
            try:
                record = _DECODER.decode(raw)
            except (msgspec.MsgspecError, ValueError, TypeError, RecursionError) as exc:
                if not terminated:
                    out.torn = True  # an append in progress; the next look reads it whole
                    break
                raise NeedsFullReload(f"line {line} does not decode: {exc}") from None
            out.records.append((record, line, file.size + pos))
            valid_end = file.size + stop
            out.ends_with_newline = terminated
        pos = stop
    out.line_count = line
    out.size = file.size + length
    out.valid_end = valid_end
    out.tail = (file.tail + data)[-TAIL_BYTES:]
    return out


def apply_appended(file: SessionFile, appended: Appended) -> int:
    """Apply ``appended`` to ``file``'s tree and bookkeeping (GUI thread). Returns records applied.

    Raises:
        SessionFileError: a record breaks the file's rules (the caller re-reads the file, which
            reports it with its line).
    """
    tree = file.tree
    for record, line, offset in appended.records:
        tree.apply(record, line=line, offset=offset)
    file.size = appended.size
    file.valid_end = appended.valid_end
    file.ends_with_newline = appended.ends_with_newline
    file.tail = appended.tail
    file.mtime_ns = appended.mtime_ns
    file.line_count = appended.line_count
    return len(appended.records)


class LiveWatcher(QObject):
    """Tells when a watched transcript may have changed.

    Signals:
        sig_file_changed(): the file may have grown or been replaced (debounced).

    Args:
        poll_ms: fallback poll interval; 0 disables polling.
    """

    sig_file_changed = Signal()
    """The watched file may have changed; look at it (debounced)."""

    def __init__(self, poll_ms: int = 1000, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._path: Path | None = None
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._on_watcher_file_changed)
        self._poll = QTimer(self)
        self._poll.setInterval(max(poll_ms, 0))
        self._poll.timeout.connect(self._on_poll_timeout)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self.sig_file_changed)
        self._poll_ms = poll_ms

    @property
    def path(self) -> Path | None:
        return self._path

    def watch(self, path: Path | None) -> None:
        """Watch ``path`` (``None``: stop watching)."""
        files = self._watcher.files()
        if files:
            self._watcher.removePaths(files)
        self._path = path
        self._debounce.stop()
        if path is None:
            self._poll.stop()
            return
        self._watcher.addPath(str(path))
        if self._poll_ms > 0:
            self._poll.start()

    def set_poll_interval(self, ms: int) -> None:
        self._poll_ms = ms
        self._poll.setInterval(max(ms, 0))
        if ms <= 0:
            self._poll.stop()
        elif self._path is not None:
            self._poll.start()

    def poke(self) -> None:
        """Ask for a look soon (debounced)."""
        if self._path is not None:
            self._debounce.start()

    def _on_watcher_file_changed(self, path: str) -> None:
        # An atomic replace drops the inotify watch: watch the path again if it exists.
        watched = self._path
        if watched is not None and str(watched) not in self._watcher.files() and watched.exists():
            self._watcher.addPath(str(watched))
        self.poke()

    def _on_poll_timeout(self) -> None:
        # The poll only pokes: the document's look is a stat in a worker thread, which
        # returns at once when nothing changed.
        self.poke()
