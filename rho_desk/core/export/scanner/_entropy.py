"""Entropy in context: a random-looking value where a credential stands is one, whatever its name.

A value's name does not always say what it holds (``SIGNATURE_SALT``, ``X-Upstream-Auth``,
``config.set("upstream", "…")``). These rules read how random the value looks, but only where a
value stands (after ``=`` or ``:``, quoted as an argument): never in prose, never under a name
that says identifier, digest or data (``id``, ``sha256``, ``integrity``, ``etag``), and never for
the shapes that are random by design and public (integrity strings, prefixed ids, image data).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Final

from ._catalogue import Hit
from ._grammar import NOT_SECRET_WORDS, name_before, name_words

__all__ = ["ENTROPY_CAP", "ENTROPY_MAX_LENGTH", "ENTROPY_MIN_LENGTH", "entropy_hits", "high_entropy", "shannon"]

_LOWER: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_UPPER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT: Final = frozenset(b"0123456789")


def shannon(value: bytes) -> float:
    """Bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


ENTROPY_MIN_LENGTH: Final = 20
ENTROPY_MAX_LENGTH: Final = 256
ENTROPY_CAP: Final = 4.2
"""Bits per character a value needs (``log2(length) - 0.7`` for shorter ones, at most this)."""
_CONTEXT_SKIP: Final = frozenset(b" \t\"'\\`")
_CONTEXT_OPENERS: Final = frozenset(b"=:(,[")
_CONTEXT_BEFORE: Final = _CONTEXT_SKIP | {0x3D, 0x3A}
"""The byte right before a value where a credential can stand: ``=``, ``:``, or what is skipped
on the way back to one (spaces, quotes, backslashes)."""
# values under these names are identifiers, digests or data, not credentials
_BENIGN_NAMES: Final = frozenset({
    "id", "ids", "uuid", "guid", "hash", "sha", "sha1", "sha256", "sha384", "sha512", "md5", "digest",
    "checksum", "integrity", "etag", "commit", "rev", "revision", "oid", "nonce", "data", "content",
    "text", "path", "url", "uri", "name", "type", "model", "title", "src", "href", "ref", "version",
    "encrypted", "ciphertext", "blob", "image", "icon", "thumbnail", "iv", "signature",
    "fingerprint", "kid", "x5t", "n", "e", "x", "y", "at", "alg", "tag", "label", "key",
})
_PREFIXED_ID: Final = re.compile(rb"[a-z]{2,12}_[A-Za-z0-9]")
_INTEGRITY: Final = re.compile(rb"sha(?:1|224|256|384|512)-")
_IMAGE_HEADS: Final = (b"iVBORw0KGgo", b"/9j/", b"R0lGOD", b"UklGR", b"PHN2Zy", b"Qk")


_DIGEST_LABEL: Final = re.compile(
    r"h[0-9]|zh|sha(?:[0-9]+|3[0-9]+)?|md[245]|blake[0-9a-z]{0,4}|xxh(?:[0-9]+|3)?|crc[0-9]{0,2}c?|ripemd[0-9]*|sm3|fnv[0-9a]*|murmur[0-9a-z]*"
)
"""A digest's algorithm named as the label before its value (go.sum and terraform locks' ``h1:``
and ``zh:``, a wheel RECORD's ``sha256=``, ``md5:``, ``blake3:``, ``crc32c=``): its name's words
joined."""


def _benign_name(data: bytes, end: int) -> bool:
    """The name ending at ``end`` (its closing quote and spaces skipped) holds an identifier, a
    digest (or is the digest's algorithm), data or a public value."""
    while end > 0 and data[end - 1] in b"\"'\\ \t":
        end -= 1
    _, name = name_before(data, end)
    words = name_words(name.decode("ascii", "replace"))
    if not words:
        return False
    return words[-1] in _BENIGN_NAMES or not NOT_SECRET_WORDS.isdisjoint(words) or _DIGEST_LABEL.fullmatch("".join(words[-2:])) is not None


_UPPER_BYTES: Final = bytes(sorted(_UPPER))
_LOWER_BYTES: Final = bytes(sorted(_LOWER))
_DIGIT_BYTES: Final = bytes(sorted(_DIGIT))


def high_entropy(value: bytes) -> bool:
    """Random-looking: both cases and digits (two or more of each) and near the entropy of random text."""
    n = len(value)
    for chars in (_UPPER_BYTES, _LOWER_BYTES, _DIGIT_BYTES):
        if n - len(value.translate(None, chars)) < 2:
            return False
    return shannon(value) >= min(ENTROPY_CAP, math.log2(n) - 0.7)


def entropy_hits(data: bytes, runs: list[tuple[int, int]]) -> list[Hit]:
    """High-entropy values where a credential stands: after ``=``, ``:`` (a header, a YAML or
    JSON key), as an argument, or quoted on both sides; never under an identifier's or a digest's
    name, nor an integrity string (``sha512-…``), a prefixed id (``toolu_…``) or image data."""
    out: list[Hit] = []
    for start, end in runs:
        n = end - start
        if n < ENTROPY_MIN_LENGTH or n > ENTROPY_MAX_LENGTH:
            continue
        if start > 0 and data[start - 1] not in _CONTEXT_BEFORE:
            continue  # a line, a path or a word goes on: no credential stands here
        i = start
        while i > 0 and start - i < 8 and data[i - 1] in _CONTEXT_SKIP:
            i -= 1
        before = data[i - 1] if i > 0 else 0
        quoted = start > 0 and data[start - 1] in b"\"'`" and end < len(data) and data[end : end + 1] in (b'"', b"'", b"`", b"\\", b"=")
        if before not in (0x3D, 0x3A) and not (quoted and before in _CONTEXT_OPENERS):
            continue
        value = data[start:end]
        if value.islower() or value.isupper() or value.isdigit():
            continue  # hex digests, words, numbers
        if _INTEGRITY.match(value) or _PREFIXED_ID.match(value) or value.startswith(_IMAGE_HEADS) or value.startswith(b"/"):
            continue
        if before in (0x3D, 0x3A) and _benign_name(data, i - 1):
            continue
        if not high_entropy(value):
            continue
        stop = end
        while stop < len(data) and stop - end < 2 and data[stop] == 0x3D:
            stop += 1
        out.append(Hit("high-entropy-value", start, stop, data[start:stop]))
    return out
