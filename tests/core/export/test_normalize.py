"""Normalised before matching: a secret written with invisible, look-alike or escaped characters
is found as the secret it reads as.

Each cause is tried in forms it was not written for: every range of Unicode's default-ignorable
code points (not only the zero-width space), every style of mathematical letter NFKC folds, marks
and look-alikes from other scripts, ``\\/`` from any JSON encoder that escapes slashes (a webhook,
a URL's password, a token after a path), ``\\u{…}`` of JavaScript, Rust and Swift and ``\\x{…}``
of Perl, and a URL's password that holds an ``@``. Text that merely uses those characters (an
emoji, a Russian sentence, decomposed accents) is left alone.
"""

from __future__ import annotations

import json
import random

import pytest

from rho_desk.core.export import Hit, SecretScanner
from rho_desk.core.export.scanner import _views
from rho_desk.core.export.scanner._views import DEFAULT_IGNORABLE

SCANNER = SecretScanner()
GITHUB = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
OPENAI = "sk-proj-Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1"
PASSWORD = "Vx7qLm2Rt9Kw"


def _covers(data: bytes, hits: list[Hit], start: int, end: int) -> bool:
    """The bytes ``[start, end)`` lie in hits (one or several that touch)."""
    pos = start
    for hit in sorted(hits, key=lambda h: h.start):
        if hit.start <= pos < hit.end:
            pos = hit.end
    return pos >= end


def found(text: str) -> bool:
    """The whole text is covered by hits, raw and inside a JSON string (as an export holds it)."""
    raw = text.encode()
    if not _covers(raw, SCANNER.scan(raw), 0, len(raw)):
        return False
    as_json = json.dumps({"output": "see " + text + " here"}, ensure_ascii=False).encode()
    inner = json.dumps(text, ensure_ascii=False)[1:-1].encode()
    at = as_json.find(inner)
    return _covers(as_json, SCANNER.scan(as_json), at, at + len(inner))


def found_in(text: str, secret: str) -> bool:
    data = text.encode()
    at = data.find(secret.encode())
    assert at >= 0
    return _covers(data, SCANNER.scan(data), at, at + len(secret.encode()))


# --- default-ignorable code points -------------------------------------------------------------

_IGNORABLES = sorted({c for lo, hi in DEFAULT_IGNORABLE for c in (lo, (lo + hi) // 2, hi)})


@pytest.mark.parametrize("code", _IGNORABLES, ids=lambda c: f"U+{c:04X}")
def test_a_default_ignorable_code_point_inside_a_token_is_dropped(code: int) -> None:
    mark = chr(code)
    assert found(GITHUB[:9] + mark + GITHUB[9:])
    assert found(OPENAI[:3] + mark + mark + OPENAI[3:20] + mark + OPENAI[20:])


@pytest.mark.parametrize(
    "mark", ["\u2063", "\ufe0f", "\u034f", "\U000e0067", "\U000e0101", "\u180e", "\u3164"]
)
def test_an_ignorable_inside_a_credential_name_or_between_every_letter(mark: str) -> None:
    assert found_in(f"pass{mark}word = {PASSWORD}", PASSWORD)
    assert found(mark.join(GITHUB))


def test_combining_marks_on_a_token_are_dropped() -> None:
    assert found("".join(c + "\u0332" for c in GITHUB))  # underlined
    assert found("".join(c + "\u0336" for c in OPENAI))  # struck through


# --- NFKC and look-alikes ------------------------------------------------------------------------

# the first capital, small letter and digit of each style NFKC folds to ASCII
_STYLES = {
    "bold": (0x1D400, 0x1D41A, 0x1D7CE),
    "italic bold": (0x1D468, 0x1D482, 0x1D7CE),
    "sans-serif": (0x1D5A0, 0x1D5BA, 0x1D7E2),
    "sans-serif bold": (0x1D5D4, 0x1D5EE, 0x1D7EC),
    "monospace": (0x1D670, 0x1D68A, 0x1D7F6),
    "double-struck": (0x1D538, 0x1D552, 0x1D7D8),
    "fullwidth": (0xFF21, 0xFF41, 0xFF10),
}


def _styled(text: str, style: str) -> str:
    upper, lower, digit = _STYLES[style]
    out = []
    for c in text:
        if "A" <= c <= "Z":
            out.append(chr(upper + ord(c) - 65))
        elif "a" <= c <= "z":
            out.append(chr(lower + ord(c) - 97))
        elif "0" <= c <= "9":
            out.append(chr(digit + ord(c) - 48))
        else:
            out.append(c)
    return "".join(out)


@pytest.mark.parametrize("style", sorted(_STYLES))
def test_a_token_in_mathematical_or_fullwidth_letters_is_folded(style: str) -> None:
    styled = _styled(GITHUB, style)
    # double-struck capitals have holes, written with the letter-like block's ℂ ℍ ℕ ℙ ℚ ℝ ℤ
    for letter, symbol in zip("CHNPQRZ", "\u2102\u210d\u2115\u2119\u211a\u211d\u2124", strict=True):
        styled = (
            styled.replace(chr(_STYLES[style][0] + ord(letter) - 65), symbol)
            if style == "double-struck"
            else styled
        )
    assert found(styled)
    assert found_in(f"{_styled('password', style)}: {PASSWORD}", PASSWORD)


def test_circled_letters_and_greek_and_cyrillic_look_alikes_are_folded() -> None:
    circled = (
        "".join(
            chr(0x24B6 + ord(c) - 65)
            if "A" <= c <= "Z"
            else chr(0x24D0 + ord(c) - 97)
            if "a" <= c <= "z"
            else c
            for c in "ghp_"
        )
        + GITHUB[4:]
    )
    assert found(circled)
    assert found_in(f"passw\u03bfrd={PASSWORD}", PASSWORD)  # Greek omicron
    assert found_in(f"\u0440assword={PASSWORD}", PASSWORD)  # Cyrillic er
    assert found(OPENAI.replace("-", "\u2010"))  # typographic hyphens


def test_a_long_window_is_rewritten_in_chunks_exactly_as_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A window is rewritten a chunk at a time (its text is held for one chunk, not the whole
    window): cut before a character's first byte, the result is the one of the whole window, for
    any chunk size, invalid and truncated UTF-8 included."""
    rng = random.Random(31)
    parts = [b"a", b"Z", b"7", b" ", b"\n", b"\\/", b"\xff", b"\x80", b"\xe2\x80", b"\xf0\x9d"]
    parts += [
        c.encode()
        for c in ("\u2063", "\ufe0f", "\u034f", "\U0001d41a", "\uff41", "\u00e9", "\u0430")
    ]
    window = b"".join(rng.choices(parts, k=4000))
    whole = _views._rewritten(window)
    for size in (1, 2, 3, 5, 64, 1000):
        monkeypatch.setattr(_views, "REWRITE_CHUNK", size)
        assert _views._rewritten(window) == whole
    monkeypatch.setattr(_views, "REWRITE_CHUNK", 1 << 16)
    # the same when ASCII stretches are kept as they are, block by block: the table keeps ASCII
    table = _views._table()
    assert all(table[code] == chr(code) for code in range(128))
    expected = (
        window.replace(b"\\/", b"/")
        .decode("utf-8", "surrogateescape")
        .translate(table)
        .encode("utf-8", "surrogateescape")
    )
    assert whole == expected
    ascii_runs = window + b"".join(rng.choices([*parts, b"x" * 150, b"y" * 400], k=2000))
    expected = (
        ascii_runs.replace(b"\\/", b"/")
        .decode("utf-8", "surrogateescape")
        .translate(table)
        .encode("utf-8", "surrogateescape")
    )
    for block in (1, 2, 3, 7, 128, 1000):
        monkeypatch.setattr(_views, "ASCII_BLOCK", block)
        assert _views._rewritten(ascii_runs) == expected, block
    # and a folded token cut by a chunk's end is still found
    monkeypatch.setattr(_views, "REWRITE_CHUNK", 1 << 16)
    styled = _styled(GITHUB, "bold")
    text = "x" * ((1 << 16) - 20) + " " + styled + " " + "y" * 100
    assert found_in(text, styled)


def test_text_that_only_uses_those_characters_is_left_alone() -> None:
    benign = (
        "Great job \u2764\ufe0f\U0001f44d\U0001f3fd the build is green \u2705\ufe0f \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f\n"
        "\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440! caf\u0065\u0301 na\u0131\u0308ve \u2122 m\u00b2 \ufb01le\n"
        "\u05e9\u05dc\u05d5\u05dd \u200f\u0627\u0644\u0639\u0631\u0628\u064a\u0629\u061c text\u200bwith\u200czero\u200dwidths\n"
    )
    for data in (benign.encode(), json.dumps({"text": benign}, ensure_ascii=False).encode()):
        assert SCANNER.scan(data) == []


# --- escaped slashes and \u{…} -------------------------------------------------------------------

SLACK = "https://hooks.slack.com/services/T0ABCDEFG/B0HIJKLMN/Q7x2K9mB4vT1pL8nR3sW6yZ0"
DISCORD = "https://discord.com/api/webhooks/123456789012345678/Q7x2K9mB4vT1pL8nR3sW6yZ0aD5fG2hJQ7x2K9mB4vT1pL8nR3sW6yZ0aD5fG2hJ"
TEAMS = (
    "https://contoso.webhook.office.com/webhookb2/a1b2c3d4-1111-2222-3333-444455556666@a1b2c3d4-1111-2222-3333-444455556666"
    "/IncomingWebhook/9f8e7d6c5b4a39281f0e1d2c3b4a5968/a1b2c3d4-1111-2222-3333-444455556666"
)
DSN = "postgres://admin:p@ss-" + PASSWORD + "@db.internal:5432/app"


@pytest.mark.parametrize(
    "url", [SLACK, DISCORD, TEAMS, DSN], ids=["slack", "discord", "teams", "dsn"]
)
def test_a_url_written_with_escaped_slashes_is_read_as_the_url(url: str) -> None:
    secret = (
        DSN.split("@db")[0].split("admin:")[1]
        if url == DSN
        else url.rsplit("/", 2)[-2 if url == TEAMS else -1]
    )
    php = json.dumps({"hook": url}).replace("/", "\\/")  # PHP's json_encode
    assert found_in(php, secret.replace("/", "\\/"))
    twice = json.dumps({"body": php})  # and that JSON inside an export's string
    assert found_in(twice, secret.replace("/", "\\\\/"))


def test_a_token_after_an_escaped_slash_is_found() -> None:
    assert found_in('{"path":"\\/srv\\/keys\\/' + GITHUB + '"}', GITHUB)


@pytest.mark.parametrize(
    "form", ["\\u{%x}", "\\u{%04X}", "\\x{%x}"], ids=["js", "swift-padded", "perl"]
)
def test_braced_unicode_escapes_are_decoded(form: str) -> None:
    escaped = "".join(form % ord(c) for c in GITHUB)
    assert found(escaped)
    mixed = "".join(form % ord(c) if i % 3 == 0 else c for i, c in enumerate(OPENAI))
    assert found_in(f'let key = "{mixed}";', mixed)


# --- a URL's password holding an "@" -----------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "password"),
    [
        ("postgres://admin:" + PASSWORD + "@2024@db.example.com:5432/app", PASSWORD + "@2024"),
        ("mysql://root:@" + PASSWORD + "@localhost/db", "@" + PASSWORD),
        ("https://alice@example.com:" + PASSWORD + "@git.example.com/repo.git", PASSWORD),
        ("amqp://guest:" + PASSWORD + "@#!@rabbit:5672/", PASSWORD + "@#!"),
    ],
)
def test_a_url_password_runs_to_the_last_at_before_the_host(url: str, password: str) -> None:
    assert found_in(url, password)
    assert found_in(json.dumps({"url": url}), password)


def test_urls_without_a_password_are_left_alone() -> None:
    for text in (
        "ssh://git@github.com:22/org/repo.git",
        "see http://host:8080/a?b=c@d.com",
        "mailto:alice@example.com",
    ):
        assert SCANNER.scan(text.encode()) == []


def test_the_gate_and_re_alone_agree_on_these_forms() -> None:
    from .test_scanner_engines import HYPERSCAN, hits, re_only_scanner

    if not HYPERSCAN:
        pytest.skip("hyperscan is not installed")
    texts = [GITHUB[:9] + chr(c) + GITHUB[9:] for c in _IGNORABLES]
    texts += [_styled(GITHUB, style) for style in _STYLES]
    texts += [json.dumps({"hook": url}).replace("/", "\\/") for url in (SLACK, DISCORD, TEAMS, DSN)]
    texts += [
        "".join(f"\\u{{{ord(c):x}}}" for c in GITHUB),
        "postgres://admin:" + PASSWORD + "@2024@db.example.com/app",
    ]
    plain = re_only_scanner([])
    assert [t for t in texts if hits(SCANNER, t.encode()) != hits(plain, t.encode())] == []
