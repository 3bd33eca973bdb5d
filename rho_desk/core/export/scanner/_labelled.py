"""Values that are no secret by what labels them: an algorithm's name, a fingerprint's bytes.

A credential's name (``auth``, ``password_encryption``) can hold the name of the algorithm that
protects the credential rather than the credential: OpenVPN's ``auth SHA256``, PostgreSQL's
``password_encryption = scram-sha-256``, an SNMP user's ``"auth": "SHA384"``, strongSwan's
``esp=aes256gcm16-sha384!``. Such a value is the whole of one algorithm's name (a password that
merely begins like one, ``SHA256Kq9mZr7T``, is not).

A fingerprint printed as colon-separated hex bytes (keytool's and ``signingReport``'s ``SHA1:
AB:CD:…``, ``ssh-keygen -l``'s ``MD5:16:27:…``, ``openssl x509 -fingerprint``) reads as
``name:value`` pairs from any of its bytes on: a hit that begins inside such a run (a hex byte and
its colon right before it) is a piece of it. A run under a credential's name (``psk=4f:2a:…``)
begins at the name's operator and is kept.

Other values say by their own form what they are (``known_form``): a version with its
pre-release and build parts (``2.14.3-rc.1+build.675b2b2``: numbers, lower-case words, a short
commit's hex; ``2.14.3-Xk9mR2vT7`` is no version's), Django's unusable-password marker (``!`` and
40 letters and digits, which no password matches), a credential's name as lower-case words and
numbers one of which names a credential (``db-password``, ``6001-auth/6001``; a piece of mixed
case, ``api-key-9f3Kq2LmZx``, is a token's), a literal of the syntax and what closes its object
(``true }]``, ``null }``), SIP's transaction id after ``branch=`` (its magic cookie ``z9hG4bK``).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["known_form", "labelled"]

_ALGORITHM: Final = re.compile(
    rb"(?i:(?:scram-|hmac-|rsa-|ecdsa-|ed)?"
    rb"(?:sha-?(?:1|2|224|256|384|512)(?:[-/](?:224|256))?|sha3-(?:224|256|384|512)|md[45]|"
    rb"ripemd-?160|blake2[bs]?(?:-?(?:256|512))?|blake3|whirlpool|sm3|25519|448)"
    rb"(?:-(?:96|128|256|plus|pbkdf2))?"
    rb"|(?:aes|camellia|aria)-?(?:128|192|256)(?:-?(?:gcm|cbc|ctr|cfb|ofb|ccm|xts|cts))?(?:16|8|12)?"
    rb"(?:-(?:sha(?:1|256|384|512)|md5|prfsha(?:256|384|512)|modp[0-9]{3,4}|ecp[0-9]{3}|"
    rb"x25519|curve25519)){0,3}!?"
    rb"|chacha20(?:-?poly1305)?|bf-cbc|des-ede3-cbc|3des|x25519|curve25519)"
)
"""The whole name of a digest, a MAC, a cipher or a proposal of them (``SHA256``, ``sha-512``,
``hmac-sha2-256``, ``scram-sha-256``, ``AES-256-GCM``, ``aes256gcm16-sha384!``)."""
_ALGORITHM_MAX: Final = 48
_HEX: Final = frozenset(b"0123456789abcdefABCDEF")
_HEX_BYTES: Final = re.compile(rb"[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2})+")


def labelled(data: bytes, start: int, end: int) -> bool:
    """The hit ``data[start:end]`` is an algorithm's whole name, or a piece of a run of
    colon-separated hex bytes that began before it (module docstring)."""
    if end - start <= _ALGORITHM_MAX and _ALGORITHM.fullmatch(data, start, end) is not None:
        return True
    return (
        start >= 3
        and data[start - 1] == 0x3A
        and data[start - 2] in _HEX
        and data[start - 3] in _HEX
        and _HEX_BYTES.fullmatch(data, start, end) is not None
    )


_VERSION: Final = re.compile(
    rb"v?[0-9]{1,6}(?:\.[0-9]{1,9}){2,3}"
    rb"(?:-(?:[0-9]+|[a-z]+|[0-9a-f]{7,12})(?:\.(?:[0-9]+|[a-z]+|[0-9a-f]{7,12}))*)?"
    rb"(?:\+(?:[0-9]+|[a-z]+|[0-9a-f]{7,12})(?:\.(?:[0-9]+|[a-z]+|[0-9a-f]{7,12}))*)?"
)
"""A version: numbers, then pre-release and build parts of numbers, lower-case words or a
short commit's hex."""
_UNUSABLE: Final = re.compile(rb"![A-Za-z0-9]{40}")
_NAME_PIECES: Final = re.compile(rb"(?:[a-z]+|[0-9]+)(?:[-_./](?:[a-z]+|[0-9]+))+")
_PIECE_SPLIT: Final = re.compile(rb"[-_./]")
_CREDENTIAL_WORDS: Final = frozenset(
    b"password passwd pass pwd passphrase secret secrets token tokens key keys apikey auth "
    b"creds credential credentials".split()
)
_LITERAL_CLOSE: Final = re.compile(rb"(?i:true|false|null|nil|none|~)[ \t]*[}\])]+[ \t,;]*")
_NAME_MAX: Final = 96
_FIRST: Final = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyz!~TFN")
"""The bytes a value of ``known_form`` can begin with (one look-up for most hits)."""


def known_form(data: bytes, start: int, end: int) -> bool:
    """The hit ``data[start:end]`` is a version, Django's unusable-password marker, a
    credential's name, a literal closing its object, or SIP's branch id (module docstring)."""
    if start >= end or data[start] not in _FIRST or end - start > _NAME_MAX:
        return False
    first = data[start]
    if first == 0x21:
        return _UNUSABLE.fullmatch(data, start, end) is not None
    if first == 0x7A and data.startswith(b"z9hG4bK", start):
        return data.endswith(b"branch=", 0, start)
    if _LITERAL_CLOSE.fullmatch(data, start, end) is not None:
        return True
    if _VERSION.fullmatch(data, start, end) is not None:
        return True
    if _NAME_PIECES.fullmatch(data, start, end) is None:
        return False
    return not _CREDENTIAL_WORDS.isdisjoint(_PIECE_SPLIT.split(data[start:end]))
