"""Text shapes the coding tools return, byte for byte as Rho writes them.

Output budgets (``truncate``), numbered file views (``N:line`` rows with window footers), the
hashline snapshot header ``[path#TAG]`` (TAG: the low 16 bits of FNV-1a 32 over the file's lines
with trailing blanks trimmed, four upper-case hex digits), chain snapshots after a write or an
edit, and the unified diff shown for approval (one line of context, ``a/``/``b/`` headers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

__all__ = [
    "DEFAULT_MAX_OUTPUT_BYTES",
    "TRUNCATION_MARKER",
    "UNREADABLE_FILE_DIFF_MESSAGE",
    "chain_snapshot",
    "file_hash",
    "format_header",
    "numbered_view",
    "post_edit_preview",
    "split_content_lines",
    "truncate",
    "unified_diff",
]

DEFAULT_MAX_OUTPUT_BYTES: Final = 64_000
"""Rho's per-tool output budget, in bytes."""
TRUNCATION_MARKER: Final = "\n[truncated]"
UNREADABLE_FILE_DIFF_MESSAGE: Final = "Diff omitted: existing file could not be read."
_LARGE_DIFF_MESSAGE: Final = "Diff omitted: file is too large."
_MAX_DIFF_INPUT_BYTES: Final = 128 * 1024

_CHAIN_MAX_BODY_LINES: Final = 40
_CHAIN_CONTEXT_LINES: Final = 2
_CHAIN_HEAD_LINES: Final = 28
_CHAIN_TAIL_LINES: Final = 8
_POST_EDIT_CONTEXT_LINES: Final = 3
_POST_EDIT_MAX_BODY_LINES: Final = 40
_FNV_OFFSET: Final = 0x811C9DC5
_FNV_PRIME: Final = 0x01000193


def truncate(text: str, max_bytes: int) -> str:
    """Cut ``text`` to ``max_bytes`` UTF-8 bytes at a character boundary and mark the cut."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    cut = max(max_bytes, 0)
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return data[:cut].decode("utf-8") + TRUNCATION_MARKER


def split_content_lines(text: str) -> list[str]:
    """Lines as Rho counts them: one final newline ends the last line; ``\\r`` before ``\\n`` dropped."""
    if not text:
        return []
    body = text[:-1] if text.endswith("\n") else text
    return [line[:-1] if line.endswith("\r") else line for line in body.split("\n")]


def file_hash(text: str | bytes) -> str:
    """The hashline TAG of a file's content."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    h = _FNV_OFFSET
    first = True
    for line in data.split(b"\n"):
        if not first:
            h = ((h ^ 0x0A) * _FNV_PRIME) & 0xFFFFFFFF
        first = False
        for byte in line.rstrip(b" \t\r"):
            h = ((h ^ byte) * _FNV_PRIME) & 0xFFFFFFFF
    return f"{h & 0xFFFF:04X}"


def format_header(path: str, tag: str) -> str:
    return f"[{path}#{tag}]"


def _emit(header: str, lines: Sequence[str], selected: Sequence[int], footer: str | None) -> str:
    if not selected:
        return header
    out = [header]
    previous = 0
    for number in selected:
        if previous and number > previous + 1:
            out.append("…")
        out.append(f"{number}:{lines[number - 1]}")
        previous = number
    text = "\n".join(out)
    if footer:
        text += "\n\n" + footer
    return text


def numbered_view(header: str, text: str, offset: int | None, limit: int | None) -> str:
    """``header`` then ``N:line`` rows for the window; raises ``ValueError`` with Rho's message."""
    if offset is not None and offset < 1:
        raise ValueError("offset must be greater than 0")
    if limit is not None and limit < 1:
        raise ValueError("limit must be greater than 0")
    start = offset or 1
    lines = split_content_lines(text)
    total = len(lines)
    if total == 0:
        if start > 1:
            raise ValueError(f"offset {start} is past the end of the file (0 line(s))")
        return header
    if start > total:
        raise ValueError(f"offset {start} is past the end of the file ({total} line(s))")
    end = min(start + limit - 1, total) if limit is not None else total
    footer = None
    if start > 1 or end < total:
        footer = f"[lines {start}-{end} of {total} shown; re-read with a different offset or limit for the rest]"
    return _emit(header, lines, range(start, end + 1), footer)


def _expand(focus: Iterable[int], total: int, context: int) -> list[int]:
    selected: set[int] = set()
    for line in focus:
        selected.update(range(max(line - context, 1), min(line + context, total) + 1))
    return sorted(selected)


def _cap_by_hunk(selected: list[int], max_lines: int) -> list[int]:
    if len(selected) <= max_lines:
        return selected
    hunks: list[list[int]] = []
    for line in selected:
        if hunks and line == hunks[-1][-1] + 1:
            hunks[-1].append(line)
        else:
            hunks.append([line])
    per_hunk = max(max_lines // len(hunks), 1)
    remaining = max_lines
    out: list[int] = []
    for index, hunk in enumerate(hunks):
        if remaining == 0:
            break
        later = len(hunks) - index - 1
        allow = remaining if later == 0 else max(min(per_hunk, max(remaining - later, 0)), 1)
        take = min(allow, len(hunk), remaining)
        out.extend(hunk[:take])
        remaining -= take
    return out


def _sanitize(focus: Iterable[int], total: int) -> list[int]:
    return sorted({line for line in focus if 1 <= line <= total})


def chain_snapshot(display_path: str, text: str, focus: Sequence[int] = ()) -> str:
    """The bounded ``[path#TAG]`` snapshot a write (or a failed edit) returns for follow-up edits."""
    header = format_header(display_path, file_hash(text))
    lines = split_content_lines(text)
    if not lines:
        return header
    total = len(lines)
    wanted = _sanitize(focus, total)
    if not wanted:
        if total <= _CHAIN_HEAD_LINES + _CHAIN_TAIL_LINES:
            selected = list(range(1, total + 1))
        else:
            selected = list(range(1, _CHAIN_HEAD_LINES + 1)) + list(
                range(total - _CHAIN_TAIL_LINES + 1, total + 1)
            )
    else:
        selected = _cap_by_hunk(_expand(wanted, total, _CHAIN_CONTEXT_LINES), _CHAIN_MAX_BODY_LINES)
    footer = None
    if selected and not (len(selected) == total and selected[0] == 1 and selected[-1] == total):
        footer = (
            f"[showing {len(selected)} of {total} lines; re-read with offset/limit for other lines]"
        )
    return _emit(header, lines, selected, footer)


def post_edit_preview(display_path: str, text: str, focus: Sequence[int], structural: bool) -> str:
    """What an applied edit returns: the new ``[path#TAG]`` and the changed lines in context."""
    header = format_header(display_path, file_hash(text))
    lines = split_content_lines(text)
    if structural:
        return (
            f"{header}\n\n[structural edit; {len(lines)} line(s) after apply; re-read this path before "
            "further edit ops — no chainable body lines]"
        )
    if not lines:
        return header
    total = len(lines)
    wanted = _sanitize(focus, total) or [1]
    selected = _cap_by_hunk(
        _expand(wanted, total, _POST_EDIT_CONTEXT_LINES), _POST_EDIT_MAX_BODY_LINES
    )
    footer = None
    if selected and not (selected[0] == 1 and selected[-1] == total and len(selected) == total):
        footer = f"[post-edit lines {selected[0]}-{selected[-1]} of {total} shown around changes; re-read for other lines]"
    return _emit(header, lines, selected, footer)


def unified_diff(old: str, new: str, display_path: str, created: bool) -> str:
    """The diff shown for approval and on tool cards (not sent to the model)."""
    if old == new:
        return "No changes."
    if len(old.encode("utf-8")) + len(new.encode("utf-8")) > _MAX_DIFF_INPUT_BYTES:
        return _LARGE_DIFF_MESSAGE
    import difflib  # with the first write or edit: offering the tools needs none of it

    before = "/dev/null" if created else f"a/{display_path}"
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        before,
        f"b/{display_path}",
        n=1,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
