"""The touched-paths index: searchable, in step with the files, never Rho's index."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

from rho_desk.core.changes.index import PathIndex, index_file_for

from .helpers import coding_session


def test_search_and_sessions_touching_follow_the_files(tmp_path: Path) -> None:
    home = tmp_path / "rho"
    workspace = tmp_path / "w"
    workspace.mkdir()
    first = coding_session(home, workspace)
    rho_index = home / "sessions" / "index.sqlite3"
    rho_bytes = rho_index.read_bytes() if rho_index.exists() else None
    index = PathIndex.open(index_file_for(home, tmp_path / "cache"))
    transcripts = list(PathIndex.transcripts(home))
    assert transcripts == [first]
    assert index.sync(transcripts) == 1
    assert index.sync(transcripts) == 0  # unchanged: nothing re-read
    (hit,) = index.search("APP.P")
    assert (hit.shown, hit.turns, hit.changes, hit.session_path) == (
        "app.py",
        (1, 2),
        2,
        str(first),
    )
    assert [h.shown for h in index.search("read")] == ["README.md"]
    assert index.search("100%_") == []  # LIKE wildcards are literal
    assert [h.session_path for h in index.sessions_touching(str(workspace / "app.py"))] == [
        str(first)
    ]
    # a transcript that changes is re-read; one that goes is dropped; Rho's index is not touched
    with open(first, "ab") as handle:
        handle.write(b"not json\n")
    assert index.sync(transcripts) == 1
    assert index.search("app.py") == [] and str(first) in index.failures()
    assert index.sync([]) == 0 and index.failures() == {}
    assert (rho_index.read_bytes() if rho_index.exists() else None) == rho_bytes
    index.close()
    # a file of another version is rebuilt
    path = index_file_for(home, tmp_path / "cache")

    with closing(sqlite3.connect(path)) as db, db:
        db.execute("PRAGMA user_version=99")
    PathIndex.open(path).close()
    with closing(sqlite3.connect(path)) as db, db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert os.path.exists(path) and (os.stat(path).st_mode & 0o777) == 0o600


def test_search_matches_the_path_shown_not_the_workspace_folder(tmp_path: Path) -> None:
    """N24: "payments" listed every file of a workspace named payments-api, whose shown paths do
    not hold the word; an absolute query still finds a file by its full path."""
    home = tmp_path / "rho"
    workspace = tmp_path / "payments-api"
    workspace.mkdir()
    first = coding_session(home, workspace)
    index = PathIndex.open(index_file_for(home, tmp_path / "cache"))
    index.sync([first])
    assert index.search("payments") == []
    assert [h.shown for h in index.search(str(workspace / "app"))] == ["app.py"]
    assert [h.shown for h in index.search("app.py")] == ["app.py"]
    index.close()
