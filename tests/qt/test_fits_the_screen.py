"""Dialogs fit a 1280 x 800 screen and keep their preferred sizes on a large one: within 90% of
the available area, never below what its layout needs, the layouts scrolling inside. The
1024 x 700 screen is walked, every dialog and window with every button, by
``dialogs/test_every_view_fits.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QRect

from rho_desk.qt.ui import screen

from .conftest import idle, laid_out, until
from .helpers import v3_session

DIALOGS = ("compact", "export", "edit", "metadata", "strip", "settings")


@pytest.mark.parametrize("size", [(1280, 800)], ids=["1280x800"])
def test_dialogs_fit_the_screen(
    make_window, run, tmp_path: Path, monkeypatch, size: tuple[int, int]
) -> None:
    width, height = size
    monkeypatch.setattr(screen, "available_area", lambda _widget: QRect(0, 0, width, height))
    context = make_window(open_file=v3_session(tmp_path / "home"))
    room = (int(width * screen.SCREEN_SHARE), int(height * screen.SCREEN_SHARE))
    for kind in DIALOGS:
        dialog = context.session_commands.show_dialog(kind)
        run(idle(context.bridge))  # the dialog's opening work (previews, profiles), which sizes it
        least = dialog.minimumSizeHint()
        assert least.width() <= room[0] and least.height() <= room[1], (kind, least)
        assert dialog.width() <= room[0] and dialog.height() <= room[1], (kind, dialog.size())
        dialog.close()
    context.actions.trigger("library.trash_view")
    trash = context.window.commands.dialog
    assert trash.width() <= room[0] and trash.height() <= room[1]
    trash.close()
    run(idle(context.bridge))


def test_a_large_screen_keeps_the_preferred_sizes(
    make_window, run, tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(screen, "available_area", lambda _widget: QRect(0, 0, 2560, 1440))
    context = make_window(open_file=v3_session(tmp_path / "home"))
    dialog = context.session_commands.show_dialog("export")
    run(laid_out())
    assert (dialog.width(), dialog.height()) == (1100, 720)
    dialog.close()
    run(idle(context.bridge))


def test_the_window_with_its_continue_dock_fits_a_700_pixel_screen(
    make_window, run, tmp_path: Path
) -> None:
    context = make_window(open_file=v3_session(tmp_path / "home"))
    context.continue_dock.show_continue()
    run(
        until(lambda: context.continue_dock.panel.profile.count() > 0)
    )  # the panel has read the profiles
    least = context.window.minimumSizeHint()
    assert least.width() <= 1024 and least.height() <= 630, least
    context.window.resize(1024, 640)
    run(laid_out())
    assert context.window.height() <= 640
