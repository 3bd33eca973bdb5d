"""Where the data rho-desk ships lives: the demo library, the app icons, the desktop entry.

In the source tree (and an editable install) they are ``resources/`` and ``packaging/`` beside
the package, where their build scripts keep them; an installed wheel carries copies in
``rho_desk/_data/`` (setup.py); the frozen bundle keeps the source tree's layout. No Qt here:
the command line installs the desktop entry without loading the app.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

__all__ = ["APP_ID", "app_icons_dir", "demo_home_dir", "desktop_entry_file", "metainfo_file"]

APP_ID: Final = "io.github.rhodesk.RhoDesk"
_PACKAGE: Final = Path(__file__).resolve().parent
_INSTALLED: Final = _PACKAGE / "_data"
_SOURCE: Final = _PACKAGE.parent


def _pick(installed: str, source: str) -> Path:
    path = _INSTALLED / installed
    return path if path.exists() else _SOURCE / source


def demo_home_dir() -> Path:
    """The bundled demo library: a Rho home of sample sessions."""
    return _pick("demo/home", "resources/demo/home")


def app_icons_dir() -> Path:
    """The app icon set in the freedesktop ``hicolor`` layout."""
    return _pick("app-icons/hicolor", "resources/app-icons/hicolor")


def desktop_entry_file() -> Path:
    return _pick("rho-desk.desktop", "packaging/rho-desk.desktop")


def metainfo_file() -> Path:
    return _pick(f"{APP_ID}.metainfo.xml", f"packaging/{APP_ID}.metainfo.xml")
