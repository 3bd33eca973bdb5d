"""A file change as a patch: the unified diff ``git apply`` accepts.

Paths are relative to the workspace with ``a/`` and ``b/`` prefixes; a created file diffs from
``/dev/null`` with a ``new file mode`` line, a deleted one to ``/dev/null``; a last line without a
newline carries git's ``\\ No newline at end of file`` marker. Binary content (not UTF-8, or with
NUL bytes) is not diffed as text: :func:`unified_diff` says so in one line instead.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from typing import Final

__all__ = ["CONTEXT_LINES", "is_binary", "unified_diff"]

CONTEXT_LINES: Final = 3
_NO_NEWLINE: Final = "\\ No newline at end of file\n"


def is_binary(data: bytes | None) -> bool:
    if data is None:
        return False
    if b"\0" in data[:8192]:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _lines(data: bytes | None) -> list[str]:
    return [] if not data else data.decode("utf-8").splitlines(keepends=True)


def _range(start: int, length: int) -> str:
    # git and GNU diff: "start,length", with start one before the first line when empty.
    if length == 0:
        return f"{start},0"
    if length == 1:
        return f"{start + 1}"
    return f"{start + 1},{length}"


def _emit(prefix: str, line: str) -> Iterator[str]:
    if line.endswith("\n"):
        yield prefix + line
    else:
        yield prefix + line + "\n"
        yield _NO_NEWLINE


def _hunks(old: Sequence[str], new: Sequence[str], context: int) -> Iterator[str]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        i1, i2, j1, j2 = first[1], last[2], first[3], last[4]
        yield f"@@ -{_range(i1, i2 - i1)} +{_range(j1, j2 - j1)} @@\n"
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                for line in old[a1:a2]:
                    yield from _emit(" ", line)
                continue
            for line in old[a1:a2]:
                yield from _emit("-", line)
            for line in new[b1:b2]:
                yield from _emit("+", line)


def unified_diff(
    path: str,
    before: bytes | None,
    after: bytes | None,
    *,
    mode: int | None = None,
    context: int = CONTEXT_LINES,
) -> str:
    """A git-style diff of one file from ``before`` to ``after`` (``None``: the file is absent).

    Args:
        path: the path relative to the workspace, with ``/`` separators.
        mode: the file's permission bits, for the ``new file``/``deleted file`` lines (0644 when
            unknown).
    """
    if before == after:
        return ""
    file_mode = f"100{(mode if mode is not None else 0o644) & 0o777:o}"
    head = [f"diff --git a/{path} b/{path}\n"]
    if before is None:
        head.append(f"new file mode {file_mode}\n")
    elif after is None:
        head.append(f"deleted file mode {file_mode}\n")
    if is_binary(before) or is_binary(after):
        return (
            "".join(head)
            + f"Binary files {'a/' + path if before is not None else '/dev/null'} and {'b/' + path if after is not None else '/dev/null'} differ\n"
        )
    old, new = _lines(before), _lines(after)
    body = list(_hunks(old, new, context))
    if not body:  # an empty file created or deleted: the header alone says so
        return "".join(head) if before is None or after is None else ""
    head.append(f"--- {'a/' + path if before is not None else '/dev/null'}\n")
    head.append(f"+++ {'b/' + path if after is not None else '/dev/null'}\n")
    return "".join(head) + "".join(body)
