"""``grep`` and ``glob`` result text and walk rules, on Rho's own cases (real files)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.tools import ToolError
from rho_desk.core.tools.search import (
    GlobRequest,
    GrepRequest,
    compile_glob,
    glob_workspace,
    grep_workspace,
)
from rho_desk.core.tools.text import file_hash


def write(root: Path, relative: str, content: str | bytes) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


def grep(root: Path, **args: Any) -> str:
    request = GrepRequest.parse(args)
    return grep_workspace(str(root / request.path), request.path, request)


def glob(root: Path, **args: Any) -> str:
    request = GlobRequest.parse(args)
    return glob_workspace(str(root / request.path), request.path, request)


def test_max_per_file_suppresses_extra_hits(tmp_path: Path) -> None:
    body = "hit\nhit\nhit\n"
    write(tmp_path, "hits.rs", body)
    assert grep(tmp_path, pattern="hit", max_per_file=1) == (
        f"[hits.rs#{file_hash(body)}]\n1 | hit\n... +2 more in this file\n\n1 matches shown (3 total) in 1 files "
        "(1 files truncated by max_per_file; raise max_per_file or narrow the pattern)"
    )


def test_max_results_splits_a_file(tmp_path: Path) -> None:
    body = "hit\nhit\nhit\n"
    write(tmp_path, "a.txt", body)
    write(tmp_path, "b.txt", "hit\n")
    assert grep(tmp_path, pattern="hit", max_results=2) == (
        f"[a.txt#{file_hash(body)}]\n1 | hit\n2 | hit\n... +1 more in this file\n\n2 matches shown (3 total) in 1 "
        "files (result limit reached; narrow the pattern, path, or glob)"
    )


def test_walk_skips_ignored_hidden_binary_and_oversized(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "secret.txt\nbuild/\n!keep.log\n*.log\n")
    write(tmp_path, "visible.txt", "needle\n")
    write(tmp_path, "secret.txt", "needle\n")
    write(tmp_path, "build/out.txt", "needle\n")
    write(tmp_path, "sub/.ignore", "local.txt\n")
    write(tmp_path, "sub/local.txt", "needle\n")
    write(tmp_path, "sub/deep.txt", "needle\n")
    write(tmp_path, "x.log", "needle\n")
    write(tmp_path, ".hidden/dot.txt", "needle\n")
    write(tmp_path, "bin.dat", b"a\0needle\n")
    write(tmp_path, "latin1.txt", b"needle \xe9\n")
    write(tmp_path, ".git/config", "needle\n")
    (tmp_path / "huge.txt").write_bytes(b"needle\n" + b"x" * (5 * 1024 * 1024))
    default = grep(tmp_path, pattern="needle", output_mode="files_with_matches")
    assert default == "sub/deep.txt\nvisible.txt\n\n2 files"
    hidden = grep(tmp_path, pattern="needle", output_mode="files_with_matches", include_hidden=True)
    assert hidden == ".hidden/dot.txt\nsub/deep.txt\nvisible.txt\n\n3 files"


def test_count_mode_literal_case_and_errors(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "x = a.b\nX = a+b\n")
    assert (
        grep(tmp_path, pattern="a.b", literal=True, output_mode="count")
        == "a.py:1\n\n1 matches in 1 files"
    )
    assert (
        grep(tmp_path, pattern="x =", case_sensitive=False, output_mode="count")
        == "a.py:2\n\n2 matches in 1 files"
    )
    assert grep(tmp_path, pattern="zzz") == "no matches for 'zzz' under ."
    # the literal shortcut never hides a match
    assert (
        grep(tmp_path, pattern="(?i)X = A", output_mode="count") == "a.py:2\n\n2 matches in 1 files"
    )
    assert (
        grep(tmp_path, pattern="a\\.b|zz", output_mode="count") == "a.py:1\n\n1 matches in 1 files"
    )
    assert (
        grep(tmp_path, pattern="X = a\\+?b", output_mode="count")
        == "a.py:1\n\n1 matches in 1 files"
    )
    with pytest.raises(ToolError, match="invalid pattern '\\('"):
        GrepRequest.parse({"pattern": "("})
    with pytest.raises(
        ToolError,
        match="invalid output_mode 'nope': expected content, files_with_matches, or count",
    ):
        GrepRequest.parse({"pattern": "x", "output_mode": "nope"})


def test_long_lines_are_cut_at_200_characters(tmp_path: Path) -> None:
    write(tmp_path, "long.txt", "needle" + "y" * 300 + "\n")
    line = grep(tmp_path, pattern="needle").splitlines()[1]
    text = line.split(" | ", 1)[1]
    assert text.endswith("…") and len(text) == 201


def test_glob_rules(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "ignored.rs\n")
    for name in ("ignored.rs", ".hidden.rs", "kept.rs", "src/lib.rs", "src/a/b.rs", "README.md"):
        write(tmp_path, name, "")
    assert glob(tmp_path, pattern="*.rs") == "kept.rs\nsrc/a/b.rs\nsrc/lib.rs\n\n3 files"
    assert glob(tmp_path, pattern="src/*.rs") == "src/lib.rs\n\n1 files"
    assert glob(tmp_path, pattern="src/**/*.rs") == "src/a/b.rs\nsrc/lib.rs\n\n2 files"
    assert glob(tmp_path, pattern="*.{md,rs}", max_results=2) == (
        "README.md\nkept.rs\n\n2 files (result limit reached; narrow the pattern or path)"
    )
    assert ".hidden.rs\n" in glob(tmp_path, pattern="*.rs", include_hidden=True)
    assert glob(tmp_path, pattern="*.zig") == "no files matching '*.zig' under ."
    assert compile_glob("a?c").match("abc") and not compile_glob("a?c").match("a/c")
    assert compile_glob("[!x]*.txt").match("dir/y.txt") and not compile_glob("[!x]*.txt").match(
        "x.txt"
    )
