"""Statements a log prints: a value by its position, named by the statement's column list.

An ORM or a driver that logs its SQL prints ``INSERT INTO t (name, api_secret) VALUES (…)``
and the values either in the statement (Sequelize, GORM, p6spy: ``'X'``) or beside it, bound to
placeholders (``?``, ``%s``, ``$2``, ``@p1``): MyBatis' ``==> Parameters: u(String),
X(String)``, Ecto's ``["u", "X"]``, EF Core's ``[Parameters=[@p0='u', @p1='X']`` before the
statement, TypeORM's ``-- PARAMETERS: […]``, SQLAlchemy's ``('u', 'X')`` on the next line,
Django's ``args=(…)``, knex's ``bindings: [ … ]``, PostgreSQL's ``DETAIL: parameters: $2 =
'X'``, Spring's ``column index 2, parameter value [X]``. No value has its name beside it: the
column list names the position. Each column the credential grammar names (``credential_name``)
is mapped to its place among the values, then to the bound parameter of that place.

The gate reports each ``INSERT INTO`` and ``UPDATE … SET``; the statement is read once there
(its lists to ``_BACK`` bytes, its bound values within ``_REACH``), and its first credential
column whose value is found is the hit (a second credential column of the same statement is not
read: one place, one hit).
"""

from __future__ import annotations

import re
from typing import Final

from ._catalogue import Hit
from ._lines import ROW
from ._names import credential_name
from ._rules import Pass
from ._values import literal_value, secretish

__all__ = ["statement_passes"]

_BACK: Final = 2048
"""How far back from a column its statement's ``INSERT`` is looked for."""
_REACH: Final = 2048
"""How far after (or before) a statement its bound parameters are looked for."""

_INSERT: Final = re.compile(rb"into[ \t]+[^(\r\n]{1,200}?\(", re.IGNORECASE)
"""From ``INTO`` on (the gate reports the end of ``INSERT INTO``, ``REPLACE INTO``, ``INSERT OR
IGNORE INTO``: an end costs hyperscan less than a start)."""
_BEFORE_INTO: Final = re.compile(
    rb"(?:insert|replace)[ \t]+(?:ignore[ \t]+|or[ \t]+[a-z]+[ \t]+)?\Z", re.IGNORECASE
)
_UPDATE: Final = re.compile(rb"update[ \t]+[^\s]{1,128}[ \t]+set[ \t]+", re.IGNORECASE)
_QUOTE: Final = b"\"'`"
_BLANKS: Final = (
    rb"(?:[ \t\r]|\\{1,7}t|(?:\n|\\{1,7}[nr])(?:" + ROW.pattern + rb")?\+?(?![+\-]{2}))*"
)
"""Blanks between a list's items: spaces, tabs, line breaks, raw or JSON-escaped, each with the
row wrapper of the line after it (``12:``, ``path:12:``, a diff's ``+``): a statement written
over several lines, printed as a file's rows."""
_BLANK: Final = re.compile(_BLANKS)
_BREAK: Final = re.compile(rb"[\r\n]|\\{1,7}[nr]")
_WORD_END: Final = frozenset(b",)\r\n\x00\xff")


def _items(data: bytes, start: int, close: int, limit: int) -> list[tuple[int, int]] | None:
    """The items of a list opened just before ``start`` and closed by ``close`` (``)`` or ``]``),
    each as the span of its text (a quoted item's without its quotes, JSON-escaped or not); None
    when the list does not close within ``limit``."""
    out: list[tuple[int, int]] = []
    i, end = start, min(len(data), start + limit)
    while i < end:
        i = _BLANK.match(data, i, end).end()  # type: ignore[union-attr]
        if i >= end:
            return None
        if data[i] == close and not out:
            return out
        lead = i
        if data[lead] in b"NnEe" and data[lead + 1 : lead + 2] in (b"'", b"\\"):
            lead += 1  # a national or an escape string (N'X', E'X')
        while lead < end and data[lead] == 0x5C:
            lead += 1
        if lead < end and data[lead] in _QUOTE:
            quote, i = data[lead], lead + 1
            first = i
            while i < end:
                if data[i] == quote:
                    if data[i + 1 : i + 2] == bytes([quote]):  # SQL's '' inside a literal
                        i += 2
                        continue
                    break
                i += 1
            last = i
            while last > first and data[last - 1] == 0x5C:
                last -= 1  # the backslashes of \" in JSON-escaped text
            out.append((first, last))
            i += 1
        else:
            depth, first = 0, i
            while i < end and (depth or (data[i] != close and data[i] != 0x2C)):
                if data[i] in b"([{":
                    depth += 1
                elif data[i] in b")]}":
                    depth -= 1
                    if depth < 0:
                        return None
                i += 1
            cut = _BREAK.search(data, first, i)  # a name or a value of no line break
            last = cut.start() if cut is not None else i
            while last > first and data[last - 1] in b" \t":
                last -= 1
            out.append((first, last))
        i = _BLANK.match(data, i, end).end()  # type: ignore[union-attr]
        if i >= end:
            return None
        if data[i] == close:
            return out
        if data[i] != 0x2C:
            return None
        i += 1
    return None


def _name(data: bytes, span: tuple[int, int]) -> bytes:
    """A column's name without its quotes, brackets or table (``"t"."Password"``, ``[Password]``)."""
    name = data[span[0] : span[1]].replace(b"\\", b"")
    return name.rsplit(b".", 1)[-1].strip(b"\"'`[] ")


_PLACEHOLDER: Final = re.compile(rb"\?|%s|\$([0-9]{1,3})|[@:]([A-Za-z_][A-Za-z0-9_]{0,63})")
_BOUND_LIST: Final = re.compile(
    rb"parameters:[ \t]*\[|parameters:[ \t]*(?![\$\[])|params:[ \t]*\[|bindings:[ \t]*\[|args=\(|"
    rb"\][ \t]+\(|\)[ \t]*\[|[\"'][ \t]+\[|\$[0-9]{1,3}[ \t]+\[",
    re.IGNORECASE,
)
"""Where a list of bound values begins: MyBatis' ``Parameters:``, Prisma's ``Params: [``,
knex's ``bindings: [``, Django's ``args=(``, SQLAlchemy's ``[generated in …] (``, Ecto's
``RETURNING "id" [`` or ``VALUES (…) [``, TypeORM's ``PARAMETERS: [``."""
_NAMED_BOUND: Final = rb"(?<![A-Za-z0-9_])[@:]?%s[ \t]*=[ \t]*\\{0,7}['\"]"
_INDEXED: Final = rb"column index %d, parameter value \[|binding parameter \[%d\][^\[\r\n]{0,40}\[|\$%d[ \t]*=[ \t]*'"


def _bound(
    data: bytes, start: int, after: int, end: int, place: bytes, nth: int
) -> tuple[int, int] | None:
    """The value bound to the placeholder ``place`` (the ``nth`` of the statement's ``?``, from
    0), looked for after the statement (``start``..``end``; a list from ``after``, the
    placeholder's end: Ecto prints it on the statement's line) and before it."""
    m = _PLACEHOLDER.fullmatch(place)
    if m is None:
        return None
    lo, hi = max(0, start - _REACH), min(len(data), end + _REACH)
    if m.group(2) is not None:  # @p1, :token: its value named, before the statement or after
        named = re.compile(_NAMED_BOUND % re.escape(place.lstrip(b"@:")))
        for found in (named.search(data, end, hi), named.search(data, lo, start)):
            if found is not None:
                close = data.find(
                    data[found.end() - 1 : found.end()], found.end(), found.end() + 512
                )
                while close > found.end() and data[close - 1] == 0x5C:
                    close -= 1
                return (found.end(), close) if close > found.end() else None
        return None
    index = int(m.group(1)) - 1 if m.group(1) is not None else nth
    one = index + 1
    labelled = re.compile(_INDEXED % (one, one, one), re.IGNORECASE).search(data, end, hi)
    if labelled is not None:
        stop = labelled.end()
        while stop < hi and data[stop] not in b"]'\r\n":
            stop += 1
        return labelled.end(), stop
    for where in (_BOUND_LIST.search(data, after, hi), _BOUND_LIST.search(data, lo, start)):
        if where is None:
            continue
        opener = data[where.end() - 1 : where.end()]
        closer = {b"[": 0x5D, b"(": 0x29}.get(opener)
        items = (
            _items(data, where.end(), closer, _REACH)
            if closer is not None
            else _line_items(data, where.end())
        )
        if items is not None and index < len(items):
            first, last = items[index]
            if closer is None and data[last - 1 : last] == b")":
                last = data.rfind(b"(", first, last)  # MyBatis' X(String)
            return (first, last) if last > first else None
    return None


def _line_items(data: bytes, start: int) -> list[tuple[int, int]]:
    """MyBatis' ``Parameters: u(String), X(String)`` to the end of its line."""
    end = start
    while end < len(data) and end - start < _REACH and data[end] not in b"\r\n\x00\xff":
        if data[end] == 0x5C and data[end + 1 : end + 2] in (b"n", b"r"):
            break
        end += 1
    out, i = [], start
    while i <= end:
        j = data.find(b", ", i, end)
        j = end if j < 0 else j
        out.append((i, j))
        i = j + 2
    return out


def _statement_end(data: bytes, at: int) -> int:
    """Where the statement that ``at`` is in ends: its line's end (a JSON-escaped one too)."""
    end = at
    while end < len(data) and end - at < _REACH and data[end] not in b"\r\n\x00\xff;":
        if data[end] == 0x5C and data[end + 1 : end + 2] in (b"n", b"r"):
            break
        end += 1
    return end


def _columns(data: bytes, head: re.Match[bytes]) -> tuple[list[tuple[int, int]], int] | None:
    """An ``INSERT``'s column list (``head`` ends at its parenthesis) and where its first row
    of values begins (after ``VALUES (``)."""
    if _BEFORE_INTO.search(data, max(0, head.start() - 40), head.start()) is None:
        return None  # "split into parts (…)": no statement (a search without the gate finds it)
    columns = _items(data, head.end(), 0x29, _BACK)
    if not columns:
        return None
    values_at = _VALUES.match(data, columns[-1][1])
    return None if values_at is None else (columns, values_at.end())


def _insert(data: bytes, head: re.Match[bytes]) -> Hit | None:
    """The first credential column of an ``INSERT``'s first row whose value is found: a literal
    in the statement, or the value bound to its placeholder."""
    found = _columns(data, head)
    if found is None:
        return None
    columns, at = found
    return _row(data, head, columns, _items(data, at, 0x29, _BACK))


def _row(
    data: bytes,
    head: re.Match[bytes],
    columns: list[tuple[int, int]],
    values: list[tuple[int, int]] | None,
) -> Hit | None:
    """The first credential column's value in a row of ``values``: a literal, or the value bound
    to a placeholder."""
    if values is None or len(values) != len(columns):
        return None
    for index, column in enumerate(columns):
        generic = _credential_column(data, column, head)
        if not generic:
            continue
        first, last = values[index]
        value = data[first:last]
        if first > 0 and data[first - 1] in _QUOTE:  # a literal in the statement
            span: tuple[int, int] | None = (first, last)
            if generic == 2 and not secretish(value, quoted=True):
                continue  # a key of names (``('login.title', 'Sign in')``, ``'ci-readonly'``)
        else:
            nth = sum(data[s:e] in (b"?", b"%s") for s, e in values[:index])
            span = _bound(data, head.start(), last, _statement_end(data, last), value, nth)
        hit = _hit(data, span, _name(data, column))
        if hit is not None:
            return hit
    return None


_VALUES: Final = re.compile(
    rb"[\\\"'`\]]*" + _BLANKS + rb"\)" + _BLANKS + rb"values" + _BLANKS + rb"\(", re.I
)
"""After the column list's last name: its closing quote and parenthesis, ``VALUES (``, blanks and
line breaks between (raw or JSON-escaped)."""


_TABLE: Final = re.compile(rb"into[ \t]+(?P<table>[^(\s]{1,128})", re.IGNORECASE)


def _credential_column(data: bytes, column: tuple[int, int], head: re.Match[bytes]) -> int:
    """1: a column the grammar names as a credential's; 2: a table's ``key`` or ``value`` where
    the table's name is a credential's (``"ApiKey" ("label", "key")``, ``api_keys (name, key)``):
    its value is one when it reads as a secret; 0: neither."""
    name = _name(data, column)
    if credential_name(name):
        return 1
    table = _TABLE.search(data, head.start(), head.end())
    return (
        2
        if name.lower() in (b"key", b"value")
        and table is not None
        and credential_name(_name(data, table.span("table")))
        else 0
    )


def _hit(data: bytes, span: tuple[int, int] | None, name: bytes) -> Hit | None:
    if span is None:
        return None
    value = data[span[0] : span[1]]
    if not literal_value(value, quoted=True, name=name) or value.lower() in (b"null", b"none"):
        return None
    return Hit("credential-assignment", span[0], span[1], value)


_ASSIGNED: Final = re.compile(rb"[ \t]*(?P<name>[^\s=,]{1,80})[ \t]*=[ \t]*(?P<value>[^\s,]{1,80})")


def _update(data: bytes, head: re.Match[bytes]) -> Hit | None:
    """The first assignment of an ``UPDATE … SET``'s list under a credential's name whose value
    is a placeholder, and the value bound to it."""
    at, nth = head.end(), 0
    for _ in range(_ASSIGNMENTS):
        pair = _ASSIGNED.match(data, at)
        if pair is None:
            return None
        place = pair.group("value")
        named = _PLACEHOLDER.fullmatch(place)
        if named is not None and credential_name(_name(data, pair.span("name"))):
            end = _statement_end(data, pair.end())
            span = _bound(data, head.start(), pair.end(), end, place, nth)
            return _hit(data, span, _name(data, pair.span("name")))
        nth += place in (b"?", b"%s")
        at = pair.end()
        if data[at : at + 1] != b",":
            return None
        at += 1
    return None


_ASSIGNMENTS: Final = 32
"""The assignments of a ``SET`` list read, at most."""


_INSERT_GATE: Final = rb"(?:insert|replace)[ \t]+(?:ignore[ \t]+|or[ \t]+[a-z]+[ \t]+)?into[ \t]"
"""Its end less 5 bytes is where ``_INSERT`` begins (``into`` and a space or a tab)."""
_UPDATE_GATE: Final = rb"update[ \t]+[^\s]+[ \t]+set[ \t]"


def statement_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        Pass(_INSERT, _insert, gate=(_INSERT_GATE, 0, 5)),
        Pass(_UPDATE, _update, gate=(_UPDATE_GATE, 0, 0), ordered=True),
    ]
