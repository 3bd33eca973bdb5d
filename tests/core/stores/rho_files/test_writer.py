"""Appending: the file's own grammar, byte-exact records, the optimistic check, faults (§8)."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from rho_desk.core.compaction import CompactionOutcome
from rho_desk.core.errors import InputError, RevisionConflict, StorageError
from rho_desk.core.stores.rho_files import (
    IllegalRecord,
    NodeKind,
    NoSessionState,
    SessionInUse,
    SessionWriteError,
    SessionWriter,
    create_session,
    delete_session,
    fork_session,
    parse_session,
    read_session,
    unit_for_path,
    workspace_key,
)
from rho_desk.core.stores.rho_files import writer as writer_module
from rho_desk.core.stores.rho_files.writer import same_prefix
from rho_desk.core.wire import CompactionState, Message, ModelIdentity, SessionSnapshot, encode

from ....conftest import RHO_FIXTURES
from .helpers import V4_EXAMPLE, header, line, transcript, v4_simple

NOW = 1_800_000_000
P = ModelIdentity("p", "a", "m")


def clock() -> float:
    return NOW + 0.7


def copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copy(RHO_FIXTURES / name, target)
    return target


def open_writer(path: Path) -> SessionWriter:
    return SessionWriter(read_session(path), clock=clock)


def turn(snapshot: SessionSnapshot, *texts: str) -> SessionSnapshot:
    added = tuple(
        Message.user_text(t) if i % 2 == 0 else Message.assistant_text(t)
        for i, t in enumerate(texts)
    )
    return snapshot.replace(revision=snapshot.revision + 1, history=snapshot.history + added)


def reread_matches(writer: SessionWriter) -> None:
    """What we appended re-reads, strictly, to exactly the in-memory state (and file end)."""
    reread = read_session(writer.path)
    assert reread.end == writer.end  # size, valid end, newline, tail, identity, mtime, lines
    fresh = reread.tree
    mine = writer.tree
    assert [(n.id, n.kind, n.revision, n.line) for n in fresh.nodes.values()] == [
        (n.id, n.kind, n.revision, n.line) for n in mine.nodes.values()
    ]
    assert fresh.active_leaf is not None and mine.active_leaf is not None
    assert fresh.active_leaf.id == mine.active_leaf.id
    assert encode(fresh.snapshot()) == encode(mine.snapshot())
    assert fresh.display() == mine.display()


def lines_of(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert data.endswith(b"\n") and b"\n\n" not in data
    return data.split(b"\n")[:-1]


# -- legacy files grow with schema-3 records ---------------------------------------------------


def test_v3_pure_append_is_a_delta_byte_for_byte(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v3.jsonl")
    before = path.read_bytes()
    with open_writer(path) as writer:
        snap = turn(writer.tree.snapshot(), "next question", "next answer")
        node = writer.save(snap)
        assert (node.kind, node.transition, node.revision) == (NodeKind.COMMIT, "snapshot_delta", 3)
        assert node.id == f"legacy:{len(before):016x}" and node.offset == len(before)
        reread_matches(writer)
    data = path.read_bytes()
    assert data.startswith(before)  # earlier bytes untouched
    appended = data[len(before) :]
    ts = str(NOW)
    expected = {
        "type": "snapshot_delta",
        "timestamp": ts,
        "delta": {
            "base_revision": 2,
            "session_id": "33333333-3333-4333-8333-333333333333",
            "revision": 3,
            "appended_history": [
                {"User": [{"Text": "next question"}]},
                {"Assistant": [{"Text": "next answer"}]},
            ],
            "provider": {
                "provider": "fixture-provider",
                "api": "fixture-api",
                "model": "fixture-model",
            },
            "compaction": {
                "completed_compactions": 0,
                "removed_messages": 0,
                "removed_tokens": 0,
                "removed_cost_usd_micros": 0,
                "last_previous_tokens": None,
                "last_current_tokens": None,
                "last_revision": None,
            },
            "metadata": {},
            "prompt_cache_key": "rho:delta-fixture",
        },
        "display_messages": [
            {"timestamp": ts, "message": {"User": [{"Text": "next question"}]}},
            {"timestamp": ts, "message": {"Assistant": [{"Text": "next answer"}]}},
        ],
    }
    assert appended == line(expected)  # compact JSON, this field order, one newline


def test_v3_compaction_writes_a_new_complete_base(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v3.jsonl")
    with open_writer(path) as writer:
        snap = writer.tree.snapshot()
        compacted = snap.replace(
            revision=3,
            history=(Message.user_text("summary"),),
            compaction=CompactionState(1, 1, 9, 0, 20, 11, 3),
        )
        node = writer.save(compacted)
        assert (node.kind, node.transition) == (NodeKind.COMPACTION, "snapshot")
        assert node.display == []
        record = json.loads(lines_of(path)[-1])
        assert record["type"] == "snapshot" and record["display_messages"] == []
        assert list(record) == ["type", "timestamp", "snapshot", "display_messages"]
        assert list(record["snapshot"]) == [
            "schema_version",
            "session_id",
            "revision",
            "history",
            "provider",
            "compaction",
            "prompt_cache_key",
        ]
        # after a complete base, deltas resume against it
        assert writer.save(turn(compacted, "q", "a")).transition == "snapshot_delta"
        reread_matches(writer)
        assert (
            writer.tree.display()[-3].message.text()
            == "◆ Compacted context\n20 → 11 estimated tokens"
        )


def test_v3_non_append_with_same_compaction_is_a_full_snapshot(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v3.jsonl")
    with open_writer(path) as writer:
        snap = writer.tree.snapshot()
        reset = snap.replace(
            revision=3, history=(Message.system_text("new prompt"), Message.user_text("hi"))
        )
        node = writer.save(reset)
        assert node.transition == "snapshot"
        assert [e.message.text() for e in node.display] == ["hi"]  # no system prompt in display
        reread_matches(writer)


def test_unchanged_save_in_a_legacy_file_extends_the_leaf(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v3.jsonl")
    with open_writer(path) as writer:
        leaf = writer.tree.active_leaf
        node = writer.save(writer.tree.snapshot(), display=[Message.assistant_text("host notice")])
        assert node is leaf and writer.tree.node_count == 2
        assert leaf.display[-1].message.text() == "host notice"
        reread_matches(writer)


def test_v1_file_gets_a_complete_snapshot_first(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v1.jsonl")
    with open_writer(path) as writer:
        snap = writer.tree.snapshot(provider=P)
        first = writer.save(turn(snap, "q1", "a1"))
        second = writer.save(turn(writer.tree.snapshot(), "q2", "a2"))
        assert (first.transition, second.transition) == ("snapshot", "snapshot_delta")
        assert first.kind is NodeKind.COMMIT  # same compaction, history extends the v1 state
        reread_matches(writer)
    snapshot = read_session(path).tree.snapshot()
    assert snapshot.revision == 6 and snapshot.provider == P
    assert [m.text() for m in snapshot.history][-2:] == ["q2", "a2"]


def test_header_only_legacy_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(transcript(header(version=3)))
    with open_writer(path) as writer:
        snap = SessionSnapshot.new(writer.tree.session_id, 1, [Message.user_text("x")], P)
        assert writer.save(snap).transition == "snapshot"
        reread_matches(writer)


def test_legacy_files_only_grow_at_the_end(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v1.jsonl")
    with open_writer(path) as writer:
        first = next(iter(writer.tree.nodes.values()))
        with pytest.raises(InputError, match="fork it into a new session"):
            writer.save(writer.tree.snapshot(provider=P), parent=first)
        with pytest.raises(InputError, match="no tree"):
            writer.set_leaf(first)


def test_fork_of_a_legacy_file_is_a_new_session(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v3.jsonl")
    session = read_session(path)
    first = next(iter(session.tree.nodes.values()))
    home = tmp_path / "home"
    with fork_session(session.tree, first, home, new_id="forked-1", clock=clock) as forked:
        assert (
            forked.path
            == home
            / "sessions"
            / workspace_key("/historical/workspace")
            / f"{NOW}_forked-1"
            / "session.jsonl"
        )
        snapshot = forked.tree.snapshot()
        assert (snapshot.session_id, snapshot.revision, snapshot.prompt_cache_key) == (
            "forked-1",
            1,
            "rho:delta-fixture",
        )
        assert [m.text() for m in snapshot.history] == ["delta prompt"]
        assert [e.timestamp for e in forked.tree.display()] == [
            "301"
        ]  # original display times kept
        reread_matches(forked)


# -- tree files grow with node and set_leaf records ----------------------------------------------


def v4_file(tmp_path: Path) -> Path:
    path = tmp_path / "s.jsonl"
    path.write_bytes(V4_EXAMPLE.encode())
    return path


def test_v4_append_delta_node_bytes(tmp_path: Path) -> None:
    path = v4_file(tmp_path)
    with open_writer(path) as writer:
        node = writer.save(turn(writer.tree.snapshot(), "more"))
        assert (node.transition, node.kind, node.parent.id) == (
            "snapshot_delta",
            NodeKind.COMMIT,
            "N3",
        )  # type: ignore[union-attr]
        reread_matches(writer)
    record = json.loads(lines_of(path)[-1])
    assert list(record) == [
        "type",
        "id",
        "parent_id",
        "timestamp",
        "kind",
        "transition",
        "display_messages",
    ]
    assert list(record["transition"]["delta"]) == [
        "base_revision",
        "session_id",
        "revision",
        "appended_history",
        "provider",
        "compaction",
        "metadata",
        "prompt_cache_key",
    ]
    assert record["transition"]["delta"]["metadata"] == {}  # always written
    assert len(record["id"]) == 36 and record["id"].count("-") == 4  # a UUID v4
    assert lines_of(path)[-1] == line(record)[:-1]


def test_v4_compaction_node_with_facts(tmp_path: Path) -> None:
    path = v4_file(tmp_path)
    with open_writer(path) as writer:
        snap = turn(writer.tree.snapshot(), "q", "a")
        writer.save(snap)
        compacted = snap.replace(
            revision=snap.revision + 1,
            history=snap.history[:1],
            compaction=snap.compaction.record(
                previous_messages=5,
                current_messages=1,
                previous_tokens=90,
                current_tokens=9,
                cost_usd_micros=5,
                revision=snap.revision + 1,
            ),
        )
        outcome = CompactionOutcome(5, 1, 90, 9, 5, compacted.revision)
        node = writer.save(compacted, outcome=outcome)
        assert node.kind is NodeKind.COMPACTION and node.transition == "snapshot"
        assert node.compaction_facts is not None and node.compaction_facts.cost_usd_micros == 5
        # derived facts when no outcome is given: parent/new lengths and the state's token pair
        again = compacted.replace(
            revision=compacted.revision + 1,
            compaction=compacted.compaction.record(
                previous_messages=1,
                current_messages=1,
                previous_tokens=9,
                current_tokens=7,
                cost_usd_micros=None,
                revision=9,
            ),
        )
        facts = writer.save(again).compaction_facts
        assert facts is not None and (
            facts.previous_messages,
            facts.current_messages,
            facts.previous_tokens,
            facts.current_tokens,
            facts.cost_usd_micros,
        ) == (1, 1, 9, 7, None)
        reread_matches(writer)
    record = json.loads(lines_of(path)[-1])
    assert list(record) == [
        "type",
        "id",
        "parent_id",
        "timestamp",
        "kind",
        "compaction_facts",
        "transition",
        "display_messages",
    ]
    assert list(record["compaction_facts"]) == [
        "previous_messages",
        "current_messages",
        "previous_tokens",
        "current_tokens",
        "cost_usd_micros",
    ]


def test_v4_set_leaf_and_fork(tmp_path: Path) -> None:
    path = v4_file(tmp_path)
    with open_writer(path) as writer:
        tree = writer.tree
        n1, n2 = tree.nodes["N1"], tree.nodes["N2"]
        size = path.stat().st_size
        assert writer.set_leaf(n2) is True
        assert writer.set_leaf(n2) is False and path.stat().st_size > size  # no second record
        size = path.stat().st_size
        assert writer.set_leaf(n2) is False and path.stat().st_size == size
        # the next save continues under N2 with a delta against N2's state
        node = writer.save(turn(tree.snapshot(n2), "after n2"))
        assert node.parent is n2 and node.transition == "snapshot_delta"
        # a fork from N1 with an older revision than the leaf is still legal (it grows from N1)
        forked = writer.fork(n1, turn(tree.snapshot(n1), "alt"))
        assert forked.parent is n1 and tree.active_leaf is forked and len(n1.children) == 3
        reread_matches(writer)
    assert json.loads(lines_of(path)[5]) == {
        "type": "set_leaf",
        "timestamp": str(NOW),
        "target_id": "N2",
    }


def test_v4_refuses_a_changed_state_without_a_revision_increase(tmp_path: Path) -> None:
    path = v4_file(tmp_path)
    before = path.read_bytes()
    with open_writer(path) as writer:
        snap = writer.tree.snapshot()
        with pytest.raises(IllegalRecord, match="without increasing the revision"):
            writer.save(snap.replace(history=snap.history + (Message.user_text("x"),)))
        assert writer.save(snap).transition == "snapshot_delta"  # an unchanged save is fine
    assert path.read_bytes().startswith(before)


def test_snapshot_of_another_session_is_refused(tmp_path: Path) -> None:
    with (
        open_writer(v4_file(tmp_path)) as writer,
        pytest.raises(InputError, match="cannot save session"),
    ):
        writer.save(SessionSnapshot.new("other", 9, [], P))


def test_empty_file_cannot_be_appended(tmp_path: Path) -> None:
    (tmp_path / "e.jsonl").write_bytes(b"")
    with pytest.raises(NoSessionState):
        SessionWriter(read_session(tmp_path / "e.jsonl"))


# -- new sessions ---------------------------------------------------------------------------------------


def test_new_session_layout_modes_and_records(tmp_path: Path) -> None:
    home = tmp_path / "rho"
    snap = SessionSnapshot.new(
        "0b7c1e2a-1111-4222-8333-444455556666",
        0,
        [Message.system_text("sys"), Message.user_text("hi")],
        P,
    )
    with create_session(
        home,
        "/home/alice/proj",
        snap,
        created=1767225600,
        agent_id="default",
        agent_fingerprint="ab" * 32,
        clock=clock,
    ) as writer:
        folder = (
            home
            / "sessions"
            / "-home-alice-proj-55e702b525f26764"
            / f"1767225600_{snap.session_id}"
        )
        assert writer.path == folder / "session.jsonl"
        modes = {
            p: oct(p.stat().st_mode & 0o777)
            for p in (home / "sessions", folder.parent, folder, writer.path)
        }
        assert set(modes.values()) == {"0o700", "0o600"} and modes[writer.path] == "0o600"
        assert modes[folder] == modes[folder.parent] == modes[home / "sessions"] == "0o700"
        first, second = lines_of(writer.path)
        assert first == (
            b'{"type":"session","version":3,"id":"0b7c1e2a-1111-4222-8333-444455556666",'
            b'"timestamp":"1767225600","cwd":"/home/alice/proj","agent_id":"default",'
            b'"agent_fingerprint":"' + b"ab" * 32 + b'"}'
        )
        record = json.loads(second)
        assert record["type"] == "snapshot" and record["display_messages"] == [
            {"timestamp": str(NOW), "message": {"User": [{"Text": "hi"}]}}
        ]
        writer.save(turn(snap, "hello"))
        reread_matches(writer)
        assert writer.tree.format_version == 3
    # strict re-read with the name check Rho applies
    assert read_session(folder).tree.session_id == snap.session_id


@pytest.mark.parametrize("bad", ["a_b", "a/b", " x", "..", "x" * 201])
def test_new_session_ids_must_name_a_folder(tmp_path: Path, bad: str) -> None:
    snap = SessionSnapshot.new("ok", 0, [], P).replace(session_id=bad)
    with pytest.raises(InputError, match="cannot name a session folder"):
        create_session(tmp_path, "/w", snap)


def test_creating_twice_is_refused(tmp_path: Path) -> None:
    snap = SessionSnapshot.new("dup", 0, [], P)
    create_session(tmp_path, "/w", snap, created=5).close()
    with pytest.raises(InputError, match="already exists"):
        create_session(tmp_path, "/w", snap, created=5)


# -- torn tails and missing newlines (§8.5) ------------------------------------------------------


def test_torn_tail_is_cut_only_when_appending(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    whole = v4_simple(3)
    torn = whole[:-30]
    path.write_bytes(torn)
    session = read_session(path)
    assert session.notes and path.read_bytes() == torn  # reading repairs nothing
    with SessionWriter(session, clock=clock) as writer:
        node = writer.save(turn(writer.tree.snapshot(), "x"))
        assert node.parent is not None and node.parent.id == "n2" and node.line == 4
        reread_matches(writer)
    data = path.read_bytes()
    assert data.startswith(torn[: session.valid_end]) and not read_session(path).notes


def test_missing_final_newline_gets_one(tmp_path: Path) -> None:
    path = copy(tmp_path, "session-v3.jsonl")
    original = path.read_bytes()
    path.write_bytes(original[:-1])
    with open_writer(path) as writer:
        node = writer.save(turn(writer.tree.snapshot(), "x"))
        assert node.offset == len(original)  # the line starts after the added "\n"
        reread_matches(writer)
    assert path.read_bytes().startswith(original)


# -- the optimistic revision check ----------------------------------------------------------------------


def test_conflict_when_someone_appended(tmp_path: Path) -> None:
    path = v4_file(tmp_path)
    with open_writer(path) as writer:
        with open(path, "ab") as other:
            other.write(line({"type": "set_leaf", "timestamp": "1", "target_id": "N1"}))
        after_other = path.read_bytes()
        with pytest.raises(RevisionConflict, match="changed on disk"):
            writer.save(turn(writer.tree.snapshot(), "mine"))
        assert path.read_bytes() == after_other  # nothing written


def test_conflict_when_the_tail_was_rewritten_in_place(tmp_path: Path) -> None:
    path = v4_file(tmp_path)
    with open_writer(path) as writer:
        data = bytearray(path.read_bytes())
        data[-20:-15] = b"XXXXX"
        st = path.stat()
        with open(path, "r+b") as handle:  # same inode, same size
            handle.write(bytes(data))
        with pytest.raises(RevisionConflict, match="it was modified"):
            writer.save(writer.tree.snapshot())
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # even with the old mtime put back
        with pytest.raises(RevisionConflict, match="last bytes differ"):
            writer.save(writer.tree.snapshot())


def test_conflict_when_the_file_was_replaced_or_removed(tmp_path: Path) -> None:
    path = v4_file(tmp_path)
    with open_writer(path) as writer:
        data = path.read_bytes()
        os.link(path, tmp_path / "old")  # keeps the old inode busy, so it cannot be reused
        path.unlink()
        with pytest.raises(RevisionConflict, match="gone"):
            writer.save(writer.tree.snapshot())
        path.write_bytes(data)
        (tmp_path / "copy").write_bytes(data)
        os.replace(tmp_path / "copy", path)  # same bytes, another inode
        with pytest.raises(RevisionConflict, match="replaced"):
            writer.save(writer.tree.snapshot())


# -- faults: ENOSPC and EIO on write and on sync ---------------------------------------------------------


@pytest.mark.parametrize("where", ["write", "fdatasync"])
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
def test_faults_leave_the_previous_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, code: int
) -> None:
    path = copy(tmp_path, "session-v3.jsonl")
    writer = open_writer(path)
    writer.save(turn(writer.tree.snapshot(), "kept"))
    before = path.read_bytes()
    expected = encode(read_session(path).tree.snapshot())
    real_write, real_sync = os.write, os.fdatasync
    calls = []

    def bad_write(fd: int, data: object) -> int:
        if bytes(data[:8]) == b'{"type":':  # type: ignore[index]
            calls.append("write")
            half = memoryview(data)[: len(data) // 2]  # type: ignore[arg-type]
            real_write(fd, half)  # a partial write reached the disk
            raise OSError(code, os.strerror(code))
        return real_write(fd, data)  # type: ignore[arg-type]

    def bad_sync(fd: int) -> None:
        if os.fstat(fd).st_size > len(before):
            calls.append("sync")
            raise OSError(code, os.strerror(code))
        real_sync(fd)

    with monkeypatch.context() as patch:
        patch.setattr(
            os,
            "write" if where == "write" else "fdatasync",
            bad_write if where == "write" else bad_sync,
        )
        with pytest.raises(SessionWriteError) as caught:
            writer.save(turn(writer.tree.snapshot(), "lost"))
    assert calls and isinstance(caught.value, StorageError)
    assert isinstance(caught.value.__cause__, OSError) and caught.value.__cause__.errno == code
    assert "previous state stands" in str(caught.value)
    assert path.read_bytes() == before  # cut back to the previous length
    assert encode(read_session(path).tree.snapshot()) == expected
    assert writer.tree.snapshot().revision == 3  # the in-memory tree did not take the failed save
    node = writer.save(turn(writer.tree.snapshot(), "after the disk recovered"))
    assert node.revision == 4
    reread_matches(writer)
    writer.close()


# -- leases --------------------------------------------------------------------------------------------------


def test_an_open_writer_blocks_deletion(tmp_path: Path) -> None:
    home = tmp_path / "home"
    writer = create_session(home, "/w", SessionSnapshot.new("s1", 0, [], P), created=7)
    unit = unit_for_path(writer.path)
    with pytest.raises(SessionInUse):
        delete_session(unit)
    writer.close()
    report = delete_session(unit)
    assert report.session_id == "s1" and not unit.unit_path.exists()
    assert unit.lease().exists()  # the lease file stays


# -- the pure-append test -----------------------------------------------------------------------------------


def test_same_prefix() -> None:
    base = tuple(Message.user_text(str(i)) for i in range(1000))
    grown = base + (Message.user_text("new"),)
    assert same_prefix(grown, base) and same_prefix(base, base) and same_prefix(base, ())
    copies = tuple(Message.user_text(str(i)) for i in range(1000))  # equal, not identical
    assert same_prefix(grown, copies)
    changed = (*base[:10], Message.user_text("edited"), *base[11:], Message.user_text("new"))
    assert not same_prefix(changed, base)
    assert not same_prefix(base[:5], base)
    assert same_prefix(list(grown), list(base))  # any sequence, by value


def test_validation_happens_before_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer applies each record to the tree with the reader's rules before writing it."""
    path = v4_file(tmp_path)
    before = path.read_bytes()
    with open_writer(path) as writer:
        bad = writer_module.NodeRecord(
            id="N1",
            parent_id="N3",
            timestamp="1",
            kind=NodeKind.COMMIT,
            transition=writer_module.SnapshotTransition(writer.tree.snapshot()),
        )
        with pytest.raises(IllegalRecord, match="duplicate node id"):
            writer._append_record(bad)
        assert path.read_bytes() == before
        for i in range(5):
            writer.save(turn(writer.tree.snapshot(), f"q{i}", f"a{i}"))
    assert parse_session(path.read_bytes()).tree.node_count == 8


def test_a_legacy_file_rho_upgraded_grows_with_tree_records(tmp_path: Path) -> None:
    from .helpers import V3_UPGRADE_EXAMPLE

    path = copy(tmp_path, "session-v3.jsonl")
    with open(path, "ab") as handle:
        handle.write(V3_UPGRADE_EXAMPLE.encode())
    with open_writer(path) as writer:
        assert writer.tree.upgraded and writer.tree.is_tree
        node = writer.save(turn(writer.tree.snapshot(), "after the upgrade"))
        assert (node.parent.id, node.transition, node.virtual) == (
            "<uuid4>",
            "snapshot_delta",
            False,
        )  # type: ignore[union-attr]
        assert (
            writer.set_leaf(writer.tree.nodes["legacy:000000000000007b"]) is True
        )  # legal after the marker
        reread_matches(writer)
    assert json.loads(lines_of(path)[-2])["type"] == "node"
