"""Index drift as a ``rho-desk check`` check: rho_files' check_paths with the library's check."""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

import pytest

import rho_desk.core.stores.library  # noqa: F401 - registers the index-drift check
from rho_desk.core.stores.library import SessionLibrary
from rho_desk.core.stores.rho_files.check import Severity, check_paths, registered_checks
from rho_desk.core.stores.rho_files.layout import workspace_key

from ....conftest import RHO_FIXTURES

HISTORICAL = "/historical/workspace"
KEY = workspace_key(HISTORICAL)
V1, V2, V3 = (
    "11111111-1111-4111-8111-111111111111",
    "22222222-2222-4222-8222-222222222222",
    "33333333-3333-4333-8333-333333333333",
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "rho"
    folder = home / "sessions" / KEY
    folder.mkdir(parents=True)
    for version, sid in ((1, V1), (2, V2), (3, V3)):
        shutil.copyfile(RHO_FIXTURES / f"session-v{version}.jsonl", folder / f"100_{sid}.jsonl")
    with SessionLibrary(home, cache_dir=tmp_path / "cache") as library:
        library.refresh()
    return home


def _drift(*paths: Path) -> list[tuple[str, str]]:
    """(code, file name) of every index finding."""
    out = []
    for target in check_paths(paths):
        for finding in target.findings:
            if finding.code.startswith("index-"):
                assert finding.severity is Severity.WARNING
                out.append((finding.code, Path(finding.path).name))
    return sorted(out)


def _sql(home: Path, sql: str, *params: object) -> None:
    db = sqlite3.connect(home / "sessions" / "index.sqlite3")
    db.execute(sql, params)
    db.commit()
    db.close()


def test_the_check_is_registered_and_quiet_on_a_current_index(home: Path) -> None:
    assert "index-drift" in registered_checks()
    assert _drift(home) == []


def test_stale_and_missing_rows_are_reported_per_file(home: Path) -> None:
    with open(home / "sessions" / KEY / f"100_{V1}.jsonl", "a") as handle:
        handle.write("\n")
    _sql(home, "delete from sessions where id = ?", V2)
    assert _drift(home) == [
        ("index-missing-row", f"100_{V2}.jsonl"),
        ("index-stale-row", f"100_{V1}.jsonl"),
    ]
    (target,) = check_paths([home / "sessions" / KEY / f"100_{V1}.jsonl"])
    (finding,) = [f for f in target.findings if f.code == "index-stale-row"]
    assert "file_size" in finding.message and V1 in finding.message


def test_rows_without_sessions_are_reported_once(home: Path) -> None:
    folder = home / "sessions" / KEY
    _sql(
        home,
        "insert into sessions (workspace_key, cwd, id, path, created_at, updated_at)"
        " values (?, ?, 'gone', ?, 1, 1)",
        KEY,
        HISTORICAL,
        str(folder / "1_gone.jsonl"),
    )
    nowhere = workspace_key("/nowhere")  # a workspace whose folder does not exist
    _sql(
        home,
        "insert into sessions (workspace_key, cwd, id, path, created_at, updated_at)"
        " values (?, '/nowhere', 'lost', ?, 1, 1)",
        nowhere,
        str(home / "sessions" / nowhere / "1_lost.jsonl"),
    )
    _sql(
        home,
        "insert into sessions (workspace_key, cwd, id, path, created_at, updated_at)"
        " values (?, '/not/here', 'odd', ?, 1, 1)",
        KEY,
        str(folder / "1_odd.jsonl"),
    )
    assert _drift(home) == [
        ("index-misplaced-row", "index.sqlite3"),
        ("index-orphan-row", "index.sqlite3"),
        ("index-orphan-row", "index.sqlite3"),
    ]


@pytest.mark.parametrize(
    ("damage", "code"), [("corrupt", "index-corrupt"), ("newer", "index-newer")]
)
def test_an_unusable_index_is_one_finding_and_untouched(home: Path, damage: str, code: str) -> None:
    index = home / "sessions" / "index.sqlite3"
    if damage == "corrupt":
        index.write_bytes(b"not sqlite" * 300)
    else:
        _sql(home, "pragma user_version = 5")
    before = hashlib.sha256(index.read_bytes()).hexdigest()
    assert _drift(home) == [(code, "index.sqlite3")]
    assert hashlib.sha256(index.read_bytes()).hexdigest() == before


def test_a_missing_index_is_not_drift(home: Path) -> None:
    (home / "sessions" / "index.sqlite3").unlink()
    assert _drift(home) == []
    assert not (home / "sessions" / "index.sqlite3").exists()


def test_an_old_schema_is_reported_not_migrated(home: Path) -> None:
    index = home / "sessions" / "index.sqlite3"
    index.unlink()
    db = sqlite3.connect(index)
    db.executescript((RHO_FIXTURES / "index-v1.sql").read_text())
    db.close()
    before = index.read_bytes()
    found = _drift(home)
    assert ("index-outdated", "index.sqlite3") in found
    assert sum(code == "index-missing-row" for code, _ in found) == 3
    assert index.read_bytes() == before


def test_a_misplaced_transcript(home: Path) -> None:
    other = home / "sessions" / workspace_key("/elsewhere")
    other.mkdir()
    shutil.copyfile(RHO_FIXTURES / "session-v3.jsonl", other / f"200_{V3}.jsonl")
    assert ("index-misplaced-transcript", f"200_{V3}.jsonl") in _drift(home)


def test_files_outside_a_rho_home_have_no_index(tmp_path: Path) -> None:
    assert _drift(RHO_FIXTURES / "session-v1.jsonl") == []
    loose = tmp_path / "sessions" / "x"
    loose.mkdir(parents=True)
    shutil.copyfile(RHO_FIXTURES / "session-v2.jsonl", loose / f"100_{V2}.jsonl")
    assert _drift(loose / f"100_{V2}.jsonl") == []
