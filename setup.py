"""Build hook: the wheel carries the data the app reads at run time.

Everything else about the build is in pyproject.toml. The demo library, the app icons, the
desktop entry and the AppStream metadata live outside the package in the source tree
(``resources/``, ``packaging/``), where their build scripts keep them; a wheel puts a copy of
them in ``rho_desk/_data/``, where :mod:`rho_desk.data` finds them. An editable install reads
them from the source tree instead. The manual page (``packaging/rho-desk.1``, written from the
parser by ``scripts/manpage.py``) is installed as ``share/man/man1/rho-desk.1``, where ``man``
and pipx find it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# what the wheel carries: source (relative to ROOT) -> destination inside rho_desk/_data
DATA = {
    "resources/demo/home": "demo/home",
    "resources/app-icons": "app-icons",
    "packaging/rho-desk.desktop": "rho-desk.desktop",
    "packaging/io.github.rhodesk.RhoDesk.metainfo.xml": "io.github.rhodesk.RhoDesk.metainfo.xml",
}


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib) / "rho_desk" / "_data"
        for source, destination in DATA.items():
            src, dst = ROOT / source, target / destination
            if src.is_dir():
                shutil.copytree(
                    src,
                    dst,
                    dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*-wal", "*-shm", "__pycache__"),
                )
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)


setup(
    cmdclass={"build_py": BuildWithData}, data_files=[("share/man/man1", ["packaging/rho-desk.1"])]
)
