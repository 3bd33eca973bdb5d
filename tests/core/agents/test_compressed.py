"""Codex's cold rollouts, compressed to ``rollout-*.jsonl.zst`` (``codex-rs/rollout/src/
compression.rs``): listed, detected, read, shown and imported as the plain file is, every zstd
frame read, a damaged stream reported with the file and the line, and what it decompresses to
held to the reader's limits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

from rho_desk.core.agents import detect, open_session
from rho_desk.core.agents import jsonl as jsonl_module
from rho_desk.core.agents.codex import session_files
from rho_desk.core.agents.importer import import_session
from rho_desk.core.agents.library import AgentLibrary
from rho_desk.core.errors import InputError
from rho_desk.core.stores.rho_files import read_session

from .conftest import MAIN


def _compress(plain: Path, *, frames: int = 2, remove: bool = True) -> Path:
    """``plain`` as ``plain.zst`` in ``frames`` zstd frames (Codex appends frames to a compressed
    rollout), the plain file removed as Codex removes it."""
    data = plain.read_bytes()
    lines = data.splitlines(keepends=True)
    cut = len(lines) // frames
    parts = [
        b"".join(lines[i * cut : (i + 1) * cut if i < frames - 1 else None]) for i in range(frames)
    ]
    packed = plain.with_name(plain.name + ".zst")
    packed.write_bytes(b"".join(zstandard.ZstdCompressor(level=3).compress(part) for part in parts))
    if remove:
        plain.unlink()
    return packed


@pytest.fixture
def rollout(homes: dict[str, Path]) -> tuple[Path, Path]:
    """The Codex fixture rollout and a copy of it compressed (the plain one moved aside)."""
    plain = homes["codex"] / MAIN["codex"]
    keep = plain.with_name("kept.jsonl.plain")
    keep.write_bytes(plain.read_bytes())
    return keep, _compress(plain)


def test_a_compressed_rollout_reads_as_the_plain_one(rollout: tuple[Path, Path]) -> None:
    plain_copy, packed = rollout
    plain = plain_copy.with_name(packed.name.removesuffix(".zst").replace("rollout-", "plain-"))
    plain.write_bytes(plain_copy.read_bytes())
    assert detect(packed) == "codex"
    ours, theirs = open_session(packed, agent="codex"), open_session(plain, agent="codex")
    assert ours.tree.node_count == theirs.tree.node_count > 1  # both frames read
    assert ours.tree.history() == theirs.tree.history()
    assert [e.message for e in ours.tree.display()] == [e.message for e in theirs.tree.display()]
    assert ours.log.session_id == theirs.log.session_id


def test_the_library_lists_a_compressed_rollout_once(
    homes: dict[str, Path], rollout: tuple[Path, Path], tmp_path: Path
) -> None:
    _, packed = rollout
    assert packed in session_files(homes["codex"])
    with AgentLibrary("codex", homes["codex"], cache_dir=tmp_path / "cache") as library:
        library.refresh()
        assert packed.as_posix() in [s.path for s in library.list().sessions]
    # Codex decompresses it before appending: while both are there, the plain file is the rollout
    restored = packed.with_suffix("")
    restored.write_bytes(rollout[0].read_bytes())
    found = session_files(homes["codex"])
    assert restored in found and packed not in found


def test_a_compressed_rollout_imports_and_shows(rollout: tuple[Path, Path], tmp_path: Path) -> None:
    _, packed = rollout
    first = import_session(packed, home=tmp_path / "rho")
    assert (
        first.created
        and read_session(first.transcript).tree.history() == open_session(packed).tree.history()
    )
    assert import_session(packed, home=tmp_path / "rho").noop
    shown = subprocess.run(
        [sys.executable, "-m", "rho_desk", "show", str(packed)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert "agent     codex" in shown.stdout


@pytest.mark.parametrize("damage", ["cut", "garbage"])
def test_a_damaged_stream_is_reported_with_the_file(
    rollout: tuple[Path, Path], damage: str
) -> None:
    plain, packed = rollout
    lines = plain.read_bytes().splitlines(keepends=True)
    zstd = zstandard.ZstdCompressor(level=3)
    second = zstd.compress(b"".join(lines[4:]))
    tail = second[: len(second) // 2] if damage == "cut" else b"\x00garbage" * 8
    packed.write_bytes(zstd.compress(b"".join(lines[:4])) + tail)
    with pytest.raises(InputError, match="the compressed stream is damaged") as caught:
        open_session(packed, agent="codex")
    assert str(packed) in str(caught.value)
    tolerant = open_session(
        packed, agent="codex", tolerant=True
    )  # a viewer: what came before, and a note
    assert [n.line for n in tolerant.notes] == [5] and "damaged" in tolerant.notes[0].reason


def test_what_a_stream_decompresses_to_is_held_to_the_size_limit(
    rollout: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, packed = rollout
    assert packed.stat().st_size < 4000
    monkeypatch.setattr(jsonl_module, "MAX_FILE_BYTES", 4000)  # a small limit stands for 4 GiB
    with pytest.raises(InputError, match="decompresses to more than the 4000 bytes"):
        open_session(packed, agent="codex")
