"""The compiled resources match their sources, and the icon enum names every icon."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtGui import QGuiApplication

from rho_desk.qt.ui.resources import Icon, icon, read_resource, style_sheet
from rho_desk.qt.ui.theme import DARK, LIGHT, sheet_for

RESOURCES = Path(__file__).resolve().parents[2] / "resources"


def test_the_qrc_lists_exactly_the_files_and_the_enum_every_icon(qapp) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("compile_resources", RESOURCES / "compile.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    assert (RESOURCES / "resources.qrc").read_text(encoding="utf-8") == module.qrc_text()
    assert {i.value for i in Icon} == {p.stem for p in (RESOURCES / "icons").glob("*.svg")}


def test_the_compiled_module_holds_the_current_sources(qapp) -> None:
    for folder in ("icons", "styles"):
        for path in (RESOURCES / folder).iterdir():
            assert read_resource(f":/{folder}/{path.name}") == path.read_bytes(), (
                f"run resources/compile.py ({path.name})"
            )


def test_icons_render_and_sheets_fill_every_placeholder(qapp) -> None:
    assert QGuiApplication.instance() is not None
    for which in Icon:
        assert not icon(which, "#123456").pixmap(16, 16).isNull(), which
    for theme in (LIGHT, DARK):
        sheet = sheet_for(theme)
        assert "@" not in sheet.replace("@media", ""), "an unfilled @placeholder@"
    assert "QMainWindow" in style_sheet()


def test_dejavu_is_available_for_readable_text(qapp) -> None:
    from PySide6.QtGui import QFontDatabase

    assert "DejaVu Sans" in QFontDatabase.families()
