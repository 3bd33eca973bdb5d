"""Redaction holes: each shape or encoding below once leaked through an export whose audit said 0.

Every test plants a synthetic secret the way a real tool prints it (``grep --color``, a Python
bytes repr, quoted-printable, double URL-encoding, GNU ``base64``, ``xxd -p``, ``gzip | base64``,
a Kubernetes ``.dockerconfigjson``, the AWS console's credentials CSV, a zero-width space...) and
checks that the scanner covers the secret, raw and inside the JSON string an export holds it in.
"""

from __future__ import annotations

import base64
import gzip
import json
import textwrap
from urllib.parse import quote

import pytest

from rho_desk.core.export import Hit, SecretScanner, Selection, export_snapshot
from rho_desk.core.export.scanner._decoders import INFLATE_RATIO
from rho_desk.core.wire.model import Message

from .builders import canary_snapshot

SCANNER = SecretScanner()
KEY = bytes(range(32))

OPENAI = "sk-proj-Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1"
GITHUB = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
AWS_ID = "AKIAZ7Q3W5E1R9T2Y4U6"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq81Hb3KeY"
SLACK = "xoxb-2468013579-1357924680-AbCdEfGh1234IjKl"
TOKENS = [OPENAI, GITHUB, AWS_ID, SLACK]


def _covered(data: bytes, hits: list[Hit], needle: bytes) -> bool:
    """Every occurrence of ``needle`` lies inside some hit."""
    pos = data.find(needle)
    if pos < 0:
        return False
    while pos >= 0:
        if not any(h.start <= pos and pos + len(needle) <= h.end for h in hits):
            return False
        pos = data.find(needle, pos + 1)
    return True


def _found(text: str, needle: str | None = None) -> bool:
    """Found raw, and inside a JSON string (as a JSON export holds it): a hit covers ``needle``
    (the planted text itself when not given)."""
    want = text if needle is None else needle
    raw = text.encode()
    if not _covered(raw, SCANNER.scan(raw), want.encode()):
        return False
    as_json = json.dumps({"output": text}, ensure_ascii=False).encode()
    inner = json.dumps(want, ensure_ascii=False)[1:-1].encode()
    return _covered(as_json, SCANNER.scan(as_json), inner)


# --- token boundaries after escape sequences ----------------------------------------------------


@pytest.mark.parametrize("token", TOKENS, ids=lambda t: t[:4])
def test_a_key_in_grep_color_output(token: str) -> None:
    line = f"config.env:3:export X=\x1b[01;31m\x1b[K{token}\x1b[m\x1b[K"
    assert _found(line, token)
    tight = f"\x1b[01;31m\x1b[K{token}\x1b[m\x1b[K"
    assert _found(tight, token)


@pytest.mark.parametrize("token", TOKENS, ids=lambda t: t[:4])
def test_a_key_in_a_python_bytes_repr(token: str) -> None:
    for before in (b"\x00", b"\xff\x01", b"\n"):
        text = repr(before + token.encode() + b"\x00")
        assert _found(text, token), text


@pytest.mark.parametrize("token", TOKENS, ids=lambda t: t[:4])
def test_a_key_after_quoted_printable_and_double_url_encoding(token: str) -> None:
    assert _found(f"Content-Transfer-Encoding: quoted-printable\n\nconfig=3D{token}\n", token)
    double = quote(quote(f"config={token}&x=1", safe=""), safe="")
    assert "%253D" in double
    assert _found(f"GET /cb?state={double} HTTP/1.1", double)


def test_escape_boundaries_do_not_make_words_into_keys() -> None:
    for text in (
        "tasks-and-risks-and-disks-are-words-without-any-digits",
        "Kask-proj-thing",
        "=3Dtasks-are-fine",
    ):
        assert SCANNER.scan(text.encode()) == []


# --- base64 across line wraps ---------------------------------------------------------------


@pytest.mark.parametrize("width", [76, 64, 57, 20])
def test_wrapped_base64_is_decoded_across_lines_at_every_alignment(width: int) -> None:
    missed = []
    for offset in range(0, 2 * width):
        body = ("x" * offset + f" OPENAI_KEY {OPENAI} end\n").encode()
        encoded = base64.b64encode(body).decode()
        wrapped = "\n".join(textwrap.wrap(encoded, width))
        for text in (
            wrapped,
            wrapped.replace("\n", "\r\n"),
            "    " + wrapped.replace("\n", "\n    "),
        ):
            hits = SCANNER.scan(text.encode())
            as_json = json.dumps({"output": text}).encode()
            if not hits or not SCANNER.scan(as_json):
                missed.append(offset)
    assert missed == []


# --- escapes normalised before scanning -------------------------------------------------------


def test_a_run_of_unicode_escapes_is_found_in_json_as_in_markdown() -> None:
    escaped = "".join(f"\\u{ord(c):04x}" for c in OPENAI)
    assert _found(f"printf '{escaped}'", escaped)
    snapshot = canary_snapshot(extra=[Message.user_text(f"the key: {escaped} (escaped)")])
    verdicts = {}
    for fmt in ("json", "markdown", "html"):
        result = export_snapshot(snapshot, Selection.everything(), key=KEY, fmt=fmt)
        assert (
            escaped.encode() not in result.data
            and escaped.replace("\\", "\\\\").encode() not in result.data
        ), fmt
        assert result.report.blocking == [], fmt
        verdicts[fmt] = sorted(r.rule for r in result.redactions)
    assert verdicts["json"] == verdicts["markdown"] == verdicts["html"] != []


def test_hex_and_octal_escapes_are_decoded() -> None:
    assert _found("".join(f"\\x{b:02x}" for b in OPENAI.encode()))
    escaped = "".join(f"\\x{b:02x}" for b in GITHUB.encode())
    assert _found(f"b'{escaped}'", escaped)


# --- missing shapes -----------------------------------------------------------------------------


def test_aws_secret_access_key_next_to_its_id_without_a_label() -> None:
    csv = (
        "User name,Password,Access key ID,Secret access key,Console login link\n"
        f"alice,,{AWS_ID},{AWS_SECRET},https://123456789012.signin.aws.amazon.com/console\n"
    )
    assert _found(csv, AWS_SECRET)
    assert _found(f"{AWS_ID}\t{AWS_SECRET}", AWS_SECRET)
    assert _found(f'{{"AccessKeyId": "{AWS_ID}", "SecretAccessKey": "{AWS_SECRET}"}}', AWS_SECRET)
    # forty base64 characters with no access key id near them are not a secret by shape
    assert SCANNER.scan(f"digest {AWS_SECRET} of the file".encode()) == []


@pytest.mark.parametrize(
    "token",
    [
        "xoxe.xoxp-1-Mi0yLTQ4ODg3NDU1MjQ0MC00ODg4NzQ1NTI1NzYtNTk5ODc2NTQzMjEwOS1hYmNkZWYxMjM0",
        "xoxe-1-My0xLTQ4ODg3NDU1MjQ0MC01OTk4NzY1NDMyMTA5LTEyMzQ1Njc4OTBhYmNkZWYxMjM0NTY3ODkw",
        "xapp-1-A04B7QX8M3K-4888745524576-9f8e7d6c5b4a39281f0e1d2c3b4a59687a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d",
        "ya29.a0AfB_byC7xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1Rr09Qq1Pp2Oo3Nn4Mm5Ll6Kk7",
    ],
    ids=["xoxe.xoxp", "xoxe", "xapp", "ya29"],
)
def test_slack_rotation_app_tokens_and_google_access_tokens(token: str) -> None:
    assert _found(f"token {token} ok", token)


def test_a_kubernetes_dockerconfigjson_is_base64_inside_base64() -> None:
    auth = base64.b64encode(f"robot:{GITHUB}".encode()).decode()
    config = json.dumps({"auths": {"ghcr.io": {"auth": auth}}})
    secret = textwrap.dedent(f"""\
        apiVersion: v1
        kind: Secret
        type: kubernetes.io/dockerconfigjson
        data:
          .dockerconfigjson: {base64.b64encode(config.encode()).decode()}
        """)
    assert _found(secret, base64.b64encode(config.encode()).decode())


def test_gzip_then_base64() -> None:
    packed = base64.b64encode(
        gzip.compress(f"export OPENAI_API_KEY={OPENAI}\n".encode(), mtime=0)
    ).decode()
    assert _found(f"H4sI blob: {packed}", packed)
    wrapped = "\n".join(textwrap.wrap(packed, 76))
    assert _found(wrapped, wrapped.splitlines()[0])


def test_hex_encoded_keys() -> None:
    plain = f"token {OPENAI}\n".encode().hex()
    assert _found(f"dump: {plain}", plain)
    xxd = "\n".join(textwrap.wrap(f"# env\nexport GITHUB_TOKEN={GITHUB}\n".encode().hex(), 60))
    assert _found(xxd, xxd.splitlines()[0])


@pytest.mark.parametrize("zw", ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"])
def test_a_zero_width_character_inside_a_key(zw: str) -> None:
    for token in (OPENAI, GITHUB):
        broken = token[:10] + zw + token[10:]
        assert _found(f"key: {broken}", broken[:9])
    ascii_json = json.dumps({"v": OPENAI[:12] + zw + OPENAI[12:]}).encode()
    assert SCANNER.scan(ascii_json) != []


def test_nested_decoding_is_bounded() -> None:
    # a key encoded ten times is past the depth limit; the scan still ends quickly and reports
    # the blob as what it is (nothing), never unbounded work
    value = f"token {OPENAI}".encode()
    for _ in range(10):
        value = base64.b64encode(value)
    SCANNER.scan(value)
    # a gzip bomb (50 MB of one byte) is inflated up to INFLATE_RATIO times its size, no more:
    # the work is that of scanning the cut text, far from that of 50 MB (the bound is that
    # scan's own cost, which grows with the rules as the bomb's does: 64 bytes of work per
    # byte of cut text, the bound until ruleset 61, fell below it as keyword passes were added)
    bomb = base64.b64encode(gzip.compress(b"A" * 50_000_000)).decode()
    scanner = SecretScanner()
    scanner.scan(bomb.encode())
    cut = SecretScanner()
    cut.scan(b"A" * (INFLATE_RATIO * len(bomb)))
    assert scanner.cost < cut.cost


def test_a_private_key_header_alone_is_not_a_key_but_a_block_is() -> None:
    grep = "".join(f"keys/id_{i}.pem:1:-----BEGIN RSA PRIVATE KEY-----\n" for i in range(50))
    assert SCANNER.scan(grep.encode()) == []
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n"
    assert _found(f"{grep}{block}", block.strip())
