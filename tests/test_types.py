"""The type gate: mypy over ``rho_desk`` with the project's configuration finds nothing.

The configuration is ``[tool.mypy]`` in pyproject.toml: strict over the whole package,
unreachable code and unused ``type: ignore`` comments reported. mypy keeps its incremental cache in the project's ``.mypy_cache`` (ignored by
git), so a run after a small change rechecks only what changed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "pyproject.toml"
CACHE = ROOT / ".mypy_cache"


def _mypy(*targets: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(CONFIG),
        "--cache-dir",
        str(CACHE),
        "--no-color-output",
        "--no-error-summary",
        *targets,
    ]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_mypy_finds_no_error_in_the_package() -> None:
    result = _mypy()  # the files named by the configuration: the whole package
    assert result.returncode == 0 and result.stdout.strip() == "", result.stdout + result.stderr


def test_the_gate_fails_on_an_error_and_on_an_unused_ignore(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        'count: int = "three"\nfine: int = 3  # type: ignore[assignment]\n'
        "def f(x: int):\n    return x\n"
        "def g(x: int) -> int:\n    if isinstance(x, int):\n        return x\n    return 0\n",
        "utf-8",
    )
    result = _mypy(str(planted), cwd=tmp_path)
    assert result.returncode == 1
    assert "[assignment]" in result.stdout and "[unused-ignore]" in result.stdout, result.stdout
    assert "[no-untyped-def]" in result.stdout and "[unreachable]" in result.stdout, (
        result.stdout
    )  # strict
