"""A well-formed record of a type only a newer Rho knows: read around, never written over."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.stores.rho_files.reader import NEWER, parse_session, read_session
from rho_desk.core.stores.rho_files.repair import plan_repair
from rho_desk.core.stores.rho_files.writer import SessionWriter

from ....cli.helpers_files import rho_desk

NEWER_LINE = b'{"type":"bookmark","timestamp":"302","label":"before the refactor"}\n'


@pytest.fixture
def session(tmp_path: Path, rho_fixtures: Path) -> Path:
    lines = (rho_fixtures / "session-v3.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "copy.jsonl"  # a name without an id
    path.write_bytes(b"".join([*lines[:2], NEWER_LINE, *lines[2:]]))
    return path


def test_the_reader_passes_over_it_and_reads_on(session: Path, rho_fixtures: Path) -> None:
    expected = parse_session((rho_fixtures / "session-v3.jsonl").read_bytes()).tree.snapshot()
    file = read_session(session, check_name=False)
    assert file.tree.snapshot() == expected
    assert file.damage is None and file.newer is not None
    assert file.newer.kind == NEWER and file.newer.line == 3
    assert "'bookmark'" in file.newer.reason and "newer Rho" in file.newer.reason
    assert file.newer.raw == NEWER_LINE.decode().rstrip("\n")


def test_a_record_with_a_bad_field_is_still_damage(tmp_path: Path, rho_fixtures: Path) -> None:
    lines = (rho_fixtures / "session-v3.jsonl").read_bytes().splitlines(keepends=True)
    bad = b'{"type":7}\n'  # not a type name: a broken record, not a newer one
    with pytest.raises(InputError, match=":3 "):
        parse_session(b"".join([*lines[:2], bad, *lines[2:]]))


def test_writing_is_refused_with_the_reason(session: Path) -> None:
    with pytest.raises(InputError, match="newer Rho") as caught:
        SessionWriter(read_session(session, check_name=False), take_lease=False)
    assert "read-only" in str(caught.value) and "line 3" in str(caught.value)


def test_repair_keeps_it(session: Path) -> None:
    plan = plan_repair(session)
    assert not plan.needed and NEWER_LINE in plan.data


def test_check_notes_it_and_passes(session: Path) -> None:
    out = rho_desk("check", session)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "notice" in out.stdout and "newer Rho" in out.stdout and ":3:" in out.stdout
    assert rho_desk("show", session).returncode == 0
