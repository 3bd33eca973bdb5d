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
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["labelled"]

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
