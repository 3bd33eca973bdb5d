"""The upstream fixtures load and migrate to exactly the values storage.md §7 works out."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rho_desk.core.errors import WireFormatError
from rho_desk.core.stores.open import open_snapshot
from rho_desk.core.stores.rho_files import (
    NodeKind,
    SessionIdMismatch,
    SnapshotDeltaMismatch,
    parse_session,
    read_session,
    summarize,
)
from rho_desk.core.wire import ModelIdentity, encode, encode_pretty
from rho_desk.core.wire.codec import decode_snapshot

from ....conftest import RHO_FIXTURES

P = ModelIdentity("caller", "api", "model")


def plain(value: object) -> object:
    """A wire value as plain JSON data (lists, not tuples)."""
    return json.loads(encode(value))


def texts(entries: list) -> list[tuple[str, str, str]]:
    return [(e.timestamp, e.message.kind.value, e.message.text()) for e in entries]


def test_v1_table_ids_kinds_revisions() -> None:
    tree = read_session(RHO_FIXTURES / "session-v1.jsonl").tree
    assert [(n.id, n.offset, n.kind, n.revision) for n in tree.nodes.values()] == [
        ("legacy:000000000000007b", 123, NodeKind.COMMIT, 1),
        ("legacy:000000000000010a", 266, NodeKind.COMMIT, 2),
        ("legacy:0000000000000162", 354, NodeKind.COMPACTION, 3),
        ("legacy:00000000000001cb", 459, NodeKind.COMMIT, 4),
    ]
    assert [n.parent.id if n.parent else None for n in tree.nodes.values()] == [
        None,
        "legacy:000000000000007b",
        "legacy:000000000000010a",
        "legacy:0000000000000162",
    ]
    assert tree.active_leaf is not None and tree.active_leaf.id == "legacy:00000000000001cb"
    assert not tree.active_leaf.has_snapshot
    assert (tree.created_at, tree.updated_at, tree.format_version) == (100, 104, 1)


def test_v1_resume_snapshot_is_exactly_the_spec_document() -> None:
    tree = read_session(RHO_FIXTURES / "session-v1.jsonl").tree
    snapshot = tree.snapshot(provider=P, prompt_cache_key="K")
    assert plain(snapshot) == {
        "schema_version": 2,
        "session_id": "11111111-1111-4111-8111-111111111111",
        "revision": 4,
        "history": [
            {"User": [{"Text": "compacted legacy summary"}]},
            {"Assistant": [{"Text": "answer after compaction"}]},
        ],
        "provider": {"provider": "caller", "api": "api", "model": "model"},
        "compaction": {
            "completed_compactions": 1,
            "removed_messages": 1,
            "removed_tokens": 7,
            "removed_cost_usd_micros": 0,
            "last_previous_tokens": 18,
            "last_current_tokens": 11,
            "last_revision": 3,
        },
        "prompt_cache_key": "K",
    }
    # without a caller identity: the synthetic legacy one and the app's default key
    default = tree.snapshot()
    assert str(default.provider) == "legacy/legacy/legacy"
    assert default.prompt_cache_key == "rho:11111111-1111-4111-8111-111111111111"


def test_v1_projected_display_and_summary() -> None:
    session = read_session(RHO_FIXTURES / "session-v1.jsonl")
    assert texts(session.tree.display()) == [
        ("101", "User", "/goal legacy prompt"),
        ("102", "Assistant", "legacy answer"),
        ("103", "Assistant", "◆ Compacted context\n18 → 11 estimated tokens"),
        ("104", "Assistant", "answer after compaction"),
    ]
    s = summarize(RHO_FIXTURES / "session-v1.jsonl")
    assert (s.message_count, s.first_user_message, s.last_user_message) == (
        3,
        "/goal legacy prompt",
        "/goal legacy prompt",
    )
    assert (s.created_at, s.updated_at, s.node_count, s.branch_count) == (100, 104, 4, 0)
    assert (s.active_leaf_id, s.effective_format_version) == ("legacy:00000000000001cb", 1)
    assert (s.workspace_key, s.cwd) == (
        "-historical-workspace-a3f6d2ed37d6658c",
        "/historical/workspace",
    )
    assert s.id == "11111111-1111-4111-8111-111111111111"  # no `_` in the name: the header id
    assert (s.provider, s.model, s.compaction_count) == (None, None, 1)
    assert s.file_size == 557 and s.file_mtime is not None
    assert "legacy answer" in s.search_text and "/goal legacy prompt" in s.search_text


def test_v2_single_compaction_root() -> None:
    session = read_session(RHO_FIXTURES / "session-v2.jsonl")
    tree = session.tree
    (node,) = tree.nodes.values()
    assert (node.id, node.kind, node.revision) == (
        "legacy:000000000000007b",
        NodeKind.COMPACTION,
        4,
    )
    snapshot = tree.snapshot(provider=P, prompt_cache_key="K")
    assert plain(snapshot) == {
        "schema_version": 2,
        "session_id": "22222222-2222-4222-8222-222222222222",
        "revision": 4,
        "history": [
            {"User": [{"Text": "snapshot prompt"}]},
            {"Assistant": [{"Text": "snapshot answer"}]},
        ],
        "provider": {
            "provider": "fixture-provider",
            "api": "fixture-api",
            "model": "fixture-model",
        },
        "compaction": {
            "completed_compactions": 1,
            "removed_messages": 3,
            "removed_tokens": 0,
            "removed_cost_usd_micros": 0,
            "last_previous_tokens": None,
            "last_current_tokens": None,
            "last_revision": 3,
        },
        "metadata": {"source": "application fixture"},
        "prompt_cache_key": "rho:fixture-session",
    }
    assert texts(tree.display()) == [
        ("201", "User", "/goal snapshot prompt"),
        ("204", "Assistant", "snapshot answer"),
        ("204", "Assistant", "◆ Compacted context"),
    ]
    s = summarize(RHO_FIXTURES / "session-v2.jsonl")
    assert (s.message_count, s.node_count, s.effective_format_version, s.updated_at) == (
        2,
        1,
        2,
        204,
    )
    assert (s.provider, s.model, s.compaction_count) == (
        "fixture-provider/fixture-api/fixture-model",
        "fixture-model",
        1,
    )


def test_v3_snapshot_then_delta() -> None:
    tree = read_session(RHO_FIXTURES / "session-v3.jsonl").tree
    assert [(n.id, n.kind, n.revision, n.transition) for n in tree.nodes.values()] == [
        ("legacy:000000000000007b", NodeKind.COMMIT, 1, "snapshot"),
        ("legacy:0000000000000251", NodeKind.COMMIT, 2, "snapshot_delta"),
    ]
    snapshot = tree.snapshot()
    assert snapshot.revision == 2
    assert [m.text() for m in snapshot.history] == ["delta prompt", "delta answer"]
    assert (
        snapshot.compaction.completed_compactions == 0 and snapshot.compaction.last_revision is None
    )
    assert snapshot.prompt_cache_key == "rho:delta-fixture"
    assert texts(tree.display()) == [
        ("301", "User", "delta prompt"),
        ("302", "Assistant", "delta answer"),
    ]
    assert summarize(RHO_FIXTURES / "session-v3.jsonl").message_count == 2


def test_v3_with_base_revision_zero_fails_to_load() -> None:
    data = (RHO_FIXTURES / "session-v3.jsonl").read_bytes()
    broken = data.replace(b'"base_revision":1', b'"base_revision":0')
    assert broken != data
    with pytest.raises(SnapshotDeltaMismatch) as caught:
        parse_session(broken, source="v3.jsonl")
    assert caught.value.line == 3 and caught.value.source == "v3.jsonl"
    assert "snapshot delta base revision 0 does not match previous revision 1" in str(caught.value)


def test_snapshot_documents_migrate_to_schema_2() -> None:
    v1 = open_snapshot(RHO_FIXTURES / "session-snapshot-v1.json")
    assert (v1.schema_version, v1.revision, v1.prompt_cache_key) == (2, 3, None)
    assert (
        v1.compaction.completed_compactions,
        v1.compaction.removed_messages,
        v1.compaction.last_revision,
    ) == (1, 4, 2)
    assert v1.metadata == {"title": "snapshot v1"}
    pretty = json.loads(encode_pretty(v1))
    assert pretty["schema_version"] == 2
    assert pretty["compaction"] == {
        "completed_compactions": 1,
        "removed_messages": 4,
        "removed_tokens": 0,
        "removed_cost_usd_micros": 0,
        "last_previous_tokens": None,
        "last_current_tokens": None,
        "last_revision": 2,
    }
    assert "prompt_cache_key" not in pretty
    v2 = open_snapshot(RHO_FIXTURES / "session-snapshot-v2.json")
    assert (v2.revision, v2.prompt_cache_key) == (5, "rho:fixture-cache")
    assert encode_pretty(v2).endswith(b'"prompt_cache_key": "rho:fixture-cache"\n}')


@pytest.mark.parametrize("name", ["session-snapshot-v1.json", "session-snapshot-v2.json"])
@pytest.mark.parametrize("change", ['"schema_version": 0', '"schema_version": 3', None])
def test_snapshot_documents_reject_bad_schema_or_missing_id(name: str, change: str | None) -> None:
    text = (RHO_FIXTURES / name).read_text()
    if change is None:
        text = "\n".join(line for line in text.splitlines() if '"session_id"' not in line)
    else:
        text = text.replace('"schema_version": 1', change).replace('"schema_version": 2', change)
    with pytest.raises(WireFormatError):
        decode_snapshot(text, source=name)


def test_fixtures_under_upstream_names_check_the_id(tmp_path: Path) -> None:
    # upstream tests place them as `100_<id>.jsonl`; the id in the name must match the header
    good = tmp_path / "100_33333333-3333-4333-8333-333333333333.jsonl"
    shutil.copy(RHO_FIXTURES / "session-v3.jsonl", good)
    assert read_session(good).unit.created == 100
    bad = tmp_path / "100_44444444-4444-4444-8444-444444444444.jsonl"
    shutil.copy(RHO_FIXTURES / "session-v3.jsonl", bad)
    with pytest.raises(SessionIdMismatch) as caught:
        read_session(bad)
    assert caught.value.line == 1
    assert (
        read_session(bad, check_name=False).tree.session_id
        == "33333333-3333-4333-8333-333333333333"
    )


def test_rho_continuation_of_v3_fixture_is_read(tmp_path: Path) -> None:
    """§7.5: the upgrade marker plus a full-snapshot node under the last virtual node."""
    from .helpers import V3_UPGRADE_EXAMPLE

    data = (RHO_FIXTURES / "session-v3.jsonl").read_bytes() + V3_UPGRADE_EXAMPLE.encode()
    tree = parse_session(data).tree
    assert tree.upgraded and tree.format_version == 4 and tree.is_tree
    leaf = tree.active_leaf
    assert leaf is not None and leaf.id == "<uuid4>" and leaf.parent is not None
    assert leaf.parent.id == "legacy:0000000000000251" and leaf.revision == 2
    assert encode(tree.snapshot()) == encode(
        read_session(RHO_FIXTURES / "session-v3.jsonl").tree.snapshot()
    )


def test_v1_continued_unchanged_under_a_message_only_node() -> None:
    """§7.5: a node under the snapshot-less v1 leaf is legal when the state is unchanged."""
    from .helpers import line, node

    base = (RHO_FIXTURES / "session-v1.jsonl").read_bytes()
    resume = plain(read_session(RHO_FIXTURES / "session-v1.jsonl").tree.snapshot(provider=P))
    upgrade = {"type": "upgrade", "timestamp": "105", "active_leaf_id": "legacy:00000000000001cb"}
    resume["session_id"] = "11111111-1111-4111-8111-111111111111"
    extra = line(upgrade) + line(node("u1", "legacy:00000000000001cb", "105", snap=resume))
    tree = parse_session(base + extra).tree
    assert tree.active_leaf is not None and tree.active_leaf.id == "u1"
    assert tree.node_count == 5 and tree.format_version == 4
