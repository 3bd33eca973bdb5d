"""Secrets in provider memory, and the scrubbing of anything that leaves a provider as text.

An API key lives in a ``SecretString`` from the moment it is read from keyring (or an opted-in
environment variable) until the moment it is written into one outgoing request header. Nothing
else ever holds the raw value: ``repr``, ``str``, formatting, pickling and JSON encoding all
refuse or redact (spec/engine.md §16.3).

Text that leaves a provider (error messages, diagnostics, log lines) is built from sanitized
parts only. ``Scrubber`` is the last line of defence for the parts that came from the network:
it removes every known secret (in raw, URL-encoded, base64 and case-changed forms) and masks
anything that looks like a credential.
"""

from __future__ import annotations

import base64
import hmac
import re
import urllib.parse
from collections.abc import Iterable
from typing import Final, NoReturn

__all__ = ["REDACTED", "Scrubber", "SecretString", "strip_query"]

REDACTED: Final = "[REDACTED]"

# A credential-looking token: 20+ characters from the alphabets keys, tokens and signatures use,
# with at least one letter and one digit. Masking such tokens in provider-supplied text (error
# messages echoed back by a server) costs a little readability and keeps unknown secrets out.
_CREDENTIAL_LIKE = re.compile(r"(?<![A-Za-z0-9_%+/=.\-])[A-Za-z0-9_%+/=.\-]{20,}")
_BEARER = re.compile(r"(?i)\b(bearer|basic|token)\s+[^\s\"',;]+")
_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s\"'<>]+")


class SecretString:
    """A secret string that never shows itself.

    ``repr`` is ``SecretString([REDACTED])``, ``str`` and every format spec give ``[REDACTED]``;
    it cannot be pickled or JSON-encoded. Read the value with ``expose_secret()``, only where it
    goes on the wire.
    """

    __slots__ = ("__value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError("a SecretString holds a str")
        self.__value = value

    def expose_secret(self) -> str:
        """The raw value. Call only where it is written into a request."""
        return self.__value

    def __repr__(self) -> str:
        return f"SecretString({REDACTED})"

    def __str__(self) -> str:
        return REDACTED

    def __format__(self, spec: str) -> str:
        return REDACTED

    def __bool__(self) -> bool:
        return bool(self.__value)

    def __len__(self) -> int:
        return len(self.__value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SecretString):
            return NotImplemented
        # constant time: equality is used to compare a typed key with the stored one
        return hmac.compare_digest(self.__value.encode(), other.__value.encode())

    def __hash__(self) -> int:
        return hash((SecretString, len(self.__value)))

    def __reduce__(self) -> NoReturn:
        raise TypeError("a SecretString cannot be pickled")

    def __copy__(self) -> SecretString:
        return self

    def __deepcopy__(self, memo: object) -> SecretString:
        return self


def strip_query(url: str) -> str:
    """``url`` without user info, query string or fragment (they may carry secrets)."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "[unparseable URL]"
    host = parts.hostname or ""
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port is not None else host
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _forms(secret: str) -> set[str]:
    """Every encoded form of ``secret`` a sink might show (audit procedure, spec/export.md §5.4)."""
    raw = secret.encode("utf-8")
    forms = {
        secret,
        urllib.parse.quote(secret, safe=""),
        urllib.parse.quote_plus(secret, safe=""),
        base64.b64encode(raw).decode("ascii"),
        base64.urlsafe_b64encode(raw).decode("ascii"),
        base64.b64encode(raw).decode("ascii").rstrip("="),
        secret.encode("unicode_escape").decode("ascii"),
    }
    # underscores written as %5F even where quote() leaves them alone
    forms.add(secret.replace("_", "%5F"))
    forms.add(secret.replace("_", "%5f"))
    return {f for f in forms if len(f) >= 4}


class Scrubber:
    """Removes known secrets and credential-looking tokens from text.

    Args:
        secrets: exact values to remove (API keys, header values, query values). Values shorter
            than 4 characters are ignored: removing them would shred ordinary text.
    """

    __slots__ = ("_pattern",)

    def __init__(self, secrets: Iterable[str | SecretString] = ()) -> None:
        forms: set[str] = set()
        for secret in secrets:
            value = secret.expose_secret() if isinstance(secret, SecretString) else secret
            if value and len(value) >= 4:
                forms |= _forms(value)
        # longest first, so a value is removed before any of its substrings
        ordered = sorted(forms, key=len, reverse=True)
        self._pattern = (
            re.compile("|".join(re.escape(f) for f in ordered), re.IGNORECASE) if ordered else None
        )

    def __repr__(self) -> str:
        return "Scrubber([REDACTED])"

    def known(self, text: str) -> str:
        """``text`` with every known secret (any encoding, any case) replaced by ``[REDACTED]``."""
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

    def __call__(self, text: str) -> str:
        """``text`` with known secrets removed, URLs stripped of queries, and tokens masked."""
        text = self.known(text)
        text = _URL.sub(lambda m: strip_query(m.group(0)), text)
        text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
        return _CREDENTIAL_LIKE.sub(_mask_token, text)


def _mask_token(match: re.Match[str]) -> str:
    token = match.group(0)
    if "/" in token and not any(c in token for c in "%+="):
        # a path, not a key: keep it readable (keys and signatures rarely contain '/')
        return token
    has_alpha = any(c.isalpha() for c in token)
    has_digit = any(c.isdigit() for c in token)
    return REDACTED if has_alpha and has_digit else token
