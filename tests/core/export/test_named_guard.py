"""The credential-name pattern refuses only what its handler refuses: no value it would report is lost.

``_grammar``'s name pass refuses, in its pattern, an unquoted value that ends with ``:`` (the next
name of a list of names) instead of calling its handler for it. Over many generated assignments
(names, separators, quoted and unquoted values, tuples, XML elements, escapes of either case),
the handler's answer on the unguarded pattern's match is the same as on the guarded one's.
"""

from __future__ import annotations

import random
import re

from rho_desk.core.export.scanner._grammar import _ASSIGN, KEYWORDS, _named, grammar_passes

NAMES = [
    b"password",
    b"DB_PASS",
    b"apiToken",
    b"client_secret",
    b"auth",
    b"AUTH_KEY",
    b"x-auth-token",
    b"cookie",
    b"pwd",
]
SEPARATORS = [
    b"=",
    b": ",
    b" = ",
    b"=> ",
    b":=",
    b">",
    b"> ",
    b'", ',
    b'" value=',
    b"=\t",
    b"  :  ",
    b'\\": \\"',
    b"||",
]
PIECES = [
    b"abc123",
    b"Tok3n",
    b":",
    b"token:",
    b"x",
    b"\\n",
    b"\\N",
    b"\\\\",
    b"\\t",
    b"</",
    b"<",
    b"(",
    b"[",
    b'"',
    b"'",
    b"`",
    b" ",
    b"\t",
    b"\n",
    b"A1b2C3d4",
    b"://",
    b"$VAR",
    b"s3cr3t:",
    b"Authorization:",
    b"%",
    b"\x00",
]


# the edges of the refusal: an XML element's text cut at its next tag, escapes of either case,
# a tuple, a value ending at the end of the data, a quoted value, a name after "=>"
EDGES = [
    b"<password>abc123<x:",
    b"<password> A1b2C3d4<b>:",
    b"<password>\n  abc123:",
    b"password= a\\Nb1:c",
    b"password= a\\nb1:",
    b'auth=("user", "p4ss:")',
    b'auth=["u","p4ss"]:',
    b"password=>abc123:",
    b'password = \\"abc123:\\"',
    b"DB_PASS=abc123:",
    b"DB_PASS=abc123:</x>",
    b"token: Authorization: Cookie:",
]


def _samples(count: int) -> list[bytes]:
    rng = random.Random(20261204)
    out = list(EDGES)
    for _ in range(count):
        value = b"".join(rng.choices(PIECES, k=rng.randint(0, 6)))
        lead = rng.choice([b"", b"<", b'"', b"?", b"export ", b"  "])
        out.append(
            lead
            + rng.choice(NAMES)
            + rng.choice(SEPARATORS)
            + value
            + rng.choice([b"", b"\n", b" next", b'"}'])
        )
    return out


def test_the_guard_refuses_only_what_the_handler_refuses() -> None:
    unguarded = re.compile(KEYWORDS + _ASSIGN, re.IGNORECASE)
    guarded = grammar_passes()[0].pattern
    refused = 0
    for data in _samples(20_000):
        for origin in range(len(data)):
            before = unguarded.match(data, origin)
            after = guarded.match(data, origin)
            if before is None:
                assert after is None, data
                continue
            expected = _named(data, before)
            if after is None:
                refused += 1
                assert expected is None, data  # a value the handler would report is never refused
                continue
            assert after.span() == before.span(), data
            got = _named(data, after)
            assert (got is None) == (expected is None), data
            if got is not None and expected is not None:
                assert (got.rule, got.start, got.end, got.value) == (
                    expected.rule,
                    expected.start,
                    expected.end,
                    expected.value,
                )
    assert refused > 1000  # and the guard does refuse the name-after-name candidates
