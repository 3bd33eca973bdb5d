"""Damaged transcripts: the tolerant read (up to the last good revision) and the repair."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.stores.index import RhoIndex
from rho_desk.core.stores.library import SessionLibrary
from rho_desk.core.stores.rho_files import (
    SessionWriter,
    check_paths,
    read_session,
    summarize,
    workspace_dir,
)
from rho_desk.core.stores.rho_files.errors import CorruptRecord, NotASessionFile
from rho_desk.core.stores.rho_files.repair import plan_repair, repair_session

from .helpers import SID, assistant, delta, header, line, node, set_leaf, shown, snapshot, user

CWD = "/home/alice/proj"


def damaged_v4() -> list[bytes]:
    """header, n1, n2, <garbage>, n4 (under the lost n3), b1 (under n2), set_leaf n4."""
    return [
        line(header(cwd=CWD)),
        line(
            node(
                "n1",
                None,
                "1767225601",
                snap=snapshot(1, [user("u1"), assistant("a1")]),
                display=shown("1767225601", user("u1"), assistant("a1")),
            )
        ),
        line(
            node(
                "n2",
                "n1",
                "1767225602",
                dlt=delta(1, 2, [user("u2"), assistant("a2")]),
                display=shown("1767225602", user("u2"), assistant("a2")),
            )
        ),
        b'{"type":"node","id":"n3","parent_id":"n2",\x00garbage}\n',
        line(
            node(
                "n4",
                "n3",
                "1767225604",
                dlt=delta(3, 4, [user("u4"), assistant("a4")]),
                display=shown("1767225604", user("u4"), assistant("a4")),
            )
        ),
        line(
            node(
                "b1",
                "n2",
                "1767225605",
                dlt=delta(2, 5, [user("b"), assistant("b")]),
                display=shown("1767225605", user("b"), assistant("b")),
            )
        ),
        line(set_leaf("n4", "1767225606")),
    ]


def place(home: Path, data: bytes) -> Path:
    folder = workspace_dir(home, CWD) / f"1767225600_{SID}"
    folder.mkdir(parents=True)
    path = folder / "session.jsonl"
    path.write_bytes(data)
    return path


def test_strict_read_fails_and_tolerant_read_stops_at_the_last_good_revision(
    tmp_path: Path,
) -> None:
    path = place(tmp_path, b"".join(damaged_v4()))
    with pytest.raises(CorruptRecord) as err:
        read_session(path)
    assert err.value.line == 4
    session = read_session(path, tolerant=True)
    damage = session.damage
    assert damage is not None and damage.line == 4 and damage.kind == "damaged"
    assert damage.source == str(path) and damage.reason
    assert session.tree.active_leaf is not None and session.tree.active_leaf.id == "n2"
    assert session.tree.snapshot().revision == 2
    # read-only: nothing may be appended after a damaged line
    with pytest.raises(InputError, match="damaged at line 4"):
        SessionWriter(session, take_lease=False)
    # a clean file reads the same either way
    path.write_bytes(b"".join(damaged_v4()[:3]))
    assert read_session(path, tolerant=True).damage is None


def test_repair_keeps_what_still_chains_and_reports_the_rest(tmp_path: Path) -> None:
    path = place(tmp_path, b"".join(damaged_v4()))
    plan = plan_repair(path)
    assert [(d.line, d.kind) for d in plan.dropped] == [
        (4, "corrupt"),
        (5, "does-not-chain"),
        (7, "does-not-chain"),
    ]
    assert plan.first_bad is not None and plan.first_bad.line == 4 and plan.last_good_line == 3
    assert plan.kept_lines == 4 and plan.total_lines == 7
    report = repair_session(path)
    assert report.output is not None and report.output.name == "session.repaired.jsonl"
    assert path.read_bytes() == b"".join(damaged_v4())  # the original is untouched
    repaired = read_session(report.output)  # loads strictly
    tree = repaired.tree
    assert sorted(tree.nodes) == ["b1", "n1", "n2"] and tree.active_leaf.id == "b1"  # type: ignore[union-attr]
    assert report.output.read_bytes() == b"".join(damaged_v4()[i] for i in (0, 1, 2, 5))
    assert not [f for t in check_paths([report.output]) for f in t.findings]
    text = report.text()
    assert "first bad line 4" in text and "line 5: does-not-chain" in text and "line 7" in text
    data = json.loads(json.dumps(report.to_json()))
    assert data["first_bad"]["line"] == 4 and [d["line"] for d in data["dropped"]] == [4, 5, 7]


def test_repair_in_place_keeps_a_backup_and_the_index_true(tmp_path: Path) -> None:
    good = b"".join(damaged_v4()[:3])
    path = place(tmp_path, good)
    with SessionLibrary(
        tmp_path, cache_dir=tmp_path / "cache", trash_dir=tmp_path / "trash"
    ) as library:
        library.refresh()
    path.write_bytes(b"".join(damaged_v4()))
    report = repair_session(path, in_place=True)
    assert report.backup is not None and report.backup.read_bytes() == b"".join(damaged_v4())
    assert report.backup.name.startswith("session.jsonl.") and report.backup.suffix == ".bak"
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert read_session(path).tree.active_leaf.id == "b1"  # type: ignore[union-attr]
    findings = [f for t in check_paths([tmp_path]) for f in t.findings]
    assert findings == [], [f.text() for f in findings]
    with RhoIndex.open_readonly(tmp_path / "sessions") as index:
        row = index.row(summarize(path).workspace_key, SID)
    assert row is not None and row.file_size == path.stat().st_size and row.active_leaf_id == "b1"


def test_nothing_to_repair_writes_nothing(tmp_path: Path) -> None:
    path = place(tmp_path, b"".join(damaged_v4()[:3]))
    report = repair_session(path)
    assert report.output is None and "nothing to repair" in report.text()
    assert sorted(p.name for p in path.parent.iterdir()) == ["session.jsonl"]


def test_a_torn_tail_is_dropped_by_the_repair(tmp_path: Path) -> None:
    data = b"".join(damaged_v4()[:3])
    path = place(tmp_path, data[: int(len(data) * 0.8)])
    plan = plan_repair(path)
    assert [(d.line, d.kind) for d in plan.dropped] == [(3, "torn")]
    out = repair_session(path, tmp_path / "out.jsonl").output
    assert out is not None and read_session(out).notes == []


def test_not_a_session_file_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "notes.jsonl"
    other.write_text('{"hello": "world"}\n')
    with pytest.raises(NotASessionFile, match="not a Rho session file"):
        repair_session(other)
    with pytest.raises(NotASessionFile, match="not a Rho session file"):
        read_session(other, tolerant=True)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(NotASessionFile, match="empty"):
        repair_session(empty)


def test_the_output_is_never_overwritten(tmp_path: Path) -> None:
    path = place(tmp_path, b"".join(damaged_v4()))
    taken = tmp_path / "taken.jsonl"
    taken.write_text("mine")
    with pytest.raises(InputError, match="exists already"):
        repair_session(path, taken)
    assert taken.read_text() == "mine"
    first = repair_session(path).output
    second = repair_session(path).output
    assert first is not None and second is not None and first != second


def test_duplicate_fields_are_a_check_error_and_repair_drops_them(tmp_path: Path) -> None:
    lines = damaged_v4()[:3]
    # a repeated struct field (serde: "duplicate field `parent_id`"), then a node under it
    lines[2] = lines[2].replace(b'"parent_id":"n1"', b'"parent_id":"n1","parent_id":"n1"', 1)
    assert lines[2].count(b'"parent_id"') == 2
    lines.append(
        line(
            node(
                "n3",
                "n2",
                "1767225603",
                dlt=delta(2, 3, [user("u3")]),
                display=shown("1767225603", user("u3")),
            )
        )
    )
    path = place(tmp_path, b"".join(lines))
    findings = [f for t in check_paths([path]) for f in t.findings if f.code == "duplicate-key"]
    assert [(f.line, f.severity.value) for f in findings] == [(3, "error")]
    assert "duplicate field `parent_id` (at $)" in findings[0].message
    plan = plan_repair(path)
    assert [(d.line, d.kind) for d in plan.dropped] == [(3, "duplicate-key"), (4, "does-not-chain")]


def test_repeated_keys_inside_free_form_maps_are_not_findings() -> None:
    from rho_desk.core.stores.rho_files.duplicates import refused_duplicate

    call = b'{"type":"node","message":{"Assistant":[{"ToolCall":{"id":"c","name":"x","arguments":{"a":1,"a":2}}}]}}\n'
    assert refused_duplicate(call) is None
    meta = b'{"snapshot":{"metadata":{"k":"1","k":"2"}}}\n'
    assert refused_duplicate(meta) is None
    block = b'{"User":[{"Text":"a"}],"User":[{"Text":"b"}]}\n'
    assert refused_duplicate(block) == "duplicate field `User` (at $)"
    nested = b'{"delta":{"revision":1,"revision":2}}\n'
    assert refused_duplicate(nested) == "duplicate field `revision` (at $.delta)"


def test_the_index_row_kept_save_after_save_equals_a_fresh_summary(tmp_path: Path) -> None:
    """The row's display facts are computed incrementally after each save; they must always be
    what a full summary of the file says (unfinished tool turns, a mismatched result, branches)."""
    import random

    from rho_desk.core.wire import ContentBlock, Message

    path = place(tmp_path, b"".join(damaged_v4()[:3]))
    rng = random.Random(5)
    with SessionWriter(read_session(path), take_lease=False) as writer:
        for step in range(60):
            tree = writer.tree
            state = tree.snapshot(trim=False)
            pick = rng.random()
            if pick < 0.15 and tree.node_count > 3:  # move to another revision (set_leaf)
                writer.set_leaf(rng.choice(list(tree.nodes.values())))
            else:
                call = f"c{step}"
                kind = rng.choice(("text", "call", "result", "wrong", "user"))
                message = {
                    "text": Message.assistant_text(f"a{step}"),
                    "user": Message.user_text(f"u{step}"),
                    "call": Message(assistant=(ContentBlock.of_tool_call(call, "bash", {}),)),
                    "result": Message.result(f"c{step - 1}", True, "ok"),
                    "wrong": Message.result("nope", True, "ok"),
                }[kind]
                parent = rng.choice(list(tree.nodes.values())) if pick > 0.9 else None
                base = tree.snapshot(parent, trim=False) if parent is not None else state
                new = base.replace(
                    revision=max(n.revision for n in tree.nodes.values()) + 1,
                    history=(*base.history, message),
                )
                writer.save(new, parent=parent)
            with RhoIndex.open_readonly(tmp_path / "sessions") as index:
                row = index.row(summarize(path).workspace_key, SID)
            fresh = summarize(path)
            assert row is not None
            assert (row.message_count, row.first_user_message, row.last_user_message) == (
                fresh.message_count,
                fresh.first_user_message,
                fresh.last_user_message,
            ), step
            assert (row.file_size, row.active_leaf_id, row.node_count) == (
                fresh.file_size,
                fresh.active_leaf_id,
                fresh.node_count,
            )
