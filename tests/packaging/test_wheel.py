"""The wheel and the sdist install like any Python app: data included, demo library found.

The test builds the sdist from the source tree, the wheel from that sdist (so the sdist is shown
to carry everything), installs the wheel into a clean virtual environment, and starts the
installed app offscreen on the demo library. The new environment gets rho-desk's dependencies by
pointing at the project venv's site-packages with a ``.pth`` line (no download, and the project's
own editable install there is not picked up: ``.pth`` files of an added path are not run).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tarfile
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO_SESSIONS = sorted(
    p.relative_to(ROOT / "resources/demo/home").as_posix()
    for p in (ROOT / "resources/demo/home").rglob("*")
    if p.is_file()
)

pytestmark = pytest.mark.slow


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        argv, capture_output=True, text=True, timeout=300, check=False, **kwargs
    )  # type: ignore[call-overload]
    assert result.returncode == 0, f"{argv}:\n{result.stdout}\n{result.stderr}"
    return result  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    # a copy of the tracked tree, so that no build output lands in the checkout
    tree = work / "src"
    files = _run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT
    ).stdout
    for name in filter(None, files.split("\0")):
        source = ROOT / name
        if source.is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            (tree / name).write_bytes(source.read_bytes())
    dist = work / "dist"
    _run(
        [
            sys.executable,
            "-c",
            "import sys; from setuptools import build_meta as b; print(b.build_sdist(sys.argv[1]))",
            str(dist),
        ],
        cwd=tree,
    )
    (sdist,) = dist.glob("rho_desk-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = archive.getnames()
    top = names[0].split("/")[0]
    for name in DEMO_SESSIONS:
        assert f"{top}/resources/demo/home/{name}" in names, name
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(dist),
            str(sdist),
        ]
    )
    (wheel,) = dist.glob("rho_desk-*.whl")
    env_dir = work / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
        ).stdout.strip()
    )
    (site / "rho-desk-test-deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-compile",
            "--target",
            str(site),
            str(wheel),
        ]
    )
    # pip --target writes no console script: make the one an installer would
    script = env_dir / "bin" / "rho-desk"
    script.write_text(f"#!{python}\nimport sys\nfrom rho_desk.cli import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return env_dir


def _env(home: Path) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_RUNTIME_DIR": str(home),
    }


def test_the_wheel_carries_the_manual_page(installed: Path) -> None:
    """pip and pipx install ``share/man/man1/rho-desk.1`` from the wheel's data (R5)."""
    import zipfile

    (wheel,) = (installed.parent / "dist").glob("rho_desk-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    (page,) = [n for n in names if n.endswith("/data/share/man/man1/rho-desk.1")]
    assert page.startswith("rho_desk-") and ".data/" in page


def test_the_installed_wheel_carries_its_data(installed: Path, tmp_path: Path) -> None:
    python = installed / "bin" / "python"
    out = _run(
        [
            str(python),
            "-c",
            "import rho_desk, rho_desk.data as d; print(rho_desk.__file__); "
            "print(d.demo_home_dir()); print(d.app_icons_dir()); print(d.desktop_entry_file())",
        ],
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    package, demo, icons, entry = (Path(line) for line in out.stdout.split())
    assert installed in package.parents, "the wheel's copy is imported, not the source tree"
    for path in (demo, icons, entry):
        assert package.parent / "_data" in path.parents and path.exists(), path
    shipped = sorted(p.relative_to(demo).as_posix() for p in demo.rglob("*") if p.is_file())
    assert shipped == DEMO_SESSIONS


def test_the_installed_app_starts_offscreen_on_the_demo(installed: Path, tmp_path: Path) -> None:
    shot = tmp_path / "installed.png"
    result = _run(
        [str(installed / "bin" / "rho-desk"), "open", "--screenshot", str(shot)],
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert "demo library is missing" not in result.stdout + result.stderr
    listing = _run(
        [
            str(installed / "bin" / "rho-desk"),
            "sessions",
            "--all",
            "--json",
            "--home",
            str(next((tmp_path / "cache").rglob("sessions")).parent),
        ],
        env=_env(tmp_path),
        cwd=tmp_path,
    )
    assert listing.stdout.count('"id"') >= 5, listing.stdout
    from PySide6.QtGui import QImage

    image = QImage(str(shot))
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 16) for y in range(0, image.height(), 16)
    }
    assert len(colours) > 20


def test_the_desktop_entry_installs_for_the_user(installed: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    _run([str(installed / "bin" / "rho-desk"), "--install-desktop-entry"], env=env, cwd=tmp_path)
    data = tmp_path / "data"
    entry = (data / "applications" / "rho-desk.desktop").read_text()
    assert f"Exec={installed / 'bin' / 'rho-desk'} open %f" in entry.splitlines()
    assert (data / "icons/hicolor/scalable/apps/io.github.rhodesk.RhoDesk.svg").is_file()
    assert (data / "icons/hicolor/256x256/apps/io.github.rhodesk.RhoDesk.png").is_file()
    assert (data / "metainfo/io.github.rhodesk.RhoDesk.metainfo.xml").is_file()
    if os.path.exists("/usr/bin/desktop-file-validate"):
        _run(["desktop-file-validate", str(data / "applications" / "rho-desk.desktop")])
    _run([str(installed / "bin" / "rho-desk"), "--uninstall-desktop-entry"], env=env, cwd=tmp_path)
    assert not (data / "applications" / "rho-desk.desktop").exists()
    assert not list((data / "icons").rglob("*.png"))
