"""``rho-desk check``: torn tails and corrupt lines, exit 1 when anything is found."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import RHO_FIXTURES
from .helpers_files import one_line_error, rho_desk


def test_check_clean_files_exit_0() -> None:
    result = rho_desk(
        "check",
        *(RHO_FIXTURES / f"session-v{v}.jsonl" for v in (1, 2, 3)),
        RHO_FIXTURES / "session-snapshot-v2.json",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "checked 4 file(s): 0 with problems" in result.stdout


def test_check_finds_torn_and_corrupt(tmp_path: Path) -> None:
    data = (RHO_FIXTURES / "session-v3.jsonl").read_bytes()
    (tmp_path / "torn.jsonl").write_bytes(data[:-40])
    (tmp_path / "corrupt.jsonl").write_bytes(data.replace(b'"Assistant"', b'"Robot"'))
    result = rho_desk(
        "check",
        tmp_path / "torn.jsonl",
        tmp_path / "corrupt.jsonl",
        RHO_FIXTURES / "session-v1.jsonl",
    )
    assert result.returncode == 1
    assert f"{tmp_path / 'torn.jsonl'}:3: warning: torn last line ignored" in result.stdout
    assert (
        f"{tmp_path / 'corrupt.jsonl'}:3: error:" in result.stdout
        and "[load-error]" in result.stdout
    )
    assert "checked 3 file(s): 2 with problems, 2 finding(s)" in result.stdout
    report = json.loads(rho_desk("check", "--json", tmp_path / "torn.jsonl").stdout)
    assert report["problems"] == 1 and report["files"][0]["findings"][0]["code"] == "torn-tail"
    assert report["files"][0]["session_id"] == "33333333-3333-4333-8333-333333333333"


def test_check_missing_path_is_bad_input(tmp_path: Path) -> None:
    assert "no such file or folder" in one_line_error(rho_desk("check", tmp_path / "nope"))
