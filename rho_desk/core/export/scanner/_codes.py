"""Codes under their name: a PIN, a one-time, verification or backup code, in any syntax.

A PIN, a PUK, a card's security code, a one-time, MFA, verification, recovery, reset or backup
code is short and often digits only, which the name grammar's verdicts on a value
(``secretish``, ``literal_value``) read as a number, not a credential. Here the name says what the
value is (``_names.code_name``: ``pin``, ``card_pin``, ``otp``, ``--token-code``,
``twoFactorCode``, ``X-MFA-Code``, ``security_code``, ``reset code``, ``Bestätigungscode``,
``código de verificación``, ``验证码``; not ``spin``, ``mapping``, ``zip code``,
``status_code``, ``exit code``, ``otp_length``), and the value is read by a code's shape
(``code_value``): three to sixteen digits (three for a card's security code, four for the rest),
or groups of them (``88213-40917``), or for a code that is not a PIN short groups of letters and
digits (``8fk2-q9zd``); not a run (``123456``) nor one digit repeated, and not a quantity (``4096
bytes``).

One pass reads every syntax: ``NAME: X``, ``NAME=X``, ``"NAME": "X"``, a JSON number, ``<NAME>X``,
``NAME=X&`` in a query, ``--otp X`` and ``--otp=X``, a header, and prose: the name, up to two
words that qualify it (``código de verificación``), a link word (``is``, ``lautet``, ``est``,
``è``, ``是``) or a sign or a space, then the value (``PIN 4821``, ``your code is X``, where a
possessive names the code only before a link or a sign).
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Final

from ._catalogue import Hit
from ._names import CodeName, code_name, name_before
from ._rules import Pass
from ._work import spend

__all__ = ["CODE_WINDOW", "code_passes", "code_value"]

_ANCHOR: Final = (
    rb"(?:pin|puk|otp|mfa|2fa|cvv|cvc|csc|code|koodi|kode|kod|c\xc3\xb3digo|codigo|codice"
    rb"|\xd0\xba\xd0\xbe\xd0\xb4|\xd0\x9a\xd0\xbe\xd0\xb4|\xd0\x9a\xd0\x9e\xd0\x94"  # код Код КОД
    rb"|\xe7\xa0\x81|\xe7\xa2\xbc|\xe3\x82\xb3\xe3\x83\xbc\xe3\x83\x89"  # 码 碼 コード
    rb"|\xeb\xb2\x88\xed\x98\xb8|\xec\xbd\x94\xeb\x93\x9c)"  # 번호 코드
)
"""A code's noun or word, in lower case (the anchor is searched in the lower-cased text): the
name around it (``ADMIN_TOTP_CODE``, ``Bestätigungscode``) is read back from where it ends."""
_REST: Final = rb"[a-z0-9_\-]{0,32}"
_WORD: Final = rb"[ \t]{1,2}[^\s:=\"'`<>,;.!?()\[\]{}0-9\\]{2,24}"
"""A word after the noun that may qualify it (``de``, ``verificación``, ``OTP``, ``number``)."""
_LINKS: Final = (
    rb"is|was|are|lautet|lauten|ist|est|es|era|\xc3\xa8|\xc3\xa9|\xc3\xa4r|er|jest|je|to"
)
_SEP: Final = (
    rb"(?:\\{0,7}[\"'`]?\]?[ \t]{0,4}(?:=>|->|:=|=|:|\xef\xbc\x9a|>)[ \t]{0,4}"
    rb"|[ \t]{1,4}(?:" + _LINKS + rb")[ \t]{1,4}"
    rb"|[ \t]{0,4}(?:\xe6\x98\xaf|\xe4\xb8\xba|\xe7\x82\xba|\xe3\x81\xaf)[ \t]{0,4}"  # 是 为 為 は
    rb"|[ \t]{1,4})"
    rb"(?:\\{0,7}[\"'`]|\*\*)?"
)
_VALUE: Final = (
    rb"(?P<value>[0-9]{3,6}(?:[ \-][0-9]{2,6}){1,3}|[0-9]{3,16}"
    rb"|(?=[a-z]{0,9}[0-9])[a-z0-9]{3,10}(?:-[a-z0-9]{3,10}){0,3})"
    rb"(?![a-z0-9_%/:\-]|[.,][0-9a-z])"
)
_PATTERN: Final = re.compile(
    rb"(?P<kw>" + _ANCHOR + rb")(?P<rest>" + _REST + rb")(?P<words>(?:" + _WORD + rb"){0,2}?)"
    rb"(?P<sep>" + _SEP + rb")" + _VALUE,
    re.IGNORECASE,
)
_GATE: Final = _ANCHOR + _REST + rb"(?:" + _WORD + rb"){0,2}" + _SEP + rb"[a-z]{0,9}[0-9]"
"""``_PATTERN`` without its groups and lookarounds, to the value's first digit (where the gate
reports)."""
CODE_WINDOW: Final = 160
"""The longest match of ``_GATE`` (a noun of 9 bytes, 32 of the name, two words of 26, a sign of
20, a quote of 8 and 10 of the value: 131), with room: the anchor is searched this far before
each of the gate's reports."""

_UNIT: Final = re.compile(
    rb"[ \t]{1,4}(?:lines?|bytes?|ms|s|secs?|seconds?|mins?|minutes?|hours?|days?|chars?"
    rb"|characters?|digits?|times|attempts?|tries|[kmg]i?b|px|pt)\b",
    re.IGNORECASE,
)
"""A quantity after the number (``pin 4096 bytes``), not a code."""
_LETTERS: Final = re.compile(r"[^\W\d_]+\Z")
_DIGITS: Final = frozenset(b"0123456789")
_GROUPS: Final = re.compile(rb"[0-9]{3,6}(?:[ \-][0-9]{2,6}){1,3}")
"""Digits in groups: ``88213-40917``, ``1234 5678``, a HomeKit setup code's ``031-45-154``."""
_DATE: Final = re.compile(rb"(?:19|20)[0-9]{2}-[01][0-9]-[0-3][0-9]")


def code_value(value: bytes, name: CodeName) -> bool:
    """``value`` is shaped as the code ``name`` names: digits (``name.digits`` to 16, in groups
    or not), not a run (``1234``, ``987654``) nor one digit repeated (a placeholder's); or, when
    the code may hold letters, short groups of letters and digits with both in them."""
    plain = value.replace(b"-", b"").replace(b" ", b"")
    if plain.isdigit() and (value.isdigit() or _GROUPS.fullmatch(value) is not None):
        if not name.digits <= len(plain) <= 16 or len(set(plain)) == 1 or _DATE.fullmatch(value):
            return False
        steps = {(b - a) % 10 for a, b in pairwise(plain)}
        return not (len(steps) == 1 and steps <= {1, 9})  # 123456, 4321: an example's
    return name.letters and 6 <= len(plain) <= 24 and not _DIGITS.isdisjoint(plain)


def _name_start(data: bytes, end: int) -> int:
    """Where the name ending at ``end`` starts: ``name_before``'s bytes, and the letters of
    another script glued before them (``Bestät`` of ``Bestätigungscode``, ``您的验证`` of
    ``您的验证码``)."""
    start, _ = name_before(data, end)
    if start > 0 and data[start - 1] >= 0x80:
        head = data[max(0, start - 48) : start].decode("utf-8", "ignore")
        glued = _LETTERS.search(head)
        if glued is not None:
            start -= len(glued.group().encode())
    return start


def _code(data: bytes, m: re.Match[bytes]) -> Hit | None:
    spend(m.end() - m.start())
    sep = m.group("sep").strip(b" \t\\\"'`*")
    start = _name_start(data, m.end("rest"))
    phrase_end = m.end("words")
    name = code_name(data[start:phrase_end].decode("utf-8", "replace"))
    if name is None and start > 1 and data[start - 1] in b" \t":
        before = _name_start(data, start - 1)  # a word apart before it: recovery code, zip code
        if before < start - 1:
            start = before
            name = code_name(data[start:phrase_end].decode("utf-8", "replace"))
    if name is None or (name.possessive and not sep):
        return None  # "your code 4821" is no sentence giving it
    if sep == b">" and (start == 0 or data[start - 1] != 0x3C):
        return None  # ">" only closes an XML element's start tag
    value = m.group("value")
    if not code_value(value, name) or _UNIT.match(data, m.end()) is not None:
        return None
    return Hit("credential-assignment", m.start("value"), m.end("value"), value)


def code_passes() -> list[Pass]:
    """The pass of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        Pass(
            _PATTERN,
            _code,
            anchor=re.compile(_ANCHOR),
            gate=(_GATE, 0, 0),
            window=CODE_WINDOW,
        )
    ]
