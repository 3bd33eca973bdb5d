"""Hits whose value is no secret by what it is, whichever pass found it.

The passes find a value by where it stands (under a credential's name, in a value's place, random
in its alphabet); what the value itself is can still say it is no secret. Each kind is a module of
its own: a stored password hash known by its format (``_hashes``), a key public by its vendor's
prefix (``_public``), the next name of a list of names (``_namelists``), an algorithm's name or a
piece of a fingerprint's colon-separated bytes, a version, Django's unusable-password marker, a
credential's name, a literal closing its object, SIP's branch id (``_labelled``), a path before
a list of options or a list of settings (``_paths.among_options``), and a placeholder (one
character repeated, ``_catalogue.placeholder``). ``SecretScanner`` drops such hits last
(``without_benign``); the rules of ``ALWAYS_KEPT`` (what rho-desk holds, what a command printed,
key blocks) are kept whatever their value looks like.

Every hit of a scan passes here (3,120 in the 1 MB structure text), so each kind is tried only
where the bytes at the hit's edges allow it: a hash or a public key holds a mark (``_MARK``) in
the hit or the 8 bytes before it, or the hit is part of a longer word (``_hashes`` reads the word
around it); a listed name has a quote before it. A hit that is a word of its own, unquoted and
unmarked (most values under a name: ``password: X``), costs one search of its bytes.
"""

from __future__ import annotations

import re
from typing import Final

from ._catalogue import ALWAYS_KEPT, Hit, placeholder
from ._hashes import stored_hash
from ._labelled import known_form, labelled
from ._namelists import listed_name
from ._paths import among_options
from ._public import public_token

__all__ = ["without_benign"]

_MARK: Final = re.compile(rb"\$|\*|\{|@|md5|pk[._]|phc_|client-|pub[0-9a-f]")
"""What a stored hash or a public key holds (a ``$``, ``{SCHEME}``, ``@ByteArray(``, ``md5``,
``*``; a vendor's public prefix): a hit without it, in it or the 8 bytes before, is neither
unless it is part of a longer word (``_hashes`` reads the word around it). Each branch starts
with a byte, so a search skips to the bytes that can start one (twice as fast as ``[$*{@]|…``
on the structure text's hits)."""
_STOPS: Final = frozenset(b" \t\r\n\"'`;|<>[]\\\x00\xff")
"""What ends a word (``_hashes``): a hit between two of them is a word of its own."""
_QUOTES: Final = frozenset(b"\"'")
"""What stands before an item of a list of names (``listed_name``)."""
_CLOSED: Final = _STOPS - _QUOTES
"""A byte before a hit that leaves it neither part of a longer word nor quoted."""


def without_benign(data: bytes, hits: list[Hit]) -> list[Hit]:
    """``hits`` less those whose value is a placeholder, an algorithm's name or a fingerprint's
    piece, a stored hash, a public key or a listed name (in order); each kind is tried only where
    the hit's edges and marks allow it."""
    kept = []
    size = len(data)
    for hit in hits:
        if hit.rule in ALWAYS_KEPT:
            kept.append(hit)
        elif (
            placeholder(hit)
            or labelled(data, hit.start, hit.end)
            or known_form(data, hit.start, hit.end)
            or (
                data.find(b",", hit.start, hit.end) >= 0
                and among_options(data[hit.start : hit.end])
            )
        ):
            pass
        elif _MARK.search(data, hit.start - 8, hit.end) is not None:  # a position below 0 is 0
            if not _marked(data, hit.start, hit.end):
                kept.append(hit)
        elif (hit.start and data[hit.start - 1] not in _CLOSED) or (
            hit.end < size and data[hit.end] not in _STOPS
        ):
            if not _unmarked(data, hit.start, hit.end):
                kept.append(hit)
        else:  # a word of its own, unquoted and unmarked: no hash, no key, no listed name
            kept.append(hit)
    return kept


def _marked(data: bytes, a: int, b: int) -> bool:
    """A hit with a mark in it or the 8 bytes before it is a stored hash, a public key or a listed
    name."""
    return stored_hash(data, a, b) or public_token(data, a, b) or listed_name(data, a, b)


def _unmarked(data: bytes, a: int, b: int) -> bool:
    """A hit without a mark, quoted or part of a longer word, is a stored hash (only inside a
    longer word: the word may hold its marks outside the hit) or a listed name (only quoted)."""
    if (a and data[a - 1] not in _STOPS) or (b < len(data) and data[b] not in _STOPS):
        return stored_hash(data, a, b) or (data[a - 1] in _QUOTES and listed_name(data, a, b))
    return listed_name(data, a, b)
