"""Atomic writes: all or nothing, no temp files left, 0600, no silent overwrite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_desk.core.errors import StorageError
from rho_desk.core.export import OutputExists, write_files_atomic


def test_both_files_are_written_private(tmp_path: Path) -> None:
    a, b = tmp_path / "out" / "e.json", tmp_path / "out" / "e.json.receipt.json"
    write_files_atomic([(a, b"export"), (b, b"receipt")])
    assert a.read_bytes() == b"export" and b.read_bytes() == b"receipt"
    assert a.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in a.parent.iterdir()) == ["e.json", "e.json.receipt.json"]


def test_existing_files_are_kept_unless_overwrite(tmp_path: Path) -> None:
    a, b = tmp_path / "e.json", tmp_path / "r.json"
    b.write_bytes(b"old")
    with pytest.raises(OutputExists, match="--force"):
        write_files_atomic([(a, b"new"), (b, b"new")])
    assert not a.exists() and b.read_bytes() == b"old"
    write_files_atomic([(a, b"new"), (b, b"new")], overwrite=True)
    assert b.read_bytes() == b"new"


def test_a_failed_fsync_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = {"n": 0}
    real = os.fsync

    def flaky(fd: int) -> None:
        calls["n"] += 1
        if calls["n"] == 2:  # the receipt's temp file
            raise OSError(28, "No space left on device")
        real(fd)

    monkeypatch.setattr(os, "fsync", flaky)
    with pytest.raises(StorageError, match="No space left"):
        write_files_atomic([(tmp_path / "e.json", b"x" * 1000), (tmp_path / "r.json", b"y")])
    assert list(tmp_path.iterdir()) == []


def test_a_failed_second_replace_rolls_back_the_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.replace

    def flaky(src: str, dst: str) -> None:
        if str(dst).endswith("r.json"):
            raise OSError(5, "Input/output error")
        real(src, dst)

    monkeypatch.setattr(os, "replace", flaky)
    with pytest.raises(StorageError):
        write_files_atomic([(tmp_path / "e.json", b"x"), (tmp_path / "r.json", b"y")])
    assert list(tmp_path.iterdir()) == []
