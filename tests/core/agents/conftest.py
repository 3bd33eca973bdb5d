"""The agent fixtures (``tests/fixtures/agents``) as homes in a temporary folder: the opencode
database built from its SQL script, every file copied so that tests may change them."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from rho_desk.core.agents.build import AgentSessionFile
from rho_desk.core.stores.rho_files.records import HeaderRecord
from rho_desk.core.stores.rho_files.tree import RevisionNode, SessionTree

from ...conftest import FIXTURES

AGENT_FIXTURES = FIXTURES / "agents"
MAIN = {
    "claude-code": "projects/-home-dev-webapp/7d3e9a51-2b6c-4f08-9a1e-5c4b3d2e1f00.jsonl",
    "codex": "sessions/2026/03/01/rollout-2026-03-01T10-00-00-019c2b7e-5a10-7c3d-9e21-4b8f6a2d1c03.jsonl",
    "gemini": "tmp/webshop/chats/session-2026-08-02T08-00-3c9e1f7a.jsonl",
    "opencode": "opencode.db#ses_3f1a9c2e7ffeKq0LZr2bTn4Uw1",
    "pi": "sessions/--home-dev-cli-tool--/2026-03-10T14-00-00-000Z_0b9f6c2e-7d41-4a8e-b3c5-9e1d2f7a6b40.jsonl",
}
"""Each agent's fixture session, relative to its home."""
SECRETS = {
    "claude-code": "ghp_7f3Kq9ZxW2mN4pL8rT6vY1bC5dH0jE3gA9sQ",
    "codex": "sk-proj-Qm3vT8xK2pL9nR4wZ7cY1bF6hJ0dS5aE8gU3iO7kN2mB",
    "gemini": "sk_live_51NvQmK2eZvKYlo2C8xPz4WqL7rT9bU3nA6dF0hJ",
    "opencode": "xoxb-2741039582-5829103847265-Gq8YkT3mR7vL2pW9nX4cZ6bH",
    "pi": "npm_4Xk9Qz7Lm2Wp8Rt5Vb3Nc6Hd1Jf0Gs7Ay2E",
}
"""The fake secret each fixture holds in a tool result."""


def make_homes(folder: Path) -> dict[str, Path]:
    """A copy of every agent's fixture home under ``folder`` (opencode's database built)."""
    homes: dict[str, Path] = {}
    for agent in MAIN:
        home = folder / agent
        shutil.copytree(AGENT_FIXTURES / agent, home)
        homes[agent] = home
    script = homes["opencode"] / "opencode.sql"
    db = sqlite3.connect(homes["opencode"] / "opencode.db")
    try:
        db.execute("pragma synchronous = off")
        db.executescript("begin;\n" + script.read_text("utf-8") + "\ncommit;")
    finally:
        db.close()
    script.unlink()
    return homes


def main_sessions(homes: dict[str, Path]) -> dict[str, Path]:
    return {agent: Path(f"{homes[agent]}/{MAIN[agent]}") for agent in MAIN}


@pytest.fixture(scope="session")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The homes, made once per test run: for tests that only read them."""
    return make_homes(tmp_path_factory.mktemp("agents"))


@pytest.fixture
def homes(tmp_path: Path, pristine: dict[str, Path]) -> dict[str, Path]:
    """A copy of the homes of one's own (for tests that change them)."""
    out = {}
    for agent, home in pristine.items():
        shutil.copytree(home, tmp_path / agent)
        out[agent] = tmp_path / agent
    return out


@pytest.fixture
def sessions(pristine: dict[str, Path]) -> dict[str, Path]:
    """Each agent's fixture session, by agent (read only)."""
    return main_sessions(pristine)


def _node_facts(node: RevisionNode) -> tuple[object, ...]:
    return (
        node.id,
        node.parent.id if node.parent is not None else None,
        [child.id for child in node.children],
        node.timestamp,
        node.time,
        node.kind,
        node.compaction_facts,
        node.revision,
        node.compaction,
        node.meta,
        node.display,
        node.length,
        node.line,
        node.offset,
        node.transition,
        node.full,
        node.appended,
    )


def assert_built_by_the_rules(built: AgentSessionFile) -> None:
    """Every record of ``built`` passes the Rho reader's checks (``SessionTree.apply``, which the
    build leaves out for the records it makes itself), and gives the tree the build gave."""
    header = built.records[0]
    assert isinstance(header, HeaderRecord)
    checked = SessionTree(header)
    for line, record in enumerate(built.records[1:], start=2):
        checked.apply(record, line=line, offset=0)
    tree = built.tree
    assert [_node_facts(n) for n in checked.nodes.values()] == [
        _node_facts(n) for n in tree.nodes.values()
    ]
    assert [t.active_leaf.id if t.active_leaf is not None else None for t in (checked, tree)] == [
        checked.active_leaf and checked.active_leaf.id
    ] * 2
    assert (checked.updated_at, checked.record_count, checked.branch_count) == (
        tree.updated_at,
        tree.record_count,
        tree.branch_count,
    )
