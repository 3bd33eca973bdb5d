"""Hits whose value is no secret by what it is, whichever pass found it.

The passes find a value by where it stands (under a credential's name, in a value's place, random
in its alphabet); what the value itself is can still say it is no secret. Each kind is a module of
its own: a stored password hash known by its format (``_hashes``), a key public by its vendor's
prefix (``_public``), the next name of a list of names (``_namelists``), and a placeholder (one
character repeated, ``_catalogue.placeholder``). ``SecretScanner`` drops such hits last; the rules
of ``ALWAYS_KEPT`` (what rho-desk holds, what a command printed, key blocks) are kept whatever
their value looks like.
"""

from __future__ import annotations

import re
from typing import Final

from ._catalogue import ALWAYS_KEPT, Hit, placeholder
from ._hashes import stored_hash
from ._namelists import listed_name
from ._public import public_token

__all__ = ["benign"]

_MARK: Final = re.compile(rb"[$*{@]|md5|pk[._]|phc_|client-|pub[0-9a-f]")
"""What a stored hash or a public key holds (a ``$``, ``{SCHEME}``, ``@ByteArray(``, ``md5``,
``*``; a vendor's public prefix): a hit without it, in it or the 8 bytes before, is neither
unless it is part of a longer word (``_hashes`` reads the word around it)."""
_STOPS: Final = frozenset(b" \t\r\n\"'`;|<>[]\\\x00\xff")
"""What ends a word (``_hashes``): a hit between two of them is a word of its own."""


def benign(data: bytes, hit: Hit) -> bool:
    """``hit`` (in ``data``) is a placeholder, a stored hash, a public key or a listed name, not a
    secret."""
    if hit.rule in ALWAYS_KEPT:
        return False
    if placeholder(hit):
        return True
    a, b = hit.start, hit.end
    if _MARK.search(data, a - 8 if a > 8 else 0, b) is None:
        # a word of its own holds no hash; a longer word may hold its marks outside the hit
        inside = (a > 0 and data[a - 1] not in _STOPS) or (b < len(data) and data[b] not in _STOPS)
        return (inside and stored_hash(data, a, b)) or listed_name(data, a, b)
    return stored_hash(data, a, b) or public_token(data, a, b) or listed_name(data, a, b)
