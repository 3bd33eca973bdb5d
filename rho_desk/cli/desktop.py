"""``rho-desk --install-desktop-entry`` / ``--uninstall-desktop-entry``: the app in the user's menu.

Installs, for the current user only (``$XDG_DATA_HOME``, default ``~/.local/share``), what a
distribution package would put in ``/usr/share``: the desktop entry (its ``Exec`` pointing at
this very installation, so a pipx or venv install launches without being on the desktop's
``PATH``), the icon set in the ``hicolor`` theme and the AppStream metadata. The caches of the
desktop (``update-desktop-database``, ``gtk-update-icon-cache``) are refreshed when those tools
are there; a desktop without them finds the files on its next start.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from ..data import APP_ID, app_icons_dir, desktop_entry_file, metainfo_file
from .status import EXIT_OK, fail

__all__ = ["install", "uninstall"]

ENTRY_NAME = "rho-desk.desktop"


def _data_home() -> Path:
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def _quote(argument: str) -> str:
    """An ``Exec`` argument, quoted as the Desktop Entry Specification says when it must be."""
    if argument and not any(c in argument for c in " \t\n\"'\\><~|&;$*?#()`%="):
        return argument
    escaped = (
        argument.replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`").replace("$", "\\$")
    )
    return f'"{escaped}"'.replace("%", "%%")


def _launcher() -> list[str]:
    """The command that starts this installation: its ``rho-desk`` script, else ``python -m``."""
    script = Path(sys.executable).parent / "rho-desk"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "rho_desk"]


def _entry_text(launcher: list[str]) -> str:
    lines = []
    for line in desktop_entry_file().read_text(encoding="utf-8").splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + " ".join(_quote(a) for a in launcher) + " open %f"
        elif line.startswith("TryExec="):
            line = "TryExec=" + launcher[0]
        lines.append(line)
    return "\n".join(lines) + "\n"


def _targets(data_home: Path) -> list[tuple[Path | None, Path]]:
    """(source, destination) of every file installed; ``None``: the desktop entry (rewritten)."""
    icons = app_icons_dir()
    pairs: list[tuple[Path | None, Path]] = [(None, data_home / "applications" / ENTRY_NAME)]
    pairs.append((metainfo_file(), data_home / "metainfo" / metainfo_file().name))
    for icon in sorted(p for p in icons.rglob("*") if p.is_file()):
        pairs.append((icon, data_home / "icons" / "hicolor" / icon.relative_to(icons)))
    return pairs


def _refresh(data_home: Path) -> None:
    for command in (
        ["update-desktop-database", "-q", str(data_home / "applications")],
        ["gtk-update-icon-cache", "-q", "-t", "-f", str(data_home / "icons" / "hicolor")],
    ):
        if shutil.which(command[0]):
            subprocess.run(command, capture_output=True, check=False, timeout=60)


def install() -> int:
    from ..core.system.fsio import atomic_write

    data_home = _data_home()
    if not desktop_entry_file().is_file() or not app_icons_dir().is_dir():
        return fail(
            "this installation carries no desktop entry or icons (a build without rho_desk/_data?)"
        )
    for source, destination in _targets(data_home):
        destination.parent.mkdir(parents=True, exist_ok=True)
        data = _entry_text(_launcher()).encode("utf-8") if source is None else source.read_bytes()
        atomic_write(destination, data, mode=0o644)
    _refresh(data_home)
    print(f"installed the desktop entry {data_home / 'applications' / ENTRY_NAME}")
    print(f"  it runs: {' '.join(_launcher())} open")
    print(f"  icons: {data_home / 'icons' / 'hicolor'} ({APP_ID})")
    return EXIT_OK


def uninstall() -> int:
    data_home = _data_home()
    removed = 0
    for _source, destination in _targets(data_home):
        try:
            destination.unlink()
            removed += 1
        except FileNotFoundError:
            pass
    _refresh(data_home)
    print(f"removed {removed} file(s) from {data_home}")
    return EXIT_OK
