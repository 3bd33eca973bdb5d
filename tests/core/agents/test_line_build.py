"""A log whose steps form one line is built by the short path (``build._line``) into exactly
what the general one (``build._group``) builds: the same records, sources, tree, notes and loss
report. The general path is forced by making ``_line`` find no line.

Logs: every agent's fixture sessions, and random Claude Code records and Codex lines in a line
and with their parents rewired (branches, several roots, a parent that comes later), so that
both paths are taken."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.agents import build as build_module
from rho_desk.core.agents import read_log
from rho_desk.core.agents.base import AgentLogError
from rho_desk.core.agents.formats import session_paths

from .conftest import _node_facts
from .test_typed_shapes import _claude_records, _codex_lines


def built_facts(path: Path, agent: str, *, general: bool) -> Any:
    """Everything ``build`` gives for the log at ``path`` (read afresh: building changes it)."""
    try:
        log = read_log(path, agent=agent)
    except AgentLogError as exc:
        return ("error", exc.reason, exc.line)
    if general:
        with mock.patch.object(build_module, "_line", return_value=None):
            built = build_module.build(log)
    else:
        built = build_module.build(log)
    tree = built.tree
    return (
        msgspec.json.encode(built.records),
        built.sources,
        [_node_facts(node) for node in tree.nodes.values()],
        tree.active_leaf.id if tree.active_leaf is not None else None,
        (tree.updated_at, tree.record_count, tree.branch_count),
        built.notes,
        built.end,
        [(e.id, e.parent) for e in log.entries.values()],
        log.loss.as_json(),
        tree.snapshot(None) if tree.active_leaf is not None else None,
    )


def assert_same(path: Path, agent: str) -> None:
    assert built_facts(path, agent, general=False) == built_facts(path, agent, general=True)


def _taken(path: Path, agent: str) -> bool:
    """Whether the short path builds the log at ``path``."""
    with mock.patch.object(build_module, "_build_line", wraps=build_module._build_line) as short:
        build_module.build(read_log(path, agent=agent))
    return short.called


def test_every_fixture_session_is_built_alike(pristine: dict[str, Path]) -> None:
    lines = others = 0
    for agent, home in pristine.items():
        for path in session_paths(agent, home):
            log = read_log(path, agent=agent)
            paths = [path, *(ref.path for ref in log.subagents)]
            for one in paths:
                assert_same(one, agent)
                if _taken(one, agent):
                    lines += 1
                else:
                    others += 1
    assert lines >= 3 and others >= 3, (lines, others)  # both paths are compared


def test_a_branch_is_left_to_the_general_path(tmp_path: Path) -> None:
    path = tmp_path / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    records = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "sessionId": "s1",
         "message": {"role": "user", "content": "first"}},
        {"type": "user", "uuid": "u1", "parentUuid": "u0", "sessionId": "s1",
         "message": {"role": "user", "content": "second"}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    assert _taken(path, "claude-code")
    records.append({**records[1], "uuid": "u2", "message": {"role": "user", "content": "again"}})
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    assert not _taken(path, "claude-code")
    assert_same(path, "claude-code")


@st.composite
def _claude_logs(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random records, in a line or with some parents rewired."""
    records = draw(_claude_records())
    if draw(st.booleans()):
        ids = [f"u{n}" for n in range(len(records))] + ["gone"]
        for record in records:
            if draw(st.integers(0, 3)) == 0:
                record["parentUuid"] = draw(st.sampled_from([None, *ids]))
    for record in records:
        if draw(st.integers(0, 7)) == 0:
            record["isMeta"] = True  # a step that starts no revision
    return records


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(records=_claude_logs())
def test_claude_code_logs_are_built_alike(tmp_path: Path, records: list[dict[str, Any]]) -> None:
    path = tmp_path / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    assert_same(path, "claude-code")


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=_codex_lines())
def test_codex_logs_are_built_alike(tmp_path: Path, lines: list[dict[str, Any]]) -> None:
    path = tmp_path / "rollout-2026-03-01T10-00-00-t1.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    assert_same(path, "codex")
