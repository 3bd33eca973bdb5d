"""Running ``rho-desk`` as a real subprocess for the session-file commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def rho_desk(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """Malformed input: exit 2, exactly one line on stderr, no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]
