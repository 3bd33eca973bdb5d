"""``rho-desk changes``: the list, ``--json``, and a ``--patch`` that real ``git apply`` accepts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.core.changes.helpers import coding_session


def rho_desk(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


@pytest.fixture
def session(tmp_path: Path) -> Path:
    workspace = tmp_path / "w"
    workspace.mkdir()
    return coding_session(tmp_path / "rho", workspace)


def test_list_and_json(session: Path) -> None:
    done = rho_desk("changes", str(session))
    assert done.returncode == 0, done.stderr
    assert "turn 1  Create app.py\n  A app.py  +2 -0\n" in done.stdout
    assert "turn 2  Say hello instead\n  M app.py  +1 -1\n" in done.stdout
    assert "  changes not visible: pytest -q && rm -rf build\n" in done.stdout
    assert "  ? README.md  (the content before this edit is not in the session)" in done.stdout
    data = json.loads(rho_desk("changes", str(session), "--json", "--turn", "2", "--patch").stdout)
    (turn,) = data["turns"]
    assert (
        turn["turn"] == 2
        and turn["files"][0]["action"] == "modified"
        and turn["files"][0]["diff"].startswith("diff --git a/app.py b/app.py\n")
    )
    only = json.loads(rho_desk("changes", str(session), "--json", "--file", "app.py").stdout)
    assert [t["turn"] for t in only["turns"]] == [1, 2]


def test_patch_applies_with_git_apply(session: Path, tmp_path: Path) -> None:
    git = shutil.which("git")
    assert git is not None
    done = rho_desk("changes", str(session), "--patch")
    assert done.returncode == 0, done.stderr
    assert "changes not visible: pytest -q && rm -rf build\n" in done.stdout
    patch = tmp_path / "changes.patch"
    patch.write_text(done.stdout)
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run([git, "init", "-q", str(repo)], check=True)
    checked = subprocess.run(
        [git, "apply", "--check", str(patch)], cwd=repo, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    subprocess.run([git, "apply", str(patch)], cwd=repo, check=True)
    assert (repo / "app.py").read_text() == "def main():\n    print('hello')\n"
    # one turn alone applies on the state before it
    turn2 = rho_desk("changes", str(session), "--patch", "--turn", "2").stdout
    (repo / "app.py").write_text("def main():\n    print('hi')\n")
    checked = subprocess.run(
        [git, "apply", "--check", "-"], cwd=repo, input=turn2, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--turn", "9"], "--turn 9: the session has 4 turn(s)"),
        (["--file", "nope.txt"], "--file nope.txt: no turn of this session changed it"),
    ],
)
def test_bad_input_exits_2_with_one_line(session: Path, argv: list[str], message: str) -> None:
    done = rho_desk("changes", str(session), *argv)
    assert done.returncode == 2
    assert (
        message in done.stderr and "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    )


def test_a_corrupt_journal_is_exit_2_naming_the_line(session: Path) -> None:
    journal = session.parent / "workspace-checkpoints" / "checkpoints.jsonl"
    journal.parent.mkdir()
    journal.write_text('{"version":1,"checkpoint":{"torn"}\n{"version":1}\n')
    done = rho_desk("changes", str(session))
    assert done.returncode == 2 and f"{journal}:1: invalid checkpoint journal record" in done.stderr
