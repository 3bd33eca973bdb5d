"""Stored password hashes known by their format: what a server keeps instead of a password.

A value under a credential's name (``password: pbkdf2_sha256$…``, ``users=admin:$apr1$…``,
``"rpc-password": "{<sha1><salt>"``, ``Password_PBKDF2="@ByteArray(salt:hash)"``) that is a
password's stored hash is not the password: it is what a server keeps so that it never holds
one, and rho-desk does not redact it (docs/security.md, "What counts as a secret"). A hash is
recognised by its whole format only (scheme, parameters, salt and digest of the lengths the
scheme gives), so a password that merely begins like one (``$2secret…``, ``{plain…``,
``pbkdf2-is-…``) is still a value.

``stored_hash`` widens a hit to the word around it (up to a blank, a quote, ``=``, ``,`` or a
JSON escape) and says whether that word, an optional ``user:`` before it, is such a hash.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["stored_hash"]

_D: Final = r"\$\$?"  # a ``$``, doubled where Compose or Traefik labels escape it
_B64C: Final = r"[./A-Za-z0-9]"  # crypt's base64 alphabet
_B64: Final = r"[A-Za-z0-9+/]"
_CRYPT: Final = (
    # MD5-crypt, Apache's apr1, SHA-256 and SHA-512 crypt (rounds optional), bcrypt
    rf"{_D}(?:1|apr1|md5){_D}{_B64C}{{1,16}}{_D}{_B64C}{{22}}"
    rf"|{_D}5{_D}(?:rounds=[0-9]{{1,9}}{_D})?{_B64C}{{1,16}}{_D}{_B64C}{{43}}"
    rf"|{_D}6{_D}(?:rounds=[0-9]{{1,9}}{_D})?{_B64C}{{1,16}}{_D}{_B64C}{{86}}"
    rf"|{_D}2[abxy]?{_D}[0-9]{{2}}{_D}{_B64C}{{53}}"
    # yescrypt, gost-yescrypt, scrypt ($7$): parameters, salt, a 43-character digest
    rf"|{_D}(?:y|gy|7){_D}{_B64C}{{1,64}}(?:{_D}{_B64C}{{1,64}})?{_D}{_B64C}{{43}}"
    # mosquitto_passwd: $7$<iterations>$<salt>$<hash> and $6$<salt>$<hash> in standard base64
    rf"|{_D}7{_D}[0-9]{{1,9}}{_D}{_B64}{{16,}}={{0,2}}{_D}{_B64}{{40,}}={{0,2}}"
    rf"|{_D}6{_D}{_B64}{{16,}}={{0,2}}{_D}{_B64}{{80,}}={{0,2}}"
).encode()
_PHC: Final = (
    # argon2 (also Django's ``argon2$argon2id$…``), passlib's ``$pbkdf2-sha256$``, ``$scrypt$``
    rf"(?:argon2)?{_D}argon2(?:id|i|d){_D}(?:v=[0-9]{{1,3}}{_D})?m=[0-9]{{1,9}},t=[0-9]{{1,4}},"
    rf"p=[0-9]{{1,4}}{_D}{_B64}{{11,}}{_D}{_B64}{{16,}}"
    rf"|{_D}pbkdf2(?:-sha(?:1|256|512))?{_D}[0-9]{{3,9}}{_D}{_B64C}{{8,}}{_D}{_B64C}{{22,}}"
    rf"|{_D}scrypt{_D}ln=[0-9]{{1,3}},r=[0-9]{{1,3}},p=[0-9]{{1,3}}{_D}{_B64}{{8,}}{_D}{_B64}{{22,}}"
).encode()
_DJANGO: Final = (
    # Django's ``algorithm$iterations$salt$hash`` and bcrypt/legacy forms; werkzeug's
    # ``pbkdf2:sha256:600000$salt$hex`` and ``scrypt:32768:8:1$salt$hex``
    rb"pbkdf2_sha(?:1|256|512)\$[0-9]{3,9}\$[A-Za-z0-9]{1,64}\$[A-Za-z0-9+/]{27,86}={0,2}"
    rb"|bcrypt(?:_sha256)?\$\$2[aby]\$[0-9]{2}\$[./A-Za-z0-9]{53}"
    rb"|scrypt\$[0-9]{3,9}\$[A-Za-z0-9]{1,64}\$[0-9]{1,3}\$[0-9]{1,3}\$[A-Za-z0-9+/]{43,}={0,2}"
    rb"|(?:sha1|md5)\$[A-Za-z0-9]{1,64}\$(?:[0-9a-f]{40}|[0-9a-f]{32})"
    rb"|pbkdf2:sha(?:1|256|512):[0-9]{3,9}\$[A-Za-z0-9]{1,64}\$[0-9a-f]{40,128}"
    rb"|scrypt:[0-9]{3,9}:[0-9]{1,3}:[0-9]{1,3}\$[A-Za-z0-9]{1,64}\$[0-9a-f]{64,128}"
)
_OTHER: Final = (
    # LDAP's ``{SSHA}base64`` (and ``{CRYPT}`` before a crypt hash)
    rb"\{(?i:s?sha(?:256|384|512)?|s?md5|pbkdf2(?:-sha(?:1|256|512))?|argon2)\}"
    rb"[A-Za-z0-9+/]{20,}={0,2}"
    # Transmission's ``{`` + SHA-1 hex + an 8-character salt
    rb"|\{[0-9a-f]{40}[./A-Za-z0-9]{8}"
    # qBittorrent's ``@ByteArray(salt:hash)`` (PBKDF2-SHA512: 16 and 64 bytes in base64)
    rb"|@ByteArray\([A-Za-z0-9+/]{22}={0,2}:[A-Za-z0-9+/]{86}={0,2}\)"
    # PostgreSQL's SCRAM verifier and md5 hash, MySQL's native password hash
    rb"|SCRAM-SHA-256\$[0-9]{3,9}:[A-Za-z0-9+/]{16,}={0,2}\$[A-Za-z0-9+/]{43}=:[A-Za-z0-9+/]{43}="
    rb"|md5[0-9a-f]{32}|\*[0-9A-F]{40}"
)
_HASH: Final = rb"(?:\{CRYPT\})?(?:" + _CRYPT + rb"|" + _PHC + rb")|" + _DJANGO + rb"|" + _OTHER
_STORED: Final = re.compile(
    rb"(?:[A-Za-z0-9_.@\-]{1,64}:)?(?:" + _HASH + rb")"
    rb"(?:,[A-Za-z0-9_.@\-]{1,64}:(?:" + _HASH + rb"))*"
)
"""A stored hash, or ``user:hash`` (htpasswd's lines, Traefik's ``users=`` lists)."""

_WORD_MAX: Final = 400
"""The longest word read around a hit (a SHA-512 crypt hash with a user is under 140 bytes)."""
_STOPS: Final = rb" \t\r\n\"'`;|<>\[\]\\\x00\xff"
"""What ends the word around a hit: blanks, quotes, a JSON escape's backslash (not ``,``: a list
of users' hashes is one word; not ``=``: argon2's parameters hold it)."""
_WORD_START: Final = re.compile(rb"(?s:.*)[" + _STOPS + rb"]")
"""The text up to the last stop before a hit (the greedy head leaves the stop that is last)."""
_WORD_REST: Final = re.compile(rb"[^" + _STOPS + rb"]*")
_JSON_ESCAPE: Final = frozenset(b"nrt")
_MARKS: Final = re.compile(
    rb"\$[^$\s]{0,96}\$|\{[A-Za-z0-9\-]{3,16}\}|\{[0-9a-f]{40}|@ByteArray\(|md5[0-9a-f]{32}"
    rb"|\*[0-9A-F]{40}"
)
"""What every hash of ``_STORED`` holds (two ``$``, a ``{SCHEME}``, …): a word without it is
passed over before the whole format is tried."""


def stored_hash(data: bytes, start: int, end: int) -> bool:
    """The hit ``data[start:end]`` lies within a word that is a stored password hash (with an
    optional ``user:`` before it, or a comma-separated list of them), the whole word or what
    follows an ``=`` in it before the hit (``basicauth.users=admin:$apr1$…``)."""
    floor, ceil = max(0, start - _WORD_MAX), min(len(data), end + _WORD_MAX)
    rest = _WORD_REST.match(data, end, ceil)
    b = rest.end() if rest is not None else end
    floor = data.rfind(b"\n", floor, start) + 1 or floor  # a line break ends the word
    if _MARKS.search(data, floor, b) is None:
        return False  # none in the line up to the word's end: none in the word
    head = _WORD_START.match(data, floor, start)
    a = head.end() if head is not None else floor
    if a > 0 and data[a - 1] == 0x5C and a < start and data[a] in _JSON_ESCAPE:
        a += 1  # ``\n`` before the word in JSON: the escape's letter is no part of it
    if _MARKS.search(data, a, b) is None:
        return False
    while True:
        if _STORED.fullmatch(data, a, b) is not None:
            return True
        a = data.find(b"=", a, start) + 1
        if a == 0:
            return False
