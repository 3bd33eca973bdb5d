"""The whole tree passes ruff with the project's rules (pyproject.toml [tool.ruff]) and is laid out
as `ruff format` lays it out (tables whose layout carries meaning sit between ``# fmt: off`` and
``# fmt: on``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff is not None, "ruff is pinned in requirements.lock; run ./run-tests to install it"
    return subprocess.run([ruff, *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_ruff_finds_nothing() -> None:
    result = _ruff("check", "--no-cache", "--output-format", "concise", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_file_is_formatted() -> None:
    result = _ruff("format", "--no-cache", "--check", ".")
    assert result.returncode == 0, (
        "run `.venv/bin/ruff format .`:\n" + result.stdout + result.stderr
    )
