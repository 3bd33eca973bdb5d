"""Rho's text shapes: output budgets, numbered views, hashline tags, chain snapshots, and the
``edit`` document (parse, apply, failures with a live snapshot), checked against Rho's own cases."""

from __future__ import annotations

import pytest

from rho_desk.core.tools import hashline
from rho_desk.core.tools.text import (
    chain_snapshot,
    file_hash,
    numbered_view,
    post_edit_preview,
    split_content_lines,
    truncate,
    unified_diff,
)


def test_truncate_cuts_at_a_character_boundary_and_marks_it() -> None:
    assert truncate("abcdef", 3) == "abc\n[truncated]"
    assert truncate("aébc", 2) == "a\n[truncated]"
    assert truncate("aébc", 3) == "aé\n[truncated]"
    assert truncate("short", 64_000) == "short"


def test_lines_and_views() -> None:
    assert split_content_lines("a\r\nb\n") == ["a", "b"]
    assert split_content_lines("a\n\n") == ["a", ""]
    assert split_content_lines("") == []
    text = "".join(f"l{n}\n" for n in range(1, 11))
    assert numbered_view("[f#0000]", text, 3, 2) == (
        "[f#0000]\n3:l3\n4:l4\n\n[lines 3-4 of 10 shown; re-read with a different offset or limit for the rest]"
    )
    with pytest.raises(ValueError, match=r"offset 11 is past the end of the file \(10 line\(s\)\)"):
        numbered_view("h", text, 11, None)


def test_file_hash_ignores_trailing_blanks_per_line() -> None:
    assert file_hash("hello\n") == file_hash("hello  \n") == file_hash("hello\t\r\n")
    assert file_hash("hello\n") != file_hash("hello\n\n")
    assert file_hash("original line\n") == "8022"  # Rho's own test value


def test_chain_snapshot_shows_head_and_tail_of_long_files() -> None:
    text = "".join(f"{n}\n" for n in range(1, 101))
    snapshot = chain_snapshot("big.txt", text)
    lines = snapshot.splitlines()
    assert lines[0] == f"[big.txt#{file_hash(text)}]" and lines[1] == "1:1" and lines[28] == "28:28"
    assert lines[29] == "…" and lines[30] == "93:93" and lines[37] == "100:100"
    assert lines[-1] == "[showing 36 of 100 lines; re-read with offset/limit for other lines]"


def test_unified_diff_uses_one_line_of_context() -> None:
    diff = unified_diff("a\nb\nc\nd\n", "a\nB\nc\nd\n", "f.txt", False)
    assert diff == "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
    assert unified_diff("x", "x", "f", False) == "No changes."
    assert unified_diff("", "new\n", "n.txt", True).startswith("--- /dev/null\n+++ b/n.txt\n")


SOURCE = "one\ntwo\nthree\nfour\nfive\n"


def apply(document: str, text: str = SOURCE) -> str:
    (section,) = hashline.parse_hashline(document)
    new, _focus = hashline.apply_ops(text, section.tag, section.ops)
    return new


def test_hashline_operations() -> None:
    tag = file_hash(SOURCE)
    assert apply(f"[f#{tag}]\nPUT 2:\n+TWO\n") == "one\nTWO\nthree\nfour\nfive\n"
    assert apply(f"[f#{tag}]\nPUT 2.=4:\n+middle\n") == "one\nmiddle\nfive\n"
    assert apply(f"[f#{tag}]\nPUT 2-3:\n+x\n+y\n+z\n") == "one\nx\ny\nz\nfour\nfive\n"
    assert apply(f"[f#{tag}]\nCUT 1.=2\nPUT >$:\n+six\n") == "three\nfour\nfive\nsix\n"
    assert (
        apply(f"[f#{tag}]\nPUT <1:\n+zero\nPUT >5:\n+after\n")
        == "zero\none\ntwo\nthree\nfour\nfive\nafter\n"
    )
    crlf = SOURCE.replace("\n", "\r\n")
    assert apply(f"[f#{file_hash(crlf)}]\nPUT 1:\n+ONE\n", crlf) == crlf.replace("one", "ONE")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ("PUT 1:\n+x", "hashline op outside a [path#TAG] section: PUT 1:"),
        ("[f#12]\nPUT 1:\n+x", "hashline tag must be 4 hex digits, got: [f#12]"),
        ("[f#ABCD]\nPUT 3.:\n+x", 'hashline range "3." looks like a truncated N.=M'),
        ("[f#ABCD]\nPUT 3:", "PUT 3.=3: requires at least one + body row (use CUT to delete)"),
        ("[f#ABCD]\nPUT 5.=2:\n+x", "range start 5 is after end 2"),
        ("[f#ABCD]", "hashline section [f#ABCD] has no operations"),
        (
            "[f#ABCD]\nREPLACE 1",
            "unrecognized hashline line (expected PUT/CUT or [path#TAG]): REPLACE 1",
        ),
    ],
)
def test_hashline_parse_errors(document: str, message: str) -> None:
    with pytest.raises(hashline.ApplyError) as info:
        hashline.parse_hashline(document)
    assert str(info.value).startswith(message)


def test_hashline_apply_failures() -> None:
    tag = file_hash(SOURCE)
    with pytest.raises(
        hashline.ApplyError, match="hashline tag mismatch: expected 0000, live file is"
    ):
        apply("[f#0000]\nPUT 1:\n+x\n")
    with pytest.raises(
        hashline.ApplyError, match=r"line range 4.=9 is outside the file \(5 line\(s\)\)"
    ):
        apply(f"[f#{tag}]\nPUT 4.=9:\n+x\n")
    with pytest.raises(
        hashline.ApplyError, match=r"overlapping hashline ops: replace 1\.=3 and delete 2\.=2"
    ):
        apply(f"[f#{tag}]\nPUT 1.=3:\n+x\nCUT 2\n")


def test_post_edit_preview_and_summary() -> None:
    tag = file_hash(SOURCE)
    (section,) = hashline.parse_hashline(f"[f#{tag}]\nPUT 2:\n+TWO\nCUT 4\n")
    new, focus = hashline.apply_ops(SOURCE, section.tag, section.ops)
    assert hashline.ops_summary(section.ops) == "PUT 2: (1 → 1 line(s)); CUT 4 (1 line)"
    assert (
        post_edit_preview("f", new, focus, False)
        == f"[f#{file_hash(new)}]\n1:one\n2:TWO\n3:three\n4:five"
    )
