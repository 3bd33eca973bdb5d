"""CI runs exactly the README's test command, and that command runs the suite on Python 3.12 and
3.13 too (the oldest patch release of each installed, after the suite on the first Python)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _commands(path: Path) -> list[str]:
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_ci_runs_the_readme_test_command() -> None:
    opening = (
        (ROOT / "README.md").read_text(encoding="utf-8").split("```sh", 1)[1].split("```", 1)[0]
    )
    assert re.search(r"^\./run-tests\s", opening, re.M)
    assert _commands(ROOT / ".ci" / "run")[-1] == "exec ./run-tests"


def test_the_test_command_runs_the_other_pythons_after_the_suite() -> None:
    commands = _commands(ROOT / "run-tests")
    assert 'others="${RHO_DESK_PYTHONS-3.12 3.13}"' in commands
    suite = commands.index('"$VENV/bin/python" -m pytest "$@"')
    assert commands[suite + 1] == 'RHO_DESK_PYTHONS="$others" exec scripts/test-pythons "$@"'
    # the other Pythons' runs do not start more runs
    assert "RHO_DESK_ONE_PYTHON=1" in (ROOT / "scripts" / "test-pythons").read_text(
        encoding="utf-8"
    )
