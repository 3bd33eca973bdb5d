"""A redacted value ends where its syntax ends it (issue 31): a query's parameter at its ``&`` (a
query's value holds none unencoded), a quoted word at its closing quote (the sentence's stop
after it is no part of it). The secret is gone; what follows it is kept, raw and inside the JSON
string an export holds it in.
"""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export import SecretScanner

SCANNER = SecretScanner()

ENDS: dict[str, tuple[str, str, str]] = {
    # name: (text, the secret, what follows it and is kept)
    "an otpauth URI's issuer": (
        "otpauth://totp/Acme:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Acme",
        "JBSWY3DPEHPK3PXP",
        "&issuer=Acme",
    ),
    "a signed link's expiry": (
        "https://files.example.com/dl/r.pdf?token=Xq9LmZ7RkT2vBw8N&expires=1717000000&name=r",
        "Xq9LmZ7RkT2vBw8N",
        "&expires=1717000000",
    ),
    "a quoted password, then a full stop": (
        'I set the password to "hunter22". "Done", she said.',
        "hunter22",
        '". "Done"',
    ),
    "a quoted key, then an exclamation mark": (
        "The key is 'Rk9Lm2QzT7'! Then restart the service.",
        "Rk9Lm2QzT7",
        "'! Then",
    ),
}


def _kept(raw: bytes, secret: bytes, after: bytes) -> tuple[bool, bool]:
    """Whether the secret is covered by a hit, and whether what follows it is outside every hit."""
    hits = SCANNER.scan(raw)
    at = raw.index(secret)
    tail = raw.index(after, at + len(secret))
    covered = any(h.start <= at and h.end >= at + len(secret) for h in hits)
    untouched = all(h.end <= tail or h.start >= tail + len(after) for h in hits)
    return covered, untouched


@pytest.mark.parametrize("name", list(ENDS))
def test_the_value_ends_where_its_syntax_ends_it(name: str) -> None:
    text, secret, after = ENDS[name]
    for raw, s, a in (
        (text.encode(), secret.encode(), after.encode()),
        (
            json.dumps(text).encode(),
            json.dumps(secret)[1:-1].encode(),
            json.dumps(after)[1:-1].encode(),
        ),
    ):
        covered, untouched = _kept(raw, s, a)
        assert covered, (name, raw)
        assert untouched, (name, raw)
