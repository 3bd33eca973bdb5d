"""What looks random: the shapes generated values have and names, words, digests and ids do not.

The audit's second opinion (``_opinion``) judges a run of letters and digits by its characters
alone, in two strengths: ``random_looking`` for a run wherever it stands (both cases and digits,
20 characters or more), ``random_in_alphabet`` for a value in a value's place (a quoted literal,
a pair's value, a table's cell), where a narrower alphabet and 12 characters are enough;
``random_in_place`` finds that place around a run of an export's bytes. None of them shares
anything with the scanner's rules.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["HEX", "PLACE_MIN", "RUN_MAX", "random_in_alphabet", "random_in_place", "random_looking"]

HEX: Final = re.compile(rb"[0-9a-fA-F-]+")
"""Hex digits and dashes: a digest, an id, a UUID."""
RUN_MAX: Final = 200
"""Longer runs are data (images, encrypted context, a blob of base64), not a credential."""
PLACE_MIN: Final = 12
"""The shortest value judged in a value's place."""


def _class_changes(run: bytes) -> int:
    changes = 0
    last = -1
    for b in run:
        kind = 0 if 0x30 <= b <= 0x39 else 1 if 0x41 <= b <= 0x5A else 2 if 0x61 <= b <= 0x7A else 3
        if kind != last and last >= 0:
            changes += 1
        last = kind
    return changes


_WORDS_IN: Final = re.compile(rb"[A-Za-z][a-z]{4,}")
"""Two of these make a run words (``Version2Release3``): a random one has one in twenty."""


def random_looking(run: bytes) -> bool:
    """Letters of both cases and digits, changing class at least every third character: what a
    generator of secrets writes and a person, a digest or an identifier does not."""
    if not 20 <= len(run) <= RUN_MAX or HEX.fullmatch(run):
        return False
    digits = sum(0x30 <= b <= 0x39 for b in run)
    upper = sum(0x41 <= b <= 0x5A for b in run)
    lower = sum(0x61 <= b <= 0x7A for b in run)
    if digits < 2 or upper < 2 or lower < 2 or len(_WORDS_IN.findall(run)) >= 2:
        return False
    return _class_changes(run) * 3 >= len(run)


_PLACE_BYTES: Final = re.compile(rb"[A-Za-z0-9_.+/-]+")
_VOWELS: Final = frozenset(b"aeiouAEIOU")
_SYLLABLES: Final = re.compile(rb"[A-Z]?[a-z]{2,}")
_VOWEL_Y: Final = re.compile(rb"[aeiouyAEIOUY]")
_PARTS: Final = re.compile(rb"[^_.+/-]{8,}")
_HEX_LITERAL: Final = re.compile(rb"0[xX][0-9a-fA-F]+")


def random_in_alphabet(run: bytes) -> bool:
    """Random in its own alphabet, for a value in a value's place: 12 to 200 characters of two
    classes or more (upper case, lower case, digits: ``R4KQ7XZ2MWN5TB8J``, base32, lower case and
    digits, letters with one digit), few vowels among the letters (fewer still in lower case,
    whose words are not told apart by their capitals) and the class changing often,
    as a generator writes and a name, a version, a date, a code or a word does not (most letters
    in words of camel case, short parts joined by ``-``, ``.`` or ``_``); hex and UUIDs are ids
    and digests."""
    core = run.rstrip(b"=")
    if not PLACE_MIN <= len(core) <= RUN_MAX or HEX.fullmatch(core):
        return False
    if not _PLACE_BYTES.fullmatch(core):
        return False
    digits = sum(0x30 <= b <= 0x39 for b in core)
    upper = sum(0x41 <= b <= 0x5A for b in core)
    lower = sum(0x61 <= b <= 0x7A for b in core)
    letters = upper + lower
    if letters < 6 or (digits >= 2) + (upper >= 2) + (lower >= 2) < 2:
        return False
    vowels = sum(b in _VOWELS for b in core)
    if vowels * 10 > letters * (4 if upper else 3):
        return False  # words are a third vowels or more; random letters a fifth
    # camel case: most letters in words (two lower-case letters or more, a capital before them)
    words = sum(len(w) for w in _SYLLABLES.findall(core) if _VOWEL_Y.search(w)) if upper else 0
    if words * 5 >= letters * 3:
        return False  # ``AsyncBaseTransport``, ``MLKEM768X25519PrivateKey``
    if _FILE_NAME.search(core) or _HEX_LITERAL.fullmatch(core) or not _PARTS.search(core):
        return False  # a file, a number, short parts joined (``EMSA-PKCS1-v1_5``)
    bare = _SEPARATORS.sub(b"", core)  # ``-``, ``_``, ``.`` join parts: no change of class
    return _class_changes(bare) * 4 >= len(bare)


_SEPARATORS: Final = re.compile(rb"[_.+/-]")
_FILE_NAME: Final = re.compile(rb"\.[a-z][a-z0-9]{0,4}$")
"""A file's extension ends it (``app.3f2a1c4e.min.js``): a name, not a value."""


_TOKEN_MAX: Final = 64


def random_in_place(data: bytes, a: int, end: int) -> tuple[int, int] | None:
    """The whole token around the run ``data[a:end]`` (its parts joined by ``_``, ``-``, ``.``)
    when it is random in its own alphabet and stands in a value's place."""
    t0, t1 = a, end
    while t0 > 0 and a - t0 < _TOKEN_MAX and _PLACE_BYTE[data[t0 - 1]]:
        t0 -= 1
    while t1 < len(data) and t1 - end < _TOKEN_MAX and _PLACE_BYTE[data[t1]]:
        t1 += 1
    while t1 < len(data) and data[t1] == 0x3D and t1 - end < 2:  # base64's padding
        t1 += 1
    if random_in_alphabet(data[t0:t1]) and _in_place(data, t0, t1):
        return t0, t1
    return None


_PLACE_BYTE: Final = [bool(re.fullmatch(rb"[A-Za-z0-9_.+/-]", bytes([i]))) for i in range(256)]


def _in_place(data: bytes, a: int, b: int) -> bool:
    """``data[a:b]`` stands where a value stands: the whole of a quoted literal, a pair's value
    after ``=`` or ``:``, a table's cell between ``|`` or tabs (a JSON-escaped tab too); and it
    ends where such a value ends."""
    before = data[a - 1 : a]
    if before in (b'"', b"'", b"`"):
        return data[b : b + 1] == before or (
            data[a - 2 : a - 1] == b"\\" and data.startswith(b"\\" + before, b)
        )
    after = data[b : b + 1]
    if after and after not in b" \t\r\n,;&|)]}\\\"'":
        return False
    lead = _PLACE_LEAD.search(data, max(0, a - 8), a)
    return lead is not None and not data.startswith(b"://", lead.start())


_PLACE_LEAD: Final = re.compile(rb"(?:(?<=[A-Za-z_\"'\]])[=:]|\|| ?\t|\\t)[ \t]*$")
"""What a pair's value or a cell follows: ``=`` or ``:`` after a name (not ``::``, ``==``, nor a
row's number: ``12:``), ``|``, a tab."""
