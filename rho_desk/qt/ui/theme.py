"""Light and dark themes: palettes, the style sheet, and following the system's colour scheme.

A :class:`Theme` is a set of named colours. The style sheets in ``resources/styles`` use them as
``@name@`` placeholders, so one sheet serves both themes; delegates and hand-painted widgets
(charts, the gauge, message bubbles) read the same colours from the :class:`ThemeManager`
they are given. With the ``system`` preference the manager follows
``QStyleHints.colorScheme()`` and switches live when the desktop does.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Final

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from .resources import style_sheet

__all__ = ["DARK", "LIGHT", "Theme", "ThemeManager"]


@dataclass(frozen=True, slots=True)
class Theme:
    """Named colours (``#rrggbb``)."""

    name: str
    window: str
    base: str
    alt: str
    hover: str
    text: str
    muted: str
    border: str
    scroll: str
    accent: str
    accent_soft: str
    on_accent: str
    user: str
    assistant: str
    tool: str
    system: str
    aborted: str
    aborted_border: str
    marker: str
    success: str
    success_soft: str
    warning: str
    warning_soft: str
    danger: str
    danger_soft: str
    find: str
    code: str

    @property
    def dark(self) -> bool:
        return self.name == "dark"

    def color(self, name: str) -> QColor:
        return QColor(getattr(self, name))


LIGHT: Final = Theme(
    name="light",
    window="#f6f7f9",
    base="#ffffff",
    alt="#f3f4f6",
    hover="#eceef1",
    text="#1f2328",
    muted="#656d76",
    border="#d9dde3",
    scroll="#c3c8cf",
    accent="#3b5bdb",
    accent_soft="#e8edff",
    on_accent="#ffffff",
    user="#eef3ff",
    assistant="#ffffff",
    tool="#f6f8fa",
    system="#fff8e6",
    aborted="#fff1f0",
    aborted_border="#e5534b",
    marker="#f4f0ff",
    success="#1a7f37",
    success_soft="#dafbe1",
    warning="#9a6700",
    warning_soft="#fff4d6",
    danger="#cf222e",
    danger_soft="#ffebe9",
    find="#ffe58f",
    code="#f3f4f6",
)
DARK: Final = Theme(
    name="dark",
    window="#1b1d21",
    base="#22252a",
    alt="#272b31",
    hover="#2e333a",
    text="#e3e5e8",
    muted="#9aa3ad",
    border="#363b43",
    scroll="#4a5059",
    accent="#7c9cff",
    accent_soft="#2a3352",
    on_accent="#0d1020",
    user="#253149",
    assistant="#22252a",
    tool="#1e2126",
    system="#3a3322",
    aborted="#3b2426",
    aborted_border="#f85149",
    marker="#2f2a44",
    success="#3fb950",
    success_soft="#1f3326",
    warning="#d29922",
    warning_soft="#3a3120",
    danger="#f85149",
    danger_soft="#3d2224",
    find="#6b5a00",
    code="#2a2e35",
)


def palette_for(theme: Theme) -> QPalette:
    """A Fusion palette in the theme's colours (for widgets the style sheet does not cover)."""
    p = QPalette()
    c = theme.color
    roles = {
        QPalette.ColorRole.Window: c("window"),
        QPalette.ColorRole.WindowText: c("text"),
        QPalette.ColorRole.Base: c("base"),
        QPalette.ColorRole.AlternateBase: c("alt"),
        QPalette.ColorRole.ToolTipBase: c("base"),
        QPalette.ColorRole.ToolTipText: c("text"),
        QPalette.ColorRole.PlaceholderText: c("muted"),
        QPalette.ColorRole.Text: c("text"),
        QPalette.ColorRole.Button: c("base"),
        QPalette.ColorRole.ButtonText: c("text"),
        QPalette.ColorRole.BrightText: c("danger"),
        QPalette.ColorRole.Link: c("accent"),
        QPalette.ColorRole.LinkVisited: c("accent"),
        QPalette.ColorRole.Highlight: c("accent"),
        QPalette.ColorRole.HighlightedText: c("on_accent"),
        QPalette.ColorRole.Mid: c("border"),
        QPalette.ColorRole.Midlight: c("hover"),
        QPalette.ColorRole.Dark: c("scroll"),
    }
    for role, color in roles.items():
        p.setColor(role, color)
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.WindowText,
        QPalette.ColorRole.ButtonText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, c("muted"))
    return p


def sheet_for(theme: Theme) -> str:
    """The application style sheet with the theme's colours filled in."""
    text = style_sheet()
    for f in fields(theme):
        text = text.replace(f"@{f.name}@", str(getattr(theme, f.name)))
    return text


class ThemeManager(QObject):
    """Applies the chosen theme to the application and follows the system when asked.

    Signals:
        sig_theme_changed(Theme): the effective theme changed (repaint custom widgets).

    Args:
        preference: ``system``, ``light`` or ``dark``.
    """

    sig_theme_changed = Signal(object)
    """The effective :class:`Theme` changed."""

    def __init__(self, preference: str = "system", parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._preference = preference
        self._theme = self._resolve()
        hints = QGuiApplication.styleHints()
        hints.colorSchemeChanged.connect(self._on_hints_color_scheme_changed)

    @property
    def theme(self) -> Theme:
        return self._theme

    @property
    def preference(self) -> str:
        return self._preference

    def set_preference(self, preference: str) -> None:
        self._preference = preference
        self._set(self._resolve())

    def apply(self, app: QApplication | None = None) -> None:
        """Style ``app`` (default: the running application) with the current theme."""
        app = app or QApplication.instance()  # type: ignore[assignment]
        if app is None:
            return
        app.setStyle("Fusion")
        app.setPalette(palette_for(self._theme))
        app.setStyleSheet(sheet_for(self._theme))

    def _resolve(self) -> Theme:
        if self._preference == "dark":
            return DARK
        if self._preference == "light":
            return LIGHT
        return DARK if self.system_scheme() == Qt.ColorScheme.Dark else LIGHT

    def system_scheme(self) -> Qt.ColorScheme:
        """The desktop's colour scheme (``Unknown`` where the platform does not say, e.g. offscreen)."""
        return QGuiApplication.styleHints().colorScheme()

    def _set(self, theme: Theme) -> None:
        if theme is self._theme:
            return
        self._theme = theme
        self.apply()
        self.sig_theme_changed.emit(theme)

    def _on_hints_color_scheme_changed(self, _scheme: Qt.ColorScheme) -> None:
        if self._preference == "system":
            self._set(self._resolve())
