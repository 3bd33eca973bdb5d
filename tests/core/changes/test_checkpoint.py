"""Rho's checkpoint journal: the strict reader on upstream's cases, the encoding, capture and the
restore policy (plan and apply) on real files."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from rho_desk.core.changes.checkpoint import (
    Absent,
    BasicFileMetadata,
    CapturedRegularFile,
    CheckpointOutcome,
    FileCheckpoint,
    ObservedRegular,
    RestoreClassification,
    Unsupported,
    UnsupportedPath,
    apply_restore,
    capture_original,
    classify_restore,
    encode_record,
    observe_path,
    plan_restore,
    read_journal,
    read_journal_bytes,
    sha256_hex,
)
from rho_desk.core.errors import InputError

FIXTURES = Path(__file__).parents[2] / "fixtures" / "checkpoints"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def test_binary_capture_reads_and_reencodes_byte_for_byte() -> None:
    data = fixture("binary-recovered.jsonl")
    journal = read_journal_bytes(data)
    first, second = journal.checkpoints
    assert journal.valid_len == len(data)
    assert isinstance(first.files[0].original, CapturedRegularFile)
    assert first.files[0].original.bytes == bytes([0, 0xFF, 0x80, 0x0A])
    assert first.files[0].original.metadata == BasicFileMetadata(False, 0o644)
    assert first.files[0].expected_after == ObservedRegular(
        sha256_hex(bytes([0xFE, 0, 0x81])), 3, BasicFileMetadata(False, 0o644)
    )
    assert first.outcome is CheckpointOutcome.COMPLETED and first.revision == 4
    assert [(e.kind, e.source) for e in first.limitations] == [("shell_command", "shell")]
    assert (
        isinstance(second.files[0].original, Absent)
        and second.outcome is CheckpointOutcome.CANCELLED
    )
    # the encoder writes exactly what serde wrote: field order, tags, omitted unix_mode
    assert encode_record(first) + encode_record(second) == data
    case = read_journal_bytes(fixture("restore-plan.jsonl")).checkpoints[0]
    assert encode_record(case) == fixture("restore-plan.jsonl")


@pytest.mark.parametrize("name", ["binary-torn-tail.jsonl", "binary-torn-tail-closed.jsonl"])
def test_a_torn_or_bad_last_line_is_dropped_not_fatal(name: str) -> None:
    data = fixture(name)
    journal = read_journal_bytes(data)
    assert len(journal.checkpoints) == 1
    assert journal.valid_len == data.index(b"\n") + 1


@pytest.mark.parametrize(
    ("name", "reason", "line"),
    [
        ("corrupt-middle.jsonl", "invalid checkpoint journal record", 2),
        ("future-version.jsonl", "unsupported workspace checkpoint version 2", 2),
        ("duplicate-node.jsonl", "duplicate workspace checkpoint node", 2),
    ],
)
def test_corrupt_future_and_duplicate_records_are_errors_with_the_line(
    name: str, reason: str, line: int, tmp_path: Path
) -> None:
    path = tmp_path / "checkpoints.jsonl"
    path.write_bytes(fixture(name))
    with pytest.raises(InputError) as caught:
        read_journal(path)
    assert reason in caught.value.text()
    assert f"{path}:{line}" in caught.value.text()


def test_missing_limitations_default_to_none_and_too_large_is_read() -> None:
    (checkpoint,) = read_journal_bytes(fixture("too-large-no-limitations-field.jsonl")).checkpoints
    assert checkpoint.limitations == ()
    assert checkpoint.files[0].original == Unsupported(UnsupportedPath("too_large", 4, 3))


def test_a_symlinked_journal_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.jsonl"
    real.write_bytes(fixture("binary-recovered.jsonl"))
    link = tmp_path / "checkpoints.jsonl"
    link.symlink_to(real)
    with pytest.raises(InputError, match="symlink"):
        read_journal(link)
    assert read_journal(tmp_path / "none.jsonl").checkpoints == ()


def test_restore_plan_classifies_upstreams_six_cases() -> None:
    (checkpoint,) = read_journal_bytes(fixture("restore-plan.jsonl")).checkpoints
    meta = BasicFileMetadata(False, None)

    def observed(data: bytes) -> ObservedRegular:
        return ObservedRegular(sha256_hex(data), len(data), meta)

    current = {
        "create": Absent(),
        "modify binary": observed(bytes([0xFE, 0, 0x81])),
        "delete": observed(b"new"),
        "conflict": observed(b"external"),
        "unsupported": Unsupported(UnsupportedPath("symlink")),
        "skipped": observed(b"unchanged"),
    }
    entries, limitations = plan_restore(checkpoint, current)
    assert [(e.path, e.classification) for e in entries] == [
        ("create", RestoreClassification.CREATE),
        ("modify binary", RestoreClassification.MODIFY),
        ("delete", RestoreClassification.DELETE),
        ("conflict", RestoreClassification.CONFLICT),
        ("unsupported", RestoreClassification.UNSUPPORTED),
        ("skipped", RestoreClassification.SKIPPED),
    ]
    assert [(e.kind, e.source) for e in limitations] == [
        ("untracked_mutating_tool", "third-party tool")
    ]
    # metadata is part of the state: a chmod since the turn is a conflict too
    chmodded = ObservedRegular(sha256_hex(bytes([0xFE, 0, 0x81])), 3, BasicFileMetadata(True, None))
    assert classify_restore(checkpoint.files[1], chmodded) is RestoreClassification.CONFLICT


def test_capture_observe_and_apply_on_real_files(tmp_path: Path) -> None:
    created_before = tmp_path / "created-before.txt"
    modified = tmp_path / "modified.bin"
    deleted_before = tmp_path / "gone" / "deleted-before.txt"
    conflicted = tmp_path / "conflicted.txt"
    created_before.write_bytes(b"original")
    modified.write_bytes(bytes([0, 0xFF, 0x80]))
    conflicted.write_bytes(b"original")
    os.chmod(modified, 0o640)
    originals = {
        p: capture_original(p) for p in (created_before, modified, deleted_before, conflicted)
    }
    created_before.unlink()
    modified.write_bytes(bytes([0xFE, 0, 0x81]))
    deleted_before.parent.mkdir()
    deleted_before.write_bytes(b"agent-created")
    conflicted.write_bytes(b"agent-change")
    files = [FileCheckpoint(str(p), originals[p], observe_path(p)) for p in originals]
    conflicted.write_bytes(b"external-change")
    for file in files:
        classification = classify_restore(file, observe_path(file.path))
        if classification.mutates:
            apply_restore(file, classification)
    assert created_before.read_bytes() == b"original"
    assert modified.read_bytes() == bytes([0, 0xFF, 0x80])
    assert (os.stat(modified).st_mode & 0o777) == 0o640  # metadata restored with the content
    assert not deleted_before.exists()
    assert conflicted.read_bytes() == b"external-change"
    assert not [p for p in tmp_path.rglob("*") if ".rho-rewind-" in p.name]


def test_capture_refuses_symlinks_and_large_files(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_bytes(b"1234")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert capture_original(link) == Unsupported(UnsupportedPath("symlink"))
    assert capture_original(target, 3) == Unsupported(UnsupportedPath("too_large", 4, 3))
    assert capture_original(tmp_path) == Unsupported(UnsupportedPath("non_regular"))
    assert isinstance(capture_original(tmp_path / "missing"), Absent)
    original = capture_original(target)
    assert isinstance(original, CapturedRegularFile)
    assert base64.b64encode(original.bytes) == b"MTIzNA=="
