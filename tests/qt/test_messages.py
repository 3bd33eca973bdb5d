"""Errors become messages in one place: friendly known errors, copyable bugs, silent cancels."""

from __future__ import annotations

import asyncio
import sys

from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from rho_desk.core.errors import BugError, Cancelled, InputError, StorageError
from rho_desk.qt.services.messages import Level, NotificationBar, Notifier, install_excepthook


def test_a_known_error_shows_its_text() -> None:
    n = Notifier()
    notice = n.show_exception(InputError("unknown record type", source="s.jsonl", line=3))
    assert notice is not None and notice.level is Level.ERROR
    assert notice.text == "s.jsonl:3: unknown record type"


def test_a_bug_shows_a_short_line_and_the_traceback_as_details() -> None:
    n = Notifier()
    try:
        raise ValueError("boom")
    except ValueError as exc:
        notice = n.show_exception(exc, context="Opening x")
    assert notice is not None and notice.level is Level.BUG
    assert notice.text.startswith("Opening x: rho-desk hit a bug (ValueError: boom)")
    assert "Traceback" in (notice.details or "") and "raise ValueError" in (notice.details or "")


def test_cancellations_are_silent() -> None:
    n = Notifier()
    assert n.show_exception(Cancelled()) is None
    assert n.show_exception(asyncio.CancelledError()) is None
    assert not n.history


def test_the_bar_shows_the_newest_notice_non_modally_and_copies_details(qtbot: QtBot) -> None:
    n = Notifier()
    bar = NotificationBar(n)
    qtbot.addWidget(bar)
    bar.show()
    n.error("first")
    n.show_exception(BugError("invariant broke"))
    assert bar.isVisible() and "invariant broke" in bar.text.text()
    assert bar.more.text() == "+1 earlier"
    assert bar.copy_button.isVisible()
    bar.copy_button.click()
    assert "BugError" in QGuiApplication.clipboard().text()
    bar.details_button.click()
    assert bar.details.isVisible()
    bar.dismiss()
    assert bar.isHidden() and bar.current is None


def test_info_notices_hide_themselves(qtbot: QtBot, monkeypatch) -> None:
    import rho_desk.qt.services.messages as M

    monkeypatch.setattr(M, "INFO_TIMEOUT_MS", 30)
    n = Notifier()
    bar = NotificationBar(n)
    qtbot.addWidget(bar)
    n.info("saved")
    assert bar.isVisible()
    qtbot.waitUntil(lambda: bar.isHidden(), timeout=2000)


def test_the_excepthook_routes_uncaught_exceptions_to_the_notifier(capsys) -> None:
    n = Notifier()
    previous = sys.excepthook
    restore = install_excepthook(n)
    assert sys.excepthook is not previous
    try:
        try:
            raise StorageError("disk full")
        except StorageError:
            sys.excepthook(*sys.exc_info())
    finally:
        restore()
    assert n.history[-1].text == "disk full" and n.history[-1].level is Level.ERROR
    assert sys.excepthook is previous
