"""``rho-desk trash list|restore|empty`` (real subprocesses): a restore re-adds the session to
Rho's index with its title, and ``check`` is clean afterwards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rho_desk.core.stores.index import RhoIndex
from rho_desk.core.stores.library import SessionLibrary
from rho_desk.core.stores.rho_files import read_session

from ..qt.helpers import v3_session
from .helpers_files import one_line_error, rho_desk

CWD = "/work/demo"


@pytest.fixture
def trash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "trash"
    monkeypatch.setenv("RHO_DESK_TRASH_DIR", str(folder))
    monkeypatch.setenv("RHO_DESK_CACHE_DIR", str(tmp_path / "cache"))
    return folder


def deleted_session(tmp_path: Path, trash: Path) -> tuple[Path, Path, str]:
    home = tmp_path / "rho"
    path = v3_session(home, cwd=CWD)
    sid = read_session(path).tree.session_id or ""
    with SessionLibrary(home, cache_dir=tmp_path / "cache", trash_dir=trash) as library:
        library.refresh()
        key = library.workspace_key(CWD)
        library.rename(key, sid, "Worth keeping")
        library.delete(key, sid)
    assert not path.exists()
    return home, path, sid


def test_list_restore_and_the_index_row_comes_back(tmp_path: Path, trash: Path) -> None:
    home, path, sid = deleted_session(tmp_path, trash)
    listed = rho_desk("trash", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)["entries"]
    assert entry["session_id"] == sid and entry["title"] == "Worth keeping"
    assert sid[:8] in rho_desk("trash", "list").stdout
    restored = rho_desk("trash", "restore", sid[:8])
    assert restored.returncode == 0, restored.stderr
    assert path.is_file()
    check = rho_desk("check", home)
    assert check.returncode == 0, check.stdout
    with RhoIndex.open_readonly(home / "sessions") as index:
        (row,) = index.rows()
    assert (row.id, row.title, row.path) == (sid, "Worth keeping", str(path))
    assert json.loads(rho_desk("trash", "list", "--json").stdout)["entries"] == []
    assert "no session in the trash matches" in one_line_error(
        rho_desk("trash", "restore", sid[:8])
    )


def test_empty_needs_confirmation(tmp_path: Path, trash: Path) -> None:
    deleted_session(tmp_path, trash)
    assert "--yes" in one_line_error(rho_desk("trash", "empty"))
    assert len(json.loads(rho_desk("trash", "list", "--json").stdout)["entries"]) == 1
    emptied = rho_desk("trash", "empty", "--yes")
    assert emptied.returncode == 0 and "deleted 1 session(s)" in emptied.stdout
    assert json.loads(rho_desk("trash", "list", "--json").stdout)["entries"] == []
    assert list(trash.iterdir()) == []


def test_restore_refuses_to_overwrite(tmp_path: Path, trash: Path) -> None:
    _home, path, sid = deleted_session(tmp_path, trash)
    path.parent.mkdir(parents=True)
    path.write_text("someone else's")
    assert "exists already" in one_line_error(rho_desk("trash", "restore", sid))
    assert path.read_text() == "someone else's"
