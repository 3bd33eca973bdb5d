"""Basic credentials wherever they stand: ``Basic`` and the base64 of ``user:password``.

The Authorization rule (``_rules``) reads a header's value after its name and ``:`` or ``=``. A
header's value is also given where no such sign stands: as an argument (nginx's
``proxy_set_header Authorization "Basic X"``, HAProxy's ``set-header``, ``.header("Authorization",
"Basic X")``), a map's or a tuple's item (``Map("Authorization" -> "Basic X")``), a line of its own
(Envoy's ``value:``), a log's capture (``{Basic X}``) or prose. What follows ``Basic`` is taken
when it decodes to a printable ``user:password``: ``Basic realm=``, ``Basic authentication`` and
the base64 of words with no ``:`` are left.
"""

from __future__ import annotations

import binascii
import re
from typing import Final

from ._catalogue import Hit
from ._rules import Pass

__all__ = ["BASIC_WINDOW", "basic_passes"]

BASIC_WINDOW: Final = 21
"""The longest match of the pass's gate (``basic``, four blanks, twelve bytes of base64): the
anchor is searched this far before each of the gate's reports."""
_BASIC_PAIR: Final = re.compile(rb"[\x21-\x39\x3b-\x7e]{1,128}:[\x20-\x7e]{3,256}")
"""What a Basic credential's base64 decodes to: a user (no ``:``) and its password, printable."""


def _basic(data: bytes, m: re.Match[bytes]) -> Hit | None:
    value = m.group("value")
    try:
        decoded = binascii.a2b_base64(value + b"=" * (-len(value) % 4))
    except binascii.Error:
        return None
    if _BASIC_PAIR.fullmatch(decoded) is None:
        return None
    return Hit("authorization-header", m.start("value"), m.end("value"), value)


def basic_passes() -> list[Pass]:
    """The pass of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        Pass(
            re.compile(
                rb"basic[ \t]{1,4}(?P<value>[A-Za-z0-9+/]{12,512}={0,2})(?![A-Za-z0-9+/=_\-])",
                re.IGNORECASE,
            ),
            _basic,
            anchor=re.compile(rb"basic"),
            gate=(rb"basic[ \t]{1,4}[A-Za-z0-9+/]{12}", 0, 0),
            window=BASIC_WINDOW,
        )
    ]
