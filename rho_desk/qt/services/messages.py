"""The one place errors and notices become messages: a non-modal notification bar in the window.

Everything the user is told about (a failed load, a refused rename, a bug) goes through a
:class:`Notifier`: ``error()``, ``warning()``, ``info()`` and :meth:`Notifier.show_exception`.
The :class:`NotificationBar` shows the newest notice inside the main window, never as a modal
box, so no coroutine ever waits on a nested event loop (style.md practices 7 and 11):

* a :class:`~rho_desk.core.errors.KnownError` (the environment's or the input's fault) shows
  its short ``text()``;
* a :class:`~rho_desk.core.errors.BugError` or any unexpected exception shows "rho-desk hit a
  bug" with the traceback behind a *Details* button and a *Copy details* button;
* :class:`~rho_desk.core.errors.Cancelled` and ``asyncio.CancelledError`` are silent.

:func:`install_excepthook` routes uncaught exceptions (Qt slots, callbacks) to the notifier;
the bridge routes task failures there too. Core code raises and never shows UI.
"""

from __future__ import annotations

import asyncio
import enum
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ... import __version__
from ...core.errors import Cancelled, KnownError, error_text

__all__ = [
    "Level",
    "Notice",
    "NotificationBar",
    "Notifier",
    "install_excepthook",
    "install_loop_exception_handler",
]

HISTORY_SIZE: Final = 50
INFO_TIMEOUT_MS: Final = 8000


class Level(enum.Enum):
    """How serious a notice is."""

    INFO = "info"  # something finished; hides itself after a while
    WARNING = "warning"  # worth knowing, nothing failed
    ERROR = "error"  # an operation failed for a known reason (KnownError)
    BUG = "bug"  # an invariant broke inside rho-desk: details to copy into a report


@dataclass(frozen=True, slots=True)
class Notice:
    """One message for the user."""

    level: Level
    text: str
    """One or two short sentences."""
    details: str | None = None
    """Copyable details (a traceback for bugs); never holds a secret."""
    time: float = field(default_factory=time.time)


def _is_silent(exc: BaseException) -> bool:
    return isinstance(exc, Cancelled | asyncio.CancelledError | KeyboardInterrupt | SystemExit)


class Notifier(QObject):
    """Collects notices and announces them; the bar (and tests) listen.

    Signals:
        sig_notice_posted(Notice): a new notice.
        sig_notice_withdrawn(Notice): a notice no longer holds.
    """

    sig_notice_posted = Signal(object)
    """A new :class:`Notice` was posted."""
    sig_notice_withdrawn = Signal(object)
    """A :class:`Notice` no longer holds (the failure it reported was overcome)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.history: deque[Notice] = deque(maxlen=HISTORY_SIZE)
        """The latest notices, oldest first."""

    def post(self, notice: Notice) -> Notice:
        self.history.append(notice)
        self.sig_notice_posted.emit(notice)
        return notice

    def withdraw(self, notice: Notice) -> None:
        """Take back ``notice`` (the bar hides it if it still shows it; the history keeps it)."""
        self.sig_notice_withdrawn.emit(notice)

    def info(self, text: str) -> Notice:
        return self.post(Notice(Level.INFO, text))

    def warning(self, text: str, details: str | None = None) -> Notice:
        return self.post(Notice(Level.WARNING, text, details))

    def error(self, text: str, details: str | None = None) -> Notice:
        return self.post(Notice(Level.ERROR, text, details))

    def show_exception(self, exc: BaseException, *, context: str | None = None) -> Notice | None:
        """Turn ``exc`` into the right notice (or none, for a cancellation).

        Args:
            context: what was being done, e.g. "Opening session.jsonl" (prefixed to the text).
        """
        if _is_silent(exc):
            return None
        prefix = f"{context}: " if context else ""
        if isinstance(exc, KnownError):
            return self.post(Notice(Level.ERROR, prefix + error_text(exc), _known_details(exc)))
        return self.post(Notice(Level.BUG, prefix + error_text(exc), _bug_details(exc)))


def _known_details(exc: KnownError) -> str | None:
    text = exc.text()
    return None if "\n" not in text and len(text) < 200 else text


def _bug_details(exc: BaseException) -> str:
    body = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return f"rho-desk {__version__}, Python {sys.version.split()[0]}, {sys.platform}\n\n{body}"


# -- the bar --------------------------------------------------------------------------------------

_ICONS: Final = {Level.INFO: "ℹ", Level.WARNING: "⚠", Level.ERROR: "✖", Level.BUG: "✖"}


class NotificationBar(QFrame):
    """An in-window bar showing the newest notice, with details, copy and dismiss.

    Hidden when there is nothing to show. Info notices hide themselves after a few seconds;
    errors stay until dismissed (Esc in the bar, or the close button).
    """

    def __init__(self, notifier: Notifier, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("NotificationBar")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self._notifier = notifier
        self._current: Notice | None = None
        self._unseen = 0

        self.icon = QLabel()
        self.icon.setObjectName("NotificationIcon")
        self.text = QLabel()
        self.text.setObjectName("NotificationText")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.more = QLabel()
        self.more.setObjectName("NotificationMore")
        self.details_button = QToolButton()
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy details")
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setToolTip("Dismiss (Esc)")
        self.close_button.setAccessibleName("Dismiss")
        self.close_button.setAutoRaise(True)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setObjectName("NotificationDetails")
        self.details.setAccessibleName("Notice details")
        self.details.setMaximumHeight(180)
        self.details.hide()

        row = QHBoxLayout()
        row.setContentsMargins(10, 6, 6, 6)
        row.setSpacing(8)
        row.addWidget(self.icon)
        row.addWidget(self.text, 1)
        row.addWidget(self.more)
        row.addWidget(self.details_button)
        row.addWidget(self.copy_button)
        row.addWidget(self.close_button)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)
        outer.addLayout(row)
        outer.addWidget(self.details)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._on_timer_timeout)
        self.details_button.toggled.connect(self._on_details_toggled)
        self.copy_button.clicked.connect(self._on_copy_clicked)
        self.close_button.clicked.connect(self.dismiss)
        notifier.sig_notice_posted.connect(self._on_notifier_notice_posted)
        notifier.sig_notice_withdrawn.connect(self._on_notifier_notice_withdrawn)
        self.hide()

    @property
    def current(self) -> Notice | None:
        return self._current

    def dismiss(self) -> None:
        self._current = None
        self._unseen = 0
        self._timer.stop()
        self.details_button.setChecked(False)
        self.hide()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.dismiss()
            return
        super().keyPressEvent(event)

    def _on_notifier_notice_posted(self, notice: Notice) -> None:
        if self._current is not None and self.isVisible():
            self._unseen += 1
        self._current = notice
        self.setProperty("level", notice.level.value)
        self.style().unpolish(self)
        self.style().polish(self)
        self.icon.setText(_ICONS[notice.level])
        self.text.setText(notice.text)
        self.more.setText(f"+{self._unseen} earlier" if self._unseen else "")
        self.more.setToolTip("\n".join(n.text for n in list(self._notifier.history)[-6:-1]))
        has_details = bool(notice.details)
        self.details_button.setVisible(has_details)
        self.copy_button.setVisible(has_details)
        self.details.setPlainText(notice.details or "")
        self.details_button.setChecked(False)
        self.show()
        if notice.level is Level.INFO:
            self._timer.start(INFO_TIMEOUT_MS)
        else:
            self._timer.stop()

    def _on_notifier_notice_withdrawn(self, notice: Notice) -> None:
        if self._current is notice:
            self.dismiss()

    def _on_timer_timeout(self) -> None:
        if self._current is not None and self._current.level is Level.INFO:
            self.dismiss()

    def _on_details_toggled(self, on: bool) -> None:
        self.details.setVisible(on)

    def _on_copy_clicked(self) -> None:
        if self._current is not None and self._current.details:
            QGuiApplication.clipboard().setText(self._current.details)


# -- hooks ------------------------------------------------------------------------------------------

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], Any]


def install_excepthook(notifier: Notifier) -> Callable[[], None]:
    """Route uncaught exceptions to ``notifier`` (and still to the previous hook's stderr output).

    Returns:
        A function that restores the previous hook.
    """
    previous: ExceptHook = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            previous(kind, value, tb)
            return
        if value.__traceback__ is None and tb is not None:
            value = value.with_traceback(tb)
        try:
            notifier.show_exception(value)
        except RuntimeError:  # the notifier's C++ object is gone (shutdown): fall back
            previous(kind, value, tb)
            return
        if not _is_silent(value) and not isinstance(value, KnownError):
            previous(kind, value, tb)  # bugs also go to stderr, for logs and terminals

    sys.excepthook = hook

    def restore() -> None:
        if sys.excepthook is hook:
            sys.excepthook = previous

    return restore


def install_loop_exception_handler(loop: asyncio.AbstractEventLoop, notifier: Notifier) -> None:
    """Exceptions asyncio could not deliver to anyone (callbacks, unretrieved tasks) go to ``notifier``."""

    def handler(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if exc is None:
            notifier.warning(str(context.get("message", "asyncio reported a problem")))
            return
        notifier.show_exception(exc)

    loop.set_exception_handler(handler)
