"""A patch shown as text: a monospace font, and added, removed and hunk lines coloured for the
light or the dark theme (the approval card's diff, the Changes tab's patches)."""

from __future__ import annotations

from PySide6.QtGui import (
    QColor,
    QFont,
    QPalette,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextDocument,
)
from PySide6.QtWidgets import QApplication

__all__ = ["PatchHighlighter", "mono_font"]


def mono_font() -> QFont:
    """The font patches and command output are shown in."""
    font = QFont("DejaVu Sans Mono")
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(9.0)
    return font


class PatchHighlighter(QSyntaxHighlighter):
    """Added lines green, removed lines red, hunk headers in violet: the light theme's shades on a
    light background, brighter ones on a dark one."""

    def __init__(self, document: QTextDocument) -> None:
        super().__init__(document)
        self._formats: dict[str, QTextCharFormat] = {}
        dark = QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128
        shades = (
            (("+", "#3fb950"), ("-", "#ff7b72"), ("@", "#d2a8ff"))
            if dark
            else (("+", "#1a7f37"), ("-", "#cf222e"), ("@", "#8250df"))
        )
        for prefix, colour in shades:
            fmt = QTextCharFormat()
            fmt.setForeground(QColor(colour))
            self._formats[prefix] = fmt

    def highlightBlock(self, text: str) -> None:
        if text.startswith(("+++", "---")):
            return
        fmt = self._formats.get(text[:1])
        if fmt is not None:
            self.setFormat(0, len(text), fmt)
