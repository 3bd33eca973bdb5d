"""Windows sized for the screen they open on: a preferred size, never more than 90% of the
screen's available area (a 1024 x 700 laptop included); the layouts scroll inside."""

from __future__ import annotations

from typing import Final

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

__all__ = ["SCREEN_SHARE", "available_area", "fit_to_screen"]

SCREEN_SHARE: Final = 0.9


def available_area(widget: QWidget) -> QRect | None:
    """The available geometry of the screen ``widget`` (or its parent window) is on."""
    parent = widget.parentWidget()
    screen = (parent.window().screen() if parent is not None else None) or widget.screen()
    screen = screen or QGuiApplication.primaryScreen()
    return None if screen is None else screen.availableGeometry()


def fit_to_screen(widget: QWidget, width: int, height: int) -> None:
    """Resize ``widget`` to ``width`` x ``height``, or to :data:`SCREEN_SHARE` of its screen's
    available area where that is smaller (never below what its layout needs)."""
    area = available_area(widget)
    if area is not None and area.width() > 0 and area.height() > 0:
        width = min(width, int(area.width() * SCREEN_SHARE))
        height = min(height, int(area.height() * SCREEN_SHARE))
    least = widget.minimumSizeHint()
    widget.resize(max(width, least.width()), max(height, least.height()))
