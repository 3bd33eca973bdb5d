"""Packaging: the desktop entry, the AppStream metadata, the icon set, and the frozen bundle.

The bundle test builds ``dist/rho-desk`` with ``packaging/build.sh`` (PyInstaller 6.22.3 in its
own venv) into pytest's cache folder, rebuilding only when a source changed, then runs the
frozen app offscreen on the bundled demo library with the hidden ``--screenshot`` option and
checks the picture is a real window, not a blank one.
"""

from __future__ import annotations

import configparser
import hashlib
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
APP_ID = "io.github.rhodesk.RhoDesk"


def test_the_desktop_entry_launches_the_app_with_its_icon() -> None:
    entry = configparser.ConfigParser(interpolation=None, strict=True)
    entry.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    entry.read(PACKAGING / "rho-desk.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Name"] == "rho-desk"
    assert section["Exec"].split()[0] == "rho-desk" and section["Icon"] == APP_ID
    assert section["StartupWMClass"] == "rho-desk" and section["Terminal"] == "false"
    if shutil.which("desktop-file-validate"):
        result = subprocess.run(
            ["desktop-file-validate", str(PACKAGING / "rho-desk.desktop")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_appstream_metadata_names_the_launcher_and_validates() -> None:
    path = PACKAGING / f"{APP_ID}.metainfo.xml"
    root = ET.parse(path).getroot()
    assert root.get("type") == "desktop-application" and root.findtext("id") == APP_ID
    assert (
        root.findtext("launchable") == "rho-desk.desktop"
        and root.findtext("project_license") == "MIT"
    )
    from rho_desk import __version__

    assert root.find("releases/release").get("version") == __version__  # type: ignore[union-attr]
    if shutil.which("appstreamcli"):
        result = subprocess.run(
            ["appstreamcli", "validate", "--no-net", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_the_icon_set_matches_its_svg(qapp) -> None:
    from PySide6.QtGui import QImage

    sys.path.insert(0, str(PACKAGING))
    try:
        import make_icons
    finally:
        sys.path.remove(str(PACKAGING))
    icons = ROOT / "resources" / "app-icons" / "hicolor"
    assert (
        icons / "scalable" / "apps" / f"{APP_ID}.svg"
    ).read_bytes() == make_icons.SOURCE.read_bytes()
    for size in make_icons.SIZES:
        png = icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        image = QImage(str(png))
        assert (image.width(), image.height()) == (size, size), png
        fresh = QImage.fromData(make_icons.render(size))
        assert _close(image, fresh), f"{png} is stale: run packaging/make_icons.py"


def _close(a, b, tolerance: int = 12) -> bool:  # type: ignore[no-untyped-def]
    """Same size and every sampled pixel within ``tolerance`` per channel (renderers round)."""
    if a.size() != b.size():
        return False
    step = max(1, a.width() // 64)
    for y in range(0, a.height(), step):
        for x in range(0, a.width(), step):
            p, q = a.pixelColor(x, y), b.pixelColor(x, y)
            if (
                max(
                    abs(p.red() - q.red()),
                    abs(p.green() - q.green()),
                    abs(p.blue() - q.blue()),
                    abs(p.alpha() - q.alpha()),
                )
                > tolerance
            ):
                return False
    return True


# --- the frozen bundle ---------------------------------------------------------------------------


def _sources_digest() -> str:
    """What the bundle is built from: the package, resources, packaging files, the venv's packages."""
    digest = hashlib.sha256()
    roots = [
        ROOT / "rho_desk",
        ROOT / "resources" / "demo" / "home",
        ROOT / "resources" / "app-icons",
        PACKAGING,
    ]
    for root in roots:
        for path in sorted(
            p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
        ):
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    site = (
        Path(sys.prefix)
        / "lib"
        / f"python{sys.version_info.major}.{sys.version_info.minor}"
        / "site-packages"
    )
    digest.update("\n".join(sorted(p.name for p in site.glob("*.dist-info"))).encode())
    return digest.hexdigest()


def _bundle(cache_dir: Path) -> Path:
    """The frozen app, built now unless the cached one was built from the same sources."""
    dist, work, venv = cache_dir / "dist", cache_dir / "work", cache_dir / "pyinstaller-venv"
    binary = dist / "rho-desk" / "rho-desk"
    stamp = cache_dir / "sources.sha256"
    digest = _sources_digest()
    if binary.is_file() and stamp.is_file() and stamp.read_text() == digest:
        return binary
    env = {**os.environ, "RHO_DESK_BUILD_VENV": str(venv), "RHO_DESK_PYTHON": sys.executable}
    result = subprocess.run(
        ["bash", str(PACKAGING / "build.sh"), "--dist", str(dist), "--work", str(work)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=240,
    )
    if result.returncode != 0:
        out = result.stdout + result.stderr
        if (
            "pip install" in out
            or "No matching distribution" in out
            or "Could not find a version" in out
        ):
            pytest.skip(
                "PyInstaller 6.22.3 could not be installed (no package registry?): " + out[-300:]
            )
        raise AssertionError(f"packaging/build.sh failed:\n{out[-4000:]}")
    stamp.write_text(digest)
    return binary


@pytest.mark.slow
def test_the_frozen_app_opens_the_demo_library_offscreen(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    try:
        cache_dir = Path(request.config.cache.mkdir("rho-desk-bundle"))  # type: ignore[union-attr]
    except AttributeError:  # the cache plugin is off (-p no:cacheprovider): build in tmp_path
        cache_dir = tmp_path / "bundle"
        cache_dir.mkdir()
    binary = _bundle(cache_dir)
    assert (binary.parent / "_internal" / "resources" / "demo" / "home" / "sessions").is_dir()
    assert not list(binary.parent.rglob("libgtk-3*")), (
        "the GTK platform theme (libgtk-3) should be left out"
    )
    home = tmp_path / "home"
    home.mkdir()
    shot = tmp_path / "frozen.png"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_RUNTIME_DIR": str(tmp_path),
    }
    result = subprocess.run(
        [str(binary), "open", "--screenshot", str(shot)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1280, 800)
    # not blank: many distinct colours across the window (text, icons, the demo banner)
    colours = {image.pixel(x, y) for x in range(0, 1280, 16) for y in range(0, 800, 16)}
    assert len(colours) > 20, len(colours)
    # the frozen command line works too
    version = subprocess.run(
        [str(binary), "--version"], capture_output=True, text=True, env=env, timeout=30, check=False
    )
    from rho_desk import __version__

    assert version.stdout.strip() == f"rho-desk {__version__}"


def test_the_manual_page_is_current() -> None:
    """``packaging/rho-desk.1`` is what scripts/manpage.py writes from today's parser (every command
    and option); the wheel installs it as share/man/man1/rho-desk.1 (the walkthrough's R5)."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("manpage", root / "scripts" / "manpage.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    page = (root / "packaging" / "rho-desk.1").read_text(encoding="utf-8")
    assert page == module.render(), "packaging/rho-desk.1 is stale: run scripts/manpage.py"
    for word in ("rho\\-desk usage", "\\-\\-payback", "\\-\\-demo", "EXIT STATUS", "RHO_HOME"):
        assert word in page, word
    setup = (root / "setup.py").read_text(encoding="utf-8")
    assert '("share/man/man1", ["packaging/rho-desk.1"])' in setup
    assert "packaging/rho-desk.1" in (root / "MANIFEST.in").read_text(encoding="utf-8")
