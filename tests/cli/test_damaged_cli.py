"""Damaged input on the command line: one exit status per kind, and ``repair`` (real subprocesses).

Cases: a corrupted line in the middle, a torn tail (the file cut at 60 %), a truncated (empty)
transcript, a file that is not a session, an empty folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from rho_desk.core.stores.rho_files import read_session

from ..conftest import RHO_FIXTURES
from ..qt.helpers import v3_session
from .helpers_files import one_line_error, rho_desk

V3 = RHO_FIXTURES / "session-v3.jsonl"


def corrupted_middle(tmp_path: Path) -> tuple[Path, int]:
    """A version-3 session of six lines whose fourth (a delta) is garbage."""
    source = v3_session(tmp_path / "home", turns=5)
    lines = source.read_bytes().splitlines(keepends=True)
    assert len(lines) == 6
    bad = 4
    lines[bad - 1] = b'{"type":"snapshot_delta","timestamp":"1",\x01 broken\n'
    path = tmp_path / "middle.jsonl"
    path.write_bytes(b"".join(lines))
    return path, bad


def test_corrupted_middle_show_check_and_repair(tmp_path: Path) -> None:
    path, bad = corrupted_middle(tmp_path)
    error = one_line_error(rho_desk("show", path))
    assert f"{path}:{bad}:" in error
    checked = rho_desk("check", path)
    assert checked.returncode == 1 and f"{path}:{bad}: error:" in checked.stdout
    repaired = rho_desk("repair", path, "--json")
    assert repaired.returncode == 0, repaired.stderr
    report = json.loads(repaired.stdout)
    assert report["first_bad"]["line"] == bad and report["dropped"][0]["line"] == bad
    out = Path(report["output"])
    assert out == tmp_path / "middle.repaired.jsonl"
    assert rho_desk("check", out).returncode == 0
    assert rho_desk("show", out).returncode == 0
    text = rho_desk("repair", path, "-o", tmp_path / "copy.jsonl")
    assert (
        text.returncode == 0 and f"first bad line {bad}" in text.stdout and "dropped" in text.stdout
    )


def test_torn_tail_is_a_warning_and_repair_removes_it(tmp_path: Path) -> None:
    data = V3.read_bytes()
    path = tmp_path / "torn.jsonl"
    path.write_bytes(data[: int(len(data) * 0.6)])
    shown = rho_desk("show", path)
    assert shown.returncode == 0 and "torn last line ignored" in shown.stdout
    checked = rho_desk("check", path)
    assert checked.returncode == 1 and "[torn-tail]" in checked.stdout
    assert rho_desk("repair", path, "--in-place").returncode == 0
    assert rho_desk("check", path).returncode == 0
    assert len(list(tmp_path.glob("torn.jsonl.*.bak"))) == 1


def test_truncated_empty_transcript_exits_2_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    for command in (("show",), ("snapshot",), ("export", "--include", "user")):
        error = one_line_error(rho_desk(*command, path))
        assert str(path) in error, (command, error)
    assert "empty" in one_line_error(rho_desk("show", path))
    assert "not a Rho session file" in one_line_error(rho_desk("repair", path))
    checked = rho_desk("check", path)
    assert checked.returncode == 1 and "[no-header]" in checked.stdout


def test_a_file_that_is_not_a_session(tmp_path: Path) -> None:
    for name, content in (
        ("notes.jsonl", '{"hello": "world"}\n'),
        ("data.json", '{"hello": "world"}'),
        ("readme.jsonl", "just text\n"),
    ):
        path = tmp_path / name
        path.write_text(content)
        for command in ("show", "snapshot", "repair"):
            error = one_line_error(rho_desk(command, path))
            assert error.startswith(f"rho-desk: {path}"), (name, command, error)
            rest = error.removeprefix(f"rho-desk: {path}:").lstrip("0123456789:").strip()
            assert rest.startswith("not a Rho session file"), (name, command, error)


def test_an_empty_folder_says_what_was_looked_for(tmp_path: Path) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    error = one_line_error(rho_desk("check", empty))
    assert f"No Rho sessions in {empty}: looked for sessions/<workspace>/" in error
    listed = rho_desk("sessions", "--home", empty, "--all")
    assert listed.returncode == 0
    assert f"No Rho sessions in {empty}: looked for" in listed.stderr


def test_the_repaired_copy_reads_as_the_last_good_revision(tmp_path: Path) -> None:
    path, bad = corrupted_middle(tmp_path)
    assert rho_desk("repair", path, "-o", tmp_path / "fixed.jsonl").returncode == 0
    tolerant = read_session(path, tolerant=True)
    fixed = read_session(tmp_path / "fixed.jsonl")
    assert tolerant.damage is not None and tolerant.damage.line == bad
    assert fixed.tree.snapshot() == tolerant.tree.snapshot()  # the last good revision, r2
    assert fixed.tree.snapshot().revision == 2
