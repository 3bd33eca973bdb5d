"""``rho-desk sessions`` as a user runs it: a subprocess over a temporary Rho home."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from rho_desk.core.stores.rho_files.layout import workspace_key

from ..conftest import RHO_FIXTURES

HISTORICAL = "/historical/workspace"
IDS = {
    1: "11111111-1111-4111-8111-111111111111",
    2: "22222222-2222-4222-8222-222222222222",
    3: "33333333-3333-4333-8333-333333333333",
}


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "rho"
    folder = home / "sessions" / workspace_key(HISTORICAL)
    folder.mkdir(parents=True)
    for version, sid in IDS.items():
        shutil.copyfile(RHO_FIXTURES / f"session-v{version}.jsonl", folder / f"100_{sid}.jsonl")
    return home


def _run(
    tmp_path: Path, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        **os.environ,
        "RHO_DESK_CACHE_DIR": str(tmp_path / "cache"),
        "RHO_HOME": str(tmp_path / "no-such-home"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", "sessions", *args],
        capture_output=True,
        text=True,
        cwd=cwd or tmp_path,
        env=environment,
        timeout=60,
    )


def test_json_lists_a_workspace_with_upstream_field_names(tmp_path: Path, home: Path) -> None:
    out = _run(tmp_path, "--home", str(home), "--workspace", HISTORICAL, "--json")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert [s["id"] for s in document["sessions"]] == [IDS[3], IDS[2], IDS[1]]
    v2 = document["sessions"][1]
    assert set(v2) == {
        "workspace_key",
        "cwd",
        "id",
        "path",
        "created_at",
        "updated_at",
        "message_count",
        "title",
        "first_user_message",
        "last_user_message",
        "file_size",
        "file_mtime",
        "node_count",
        "branch_count",
        "active_leaf_id",
        "effective_format_version",
        "provider",
        "model",
        "compaction_count",
        "size",
    }
    assert (v2["provider"], v2["model"], v2["compaction_count"]) == (
        "fixture-provider/fixture-api/fixture-model",
        "fixture-model",
        1,
    )
    assert (
        v2["size"]
        == v2["file_size"]
        == (home / "sessions" / workspace_key(HISTORICAL) / f"100_{IDS[2]}.jsonl").stat().st_size
    )
    assert document["index"]["state"] == "created" and document["problems"] == []
    assert (home / "sessions" / "index.sqlite3").is_file()


def test_default_scope_is_the_current_directory(tmp_path: Path, home: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    cwd = os.path.realpath(project)  # what getcwd() reports, as Rho records it
    text = (RHO_FIXTURES / "session-v3.jsonl").read_text().replace(HISTORICAL, cwd)
    folder = home / "sessions" / workspace_key(cwd)
    folder.mkdir()
    (folder / f"100_{IDS[3]}.jsonl").write_text(text)
    out = _run(tmp_path, "--json", cwd=project, env={"RHO_HOME": str(home)})
    assert out.returncode == 0, out.stderr
    assert [(s["id"], s["cwd"]) for s in json.loads(out.stdout)["sessions"]] == [(IDS[3], cwd)]
    everything = _run(tmp_path, "--all", "--json", cwd=project, env={"RHO_HOME": str(home)})
    assert len(json.loads(everything.stdout)["sessions"]) == 4


def test_human_listing_and_search(tmp_path: Path, home: Path) -> None:
    out = _run(tmp_path, "--home", str(home), "--all")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("ID") and "WORKSPACE" in lines[0]
    assert len(lines) == 4 and lines[3].startswith("11111111") and "/goal legacy prompt" in lines[3]
    found = _run(tmp_path, "--home", str(home), "--all", "--search", "LEGACY answer")
    assert found.returncode == 0, found.stderr
    assert found.stdout.splitlines()[1].startswith("11111111")
    assert "[legacy] [answer]" in found.stdout
    document = json.loads(
        _run(tmp_path, "--home", str(home), "--all", "--search", "delta answer", "--json").stdout
    )
    (hit,) = document["sessions"]
    assert hit["id"] == IDS[3] and document["query"] == "delta answer"
    snippet = hit["snippets"][0]
    assert snippet["text"] == "delta prompt\ndelta answer"
    assert [snippet["text"][s:e] for s, e in snippet["highlights"]] == ["delta", "delta", "answer"]


def test_sort_and_limit(tmp_path: Path, home: Path) -> None:
    out = _run(tmp_path, "--home", str(home), "--all", "--json", "--sort", "size", "--limit", "1")
    document = json.loads(out.stdout)
    sizes = sorted((p.stat().st_size, p.name) for p in (home / "sessions").rglob("*.jsonl"))
    assert [s["path"].rsplit("/", 1)[1] for s in document["sessions"]] == [sizes[-1][1]]
    assert document["truncated"] is True


def test_a_busy_index_is_noted_and_the_listing_still_works(tmp_path: Path, home: Path) -> None:
    assert _run(tmp_path, "--home", str(home), "--all").returncode == 0
    holder = sqlite3.connect(home / "sessions" / "index.sqlite3", isolation_level=None)
    holder.execute("begin exclusive")
    try:
        out = _run(tmp_path, "--home", str(home), "--all", "--json")
    finally:
        holder.execute("rollback")
        holder.close()
    assert out.returncode == 0, out.stderr
    assert "Rho is using its session index" in out.stderr
    document = json.loads(out.stdout)
    assert document["index"]["state"] == "busy" and len(document["sessions"]) == 3


def test_corrupt_transcripts_are_warned_about(tmp_path: Path, home: Path) -> None:
    broken = home / "sessions" / workspace_key(HISTORICAL) / f"100_{IDS[1]}.jsonl"
    broken.write_text(broken.read_text() + "{not json}\n")
    out = _run(tmp_path, "--home", str(home), "--all", "--json")
    assert out.returncode == 0
    (problem,) = json.loads(out.stdout)["problems"]
    assert problem["path"].endswith(f"100_{IDS[1]}.jsonl") and ":6:" in problem["reason"]
    assert "rho-desk: warning:" in out.stderr and "Traceback" not in out.stderr


def test_bad_usage(tmp_path: Path) -> None:
    missing = _run(tmp_path, "--home", str(tmp_path / "nope"))
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"rho-desk: {tmp_path / 'nope'}: no such Rho home folder"
    both = _run(tmp_path, "--all", "--workspace", "/x")
    assert both.returncode == 2 and "not allowed with" in both.stderr
    assert _run(tmp_path, "--limit", "0").returncode == 2


def test_an_empty_default_home_lists_nothing(tmp_path: Path) -> None:
    out = _run(tmp_path, "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["sessions"] == []
    assert not (tmp_path / "no-such-home").exists()


# --- `rho-desk check` reports index drift -----------------------------------------------------------


def _check(tmp_path: Path, *paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rho_desk", "check", "--json", *map(str, paths)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "RHO_DESK_CACHE_DIR": str(tmp_path / "cache")},
    )


def test_check_exits_1_on_index_drift_and_0_when_current(tmp_path: Path, home: Path) -> None:
    assert _run(tmp_path, "--home", str(home), "--all").returncode == 0  # builds Rho's index
    clean = _check(tmp_path, home)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    transcript = home / "sessions" / workspace_key(HISTORICAL) / f"100_{IDS[2]}.jsonl"
    with open(transcript, "a") as handle:
        handle.write("\n")
    drifted = _check(tmp_path, home)
    assert drifted.returncode == 1
    report = json.loads(drifted.stdout)
    codes = [
        (Path(f["path"]).name, f["code"]) for file in report["files"] for f in file["findings"]
    ]
    assert codes == [(transcript.name, "index-stale-row")]
    # Listing re-syncs Rho's index; check is clean again.
    assert _run(tmp_path, "--home", str(home), "--all").returncode == 0
    assert _check(tmp_path, home).returncode == 0


def test_check_reports_an_unusable_index_once_and_never_creates_one(
    tmp_path: Path, home: Path
) -> None:
    assert _check(tmp_path, home).returncode == 0  # no index yet: nothing to drift from
    assert not (home / "sessions" / "index.sqlite3").exists()  # check never creates it
    (home / "sessions" / "index.sqlite3").write_bytes(b"garbage" * 100)
    out = _check(tmp_path, home)
    assert out.returncode == 1
    codes = [f["code"] for file in json.loads(out.stdout)["files"] for f in file["findings"]]
    assert codes == ["index-corrupt"]


def test_a_deleted_current_directory_is_bad_usage_not_a_traceback(
    tmp_path: Path, home: Path
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        "import os, sys; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]);"
        "from rho_desk.cli import main; sys.exit(main(['sessions', '--home', sys.argv[2]]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(gone), str(home)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "RHO_DESK_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert out.returncode == 2 and "pass --workspace or --all" in out.stderr
    assert "Traceback" not in out.stderr
