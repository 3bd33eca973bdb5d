"""Live updates: tell the document when another program may have appended to the open session.

:class:`LiveWatcher` says *when* to look: ``QFileSystemWatcher`` on the transcript (instant
where inotify works) plus a cheap poll as a fallback (network file systems, editors that
replace files), debounced so a burst of appends costs one read. *What* was appended is read by
the file layer's tail reader (:mod:`rho_desk.core.stores.rho_files.tail`: only the new lines,
decoded with the reader's own record decoder, anything unusual a full re-read), which the
document runs in a worker thread.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

__all__ = ["LiveWatcher"]

DEBOUNCE_MS: Final = 120


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

    def _on_watcher_file_changed(self, _changed: str) -> None:
        # An atomic replace drops the inotify watch: watch the path again if it exists.
        watched = self._path
        if watched is not None and str(watched) not in self._watcher.files() and watched.exists():
            self._watcher.addPath(str(watched))
        self.poke()

    def _on_poll_timeout(self) -> None:
        # The poll only pokes: the document's look is a stat in a worker thread, which
        # returns at once when nothing changed.
        self.poke()
