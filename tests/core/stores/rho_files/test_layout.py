"""The data directory, workspace keys, session units and leases (storage.md §1-§2, §8.7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.stores.rho_files import (
    SessionBeingDeleted,
    SessionInUse,
    SessionLease,
    UnitLayout,
    discover_units,
    find_units,
    iter_workspaces,
    lease_path,
    parse_unit_name,
    rho_home,
    unit_for_path,
    workspace_dir,
    workspace_key,
)
from rho_desk.core.stores.rho_files.layout import encode_cwd, fnv1a64


@pytest.mark.parametrize(
    ("cwd", "key"),
    [
        ("/historical/workspace", "-historical-workspace-a3f6d2ed37d6658c"),
        ("/home/alice/proj", "-home-alice-proj-55e702b525f26764"),
        ("/home/alice/café", "-home-alice-caf--85e59aef70ea6033"),
        ("C:\\Users\\alice\\proj", "C--Users-alice-proj-839a2418d706c68f"),
        ("/tmp/rho-workspace/a/b", "-tmp-rho-workspace-a-b-02b3937acfb0b926"),
        ("/tmp/rho-workspace/a-b", "-tmp-rho-workspace-a-b-02ba9b7acfb6e56c"),
    ],
)
def test_workspace_key_table(cwd: str, key: str) -> None:
    """storage.md §2.1, every row of the table."""
    assert workspace_key(cwd) == key


def test_fnv1a_and_encoding_details() -> None:
    assert fnv1a64(b"") == 0xCBF29CE484222325
    assert f"{fnv1a64(b'a'):016x}" == "af63dc4c8601ec8c"  # the published FNV-1a 64 test vector
    assert encode_cwd("a//b..c") == "a--b--c"  # nothing collapsed
    assert workspace_key("/tmp/x/").endswith(f"{fnv1a64(b'/tmp/x/'):016x}")  # no normalisation
    # a path that is not UTF-8 is hashed in its lossy form, as Rust's to_string_lossy gives it
    lossy = "/tmp/\udcff"
    assert workspace_key(lossy) == workspace_key("/tmp/\ufffd")


def test_rho_home_resolution(tmp_path: Path) -> None:
    assert rho_home({"RHO_HOME": str(tmp_path), "HOME": "/h"}) == tmp_path
    assert rho_home({"RHO_HOME": "", "HOME": "/h"}) == Path("/h/.rho")
    with pytest.raises(InputError, match="RHO_HOME"):
        rho_home({"HOME": ""})


def test_unit_names() -> None:
    assert parse_unit_name("1767225600_5f0c2d7e-8a41") == (1767225600, "5f0c2d7e-8a41")
    assert parse_unit_name("12_a_b") == (12, "b")  # id after the last `_`, time before the first
    assert parse_unit_name("x_abc") == (None, "abc")
    assert parse_unit_name("session-v1") == (None, None)


def test_discovery(tmp_path: Path) -> None:
    ws = workspace_dir(tmp_path, "/home/alice/proj")
    (ws / "100_aaa").mkdir(parents=True)
    (ws / "100_aaa" / "session.jsonl").write_text("{}\n")
    (ws / "200_bbb.jsonl").write_text("{}\n")
    (ws / "200_bbb.web").mkdir()
    (ws / "nounderscore.jsonl").write_text("{}\n")
    (ws / "session.jsonl").write_text("{}\n")
    (ws / "300_empty").mkdir()
    (ws / ".aaa.active.lock").write_text("")
    (ws / "index.sqlite3").write_text("")
    units = discover_units(ws)
    assert [(u.layout, u.name, u.session_id, u.created) for u in units] == [
        (UnitLayout.FOLDER, "100_aaa", "aaa", 100),
        (UnitLayout.FLAT, "200_bbb", "bbb", 200),
    ]
    folder, flat = units
    assert folder.transcript == ws / "100_aaa" / "session.jsonl" and folder.workspace == ws
    assert flat.web_dir == ws / "200_bbb.web" and folder.web_dir == ws / "100_aaa" / "web"
    assert folder.lease() == ws / ".aaa.active.lock" == lease_path(ws, "aaa")
    assert list(iter_workspaces(tmp_path)) == [ws]
    assert [u.name for u in find_units(tmp_path, "bbb")] == ["200_bbb"]
    assert find_units(tmp_path, "zzz") == []
    assert discover_units(tmp_path / "missing") == []


def test_unit_for_user_paths(tmp_path: Path) -> None:
    folder = tmp_path / "5_abc"
    folder.mkdir()
    assert unit_for_path(folder).transcript == folder / "session.jsonl"
    assert unit_for_path(folder / "session.jsonl").layout is UnitLayout.FOLDER
    odd = unit_for_path(tmp_path / "notes.jsonl")
    assert (odd.layout, odd.session_id) == (UnitLayout.FLAT, None)
    with pytest.raises(InputError):
        odd.lease()
    assert odd.lease("given") == tmp_path / ".given.active.lock"


def test_leases_shared_and_exclusive(tmp_path: Path) -> None:
    path = tmp_path / ".s.active.lock"
    first = SessionLease.shared(path)
    second = SessionLease.shared(path)  # shared leases do not exclude each other
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    with pytest.raises(SessionInUse, match="refusing to delete active session s"):
        SessionLease.exclusive(path)
    first.release()
    second.release()
    first.release()  # idempotent
    with SessionLease.exclusive(path) as deleting:
        assert deleting.held
        with pytest.raises(SessionBeingDeleted, match="being deleted"):
            SessionLease.shared(path)
    assert not deleting.held
    assert path.exists()  # lease files are never deleted
