"""Keys public by design, known by their prefix: what a vendor gives to browsers and apps.

A vendor that issues a key pair for the browser marks the public half by its prefix: Mapbox's
``pk.`` tokens (``sk.`` is the secret one), Stripe's and Clerk's publishable ``pk_live_`` and
``pk_test_`` (``sk_…``), PostHog's project key ``phc_``, Statsig's client SDK key ``client-``
(``secret-…``), Datadog's browser client token ``pub`` + 32 hex digits. Such a key is meant to
sit in a web page's code, so it is not redacted, even under a name such as ``accessToken``.

It is public only where it is given to its vendor's code: the vendor is named within the text
before it (``mapboxgl``, ``Stripe(``, ``posthog.init``, ``StatsigClient``, ``datadogRum``), its
line names no secret, private key, password or authorization before it (``client_secret:
client-…``, ``password = pk_live_…``, ``Bearer client-…``), and it is no server setting's value
(an upper-case name, ``MAPBOX_API_KEY = "pk.…"``) unless that name says it is for the browser
(``NEXT_PUBLIC_``, ``VITE_``, ``…_CLIENT_KEY``). A password or a token that merely begins so
(``client-…`` in a URL's query, under ``--password``) is still redacted, as is any other prefix
of the same vendors.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["public_token"]

_PUBLIC: Final = re.compile(
    rb"(?P<mapbox>pk\.eyJ[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,})"
    rb"|(?P<stripe>pk_(?:live|test)_[A-Za-z0-9$=]{16,})"  # Stripe, Clerk: publishable
    rb"|(?P<posthog>phc_[A-Za-z0-9]{32,48})"  # PostHog: project API key
    rb"|(?P<statsig>client-[A-Za-z0-9]{32,64})"  # Statsig: client SDK key
    rb"|(?P<datadog>pub[0-9a-f]{32})"  # Datadog: browser (RUM, logs) client token
)
_VENDOR: Final = {
    "mapbox": re.compile(rb"mapbox", re.IGNORECASE),
    "stripe": re.compile(rb"stripe|clerk|publishable", re.IGNORECASE),
    "posthog": re.compile(rb"posthog", re.IGNORECASE),
    "statsig": re.compile(rb"statsig", re.IGNORECASE),
    "datadog": re.compile(rb"datadog|\bDD_", re.IGNORECASE),
}
"""The vendor's name, one of which is looked for before a key of its prefix."""
_VENDOR_REACH: Final = 400
_MARKS: Final = re.compile(rb"pk[._]|phc_|client-|pub[0-9a-f]")
_TOKEN: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_TOKEN_END: Final = _TOKEN | frozenset(b"$=")  # Clerk's keys end in base64 padding
_WORD_MAX: Final = 200
_LINE_MAX: Final = 240
_LINE_START: Final = re.compile(rb"[\s\S]*(?:\n|\r|\\[nr]|\x00|\xff)")
_SAYS_SECRET: Final = re.compile(rb"secret|priv|pass|pwd|bearer|authoriz|credential", re.IGNORECASE)
"""A word on the value's line saying secret, private, password or authorization: it wins."""
_SETTING: Final = re.compile(rb"([A-Z][A-Z0-9_]{2,63})[\"']?[ \t]*[:=][ \t]*\\{0,7}[\"']?\Z")
"""An upper-case name right before the value: an environment variable's or a server setting's."""
_FOR_BROWSER: Final = re.compile(
    rb"PUBLIC|PUBLISHABLE|CLIENT|SITE|BROWSER|FRONTEND|^VITE_|^REACT_APP_|^GATSBY_|^EXPO_"
)
"""What in a setting's name says it is given to the browser (build tools' prefixes among them)."""


def public_token(data: bytes, start: int, end: int) -> bool:
    """The hit ``data[start:end]`` lies within a key of a public prefix given to its vendor's code
    (module docstring)."""
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
    m = _PUBLIC.fullmatch(data, a, b)
    if m is None or m.lastgroup is None:
        return False
    if _VENDOR[m.lastgroup].search(data, max(0, a - _VENDOR_REACH), a) is None:
        return False
    lo = max(0, a - _LINE_MAX)
    line = _LINE_START.match(data, lo, a)
    lo = line.end() if line is not None else lo
    if _SAYS_SECRET.search(data, lo, a) is not None:
        return False
    setting = _SETTING.search(data, lo, a)
    return setting is None or _FOR_BROWSER.search(setting.group(1)) is not None
