"""Render the app icon set: ``resources/app-icons`` (hicolor layout, SVG + PNG sizes).

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icons.py

The source is the app icon the window uses (``resources/icons/rho-desk.svg``); the output follows
the freedesktop icon theme layout under the AppStream id, so the bundle (and a distribution
package) can copy it to ``share/icons`` as it is. A test checks the PNGs match the SVG.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "resources" / "icons" / "rho-desk.svg"
TARGET = ROOT / "resources" / "app-icons" / "hicolor"
APP_ID = "io.github.rhodesk.RhoDesk"
SIZES = (16, 24, 32, 48, 64, 128, 256, 512)


def render(size: int) -> bytes:
    """The icon as PNG bytes at ``size`` pixels (needs a QGuiApplication)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(QByteArray(SOURCE.read_bytes()))
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def main() -> int:
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    scalable = TARGET / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    scalable.write_bytes(SOURCE.read_bytes())
    for size in SIZES:
        out = TARGET / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(render(size))
    print(f"wrote {len(SIZES)} PNG sizes and the SVG under {TARGET}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
