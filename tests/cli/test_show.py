"""``rho-desk show``: run as a subprocess, on fixtures and broken files."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import RHO_FIXTURES
from ..core.stores.rho_files.helpers import V4_EXAMPLE
from .helpers_files import one_line_error, rho_desk


def test_show_v1_with_display() -> None:
    result = rho_desk("show", RHO_FIXTURES / "session-v1.jsonl", "--display")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "session   11111111-1111-4111-8111-111111111111" in out
    assert "revision  4 (node legacy:00000000000001cb, active)" in out
    assert "4 nodes, 0 branches (line)" in out
    assert "[103] Assistant: ◆ Compacted context\n    18 → 11 estimated tokens" in out
    assert "[101] User: /goal legacy prompt" in out


def test_show_tree_json_and_revision(tmp_path: Path) -> None:
    path = tmp_path / "tree.jsonl"
    path.write_text(V4_EXAMPLE)
    result = rho_desk("show", path, "--json", "--revision", "2", "--display")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["kind"], data["format_version"], data["active_leaf"], data["selected"]) == (
        "transcript",
        4,
        "N3",
        "N2",
    )
    assert [n["id"] for n in data["nodes"]] == ["N1", "N2", "N3"]
    assert data["nodes"][0]["children"] == ["N2", "N3"] and data["branch_count"] == 1
    assert [e["message"] for e in data["display"]][-1] == {
        "EnrichedAssistant": {"content": [{"Text": "None."}]}
    }
    text = rho_desk("show", path).stdout
    assert (
        "* " in text and "  r3" in text and "(tree)" in text
    )  # the leaf marked, children indented


def test_show_snapshot_document() -> None:
    result = rho_desk("show", RHO_FIXTURES / "session-snapshot-v2.json", "--json")
    data = json.loads(result.stdout)
    assert (data["kind"], data["revision"], data["has_prompt_cache_key"]) == ("snapshot", 5, True)


def test_show_malformed_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(
        (RHO_FIXTURES / "session-v3.jsonl")
        .read_bytes()
        .replace(b'"base_revision":1', b'"base_revision":0')
    )
    line = one_line_error(rho_desk("show", bad))
    assert f"{bad}:3" in line and "base revision 0 does not match previous revision 1" in line
    assert "no such file" in one_line_error(rho_desk("show", tmp_path / "missing.jsonl"))
    assert "no revision 9" in one_line_error(
        rho_desk("show", RHO_FIXTURES / "session-v3.jsonl", "--revision", "9")
    )
