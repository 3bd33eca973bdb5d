"""The audit is a second opinion (issue 31, "What to build" 6): a secret the scanner misses is a
finding of the receipt, not ``findings: 0``.

The second opinion (``_opinion``) shares none of the scanner's rules. Here the scanner is made to
miss (a scanner with a rule, or every rule, switched off: the bug planted on purpose), the
session is exported in every format, and the receipt must count what was left. Then real misses
of today's scanner (forms it does not know) are counted the same way, and the benign corpora give
no finding.
"""

from __future__ import annotations

import html
import json

import pytest

from rho_desk.core.export import (
    SecretScanner,
    Selection,
    build_receipt,
    export_snapshot,
    verify_receipt,
)
from rho_desk.core.export._opinion import random_looking, second_opinion
from rho_desk.core.export.scanner import Hit
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

from .forms import benign_session

KEY = bytes(range(32))
IDENTITY = ModelIdentity("openai", "responses", "gpt-5")
FORMATS = ("json", "markdown", "html")


class _Blind(SecretScanner):
    """A scanner whose hits of some rules (all, by default) are dropped: the planted miss."""

    def __init__(self, *rules: str) -> None:
        super().__init__()
        self.rules = frozenset(rules)

    def scan(
        self, data: bytes, *, decoded: list[tuple[int, int, bytes]] | None = None
    ) -> list[Hit]:
        hits = super().scan(data, decoded=decoded)
        return [h for h in hits if self.rules and h.rule not in self.rules]


# (text a tool printed, the secret, the second opinion's kind)
MISSED: dict[str, tuple[str, str, str]] = {
    "env assignment": ("DB_PASSWORD=Zq8#v;L&(p2\nDB_HOST=db\n", "Zq8#v;L&(p2", "named"),
    "yaml under a name": (
        "auth:\n  client_secret: Ab3dEf9hIj2kLm5n\n",
        "Ab3dEf9hIj2kLm5n",
        "named",
    ),
    "json under a name": ('{"api_key": "Qm7Tz2Lp9Wx4Rv8N"}', "Qm7Tz2Lp9Wx4Rv8N", "named"),
    "name then space": ("requirepass ma0pqLZw7d1nj1D9Dm\n", "ma0pqLZw7d1nj1D9Dm", "named"),
    "letters-only passphrase": (
        "DB_PASSWORD=correcthorsebatterystaple\n",
        "correcthorsebatterystaple",
        "named",
    ),
    "vendor token in prose": (
        "use gsk_Wq9tZ2fLm3Rv8Kp1Xy7Nb4Hc6Jd0Se5Tg for groq",
        "Wq9tZ2fLm3Rv8Kp1Xy7Nb4Hc6Jd0Se5Tg",
        "random",
    ),
    "random value alone": (
        "Generated: Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1g\n",
        "Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1g",
        "random",
    ),
    "jwt": (
        "see eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
        "jwt",
    ),
    "url password": (
        "DATABASE_URL is postgres://app:Hx9pQ2wz@db:5432/app\n",
        "Hx9pQ2wz",
        "url-password",
    ),
    "private key": (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
        "-----END OPENSSH PRIVATE KEY-----\n",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "private-key",
    ),
}


def _session(text: str) -> SessionSnapshot:
    return SessionSnapshot.new(
        "s-1",
        1,
        [
            Message.user_text("look"),
            Message.assistant_blocks(
                [ContentBlock.of_tool_call("c1", "bash", {"command": "cat config"})]
            ),
            Message.result("c1", True, text),
        ],
        IDENTITY,
    )


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("form", sorted(MISSED))
def test_a_secret_the_scanner_missed_is_a_finding_of_the_receipt(form: str, fmt: str) -> None:
    text, secret, kind = MISSED[form]
    result = export_snapshot(
        _session(text),
        Selection.everything(),
        key=KEY,
        fmt=fmt,
        scanner=_Blind(),
        incremental=False,
    )
    shown = html.unescape(result.data.decode()) if fmt == "html" else result.data.decode()
    assert secret in shown or json.dumps(secret)[1:-1] in shown  # the planted miss
    assert not result.blocked  # a second opinion does not block: it is reviewed
    found = [f for f in result.report.findings if f.rule == f"second-opinion:{kind}"]
    assert found, [f.describe() for f in result.report.findings]
    assert all(f.severity.value == "medium" and f.fingerprint for f in found)
    if fmt == "json":
        assert found[0].location == "$.history[2].ToolResult.content"
    receipt = build_receipt(result, output_name=f"e.{fmt}", key_id="kid:test")
    assert len(receipt.findings) >= 1 and any(
        f.rule == f"second-opinion:{kind}" for f in receipt.findings
    )
    assert any(n.startswith("second opinion v1") for n in receipt.notes)
    assert verify_receipt(receipt, result.data, result.report, "kid:test").findings_reproduced


def test_one_rule_switched_off_is_caught_by_the_other_opinion() -> None:
    text = "export OPENAI_API_KEY=sk-proj-Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1\n"
    full = export_snapshot(_session(text), Selection.everything(), key=KEY)
    assert (
        full.report.findings == []
        and b"Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1" not in full.data
    )
    rules = {r.rule for r in full.redactions}
    blind = export_snapshot(
        _session(text), Selection.everything(), key=KEY, scanner=_Blind(*rules), incremental=False
    )
    assert b"Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1" in blind.data
    assert [f.rule for f in blind.report.findings] == ["second-opinion:named"]


# Forms today's scanner does not know (a vendor prefix nobody listed, a token after escaped line
# breaks): exported with the real scanner, the receipt counts them.
REAL_MISSES: dict[str, tuple[str, str]] = {
    "unlisted vendor, underscore": (
        "my key is zqv_8Hd2Kp9Lm4Tx7Rw1Ny6Bc3Fg5Js0Qa ok",
        "8Hd2Kp9Lm4Tx7Rw1Ny6Bc3Fg5Js0Qa",
    ),
    "unlisted vendor, dash": (
        "KEY: nbl-Xk29fJs8Lq3Wm7Np2Rt5Vz8Cy4Hd",
        "Xk29fJs8Lq3Wm7Np2Rt5Vz8Cy4Hd",
    ),
}


@pytest.mark.parametrize("form", sorted(REAL_MISSES))
def test_a_real_miss_is_either_redacted_or_counted(form: str) -> None:
    text, secret = REAL_MISSES[form]
    result = export_snapshot(_session(text), Selection.everything(), key=KEY)
    if secret.encode() in result.data:
        assert [f.rule for f in result.report.findings] == ["second-opinion:random"]
    else:  # the scanner learned it: redacted, and nothing left to count
        assert result.report.findings == []


def test_a_token_after_a_heading_in_a_reasoning_summary_is_redacted_or_counted() -> None:
    jwt = "eyJ2ZXIiOiIyIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODB9.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    summary = AssistantMessage(
        content=(ContentBlock.of_text("ok"),),
        provenance=IDENTITY,
        reasoning_summary=f"**Checking**\n\n{jwt}",
    )
    snapshot = SessionSnapshot.new(
        "s-1", 1, [Message.user_text("look"), Message.enriched(summary)], IDENTITY
    )
    for fmt in FORMATS:
        result = export_snapshot(snapshot, Selection.everything(), key=KEY, fmt=fmt)
        assert not result.blocked
        if jwt.encode() in result.data:
            assert [f.rule for f in result.report.findings] == ["second-opinion:jwt"], fmt


def test_what_the_scanner_redacted_is_no_second_finding() -> None:
    text = "\n".join(t for t, _, _ in MISSED.values())
    result = export_snapshot(_session(text), Selection.everything(), key=KEY)
    assert result.redactions and result.report.findings == []


def test_the_benign_corpus_gives_no_finding() -> None:
    text = benign_session()
    assert second_opinion(text.encode()) == []
    assert second_opinion(json.dumps(text).encode()) == []
    result = export_snapshot(_session(text), Selection.everything(), key=KEY)
    assert [f.describe() for f in result.report.findings] == []


@pytest.mark.parametrize(
    "value",
    [
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # a digest
        "550e8400-e29b-41d4-a716-446655440000",  # a UUID
        "getUserAccountSettingsHandler",  # camel case
        "openai_response_output_item",  # an identifier
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",  # one letter
        "Version2Release3Build4Final5",  # words and numbers
    ],
)
def test_what_does_not_look_random(value: str) -> None:
    assert not random_looking(value.encode())
    assert second_opinion(f'value = "{value}"'.encode()) == []


@pytest.mark.parametrize(
    "text",
    [
        '"session_id": "ses_Xk29fJs8Lq3Wm7Np2Rt5Vz8Cy4Hd"',  # ids are random by design
        '"id": "call_Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1g"',
        "integrity sha512-Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1gQ==",  # a digest named as one
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0d me@host",  # a public key
        '"data": "R0lGODlhLW5vdC1hLXBuZw=="',  # an image's bytes
        "![image](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk)",
        "max_tokens: 128000",  # about a credential, not one
        "token took=237ms on the way",  # prose
        "password = request.form['password']",  # code
        "api_key = api_key_from_environment",  # a variable
        "password: ${DB_PASSWORD}",  # a reference
        "DB_PASSWORD=[secret redacted: credential-assignment fp:0123456789abcdef]",  # what the scanner wrote
    ],
)
def test_what_is_not_a_secret_here(text: str) -> None:
    assert second_opinion(text.encode()) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "DB_PASSWORD=myS3cr3tPass",
            "myS3cr3tPass",
        ),  # a value that starts like a placeholder's word
        (
            "use the token Xk29fJs8Lq3W, then log in",
            "Xk29fJs8Lq3W",
        ),  # the sentence's comma is not the value's
        ('{"client_secret": "Blue horse 7 staple"}', "Blue horse 7 staple"),  # quoted, with spaces
        ('"{\\"password\\": \\"Qz8vLm2Tw9\\"}"', "Qz8vLm2Tw9"),  # JSON inside a JSON string
    ],
)
def test_what_is_a_secret_here(text: str, value: str) -> None:
    hits = second_opinion(text.encode())
    assert [text.encode()[h.start : h.end] for h in hits] == [value.encode()]
