"""Hits whose value is no secret by what it is, whichever pass found it.

The passes find a value by where it stands (under a credential's name, in a value's place, random
in its alphabet); what the value itself is can still say it is no secret. Each kind is a module of
its own: a stored password hash known by its format (``_hashes``), a key public by its vendor's
prefix (``_public``), the next name of a list of names (``_namelists``). ``SecretScanner`` drops
such hits last, before placeholders; the rules of ``ALWAYS_KEPT`` (what rho-desk holds, what a
command printed, key blocks) are kept whatever their value looks like.
"""

from __future__ import annotations

from ._catalogue import ALWAYS_KEPT, Hit
from ._hashes import stored_hash
from ._namelists import listed_name
from ._public import public_token

__all__ = ["benign"]


def benign(data: bytes, hit: Hit) -> bool:
    """``hit`` (in ``data``) is a stored hash, a public key or a listed name, not a secret."""
    if hit.rule in ALWAYS_KEPT:
        return False
    a, b = hit.start, hit.end
    return stored_hash(data, a, b) or public_token(data, a, b) or listed_name(data, a, b)
