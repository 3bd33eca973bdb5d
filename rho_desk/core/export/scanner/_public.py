"""Keys public by design, known by their prefix: what a vendor gives to browsers and apps.

A vendor that issues a key pair for the browser marks the public half by its prefix: Mapbox's
``pk.`` tokens (``sk.`` is the secret one), Stripe's and Clerk's publishable ``pk_live_`` and
``pk_test_`` (``sk_…``), PostHog's project key ``phc_``, Statsig's client SDK key ``client-``
(``secret-…``), Datadog's browser client token ``pub`` + 32 hex digits. Such a key is meant to
sit in a web page's code, so it is not redacted, even under a name such as ``accessToken``.

A name that says otherwise wins: a value of these shapes on a line naming a secret or a private
key (``client_secret: client-…``, ``STRIPE_SECRET_KEY=pk_live_…``, ``private_key:``) is still
redacted, as is any other prefix of the same vendors.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["public_token"]

_PUBLIC: Final = re.compile(
    rb"pk\.eyJ[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"  # Mapbox
    rb"|pk_(?:live|test)_[A-Za-z0-9$=]{16,}"  # Stripe, Clerk: publishable
    rb"|phc_[A-Za-z0-9]{32,48}"  # PostHog: project API key
    rb"|client-[A-Za-z0-9]{32,64}"  # Statsig: client SDK key
    rb"|pub[0-9a-f]{32}"  # Datadog: browser (RUM, logs) client token
)
_MARKS: Final = re.compile(rb"pk[._]|phc_|client-|pub[0-9a-f]")
_TOKEN: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_TOKEN_END: Final = _TOKEN | frozenset(b"$=")  # Clerk's keys end in base64 padding
_WORD_MAX: Final = 200
_LINE_MAX: Final = 240
_LINE_START: Final = re.compile(rb"[\s\S]*(?:\n|\r|\\[nr]|\x00|\xff)")
_SAYS_SECRET: Final = re.compile(rb"secret|priv", re.IGNORECASE)
"""A name on the value's line saying secret or private: the name wins over the prefix."""


def public_token(data: bytes, start: int, end: int) -> bool:
    """The hit ``data[start:end]`` lies within a key of a public prefix (module docstring), and
    its line names no secret before it."""
    if _MARKS.search(data, max(0, start - 8), end) is None:
        return False
    a, b = start, end
    floor, ceil = max(0, start - _WORD_MAX), min(len(data), end + _WORD_MAX)
    while a > floor and data[a - 1] in _TOKEN:
        a -= 1
    while b < ceil and data[b] in _TOKEN_END:
        b += 1
    while b > end and data[b - 1] in b"=.-":
        b -= 1  # the word's end, not ``=`` or a sentence's full stop after it
    if _PUBLIC.fullmatch(data, a, b) is None:
        return False
    lo = max(0, a - _LINE_MAX)
    line = _LINE_START.match(data, lo, a)
    lo = line.end() if line is not None else lo
    return _SAYS_SECRET.search(data, lo, a) is None
