"""Reading only what was appended to a transcript, and refusing anything else (the core tail reader)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rho_desk.core.stores.rho_files import read_session
from rho_desk.core.stores.rho_files.tail import NeedsFullReload, apply_appended, read_appended

from .helpers import append_turn, v3_session, v4_session


def test_nothing_appended_is_empty(tmp_path: Path) -> None:
    file = read_session(v3_session(tmp_path))
    appended = read_appended(file)
    assert appended.empty and appended.size == file.size


def test_an_appended_delta_is_read_alone_and_applies_like_a_full_read(tmp_path: Path) -> None:
    path = v3_session(tmp_path)
    file = read_session(path)
    before = file.size
    append_turn(path)
    appended = read_appended(file)
    assert len(appended.records) == 1 and appended.records[0][2] == before
    apply_appended(file, appended)
    full = read_session(path)
    assert file.tree.history() == full.tree.history()
    assert [n.id for n in file.tree.nodes.values()] == [n.id for n in full.tree.nodes.values()]
    assert (file.size, file.valid_end, file.line_count, file.tail) == (
        full.size,
        full.valid_end,
        full.line_count,
        full.tail,
    )
    assert file.end == full.end
    assert (
        file.tree.display()[-1].message is file.tree.history()[-1]
    )  # one object, as in a full read


def test_v4_records_apply_too(tmp_path: Path) -> None:
    path = v4_session(tmp_path)
    file = read_session(path)
    with open(path, "ab") as handle:
        handle.write(b'{"type":"set_leaf","timestamp":"1767100009","target_id":"b1"}\n')
    apply_appended(file, read_appended(file))
    assert file.tree.active_leaf is file.tree.nodes["b1"]


def test_a_torn_append_waits_for_the_rest(tmp_path: Path) -> None:
    path = v4_session(tmp_path)
    file = read_session(path)
    with open(path, "ab") as handle:
        handle.write(b'{"type":"set_leaf","timestamp":"17671')
    appended = read_appended(file)
    assert appended.empty and appended.torn
    apply_appended(file, appended)
    assert not file.torn  # the fragment is not ours yet: the next look reads it again, whole
    with open(path, "ab") as handle:
        handle.write(b'00009","target_id":"b1"}\n')
    appended = read_appended(file)
    assert len(appended.records) == 1 and not appended.torn
    apply_appended(file, appended)
    full = read_session(path)
    assert file.tree.active_leaf is file.tree.nodes["b1"]
    assert file.end == full.end


def test_an_append_after_a_record_without_newline(tmp_path: Path) -> None:
    path = v4_session(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:-1])  # the last record without its "\n"
    file = read_session(path)
    assert not file.ends_with_newline
    with open(path, "ab") as handle:
        handle.write(b'\n{"type":"set_leaf","timestamp":"1767100009","target_id":"b1"}\n')
    apply_appended(file, read_appended(file))
    full = read_session(path)
    assert file.tree.active_leaf is file.tree.nodes["b1"] and file.end == full.end


@pytest.mark.parametrize("change", ["replace", "shrink", "rewrite", "garbage"])
def test_anything_but_a_clean_append_needs_a_full_read(tmp_path: Path, change: str) -> None:
    path = v4_session(tmp_path)
    file = read_session(path)
    data = path.read_bytes()
    if change == "replace":
        tmp = path.with_suffix(".new")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    elif change == "shrink":
        path.write_bytes(data[:-10])
    elif change == "rewrite":
        # changed inside the last 4 KiB (what the check compares, like the writer's), then grown
        at = data.rindex(b'"target_id":"n3"')
        path.write_bytes(data[:at] + b'"target_id":"n0"' + data[at + 16 :] + b"\n")
    else:
        with open(path, "ab") as handle:
            handle.write(b'{"type":"mystery"}\n')
    with pytest.raises(NeedsFullReload):
        read_appended(file)
