"""Rho's default edit format ("hashline"): the ``edit`` tool's document, parsed and applied.

A document holds one section per file: a ``[path#TAG]`` header copied from a fresh snapshot, then
operations on the snapshot's line numbers::

    [src/app.py#1A2B]
    PUT 12:
    +replacement line
    PUT 20.=22:
    +one line instead of three
    PUT <1:
    +inserted before line 1
    PUT >$:
    +appended at the end
    CUT 30.=31

A stale TAG, overlapping operations and out-of-range lines fail closed; the error carries a live
snapshot of the file to retry from. Messages follow Rho's word for word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from ..errors import InputError
from .text import chain_snapshot, file_hash, split_content_lines

__all__ = [
    "ApplyError",
    "Op",
    "Section",
    "apply_ops",
    "edit_paths",
    "focus_anchors",
    "is_structural",
    "ops_summary",
    "parse_hashline",
    "recovery_message",
]

_TAG_LENGTH: Final = 4
_STRUCTURAL_SPAN_LINES: Final = 40
_SECTION_HEADER: Final = re.compile(r"^\s*\[(.+)#[0-9A-Fa-f]{4}\]\s*$", re.MULTILINE)


def edit_paths(document: str) -> list[str]:
    """The paths a hashline document's ``[path#TAG]`` sections name, in order, each once (a
    light look for cards and metadata; :func:`parse_hashline` reads the document in full)."""
    return list(dict.fromkeys(m.group(1).strip() for m in _SECTION_HEADER.finditer(document)))


@dataclass(frozen=True, slots=True)
class Op:
    """``kind`` is ``replace``, ``delete``, ``before`` or ``after`` (``start`` None: end of file)."""

    kind: str
    start: int | None
    end: int | None = None
    body: tuple[str, ...] = ()


@dataclass(slots=True)
class Section:
    path: str
    tag: str
    ops: list[Op] = field(default_factory=list)


class ApplyError(InputError, ValueError):
    """An edit that cannot apply; ``str()`` is the message the model reads."""


def _line_number(raw: str, label: str) -> int:
    raw = raw.strip()
    if not raw:
        raise ApplyError(f"{label} is empty")
    if not raw.isdigit():
        raise ApplyError(f'{label} must be a positive integer, got "{raw}"')
    value = int(raw)
    if value == 0:
        raise ApplyError(f'{label} must be >= 1, got "{raw}"')
    return value


def _range(raw: str) -> tuple[int, int]:
    raw = raw.strip()
    if raw:
        if raw.endswith(".="):
            raise ApplyError(
                f'hashline range "{raw}" is incomplete; use N.=M (example: "3.=5") or a single line N (example: "3")'
            )
        if raw.startswith(".="):
            raise ApplyError(f'hashline range "{raw}" is incomplete; use N.=M (example: "3.=5")')
        if raw.endswith(".") and ".." not in raw:
            raise ApplyError(
                f'hashline range "{raw}" looks like a truncated N.=M; for one line use N (example: PUT 3:) not N. '
                "(invalid: PUT 3.:); for a range use N.=M (example: PUT 3.=5:)"
            )
    for sep in (".=", ".."):
        if sep in raw:
            a, b = raw.split(sep, 1)
            break
    else:
        dash = raw.find("-")
        if dash > 0:
            a, b = raw[:dash], raw[dash + 1 :]
        else:
            line = _line_number(raw, "line")
            return line, line
    start, end = _line_number(a, "range start"), _line_number(b, "range end")
    if end < start:
        raise ApplyError(f"range start {start} is after end {end}")
    return start, end


def _keyword(line: str, word: str) -> str | None:
    if len(line) < len(word) or line[: len(word)].upper() != word:
        return None
    rest = line[len(word) :]
    return rest if not rest or rest[0].isspace() else None


def parse_hashline(text: str) -> list[Section]:
    """Parse a document strictly (the first bad line fails the whole call)."""
    sections: list[Section] = []
    current: Section | None = None
    lines = [line.removesuffix("\r") for line in text.split("\n")]
    if text.endswith("\n"):
        lines.pop()
    i = 0

    def finish(section: Section) -> None:
        if not section.ops:
            raise ApplyError(f"hashline section [{section.path}#{section.tag}] has no operations")
        sections.append(section)

    while i < len(lines):
        line = lines[i].removeprefix("\ufeff").rstrip()
        i += 1
        if not line:
            continue
        trimmed = line.strip()
        if trimmed.startswith("[") and trimmed.endswith("]"):
            inner = trimmed[1:-1]
            if "#" not in inner:
                raise ApplyError(f"hashline header must look like [path#TAG], got: {trimmed}")
            path, tag = inner.rsplit("#", 1)
            if not path:
                raise ApplyError(f"hashline header path is empty: {trimmed}")
            tag = tag.strip()
            if len(tag) != _TAG_LENGTH or any(c not in "0123456789abcdefABCDEF" for c in tag):
                raise ApplyError(f"hashline tag must be {_TAG_LENGTH} hex digits, got: {trimmed}")
            if current is not None:
                finish(current)
            current = Section(path.strip(), tag.upper())
            continue
        if current is None:
            raise ApplyError(f"hashline op outside a [path#TAG] section: {line}")
        rest = _keyword(trimmed, "CUT")
        if rest is not None:
            rest = rest.strip()
            if not rest:
                raise ApplyError("CUT requires a line range N.=M")
            if "*" in rest:
                raise ApplyError(
                    "CUT block ops (N*) are not supported yet; use CUT N.=M with concrete lines"
                )
            if "@" in rest:
                raise ApplyError("CUT registers (@name) are not supported yet; use plain CUT N.=M")
            start, end = _range(rest)
            current.ops.append(Op("delete", start, end))
            continue
        rest = _keyword(trimmed, "PUT")
        if rest is None:
            raise ApplyError(f"unrecognized hashline line (expected PUT/CUT or [path#TAG]): {line}")
        rest = rest.strip()
        if not rest:
            raise ApplyError("PUT requires a locator")
        if "*" in rest:
            raise ApplyError(
                "PUT block ops (N*) are not supported yet; use PUT N.=M: with concrete lines"
            )
        if "@" in rest:
            raise ApplyError("PUT registers (@name) are not supported yet")
        if not rest.endswith(":"):
            raise ApplyError(f"PUT must end with ':' and take + body rows (got: {trimmed})")
        locator = rest[:-1].strip()
        if not locator:
            raise ApplyError(f"PUT locator is empty: {trimmed}")
        body: list[str] = []
        while i < len(lines):
            candidate = lines[i].removesuffix("\r")
            if not candidate.startswith("+"):
                break
            body.append(candidate[1:])
            i += 1
        if locator.startswith("<"):
            line_no = _line_number(locator[1:].strip(), "PUT <N")
            if not body:
                raise ApplyError(
                    f"PUT <{line_no}: requires at least one + body row (use CUT to delete)"
                )
            current.ops.append(Op("before", line_no, None, tuple(body)))
        elif locator.startswith(">"):
            target = locator[1:].strip()
            after: int | None = None if target == "$" else _line_number(target, "PUT >N")
            if not body:
                label = "$" if after is None else str(after)
                raise ApplyError(
                    f"PUT >{label}: requires at least one + body row (use CUT to delete)"
                )
            current.ops.append(Op("after", after, None, tuple(body)))
        else:
            start, end = _range(locator)
            if not body:
                raise ApplyError(
                    f"PUT {start}.={end}: requires at least one + body row (use CUT to delete)"
                )
            current.ops.append(Op("replace", start, end, tuple(body)))
    if current is not None:
        finish(current)
    if not sections:
        raise ApplyError(
            "hashline input must contain at least one [path#TAG] section with operations"
        )
    return sections


def _detect_eol(text: str) -> str:
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    if cr > crlf and cr > lf:
        return "\r"
    return "\r\n" if crlf > lf else "\n"


@dataclass(slots=True)
class _Slot:
    before: list[str] = field(default_factory=list)
    span: tuple[int, tuple[str, ...], str] | None = None
    after: list[str] = field(default_factory=list)


def apply_ops(original: str, expected_tag: str, ops: list[Op]) -> tuple[str, list[int]]:
    """The new text and the lines to show around the changes.

    Raises:
        ApplyError: a stale tag, overlapping ops, or lines out of range.
    """
    live = file_hash(original)
    if live.upper() != expected_tag.upper():
        raise ApplyError(
            f"hashline tag mismatch: expected {expected_tag}, live file is {live}. Re-read the path or copy the "
            "latest edit preview header."
        )
    if not ops:
        raise ApplyError("hashline section has no operations")
    lines = split_content_lines(original)
    count = len(lines)
    slots: dict[int, _Slot] = {}
    eof: list[str] = []
    for op in ops:
        if op.kind in ("replace", "delete"):
            start, end = op.start or 0, op.end or 0
            kind = op.kind
            if count == 0:
                raise ApplyError("cannot replace or delete lines in an empty file")
            if start == 0 or end < start:
                raise ApplyError(f"invalid line range {start}.={end}")
            if start > count or end > count:
                raise ApplyError(f"line range {start}.={end} is outside the file ({count} line(s))")
            slot = slots.setdefault(start, _Slot())
            if slot.span is not None:
                raise ApplyError(
                    f"overlapping hashline ops: {slot.span[2]} {start}.={slot.span[0]} and {kind} {start}.={end}"
                )
            slot.span = (end, op.body, kind)
        elif op.kind == "before":
            line = op.start or 0
            if count == 0:
                if line != 1:
                    raise ApplyError("insert before in an empty file must use PUT <1:")
                eof.extend(op.body)
                continue
            if line > count:
                raise ApplyError(f"insert before line {line} is outside the file ({count} line(s))")
            slots.setdefault(line, _Slot()).before.extend(op.body)
        elif op.start is not None:
            if count == 0:
                raise ApplyError(
                    "insert after a line requires a non-empty file; use PUT <1: or PUT >$:"
                )
            if op.start > count:
                raise ApplyError(
                    f"insert after line {op.start} is outside the file ({count} line(s))"
                )
            slots.setdefault(op.start, _Slot()).after.extend(op.body)
        else:
            eof.extend(op.body)
    active: tuple[int, tuple[int, tuple[str, ...], str]] | None = None
    for line in sorted(slots):
        slot = slots[line]
        if active is not None:
            a_start, a_span = active
            if line <= a_span[0]:
                if slot.span is not None:
                    raise ApplyError(
                        f"overlapping hashline ops: {a_span[2]} {a_start}.={a_span[0]} and "
                        f"{slot.span[2]} {line}.={slot.span[0]}"
                    )
                raise ApplyError(
                    f"hashline op anchored at line {line} falls inside {a_span[2]} {a_start}.={a_span[0]}; "
                    "anchor it outside the range"
                )
            active = None
        if slot.span is not None:
            if slot.span[0] > line and slot.after:
                raise ApplyError(
                    f"insert after line {line} falls inside {slot.span[2]} {line}.={slot.span[0]}; "
                    "anchor it outside the range"
                )
            active = (line, slot.span)
    out: list[str] = []
    focus: list[int] = []

    def push(body: list[str] | tuple[str, ...]) -> None:
        for text in body:
            out.append(text)
            focus.append(len(out))

    index = 1
    while index <= count:
        cell = slots.get(index)
        if cell is None:
            out.append(lines[index - 1])
            index += 1
            continue
        push(cell.before)
        if cell.span is not None and not cell.span[1]:
            if out:
                focus.append(len(out))
            neighbor = len(out) + len(cell.after) + 1
            index = cell.span[0] + 1
            if index <= count:
                focus.append(neighbor)
        elif cell.span is not None:
            push(cell.span[1])
            index = cell.span[0] + 1
        else:
            out.append(lines[index - 1])
            index += 1
        push(cell.after)
    push(eof)
    focus = sorted({line for line in focus if 1 <= line <= len(out)})
    if not focus and out:
        focus = [1]
    if not out:
        return "", focus
    eol = _detect_eol(original)
    text = eol.join(out)
    if not original or original.endswith(("\n", "\r")):
        text += eol
    return text, focus


def focus_anchors(ops: list[Op]) -> list[int]:
    lines: set[int] = set()
    for op in ops:
        if op.kind in ("replace", "delete") and op.start is not None:
            lines.add(op.start)
            if op.end is not None:
                lines.add(op.end)
        elif op.start is not None:
            lines.add(op.start)
    return sorted(lines)


def is_structural(ops: list[Op]) -> bool:
    return any(
        op.kind in ("replace", "delete")
        and (op.end or 0) - (op.start or 0) + 1 >= _STRUCTURAL_SPAN_LINES
        for op in ops
    )


def ops_summary(ops: list[Op]) -> str:
    parts = []
    for op in ops:
        start, end = op.start, op.end
        if op.kind == "replace":
            locator = f"PUT {start}" if start == end else f"PUT {start}.={end}"
            parts.append(f"{locator}: ({(end or 0) - (start or 0) + 1} → {len(op.body)} line(s))")
        elif op.kind == "delete":
            removed = (end or 0) - (start or 0) + 1
            locator = f"CUT {start}" if start == end else f"CUT {start}.={end}"
            parts.append(f"{locator} ({removed} {'line' if removed == 1 else 'lines'})")
        elif op.kind == "before":
            parts.append(f"PUT <{start}: (+{len(op.body)} line(s))")
        else:
            parts.append(f"PUT >{'$' if start is None else start}: (+{len(op.body)} line(s))")
    return "; ".join(parts)


def recovery_message(display_path: str, live_text: str, focus: list[int], message: str) -> str:
    snapshot = chain_snapshot(display_path, live_text, focus)
    return f"{display_path}: {message}\n\nLive snapshot - copy the header and line numbers below to retry:\n{snapshot}"
