"""Regenerate ``resources.qrc`` and the compiled ``rho_desk/qt/ui/_resources_rc.py`` from the sources.

Run after adding or changing an icon or a style sheet:

    .venv/bin/python resources/compile.py

The compiled module is generated: never edit it by hand (tests/qt/test_resources.py checks that
it matches these sources).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGET = HERE.parent / "rho_desk" / "qt" / "ui" / "_resources_rc.py"
FOLDERS = ("icons", "styles")


def qrc_text() -> str:
    files = sorted(
        p.relative_to(HERE).as_posix()
        for folder in FOLDERS
        for p in (HERE / folder).iterdir()
        if p.is_file() and p.suffix in (".svg", ".qss")
    )
    lines = ['<!DOCTYPE RCC><RCC version="1.0">', '<qresource prefix="/">']
    lines += [f"    <file>{f}</file>" for f in files]
    lines += ["</qresource>", "</RCC>", ""]
    return "\n".join(lines)


def rcc() -> str:
    exe = shutil.which("pyside6-rcc", path=str(Path(sys.executable).parent)) or shutil.which(
        "pyside6-rcc"
    )
    if exe is None:
        raise SystemExit("pyside6-rcc not found (it comes with PySide6-Essentials)")
    return exe


def main() -> int:
    (HERE / "resources.qrc").write_text(qrc_text(), encoding="utf-8")
    # -g python; --no-compress keeps the output identical across zlib versions
    subprocess.run(
        [rcc(), "--no-compress", "-o", str(TARGET), str(HERE / "resources.qrc")], check=True
    )
    print(f"wrote {TARGET.relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
