"""Joined literals: a value written in code as string literals joined, read as one value.

A credential name's value is often written in pieces (to keep a scanner from seeing it, or to
wrap a long line): literals joined by an operator (``"ab" + "cd"``, Lua's ``..``, PHP's and
Perl's ``.``, SQL's ``||``, VB's ``&``, Elixir's ``<>``, Jinja's ``~``), written side by side
(Python's and C's ``"ab" "cd"``, the shell's ``'ab'"cd"``), or joined by a call (``concat(…)``,
SQL's ``CONCAT(…)``, ``strings.Join([]string{…}, "")``, ``"".join([…])``, ``String.join("",
…)``, ``string.Concat(…)``, Rust's ``concat!(…)``) or inside a template's tag (``{{ 'ab' ~ 'cd'
}}``). ``pieces`` and ``joined_call`` give the pieces' spans, on the value's line and within
``VALUE_MAX`` bytes of its start (a constant number of bytes read per name: linear time); the
name rules judge the pieces' text joined, and redact from the first piece to the last.

A piece is a quoted literal at the first piece's escape depth (a double quote with as many
backslashes: JSON-escaped text), not empty, holding no line break, and not the text between two
of a JSON document's strings (``", "``: a piece that starts with ``,``, ``:``, ``}`` or ``]``).
"""

from __future__ import annotations

import re
from typing import Final

from ._values import VALUE_MAX, reference, value_span
from ._work import spend

__all__ = ["JOIN_END", "JOIN_PIECES", "empty_join", "joined_call", "joined_text", "pieces"]

JOIN_PIECES: Final = 16
"""Most pieces read for one value."""
_JOIN: Final = re.compile(
    rb"(?:[ \t]{0,4}(?:\+|\.\.|\|\||&|<>|~)[ \t]{0,4}|[ \t]{1,4}\.[ \t]{1,4}|\.|[ \t]{0,4})"
    rb"(?=\\{0,7}[\"'])"
)
"""Between two pieces: an operator that joins strings, spaces around it, or none (literals side by
side); PHP's and Perl's ``.`` spaced alike on both sides (``"ab". "Cd"`` ends a sentence)."""
JOIN_END: Final = re.compile(rb"[ \t]*(?:(?:\+|\.\.?|&|\|\||<>|~)(?:[ \t]+_)?|\\)[ \t]*")
"""What ends a line whose string goes on in the next line's: an operator that joins strings (VB's
``& _``), or a backslash (Ruby's and Python's ``"ab" \\``)."""
_OPENER: Final = re.compile(rb"\\{0,7}[\"']")
_BREAK: Final = re.compile(rb"[\r\n\x00\xff]|\\{1,7}[nr]")
_NOT_A_PIECE: Final = (b",", b":", b"}", b"]")
"""What opens the text between two strings of a JSON document (``", "``, ``": "``)."""
_CALL: Final = re.compile(
    rb"(?:\{\{-?|<%=?|\$\{)?[ \t]{0,4}"
    rb"(?:[A-Za-z_][A-Za-z0-9_]{0,30}(?:\.|::))?"
    rb"(?i:concat|concat_ws|join|strcat|implode)!?[ \t]{0,4}\("
)
"""A call that joins strings (``concat!(``, ``string.Concat(``, ``strings.Join(``, ``CONCAT(``)."""
_TEMPLATE: Final = re.compile(rb"(?:\{\{-?|\{%-?|<%=?|\$\{)[ \t]{0,4}(?=\\{0,7}[\"'])")
"""A template's tag whose expression starts with a literal (``{{ 'ab' ~ 'cd' }}``)."""
_DOT_JOIN: Final = re.compile(rb"\.join[ \t]{0,4}\(")
"""``"".join(`` after an empty literal (Python)."""


def _opener_before(data: bytes, start: int) -> bytes:
    """The opening quote (and its escaping backslashes) of the literal whose text starts at ``start``."""
    if start == 0 or data[start - 1] not in b"\"'":
        return b""
    j = start - 1
    while j > 0 and start - 1 - j < 7 and data[j - 1] == 0x5C:
        j -= 1
    return data[j:start]


def _piece(data: bytes, pos: int, top: int, depth: int) -> tuple[int, int, int, int] | None:
    """``(start, end, after, depth)`` of the literal that opens at ``pos``: its text, the byte
    after its closing quote, and the depth of a double quote (-1 for a single one); None when it
    is no piece (a double quote at another ``depth`` than a known one, empty, a line break)."""
    q = _OPENER.match(data, pos, top)
    if q is None:
        return None
    opener = q.group()
    if opener.endswith(b'"') and depth >= 0 and len(opener) - 1 != depth:
        return None  # a quote of another depth: a JSON string's own
    span = value_span(data, pos)
    if span is None or not span[2]:
        return None
    start, end, _ = span
    after = end + len(opener)
    if end <= start or after > top or data[end:after] != opener:
        return None  # empty, cut short, or past the bound
    text = data[start:end]
    if _BREAK.search(text) is not None or text.lstrip(b" \t")[:1] in _NOT_A_PIECE:
        return None
    return start, end, after, len(opener) - 1 if opener.endswith(b'"') else -1


def pieces(data: bytes, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of the literals joined on its line to the quoted value ``data[start:end]``, itself
    first: ``[(start, end)]`` when none is."""
    out = [(start, end)]
    opener = _opener_before(data, start)
    if not opener or data[end : end + len(opener)] != opener:
        return out
    depth = len(opener) - 1 if opener.endswith(b'"') else -1
    top = min(len(data), start + VALUE_MAX)
    pos = end + len(opener)
    # the shell's NAME="ab" "cd" (= right before the quote) is a word and the next command word:
    # literals apart are one value in code only (Python's and C's "ab" "cd")
    shell = start > len(opener) and data[start - len(opener) - 1] == 0x3D
    while len(out) < JOIN_PIECES:
        m = _JOIN.match(data, pos, top)
        if m is None or (shell and m.end() > pos and not m.group().strip()):
            break
        piece = _piece(data, m.end(), top, depth)
        if piece is None:
            break
        if depth < 0:
            depth = piece[3]  # the first double quote's depth, after single quotes
        out.append((piece[0], piece[1]))
        pos = piece[2]
    spend(pos - start)
    return out


def joined_call(data: bytes, pos: int, limit: int = -1) -> list[tuple[int, int]] | None:
    """The non-empty literals of a call that joins strings at ``pos`` (``CONCAT('ab', 'cd')``,
    ``strings.Join([]string{"ab", "cd"}, "")``, ``{{ 'ab' ~ 'cd' }}``), on its line and before
    ``limit``: None when ``pos`` starts no such call, or it joins fewer than two literals."""
    top = min(len(data), pos + VALUE_MAX if limit < 0 else limit)
    template = _TEMPLATE.match(data, pos, top)
    if template is not None:
        first = _piece(data, template.end(), top, -1)
        if first is None:
            return None
        found = pieces(data, first[0], first[1])
        return found if len(found) > 1 else None
    head = _CALL.match(data, pos, top)
    if head is None:
        return None
    stop = _BREAK.search(data, head.end(), top)
    top = stop.start() if stop is not None else top
    out: list[tuple[int, int]] = []
    i = head.end()
    nesting = 1
    while i < top and nesting > 0 and len(out) < JOIN_PIECES:
        c = data[i]
        if c in b"\"'\\":
            q = _OPENER.match(data, i, top)
            span = value_span(data, i) if q is not None else None
            if q is None or span is None or not span[2] or span[1] + len(q.group()) > top:
                break
            if span[1] > span[0]:
                out.append((span[0], span[1]))
            i = span[1] + len(q.group())
            continue
        if c in b"([{":
            nesting += 1
        elif c in b")]}":
            nesting -= 1
        i += 1
    spend(i - pos)
    return out if len(out) > 1 else None


def empty_join(data: bytes, end: int) -> list[tuple[int, int]] | None:
    """``"".join(["ab", "cd"])``: the literals of the join called on the empty literal whose
    closing quote (and its escapes) starts at ``end``."""
    after = end
    while after < len(data) and after - end < 8 and data[after] == 0x5C:
        after += 1
    m = _DOT_JOIN.match(data, after + 1, min(len(data), after + 16))
    if m is None:
        return None
    return joined_call(data, m.start() + 1)


def joined_text(data: bytes, spans: list[tuple[int, int]]) -> bytes | None:
    """The pieces' text joined: the value they make; None when a piece is a reference or a
    placeholder (``"Bearer " + "<token>"``, ``'$TOKEN'``): the value stands for what it names."""
    texts = [data[s:e] for s, e in spans]
    return None if any(reference(t) for t in texts) else b"".join(texts)
