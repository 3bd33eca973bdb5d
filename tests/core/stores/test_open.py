"""Opening what a user points at: one way to name a failed read, one way to open a document."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from rho_desk.core.errors import InputError, StorageError
from rho_desk.core.stores.open import open_document, open_snapshot
from rho_desk.core.stores.rho_files.errors import read_failure
from rho_desk.core.stores.rho_files.reader import read_session
from rho_desk.core.stores.rho_files.repair import plan_repair
from rho_desk.core.wire.codec import encode_pretty

READERS = {
    "read_session": lambda p: read_session(p),
    "plan_repair": plan_repair,
    "open_snapshot": open_snapshot,
    "open_document": open_document,
}


def test_read_failures_are_named_once() -> None:
    assert isinstance(read_failure(FileNotFoundError(errno.ENOENT, "x"), "s.jsonl"), InputError)
    assert (
        str(read_failure(FileNotFoundError(errno.ENOENT, "x"), "s.jsonl"))
        == "s.jsonl: no such file"
    )
    denied = read_failure(PermissionError(errno.EACCES, "Permission denied"), "s.jsonl")
    assert isinstance(denied, StorageError) and not isinstance(denied, InputError)
    assert str(denied) == "s.jsonl: cannot read: Permission denied"
    assert isinstance(
        read_failure(OSError(errno.EIO, "Input/output error"), "s.jsonl"), StorageError
    )


CASES = [
    (name, file)
    for name in READERS
    for file in ("gone.jsonl", "gone.json")
    if not (name == "plan_repair" and file.endswith(".json"))
]  # repair reads transcripts only


@pytest.mark.parametrize(("reader", "name"), CASES, ids=[f"{r}-{n}" for r, n in CASES])
def test_every_reader_names_a_missing_file_alike(tmp_path: Path, reader: str, name: str) -> None:
    with pytest.raises(InputError) as caught:
        READERS[reader](tmp_path / name)
    assert str(caught.value).endswith(": no such file")


def test_a_snapshot_document_opens_as_a_one_revision_tree(
    tmp_path: Path, rho_fixtures: Path
) -> None:
    snapshot = open_snapshot(rho_fixtures / "session-v3.jsonl")
    path = tmp_path / "snapshot.json"
    path.write_bytes(encode_pretty(snapshot))
    file, is_snapshot = open_document(path)
    assert is_snapshot and file.path == path
    assert file.tree.snapshot() == snapshot
    assert [e.message for e in file.tree.display()] == [
        m for m in snapshot.history if m.system is None
    ]
