"""``rho-desk snapshot``: the complete SDK snapshot Rho would resume with (storage.md §6.6)."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import RHO_FIXTURES
from .helpers_files import one_line_error, rho_desk


def test_snapshot_of_v1_is_the_resume_snapshot() -> None:
    result = rho_desk("snapshot", RHO_FIXTURES / "session-v1.jsonl")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == 1  # compact: one line
    data = json.loads(result.stdout)
    assert (data["revision"], data["prompt_cache_key"]) == (
        4,
        "rho:11111111-1111-4111-8111-111111111111",
    )
    assert data["compaction"]["removed_tokens"] == 7 and len(data["history"]) == 2


def test_snapshot_revision_pretty_and_output_file(tmp_path: Path) -> None:
    out = tmp_path / "snap.json"
    result = rho_desk(
        "snapshot", RHO_FIXTURES / "session-v3.jsonl", "--revision", "1", "--pretty", "-o", out
    )
    assert result.returncode == 0 and result.stdout == "", result.stderr
    text = out.read_text()
    assert text.startswith('{\n  "schema_version": 2,') and not text.endswith(
        "\n"
    )  # the SDK's to_json
    assert json.loads(text)["revision"] == 1
    assert oct(out.stat().st_mode & 0o777) == "0o600"
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"]  # no temp file left behind


def test_snapshot_of_a_snapshot_document_migrates_it() -> None:
    data = json.loads(rho_desk("snapshot", RHO_FIXTURES / "session-snapshot-v1.json").stdout)
    assert data["schema_version"] == 2 and "prompt_cache_key" not in data
    assert data["compaction"]["last_current_tokens"] is None


def test_snapshot_bad_input(tmp_path: Path) -> None:
    v5 = tmp_path / "v5.jsonl"
    v5.write_text('{"type":"session","version":5,"id":"x","timestamp":"1","cwd":"/"}\n')
    assert (
        one_line_error(rho_desk("snapshot", v5))
        == f"rho-desk: {v5}:1: unsupported session version 5"
    )
    header_only = tmp_path / "h.jsonl"
    header_only.write_text('{"type":"session","version":3,"id":"x","timestamp":"1","cwd":"/"}\n')
    assert "no saved state" in one_line_error(rho_desk("snapshot", header_only))
    doc = tmp_path / "doc.json"
    doc.write_text(
        '{"schema_version": 3, "session_id": "x", "revision": 1, "history": [], '
        '"provider": {"provider": "a", "api": "b", "model": "c"}}'
    )
    assert "unsupported session snapshot schema 3" in one_line_error(rho_desk("snapshot", doc))


def test_a_newer_rhos_record_is_named_on_stderr(tmp_path: Path) -> None:
    """``snapshot`` of a file holding a record type a newer Rho wrote printed the snapshot and said
    nothing, where ``check`` and ``show`` name the line they did not read."""
    path = tmp_path / "100_33333333-3333-4333-8333-333333333333.jsonl"  # named as Rho names it
    lines = (RHO_FIXTURES / "session-v3.jsonl").read_text().splitlines()
    lines.insert(2, '{"type":"bookmark","timestamp":"9","note":"from a newer Rho"}')
    path.write_text("\n".join(lines) + "\n")
    result = rho_desk("snapshot", path)
    assert result.returncode == 0 and json.loads(result.stdout)["revision"] >= 1
    assert (
        f"rho-desk: note: {path}:3: record type 'bookmark' was written by a newer Rho"
        in result.stderr
    )
    assert rho_desk("snapshot", RHO_FIXTURES / "session-v3.jsonl").stderr == ""
