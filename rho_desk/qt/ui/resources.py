"""The app's bundled resources: icons (SVG, tinted to the theme) and style sheets.

Sources live in ``resources/icons`` and ``resources/styles``; ``resources/compile.py`` compiles
them into the generated ``_resources_rc.py`` (never edited by hand), which registers them under
``:/icons/`` and ``:/styles/``. :class:`Icon` names every icon; a test checks that it, the
``.qrc`` file and the folder agree. Icons are drawn with ``stroke="currentColor"`` and tinted
here, so one SVG serves the light and the dark theme.
"""

from __future__ import annotations

import enum
from functools import cache, lru_cache

from PySide6.QtCore import QByteArray, QFile, QIODevice, QRectF, QSize, Qt
from PySide6.QtGui import QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from . import _resources_rc  # noqa: F401  (registers the :/ resources)

__all__ = ["Icon", "icon", "pixmap", "read_resource", "style_sheet"]


class Icon(enum.Enum):
    """Every icon in ``resources/icons`` (value = file stem)."""

    ABORTED = "aborted"
    ACTIVE = "active"
    APP = "rho-desk"
    ASSISTANT = "assistant"
    BRANCH = "branch"
    CHEVRON_DOWN = "chevron-down"
    CHEVRON_RIGHT = "chevron-right"
    CLOSE = "close"
    COMMIT = "commit"
    COMPACT = "compact"
    COMPACTION = "compaction"
    CONVERSATION = "conversation"
    COPY = "copy"
    DEMO = "demo"
    DIFF = "diff"
    ERROR = "error"
    EXPORT = "export"
    FOLDER = "folder"
    FORK = "fork"
    IMAGE = "image"
    INFO = "info"
    LIVE = "live"
    OPEN = "open"
    PROVIDER = "provider"
    REASONING = "reasoning"
    RELOAD = "reload"
    SEARCH = "search"
    SETTINGS = "settings"
    STATS = "stats"
    SYSTEM = "system"
    TIMELINE = "timeline"
    TOOL = "tool"
    TRASH = "trash"
    USER = "user"
    WARNING = "warning"


def read_resource(path: str) -> bytes:
    """The bytes of a compiled resource (``:/icons/open.svg``)."""
    handle = QFile(path)
    if not handle.open(QIODevice.OpenModeFlag.ReadOnly):
        raise FileNotFoundError(path)
    try:
        return bytes(handle.readAll().data())
    finally:
        handle.close()


@cache
def _svg(name: str, color: str) -> bytes:
    data = read_resource(f":/icons/{name}.svg")
    return data.replace(b"currentColor", color.encode("ascii"))


@lru_cache(maxsize=512)
def pixmap(
    which: Icon | str, color: str = "#444444", size: int = 16, ratio: float = 1.0
) -> QPixmap:
    """The icon drawn at ``size`` logical pixels in ``color`` (cached)."""
    name = which.value if isinstance(which, Icon) else which
    renderer = QSvgRenderer(QByteArray(_svg(name, color)))
    device = max(1, round(size * ratio))
    image = QImage(QSize(device, device), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, device, device))
    painter.end()
    result = QPixmap.fromImage(image)
    result.setDevicePixelRatio(ratio)
    return result


def icon(which: Icon | str, color: str = "#444444") -> QIcon:
    """A ``QIcon`` with 16, 20, 24 and 32 px renderings in ``color``."""
    result = QIcon()
    for size in (16, 20, 24, 32):
        result.addPixmap(pixmap(which, color, size))
    return result


def style_sheet() -> str:
    """Every ``:/styles/*.qss`` in name order, joined (placeholders not yet filled)."""
    from PySide6.QtCore import QDir

    folder = QDir(":/styles")
    names = sorted(n for n in folder.entryList() if n.endswith(".qss"))
    return "\n".join(read_resource(f":/styles/{n}").decode("utf-8") for n in names)
