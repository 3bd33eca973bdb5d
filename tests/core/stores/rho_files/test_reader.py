"""The strict reader: storage.md §4, §5.6-§5.9, §6 and every edge case of §9."""

from __future__ import annotations

from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.revisions.diff import revision_diff
from rho_desk.core.stores.rho_files import (
    CorruptRecord,
    IllegalRecord,
    NodeKind,
    NoSessionState,
    SessionFileError,
    SessionIdMismatch,
    SnapshotDeltaMismatch,
    UnsupportedSessionVersion,
    parse_session,
    read_header,
    read_session,
)

from ....conftest import RHO_FIXTURES
from .helpers import (
    PROVIDER,
    SID,
    V4_EXAMPLE,
    assistant,
    compaction,
    delta,
    header,
    legacy_delta,
    legacy_snapshot,
    line,
    node,
    set_leaf,
    shown,
    snapshot,
    tool_call,
    tool_result,
    transcript,
    user,
    v4_simple,
)

ROOT = node(
    "r",
    None,
    "10",
    snap=snapshot(1, [user("u1"), assistant("a1")]),
    display=shown("10", user("u1"), assistant("a1")),
)


def load(*records: dict, tail: bytes = b"") -> object:
    return parse_session(transcript(*records) + tail, source="t.jsonl").tree


def fails(
    error: type[SessionFileError],
    *records: dict,
    tail: bytes = b"",
    line_no: int | None = None,
    text: str = "",
) -> SessionFileError:
    with pytest.raises(error) as caught:
        parse_session(transcript(*records) + tail, source="t.jsonl")
    err = caught.value
    assert err.source == "t.jsonl"
    if line_no is not None:
        assert err.line == line_no, str(err)
    assert text in str(err)
    assert str(err).startswith(f"t.jsonl:{err.line}")
    return err


# -- the v4 worked example (§11) --------------------------------------------------------------


def test_worked_v4_example() -> None:
    session = parse_session(V4_EXAMPLE.encode())
    tree = session.tree
    assert [n.id for n in tree.nodes.values()] == ["N1", "N2", "N3"]
    n1, n2, n3 = tree.nodes.values()
    assert [c.id for c in n1.children] == ["N2", "N3"]
    assert (tree.node_count, tree.branch_count, tree.active_leaf) == (3, 1, n3)
    assert n3.kind is NodeKind.COMPACTION and n3.compaction_facts is not None
    assert tree.snapshot().history == n3.appended or tree.history(n3) == tree.snapshot().history
    assert [m.text() for m in tree.snapshot().history][1].startswith("Automatic compaction summary")
    shown_ = tree.display()
    assert len(shown_) == 5 and len(tree.display(markers=False)) == 4
    assert (
        shown_[-1].message.text()
        == "◆ Compacted context\n5 → 3 messages\n120 → 60 estimated tokens"
    )
    assert shown_[-1].timestamp == "1767225800"
    # N2 stays reachable: its state is N1's plus the delta
    assert [m.text() for m in tree.history(n2)][-2:] == ["and the hidden ones?", "None."]
    assert tree.snapshot(n2).revision == 2
    assert tree.updated_at == 1767225800 and tree.created_at == 1767225600
    assert tree.header is not None and tree.header.agent_id == "default"


def test_set_leaf_moves_the_active_leaf_and_next_node_branches() -> None:
    tree = parse_session(v4_simple(3) + line(set_leaf("n1"))).tree
    assert tree.active_leaf is tree.nodes["n1"]
    tree = parse_session(
        v4_simple(3)
        + line(set_leaf("n1"))
        + line(node("b", "n1", "20", dlt=delta(1, 5, [user("fork")])))
    ).tree
    assert tree.active_leaf is tree.nodes["b"] and tree.branch_count == 1
    assert [m.text() for m in tree.history()] == ["u1", "a1", "fork"]
    assert [n.id for n, _ in tree.walk()] == ["n1", "n2", "n3", "b"]


def test_a_revision_number_two_nodes_share_is_named_with_its_node() -> None:
    """A turn continued after an undo starts a branch at the next number, beside the undone node:
    both are revision 2, and whatever names one of them says which."""
    tree = parse_session(
        v4_simple(2)
        + line(set_leaf("n1"))
        + line(node("b", "n1", "20", dlt=delta(1, 2, [user("again")])))
    ).tree
    n1, n2, b = tree.nodes["n1"], tree.nodes["n2"], tree.nodes["b"]
    assert (n2.revision, b.revision) == (2, 2)
    assert tree.revision_name(n1) == "revision 1" and not tree.shares_revision(n1)
    assert (
        tree.revision_name(n2) == "revision 2 (node n2)"
        and tree.revision_name(b) == "revision 2 (node b)"
    )


def test_histories_share_structure_and_materialise_on_demand() -> None:
    tree = parse_session(v4_simple(50)).tree
    leaf = tree.active_leaf
    assert leaf is not None and leaf.length == 100 and leaf.appended is not None
    assert not leaf.is_complete_base and tree.nodes["n1"].is_complete_base
    history = tree.history()
    assert tree.history() is history  # cached for the active leaf
    assert [m.text() for m in tree.history(tree.nodes["n3"])] == [
        "u1",
        "a1",
        "u2",
        "a2",
        "u3",
        "a3",
    ]
    assert tree.history() is history  # still cached after looking elsewhere


def test_find_revision_prefers_the_active_path() -> None:
    data = (
        v4_simple(3)
        + line(set_leaf("n1"))
        + line(node("b", "n1", "20", dlt=delta(1, 3, [user("x")])))
    )
    tree = parse_session(data).tree
    assert tree.find_revision(3).id == "b"  # n3 also has revision 3, but is off the path
    assert tree.find_revision(2).id == "n2"
    with pytest.raises(InputError, match="no revision 9"):
        tree.find_revision(9)


def test_diff_two_revisions() -> None:
    tree = parse_session(V4_EXAMPLE.encode()).tree
    diff = revision_diff(tree, tree.nodes["N2"], tree.nodes["N3"])
    assert diff.common_prefix == 1  # the system prompt
    assert len(diff.removed) == 6 and len(diff.added) == 2
    assert diff.changed == ("revision", "compaction")
    assert diff.common_ancestor is tree.nodes["N1"]


# -- line framing (§4.1, §6.1) ---------------------------------------------------------------


def test_blank_lines_are_skipped_and_crlf_is_fine() -> None:
    data = b"\n   \n" + v4_simple(2).replace(b"\n", b"\r\n", 1) + b"\t\n"
    tree = parse_session(data).tree
    assert tree.node_count == 2


def test_torn_last_line_is_ignored_and_reported() -> None:
    whole = v4_simple(3)
    cut = whole[: len(whole) - 40]
    session = parse_session(cut, source="t.jsonl")
    assert session.tree.active_leaf is not None and session.tree.active_leaf.id == "n2"
    (note,) = session.notes
    assert (note.kind, note.line, note.offset + note.length) == ("torn-tail", 4, len(cut))
    assert session.torn and session.valid_end == note.offset
    assert "torn last line" in note.text()


def test_torn_set_leaf_does_not_move_the_leaf() -> None:
    data = v4_simple(3) + line(set_leaf("n1"))[:-10]
    tree = parse_session(data).tree
    assert tree.active_leaf is tree.nodes["n3"]


def test_torn_inside_a_multibyte_character_is_still_torn() -> None:
    data = v4_simple(1) + line(node("x", "n1", "9", dlt=delta(1, 2, [user("café")])))
    cut = data[: data.index("é".encode()) + 1]
    session = parse_session(cut)
    assert session.notes and "UTF-8 character" in session.notes[0].reason


def test_complete_last_line_without_newline_is_accepted() -> None:
    data = v4_simple(3)[:-1]
    session = parse_session(data)
    assert session.tree.node_count == 3 and not session.ends_with_newline and not session.notes


def test_unterminated_garbage_fails() -> None:
    fails(CorruptRecord, header(), ROOT, tail=b"{not json}", line_no=3)


def test_corrupt_line_anywhere_else_fails() -> None:
    data = v4_simple(3).split(b"\n")
    data[2] = data[2][:-5]  # a complete line (with its newline) cut short
    with pytest.raises(CorruptRecord) as caught:
        parse_session(b"\n".join(data), source="t.jsonl")
    assert caught.value.line == 3


def test_non_utf8_fails() -> None:
    data = v4_simple(2).replace(b'"u2"', b'"u\xff2"')
    with pytest.raises(CorruptRecord, match="UTF-8"):
        parse_session(data)


@pytest.mark.parametrize(
    "bad",
    [
        {"type": 7, "timestamp": "1"},
        {**node("x", "r", "11", dlt=delta(1, 2, [])), "kind": "squash"},
        {**node("x", "r", "11", dlt=delta(1, 2, [])), "transition": {"type": "patch"}},
        node("x", "r", "11", dlt=delta(1, 2, [{"Robot": "hi"}])),
        node("x", "r", "11", dlt=delta(1, 2, [{"User": [{"Video": {}}]}])),
        {
            "type": "node",
            "id": "x",
            "parent_id": "r",
            "kind": "commit",
            "transition": {"type": "snapshot"},
        },
        {"type": "set_leaf", "timestamp": "1"},
        {"type": "node", "id": 5},
    ],
    ids=[
        "type",
        "kind",
        "transition",
        "message-variant",
        "block-variant",
        "missing-field",
        "missing-target",
        "wrong-type",
    ],
)
def test_unknown_or_missing_things_fail(bad: dict) -> None:
    fails(CorruptRecord, header(), ROOT, bad, line_no=3)


def test_unknown_record_type_is_a_newer_rhos_record_read_around() -> None:
    # A record type this version does not know is a newer Rho's: named, passed over, read on.
    session = parse_session(
        transcript(header(), ROOT, {"type": "bogus", "timestamp": "1"}, set_leaf("r")),
        source="t.jsonl",
    )
    assert session.newer is not None and session.newer.line == 3
    assert "record type 'bogus' was written by a newer Rho" in session.newer.reason
    assert session.tree.node_count == 1 and session.damage is None


def test_unknown_extra_keys_are_ignored() -> None:
    tree = load(header(), {**ROOT, "future": {"x": 1}}, {**set_leaf("r"), "note": "hi"})
    assert tree.node_count == 1


def test_absurd_nesting_fails_cleanly() -> None:
    deep = line(node("x", "r", "11", dlt=delta(1, 2, [tool_call("c")]))).replace(
        b'{"command":"ls"}', b"[" * 100_000
    )
    fails(CorruptRecord, header(), ROOT, tail=deep, line_no=3, text="too deep")


def test_absurd_numbers_fail_cleanly() -> None:
    fails(
        CorruptRecord,
        header(),
        ROOT,
        node("x", "r", "11", dlt=delta(1, 2**64, [])),
        line_no=3,
        text="64-bit",
    )
    fails(CorruptRecord, header(), ROOT, node("x", "r", "11", dlt=delta(1, 2.0, [])), line_no=3)  # type: ignore[arg-type]


# -- header (§5.1, §9) ---------------------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 5, -1, 99])
def test_unsupported_versions(version: int) -> None:
    err = fails(UnsupportedSessionVersion, header(version=version), line_no=1)
    assert f"unsupported session version {version}" in str(err)


def test_record_before_header_and_second_header_fail() -> None:
    fails(IllegalRecord, ROOT, line_no=1, text="first record must be the session header")
    fails(IllegalRecord, header(), ROOT, header(), line_no=3, text="second session header")


def test_empty_file_is_an_empty_tree() -> None:
    tree = parse_session(b"").tree
    assert tree.header is None and tree.active_leaf is None and tree.node_count == 0
    with pytest.raises(NoSessionState):
        tree.snapshot()


def test_header_only_file_has_no_state() -> None:
    tree = load(header(version=3))
    assert tree.active_leaf is None and tree.display() == []
    with pytest.raises(NoSessionState, match="no saved state"):
        tree.snapshot()


def test_read_header_looks_at_line_one_only(tmp_path: Path) -> None:
    assert read_header(RHO_FIXTURES / "session-v2.jsonl").version == 2
    (tmp_path / "blank.jsonl").write_bytes(b"\n" + (RHO_FIXTURES / "session-v2.jsonl").read_bytes())
    with pytest.raises(IllegalRecord):
        read_header(tmp_path / "blank.jsonl")


def test_folder_unit_name_must_match_header(tmp_path: Path) -> None:
    folder = tmp_path / f"100_{SID}"
    folder.mkdir()
    (folder / "session.jsonl").write_bytes(v4_simple(1))
    assert read_session(folder).tree.session_id == SID
    other = tmp_path / "100_other-id"
    other.mkdir()
    (other / "session.jsonl").write_bytes(v4_simple(1))
    with pytest.raises(SessionIdMismatch, match="other-id"):
        read_session(other / "session.jsonl")


# -- record legality (§5.9) -----------------------------------------------------------------------

SNAP1 = legacy_snapshot("11", snapshot(1, [user("u")]), shown("11", user("u")))


@pytest.mark.parametrize(
    ("records", "text"),
    [
        ([header(version=4), ROOT, SNAP1], "legacy record `snapshot` in a version 4 session"),
        (
            [header(version=4), ROOT, {"type": "message", "timestamp": "1", "message": user("x")}],
            "version 4",
        ),
        (
            [header(version=4), ROOT, {"type": "upgrade", "timestamp": "1", "active_leaf_id": "r"}],
            "upgrade marker in a version 4",
        ),
        ([header(version=3), SNAP1, ROOT], "before its upgrade marker"),
        ([header(version=3), SNAP1, set_leaf("x")], "before its upgrade marker"),
        (
            [header(version=3), {"type": "upgrade", "timestamp": "1", "active_leaf_id": "x"}],
            "no legacy state",
        ),
        (
            [
                header(version=3),
                SNAP1,
                {"type": "upgrade", "timestamp": "1", "active_leaf_id": "legacy:0"},
            ],
            "current legacy leaf",
        ),
    ],
    ids=[
        "legacy-in-v4",
        "message-in-v4",
        "marker-in-v4",
        "node-before-marker",
        "set-leaf-before-marker",
        "marker-without-state",
        "marker-wrong-leaf",
    ],
)
def test_illegal_record_order(records: list[dict], text: str) -> None:
    fails(IllegalRecord, *records, line_no=len(records), text=text)


def test_upgrade_marker_rules() -> None:
    snap_line = line(header(version=3)) + line(SNAP1)
    leaf_id = f"legacy:{len(line(header(version=3))):016x}"
    marker = {"type": "upgrade", "timestamp": "12", "active_leaf_id": leaf_id}
    tree = parse_session(snap_line + line(marker)).tree
    assert tree.upgraded and tree.format_version == 4
    with pytest.raises(IllegalRecord, match="second upgrade marker"):
        parse_session(snap_line + line(marker) + line(marker))
    with pytest.raises(IllegalRecord, match="after the upgrade marker"):
        parse_session(snap_line + line(marker) + line(SNAP1))


# -- tree rules (§5.6) ----------------------------------------------------------------------------

N2 = node("n2", "r", "12", dlt=delta(1, 2, [user("u2")]))


@pytest.mark.parametrize(
    ("bad", "error", "text"),
    [
        ({**N2, "id": ""}, IllegalRecord, "empty"),
        ({**N2, "id": " n2"}, IllegalRecord, "whitespace"),
        ({**N2, "id": "x" * 129}, IllegalRecord, "128 bytes"),
        ({**N2, "id": "r"}, IllegalRecord, "duplicate node id"),
        ({**N2, "parent_id": "nope"}, IllegalRecord, "unknown parent"),
        (node("n2", None, "12", snap=snapshot(2, [])), IllegalRecord, "disconnected root"),
        (
            node(
                "n2",
                "r",
                "12",
                snap=snapshot(2, [user("x")]),
                facts={
                    "previous_messages": 1,
                    "current_messages": 1,
                    "previous_tokens": 1,
                    "current_tokens": 1,
                    "cost_usd_micros": None,
                },
            ),
            IllegalRecord,
            "carries compaction facts",
        ),
        (
            node(
                "n2", "r", "12", dlt=delta(1, 2, [], comp=compaction(revision=2)), kind="compaction"
            ),
            IllegalRecord,
            "must use a full snapshot",
        ),
        (
            node("n2", "r", "12", dlt=delta(0, 2, [user("x")])),
            SnapshotDeltaMismatch,
            "base revision 0 does not match previous revision 1",
        ),
        (
            node("n2", "r", "12", dlt=delta(1, 0, [user("x")])),
            SnapshotDeltaMismatch,
            "lower than its base revision",
        ),
        (
            node("n2", "r", "12", dlt=delta(1, 2, [user("x")], sid="other")),
            SnapshotDeltaMismatch,
            "session id",
        ),
        (
            node("n2", "r", "12", snap=snapshot(2, [user("x")], sid="other")),
            SessionIdMismatch,
            "holds a snapshot of session",
        ),
        (
            node("n2", "r", "12", dlt=delta(1, 1, [user("x")])),
            IllegalRecord,
            "without increasing the revision",
        ),
        (
            node("n2", "r", "12", snap=snapshot(1, [user("other")])),
            IllegalRecord,
            "without increasing the revision",
        ),
        (
            node("n2", "r", "12", snap=snapshot(2, [], comp=compaction(revision=2))),
            IllegalRecord,
            "but is a commit node",
        ),
        (
            node("n2", "r", "12", snap=snapshot(2, [user("x")]), kind="compaction"),
            IllegalRecord,
            "compaction state is unchanged",
        ),
        (set_leaf("ghost"), IllegalRecord, "unknown node"),
    ],
    ids=[
        "empty-id",
        "padded-id",
        "long-id",
        "duplicate",
        "unknown-parent",
        "second-root",
        "commit-with-facts",
        "compaction-delta",
        "base-mismatch",
        "revision-below-base",
        "delta-other-session",
        "snapshot-other-session",
        "changed-same-revision",
        "changed-same-revision-full",
        "kind-commit-but-compacted",
        "kind-compaction-unchanged",
        "set-leaf-unknown",
    ],
)
def test_node_rules(bad: dict, error: type[SessionFileError], text: str) -> None:
    fails(error, header(), ROOT, bad, line_no=3, text=text)


def test_root_rules() -> None:
    fails(
        IllegalRecord,
        header(),
        node("r", None, "1", dlt=delta(0, 1, [])),
        line_no=2,
        text="full snapshot",
    )
    comp = node(
        "r", None, "1", snap=snapshot(1, [], comp=compaction(revision=1)), kind="compaction"
    )
    fails(IllegalRecord, header(), comp, line_no=2, text="must be a commit")


def test_unchanged_state_may_keep_its_revision() -> None:
    tree = load(
        header(),
        ROOT,
        node("n2", "r", "12", dlt=delta(1, 1, [])),
        node("n3", "n2", "13", snap=snapshot(1, [user("u1"), assistant("a1")])),
    )
    assert [n.revision for n in tree.nodes.values()] == [1, 1, 1]


def test_compaction_node_with_full_snapshot() -> None:
    facts = {
        "previous_messages": 2,
        "current_messages": 1,
        "previous_tokens": 20,
        "current_tokens": 8,
        "cost_usd_micros": 1234,
    }
    tree = load(
        header(),
        ROOT,
        node(
            "c",
            "r",
            "12",
            snap=snapshot(2, [user("sum")], comp=compaction(revision=2)),
            kind="compaction",
            facts=facts,
        ),
    )
    marker = tree.display()[-1].message.text()
    assert (
        marker
        == "◆ Compacted context\n2 → 1 messages\n20 → 8 estimated tokens\n$0.001234 compaction cost"
    )


def test_delta_on_a_message_only_node_fails() -> None:
    v1 = (RHO_FIXTURES / "session-v1.jsonl").read_bytes()
    marker = {"type": "upgrade", "timestamp": "105", "active_leaf_id": "legacy:00000000000001cb"}
    bad = node(
        "x",
        "legacy:00000000000001cb",
        "106",
        dlt=delta(4, 5, [user("x")], sid="11111111-1111-4111-8111-111111111111"),
    )
    with pytest.raises(SnapshotDeltaMismatch, match="no complete snapshot"):
        parse_session(v1 + line(marker) + line(bad))


# -- legacy projection (§6.2) -----------------------------------------------------------------------


def test_legacy_delta_without_base_fails() -> None:
    fails(
        SnapshotDeltaMismatch,
        header(version=3),
        legacy_delta("1", delta(0, 1, [])),
        line_no=2,
        text="does not have a complete base snapshot",
    )


def test_legacy_records_that_change_nothing_extend_the_leaf_display() -> None:
    snap = snapshot(1, [user("u")], metadata={"a": "1"})
    same = snapshot(1, [user("u")], metadata={"a": "2"})
    tree = load(
        header(version=2, ts="10"),
        legacy_snapshot("11", snap, shown("11", user("u"))),
        legacy_snapshot("12", same, shown("12", assistant("notice"))),
        legacy_delta("13", delta(1, 1, []), shown("13", assistant("again"))),
    )
    assert tree.node_count == 1
    (only,) = tree.nodes.values()
    assert [e.message.text() for e in only.display] == ["u", "notice", "again"]
    assert tree.updated_at == 13


def test_legacy_snapshot_kind_and_history_rules() -> None:
    first = legacy_snapshot("11", snapshot(1, [user("a"), assistant("b")]))
    append = legacy_snapshot("12", snapshot(2, [user("a"), assistant("b"), user("c")]))
    replace = legacy_snapshot(
        "13", snapshot(3, [user("summary")])
    )  # same compaction, history replaced
    tree = load(header(version=2), first, append, replace)
    assert [n.kind for n in tree.nodes.values()] == [
        NodeKind.COMMIT,
        NodeKind.COMMIT,
        NodeKind.COMPACTION,
    ]


def test_legacy_snapshot_records_may_go_backwards() -> None:
    # open question 15: the legacy phase has no ordering check
    tree = load(
        header(version=3),
        legacy_snapshot("11", snapshot(5, [user("a")])),
        legacy_snapshot("12", snapshot(3, [user("b")])),
    )
    assert tree.active_leaf is not None and tree.active_leaf.revision == 3


def test_messages_after_a_snapshot_keep_its_meta() -> None:
    tree = load(
        header(version=2),
        legacy_snapshot("11", snapshot(1, [user("a")], key="k", metadata={"m": "v"})),
        {"type": "message", "timestamp": "12", "message": assistant("b")},
    )
    snap = tree.snapshot()
    assert (snap.revision, snap.prompt_cache_key, snap.metadata) == (2, "k", {"m": "v"})
    assert [m.text() for m in snap.history] == ["a", "b"]


# -- trimming (§6.5) -----------------------------------------------------------------------------------


def test_incomplete_tool_turns_are_trimmed_from_resume_and_display() -> None:
    history = [
        user("go"),
        tool_call("c1"),
        tool_result("c1"),
        assistant("done"),
        user("again"),
        {
            "Assistant": [
                {"ToolCall": {"id": "c2", "name": "x", "arguments": {}}},
                {"ToolCall": {"id": "c3", "name": "x", "arguments": {}}},
            ]
        },
        tool_result("c2"),
        user("late"),
    ]
    root = node("r", None, "10", snap=snapshot(1, history), display=shown("10", *history))
    tree = load(header(), root)
    assert len(tree.snapshot().history) == 5
    assert len(tree.snapshot(trim=False).history) == 8
    assert len(tree.display()) == 5
    assert len(tree.display(trimmed=False)) == 8


def test_results_out_of_order_cut_the_turn() -> None:
    history = [
        user("go"),
        {
            "Assistant": [
                {"ToolCall": {"id": "a", "name": "x", "arguments": {}}},
                {"ToolCall": {"id": "b", "name": "x", "arguments": {}}},
            ]
        },
        tool_result("b"),
        tool_result("a"),
    ]
    tree = load(header(), node("r", None, "10", snap=snapshot(1, history)))
    assert len(tree.snapshot().history) == 1


def test_aborted_reasoning_is_cleared_on_resume() -> None:
    aborted = {
        "AbortedAssistant": {
            "content": [{"Text": "par"}],
            "reasoning": "secret thoughts",
            "tool_calls": [],
            "usage": {"input_tokens": 1},
        }
    }
    tree = load(header(), node("r", None, "10", snap=snapshot(1, [user("q"), aborted])))
    message = tree.snapshot().history[1]
    assert message.aborted_assistant is not None and message.aborted_assistant.reasoning == ""


@pytest.mark.parametrize("schema", [0, 3])
def test_snapshot_schema_outside_1_2_fails(schema: int) -> None:
    bad = node("r", None, "10", snap={**snapshot(1, [user("u")]), "schema_version": schema})
    fails(
        CorruptRecord,
        header(),
        bad,
        line_no=2,
        text=f"unsupported session snapshot schema {schema}",
    )


# -- display history shares the history's messages ------------------------------------------------


def test_display_entries_hold_the_history_messages_themselves() -> None:
    system = {"System": "be brief"}
    tree = load(
        header(3),
        legacy_snapshot(
            "10",
            snapshot(1, [system, user("u1"), assistant("a1")]),
            shown("10", user("u1"), assistant("a1")),
        ),
        legacy_delta(
            "11",
            delta(1, 2, [user("u2"), assistant("a2")]),
            shown("11", user("u2"), assistant("a2")),
        ),
        legacy_delta(
            "12", delta(2, 3, [user("u3")]), shown("12", user("not in history"))
        ),  # differs: kept
    )
    history = tree.history()
    display = tree.display(markers=False, trimmed=False)
    assert [e.message for e in display] == [*history[1:5], display[-1].message]
    assert all(
        e.message is h for e, h in zip(display[:4], history[1:5], strict=True)
    )  # one object, not two
    assert display[-1].message.text() == "not in history" and display[-1].message is not history[-1]
    assert [e.timestamp for e in display] == ["10", "10", "11", "11", "12"]


def test_a_tree_node_display_shares_too() -> None:
    tree = load(
        header(4),
        ROOT,
        node("n1", "r", "11", dlt=delta(1, 2, [user("u2")]), display=shown("11", user("u2"))),
    )
    assert tree.display(markers=False, trimmed=False)[-1].message is tree.history()[-1]


def test_repeated_identities_and_tool_names_are_one_object_each() -> None:
    def enriched(text: str, call: str) -> dict:
        return {
            "EnrichedAssistant": {
                "content": [
                    {"Text": text},
                    {"ToolCall": {"id": call, "name": "bash", "arguments": {}}},
                ],
                "provenance": dict(PROVIDER),
            }
        }

    first, second = enriched("a1", "c1"), enriched("a2", "c2")
    tree = load(
        header(3),
        legacy_snapshot(
            "10",
            snapshot(1, [user("u1"), first, tool_result("c1")]),
            shown("10", user("u1"), first, tool_result("c1")),
        ),
        legacy_delta(
            "11",
            delta(1, 2, [user("u2"), second, tool_result("c2")]),
            shown("11", user("u2"), second, tool_result("c2")),
        ),
    )
    history = tree.history()
    one, two = history[1].enriched_assistant, history[4].enriched_assistant
    assert one is not None and two is not None and one.provenance == two.provenance
    assert one.provenance is two.provenance  # one object per distinct identity, not one per message
    assert one.content[1].tool_call.name is two.content[1].tool_call.name  # type: ignore[union-attr]
    root, leaf = tree.nodes.values()
    assert tree.snapshot(leaf).provider is tree.snapshot(root).provider
    display = tree.display(markers=False, trimmed=False)
    assert display[1].message is history[1] and display[4].message is history[4]


@pytest.mark.parametrize(
    "entry",
    [
        {"User": [{"Text": "u2"}], "System": "two variants"},
        {"User": [{"Text": "u2", "Size": 1}]},
        {"User": "not a list"},
    ],
    ids=["two-variants", "unknown-field", "wrong-type"],
)
def test_a_bad_display_entry_fails_where_it_is(entry: dict) -> None:
    # the reader compares a display tail with its history's bytes before decoding it: an entry
    # that is not a valid message still fails, naming its line and its place in the record
    first = legacy_snapshot("10", snapshot(1, [user("u1")]), shown("10", user("u1")))
    bad = legacy_delta("11", delta(1, 2, [user("u2")]), shown("11", entry))
    err = fails(CorruptRecord, header(3), first, bad, line_no=3, text="display_messages[0]")
    good = legacy_delta("11", delta(1, 2, [user("u2")]), shown("11", user("u2")))
    assert len(load(header(3), first, good).display(markers=False, trimmed=False)) == 2
    assert "message" in str(err)
