"""The audit is a second opinion (issue 31, "What to build" 6): a secret the scanner misses is a
finding of the receipt, not ``findings: 0``.

The second opinion (``_opinion``) shares none of the scanner's rules. Here the scanner is made to
miss (a scanner with a rule, or every rule, switched off: the bug planted on purpose), the
session is exported in every format, and the receipt must count what was left. Then real misses
of today's scanner (forms it does not know) are counted the same way, and the benign corpora give
no finding.
"""

from __future__ import annotations

import base64
import html
import json
import random
from collections.abc import Callable
from concurrent.futures import Future
from typing import Final

import pytest

from rho_desk.core.export import (
    SecretScanner,
    Selection,
    build_receipt,
    export_snapshot,
    verify_receipt,
)
from rho_desk.core.export import _opinion as opinion
from rho_desk.core.export._audit import audit_bytes
from rho_desk.core.export._opinion import (
    OPINION_VERSION,
    candidates,
    candidates_after_edit,
    random_looking,
    second_opinion,
)
from rho_desk.core.export.scanner import PARALLEL_MIN, Hit, workers
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
        self,
        data: bytes,
        *,
        decoded: list[tuple[int, int, bytes]] | None = None,
        started: Callable[[], object] | None = None,
    ) -> list[Hit]:
        hits = super().scan(data, decoded=decoded, started=started)
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
    # a command line's arguments, and values judged after decoding (forms the scanner itself
    # misses today: the held-out batch's remaining leaks)
    "positional argument": (
        "ldapsearch -x -D cn=admin,dc=corp -w Tundra^5521cobalt -b dc=corp\n",
        "Tundra^5521cobalt",
        "password",
    ),
    "glued user:password": (
        "listen stats\n    stats auth ops:Prairie?9694harbor\n",
        "Prairie?9694harbor",
        "password",
    ),
    "quoted literal": (
        'let pw = env::var("P").unwrap_or_else(|_| "Velvet*6580pebble".to_string());\n',
        "Velvet*6580pebble",
        "password",
    ),
    "mail address and a value": (
        "[smtp.gmail.com]:587 alerts@example.org:irdjsvmxgclbsoho\n",
        "irdjsvmxgclbsoho",
        "user-password",
    ),
    "base64 of user:password": (
        'proxy_set_header Authorization "Basic c3ZjOkxhbnRlcm4/NDQ1M3dpbGxvdw==";\n',
        "c3ZjOkxhbnRlcm4/NDQ1M3dpbGxvdw==",
        "decoded",
    ),
    "byte slice": (
        "var key = []byte{0x57, 0x61, 0x6c, 0x6e, 0x75, 0x74, 0x21, 0x32, 0x34, 0x30, 0x33, 0x74}\n",
        "0x57, 0x61, 0x6c, 0x6e, 0x75, 0x74, 0x21, 0x32, 0x34, 0x30, 0x33, 0x74",
        "decoded",
    ),
    "armored base64": (
        "-----BEGIN DATA-----\ncGFzc3dv\ncmQ9SGFy\nYm9yITk5\nNDJxdWFy\ndHo=\n-----END DATA-----\n",
        "cGFzc3dv",
        "decoded",
    ),
    "keypair array": (
        "[" + ", ".join(str((i * 151 + 7) % 256) for i in range(64)) + "]\n",
        ", ".join(str((i * 151 + 7) % 256) for i in range(64)),
        "key-bytes",
    ),
}

REDACTED: Final = tuple(list(MISSED)[:10])
"""The forms above the scanner redacts itself (with all its rules on)."""


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
    assert any(n.startswith(f"second opinion v{OPINION_VERSION}:") for n in receipt.notes)
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
    text = "\n".join(MISSED[form][0] for form in REDACTED)
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


# Command lines read as arguments, and text read after decoding: each value alone, with the span
# the finding covers.
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("sshpass -p 'Copper&7713lantern' ssh deploy@web1 uptime", "Copper&7713lantern"),
        ("smbclient //nas/share -U backup%Marble?2290falcon -c 'ls'", "backup%Marble?2290falcon"),
        ("7z x backup.7z -pHazel!6604canyon -o/tmp/out", "Hazel!6604canyon"),  # glued
        ("sqlplus scott/Tiger!4471lake@orcl", "Tiger!4471lake"),  # user/X@db
        ("lftp -u deploy,Quartz~3310ember sftp://files", "Quartz~3310ember"),  # user,X
        ("*:5432:*:postgres:Xy7!pgRoot2024", "Xy7!pgRoot2024"),  # a .pgpass line
        ('<property name="x.password">Ginger&7319badger</property>', "Ginger&7319badger"),
        ('@Value("${db.password:Otter!7023lagoon}")', "Otter!7023lagoon"),  # a default
        ("$pdo = new PDO('mysql:host=db', 'shop', 'Otter%993sparrow');", "Otter%993sparrow"),
        (
            "define('AUTH_KEY', 'iY>z-JZho*S^JbaD3-x9]mKaPu~m!VrV%PBG&nQ<hPmyM^Wi$Fx8nMYk#r4NJS{D');",
            "iY>z-JZho*S^JbaD3-x9]mKaPu~m!VrV%PBG&nQ<hPmyM^Wi$Fx8nMYk#r4NJS{D",
        ),
        ("bindpw Px3#bindPw77", "Px3#bindPw77"),  # a value standing alone
        ("net user admin Harbor$7712gate /add", "Harbor$7712gate"),  # ``$`` before digits
        ('os.environ.setdefault("SMTP_PW", "Fjord@8812peak")', "Fjord@8812peak"),  # ``@`` too
        ("docker login -u ci -p Opal%5518delta registry", "Opal%5518delta"),  # ``%55``: no escape
        (
            'const char *pw = "\\x4c\\x61\\x6b\\x65\\x21\\x33\\x39\\x31\\x30\\x70";',
            "\\x4c\\x61\\x6b\\x65\\x21\\x33\\x39\\x31\\x30\\x70",
        ),
        (  # base64 wrapped short, without an armor (``base64 -w 12``), and in numbered rows
            "out:\nUEdQQVNTV09S\nRD1UdWxpcCM1\nNTEyY2VkYXIK\n",
            "UEdQQVNTV09S\nRD1UdWxpcCM1\nNTEyY2VkYXIK",
        ),
        (
            "[creds.b64#K7Q2]\n1:UEdQQVNTV09SRD1U\n2:dWxpcCM1NTEyY2Vk\n3:YXIK",
            "UEdQQVNTV09SRD1U\n2:dWxpcCM1NTEyY2Vk\n3:YXIK",
        ),
        ('keychain.set("Sw1ft#Keych4in", forKey: "token")', "Sw1ft#Keych4in"),
        ("u=ops&p=Birch%214471lake&r=1", "Birch%214471lake"),  # percent-encoded
        ("relay.example.net  notify@corp.example:qwhzkcvbnmtrpxld", "qwhzkcvbnmtrpxld"),
        (
            "echo " + b"Onyx#8831willow".hex() + " | xxd -r -p | sudo -S true",
            b"Onyx#8831willow".hex(),
        ),
        (
            "curl -H 'Authorization: Basic "
            + base64.b64encode(b"ops:Cobalt!4418meadow").decode()
            + "' https://ci",
            base64.b64encode(b"ops:Cobalt!4418meadow").decode(),
        ),
        (
            "secret = bytes([84, 104, 105, 115, 116, 108, 101, 35, 50, 50, 56, 49, 113, 117])",
            "84, 104, 105, 115, 116, 108, 101, 35, 50, 50, 56, 49, 113, 117",
        ),
        (
            "char pw[] = {'L', 'a', 'n', 't', 'e', 'r', 'n', '%', '1', '6', '0', '3'};",
            "'L', 'a', 'n', 't', 'e', 'r', 'n', '%', '1', '6', '0', '3'",
        ),
        (  # HTML character references, decimal, then hex without ';' in Go's JSON (\u0026)
            '<input id="pw1" value="' + "".join(f"&#{ord(c)};" for c in "Tq8!vRz2mKw9") + '">',
            "".join(f"&#{ord(c)};" for c in "Tq8!vRz2mKw9"),
        ),
        (
            '{"body":"' + "".join(f"\\u0026#x{ord(c):x}" for c in "token=Bn4rTq9LpZ2x") + '"}',
            "".join(f"\\u0026#x{ord(c):x}" for c in "token=Bn4rTq9LpZ2x"),
        ),
    ],
)
def test_an_argument_or_a_decoded_value_is_a_suspicion(text: str, value: str) -> None:
    for data, shown in (
        (text.encode(), value.encode()),
        (json.dumps({"command": text}).encode(), json.dumps(value)[1:-1].encode()),
    ):
        hits = second_opinion(data)
        assert [h.value for h in hits] == [shown], data


# What looks like those and is not a secret: references, formats, versions, escapes, URLs, lists
# of numbers, base64 of prose, certificates (each line seen in this project's own files or in
# everyday tool output).
@pytest.mark.parametrize(
    "text",
    [
        "a1b2c3d Fix issue#1234 in parser (#55)\n9f8e7d6 Merge PR#4410\nHEAD~3..HEAD^2",
        "pytest-qt has no asyncio integration (pytest-qt#448), so tests that run",
        "**Note:** we use C#10 and F#6 here; see docs/page.html#section2 and README.md#L12.",
        "npm install react@18.2.0 lodash@^4.17.21 typescript@~5.4.2",
        'printf("%s: %d%%\\n", name, pct); int area = width*height; char *buf2 = malloc(n*4);',
        "printf('%08x-%04x-4%03x-8%03x-%012x', k * 2654435761 % 4294967296)",
        "find . -name '*.log' -mtime +7 -delete && chmod u+x run.sh",
        "GET https://example.com/page?id=42&sort=desc&q=hello%20world%21#section2 200",
        "image: postgres:16.1\nimage: nginx:1.25-alpine\nplatform: linux/amd64",
        "weights = [12, 40, 3, 7, 255, 0, 18, 99, 23, 64, 128, 7, 1, 2, 3, 4]",
        "primes = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37]",
        "ages = [34, 45, 67, 23, 56, 78, 90, 41, 52, 38]",
        '{"description": "'
        + base64.b64encode(b"This is just a sentence about cats.").decode()
        + '"}',
        "rsync -av build/ deploy@web1:releases/2024 && git clone git@github.com:org/repo.git",
        "alerts@example.org: delivered; mailer ok 16:9 at 2024-06-01T12:30:45+02:00",
        "EMAIL = re.compile(r'^[a-z0-9]+@[a-z]+\\.[a-z]{2,}$')\nx = a?b:c2\nif (!isValid2) return;",
        "sha256 4f6e7978233838333177696c6c6f77aa11bb22cc33dd44ee55ff66aa77bb88  file.tar",
        "stroke=\\x22#ffffff\\x22 fill=\\x22#3b5bdb\\x22",  # escapes before a colour
        "reader opens it (`file:\\u2026?mode=ro`)",
        "literal 0\nHcmV?d00001\n",  # git's binary patch of an empty file
        "Makefile\nREADME12\nsetup.py\nLICENSE1\nsrc\n",  # a listing, one name a line
        'engines: {"node": "node@18", "pnpm": "pnpm@9"}; ssh deploy@web12 "cd $HOME/app2"',
        "export PS1='\\u@\\h:\\w\\$ '; git push origin +main:main2; ratio = a1*b2",
        "see https://github.com/org/repo/issues/12#issuecomment-8812",
        'png = b"\\x89\\x50\\x4e\\x47\\x0d\\x0a\\x1a\\x0a\\x00\\x00"; '
        's = "\\x48\\x65\\x6c\\x6c\\x6f\\x20\\x77\\x6f\\x72\\x6c\\x64"',
        "config/app.conf:1:-----BEGIN CERTIFICATE-----\n"
        "config/app.conf:2:MIICtjCCAZ6gAwIBAgICEJIwDQYJKoZIhvcNAQELBQAwHjEcMBoGA1UEAwwTaGVs\n"
        "config/app.conf:3:ZG91dC5leGFtcGxlLm9yZzAeFw0yNjAxMDEwMDAwMDBaFw0yNzAxMDEwMDAwMDBa\n"
        "config/app.conf:4:-----END CERTIFICATE-----",  # a certificate in grep rows
        "ZGVwbG95ZWQg\nYWxsIHRocmVl\nIHNlcnZpY2Vz\n",  # base64 of a sentence, wrapped at 12
        "print(f'{value_text!r}') if a!=b else c",
        "line of the output the model reads back ('[README.md#25CB]')",  # a hashline tag
        'ToolOutput("[x.py#00AA]", {})',
        "1:-----BEGIN CERTIFICATE-----\n2:MIICtjCCAZ6gAwIBAgICEJIwDQYJKoZIhvcNAQELBQAwHjEcMBoGA1UEAwwTaGVs\n"
        "3:ZG91dC5leGFtcGxlLm9yZzAeFw0yNjAxMDEwMDAwMDBaFw0yNzAxMDEwMDAwMDBa\n4:-----END CERTIFICATE-----",
        # a name's value that is none: a call, a status in brackets, a mask
        'token = getpass.getpass("Token: ")\nsecret = vault.read_secret("db")',
        "+ password = (sensitive value)\n+ client_secret = (known after apply)",
        "//registry.npmjs.org/:_authToken = (protected)",
        "api_key: sk-...XQ7K (masked)\naws_secret_access_key = ****************ABCD",
        # character references of prose and of punctuation
        "<p>Copyright &#169; 2024 &#8212; the &#8220;password&#8221; field&#8230; &#x2192; it&#39;s</p>",
        "".join(f"&#{ord(c)};" for c in "Hello world, this is only a sentence."),
    ],
)
def test_what_reads_like_an_argument_or_an_encoding_and_is_not_a_secret(text: str) -> None:
    assert second_opinion(text.encode()) == []
    assert second_opinion(json.dumps({"output": text}).encode()) == []


def test_a_random_line_in_numbered_rows_is_still_random() -> None:
    """Short wrapped lines (rule 7) do not take a numbered row's random value from rule 2."""
    text = "1:x\n2:Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1g\n3:hello12345\n4:y"
    for data in (text.encode(), json.dumps({"output": text}).encode()):
        assert [(h.rule, h.value) for h in second_opinion(data)] == [
            ("second-opinion:random", b"Jm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1g")
        ]


def test_a_receipt_of_another_version_of_the_second_opinion_is_not_compared_on_its_suspicions() -> (
    None
):
    text, _secret, _kind = MISSED["positional argument"]
    result = export_snapshot(
        _session(text), Selection.everything(), key=KEY, scanner=_Blind(), incremental=False
    )
    receipt = build_receipt(result, output_name="e.json", key_id="kid:test")
    assert [f.rule for f in receipt.findings] == ["second-opinion:password"]
    # the same receipt without its finding: today's audit finds one it did not record
    bare = receipt.model_copy(update={"findings": []})
    assert not verify_receipt(bare, result.data, result.report, "kid:test").findings_reproduced
    # written by another version of the second opinion: its suspicions are not compared
    older = bare.model_copy(
        update={
            "notes": [
                n.replace(f"second opinion v{OPINION_VERSION}:", "second opinion v1:")
                for n in bare.notes
            ]
        }
    )
    assert verify_receipt(older, result.data, result.report, "kid:test").findings_reproduced


# --- candidates carried over an edit ------------------------------------------------------------

# pieces every kind of candidate is made of, some crossing a line break (base64 wrapped short)
_PIECES: Final = (
    b"password = Xy7!pgRoot2024",
    b'"token": "abcDEF123ghiJKL456mnoPQR"',
    b"aGVsbG8gd29y\nbGQgaGVsbG8g\nd29ybGQ=",
    b"\\naGVsbG8gd29y\\nbGQgaGVsbG8g\\n",
    b"user@example.org:Sekret99x",
    b"0x67,0x68,0x69,0x70,0x71,0x72,0x73,0x74,0x75",
    b"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk",
    b"-----BEGIN RSA PRIVATE KEY-----\nMIIabc",
    b"https://u:p4ss@host",
    b"\\x41\\x42\\x43\\x44\\x45\\x46\\x47\\x48\\x49",
    b"AAAAAAAAAAAAAAAAAAAAAAAA",
    b"pass",
    b" 12",
    b"word ",
    b"  ",
    b"=",
    b'"',
    b"\n",
    b"\n\n",
)


def _edited(rng: random.Random) -> tuple[bytes, bytes]:
    def text(n: int) -> bytes:
        return b"".join(rng.choice(_PIECES) for _ in range(n))

    old = text(rng.randint(0, 150))
    lines = old.split(b"\n")
    for _ in range(rng.randint(0, 4)):
        if not lines:
            break
        k, op = rng.randrange(len(lines)), rng.random()
        if op < 0.5:
            lines[k] = text(rng.randint(0, 4)).replace(b"\n", b" ")  # a line redacted
        elif op < 0.75:
            lines.insert(k, text(rng.randint(0, 3)).replace(b"\n", b""))
        else:
            del lines[k]
    return old, b"\n".join(lines)


def test_candidates_carried_over_an_edit_are_those_of_a_search_of_the_new_bytes() -> None:
    rng = random.Random(31)
    for _ in range(3000):
        old, new = _edited(rng)
        assert candidates_after_edit(old, candidates(old), new) == candidates(new), (old, new)


def test_carried_candidates_search_only_around_the_changed_lines() -> None:
    line = b'    "text": "run the tests again, password = Xy7!pgRoot2024 and token abcDEF123ghiJKL456mno",\n'
    old = line * 20_000
    new = (
        old[: 5000 * len(line)]
        + line.replace(b"Xy7!pgRoot2024", b"[redacted]")
        + old[5001 * len(line) :]
    )
    searched: list[int] = []
    gate = opinion._GATE

    class Counted:
        def finditer(self, data: bytes, pos: int = 0, endpos: int | None = None) -> object:
            end = len(data) if endpos is None else endpos
            searched.append(end - pos)
            return gate.finditer(data, pos, end)

    opinion._GATE = Counted()
    try:
        carried = candidates_after_edit(old, candidates(old), new)
    finally:
        opinion._GATE = gate
    assert carried == candidates(new)
    assert len(searched) == 2 and sum(searched[1:]) < 20 * len(line)  # old whole, then a window


def test_an_export_with_redactions_gives_the_second_opinion_of_its_exact_bytes() -> None:
    # large enough for the candidates to be found on a worker thread, then carried over the edit
    def filler(first: int) -> str:
        return "\n".join(
            f"line {i}: nothing to see, user@example.org:Sekret99xy{i}"
            for i in range(first, first + 6000)
        )

    text = f"{filler(0)}\nexport OPENAI_API_KEY=sk-proj-Q9xT2mB7vK4pL8nR1sW6yZ3aD5fG0hJ2kM4qU7eI9oP1\n{filler(6000)}"
    result = export_snapshot(_session(text), Selection.everything(), key=KEY)
    assert result.redactions and len(result.data) >= PARALLEL_MIN
    again = audit_bytes(result.data, scanner=SecretScanner(), key=KEY, fmt="snapshot")
    reported = [f for f in result.report.findings if f.rule.startswith("second-opinion:")]
    assert reported and reported == [
        f for f in again.findings if f.rule.startswith("second-opinion:")
    ]


def test_the_second_opinion_waits_behind_the_scans_gate_parts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the workers are two: a candidates search queued first held one of them while the scan
    # waited for both gate parts (about 0.3 s of a 100 MB export's audit)
    pool = workers()
    queued: list[str] = []
    submit = pool.submit

    def recording(fn: Callable[..., object], /, *args: object) -> Future[object]:
        queued.append(getattr(fn, "__name__", ""))
        return submit(fn, *args)

    monkeypatch.setattr(pool, "submit", recording)
    text = "\n".join(
        f"line {i}: nothing to see, user@example.org:Sekret99xy{i}" for i in range(9000)
    )
    result = export_snapshot(_session(text), Selection.everything(), key=KEY)
    assert len(result.data) >= PARALLEL_MIN
    first = queued.index("candidates")
    assert first >= 2 and set(queued[:first]) == {"scan_part"}


# --- the held-out batches' leaks the second opinion did not flag, by cause -----------------------
# Further forms of each cause (none of them a batch's form, written before the rule that reads the
# cause) and look-alikes of the same structure that must stay unflagged. Each is checked in the raw
# text and inside a JSON string, where a line break is ``\n`` and a tab ``\t``.

# A random value at a line's start or in a tab-separated column: in the JSON export the line break
# and the tab are escapes (``\n``, ``\t``), and a value after one is still a value.
LINE_START: Final = [
    (
        "$ wg show wg0 private-key\nG3TGsLieWLc+oSnouHjz5lEYUO3EVaVw7tsSwT79dMk=\n",
        "G3TGsLieWLc+oSnouHjz5lEYUO3EVaVw7tsSwT79dMk=",
    ),
    ("name\tvalue\nstripe\tQw8rTz3mKp5vLx2nBy7cHd4f\n", "Qw8rTz3mKp5vLx2nBy7cHd4f"),
    (
        "CREDENTIALS\tASIA\t2026-12-07T11:00:00Z\tWq9tZ2fLm3Rv8Kp1Xy7Nb4Hc6Jd0Se5TgAb12\n",
        "Wq9tZ2fLm3Rv8Kp1Xy7Nb4Hc6Jd0Se5TgAb12",
    ),
    ("Your new key (shown once):\nTk4vBq9ZmR2xLw7Hn5Jc3Pd8\n", "Tk4vBq9ZmR2xLw7Hn5Jc3Pd8"),
]
LINE_START_BENIGN: Final = [
    "commit\t9f86d081884c7d659a2feaa0c55ad015a3bf4f1b\nauthor\tAda\n",
    "1\t550e8400-e29b-41d4-a716-446655440000\tok\n2\tgetUserAccountSettingsHandler\tok\n",
    "-----BEGIN CERTIFICATE-----\nMIICtjCCAZ6gAwIBAgICEJIwDQYJKoZIhvcNAQELBQAwHjEcMBoGA1UEAwwTaGVs\n"
    "ZG91dC5leGFtcGxlLm9yZzAeFw0yNjAxMDEwMDAwMDBaFw0yNzAxMDEwMDAwMDBa\n-----END CERTIFICATE-----\n",
    "user_count\tsession_state\tnode_index\nopenai_response_output_item\tVersion2Release3Build4\n",
    "sha512\nJm9Qx2LbV7rT4kWz8NcPd3Hs6YfA1gQ==\n",
]

# A random value in a value's place (a whole quoted literal, a pair's value, a table's cell) in an
# alphabet narrower than a generated token's: upper case and digits, lower case and digits,
# base32, letters with one digit or none, base64 with words by chance; or 12 to 19 characters.
IN_PLACE: Final = [
    ('mqtt.username_pw_set("device-17", "X263GJSUTUD4JWAP")', "X263GJSUTUD4JWAP"),
    ('{"ingest": "96iihtvsq3srcg5wi8cb5v6rsh", "region": "eu"}', "96iihtvsq3srcg5wi8cb5v6rsh"),
    ("otp = OTP('MN5JMG6XOOV4UL66E54JBH56UHUTO5YK')", "MN5JMG6XOOV4UL66E54JBH56UHUTO5YK"),
    (
        'headers = {"X-Relay-Auth": "XmvrnYpVvtIXXGYKtverQxkvdtIaKE"}',
        "XmvrnYpVvtIXXGYKtverQxkvdtIaKE",
    ),
    ("$c = mysqli_connect('db', 'app', '37VLpsuncRzSsXK');", "37VLpsuncRzSsXK"),
    ("| mailgun | 7KCQZA7A0WNYCWJ8LY6N | eu |", "7KCQZA7A0WNYCWJ8LY6N"),
]
IN_PLACE_BENIGN: Final = [
    '{"model": "gpt-4o-2024-08-06", "executor": "CeleryExecutor", "status": "SUCCEEDED"}',
    '{"locale": "en_US.UTF-8", "image": "IMG_20240601_123045.jpg", "vin": "1HGCM82633A004352"}',
    '{"iban": "DE89370400440532013000", "sku": "ABC-12345-XL", "asset": "app.3f2a1c4e.min.js"}',
    '{"tracking": "1Z999AA10123456784", "version": "v2.14.0-rc.1", "c": "MAX_RETRY_COUNT_2"}',
    '{"name": "getUserAccountSettingsHandler", "ts": "20240601T123045Z"}',
    "region = ap-southeast-2\ninstance = i-0a1b2c3d4e5f67890\nfile = report_2024_Q3_final.pdf\n",
    "| build | 20240601.3 | cp311-cp311-manylinux_2_17_x86_64 | NotoSansCJKjp-Regular |",
    "word = 'Donaudampfschifffahrt'; ean = '4006381333931'; isbn = '978-3-16-148410-0'",
    "call('HTTP2Settings', 'Base64Encoder', 'utf8mb4_unicode_ci', 'x86_64-linux-gnu')",
    'select("#main-content-2024"); el.classList.add("col-md-6-offset-3")',
    # seen in libraries' code: names in camel case, constants, numbers, short parts joined
    '__all__ = ["AsyncBaseTransport", "MLKEM768X25519PrivateKey", "PKCS12KeyAndCertificates"]',
    'ExtendedKeyUsageOID.SMARTCARD_LOGON: "msSmartcardLogin", name = "EMSA-PKCS1-v1_5"',
    "group_order = 0xFFFFFFFFFFFFFFFFFFFFFFFF99DEF836146BC9B1B4D22831\nalg = 'ChaCha20Poly1305'",
    'SEC_FETCH_MODE = istr("Sec-Fetch-Mode"); collation = "utf8mb4_unicode_ci"',
]


@pytest.mark.parametrize(("text", "value"), LINE_START + IN_PLACE)
def test_a_value_in_its_place_is_a_suspicion_in_its_alphabet(text: str, value: str) -> None:
    for data, shown in (
        (text.encode(), value.encode()),
        (json.dumps({"output": text}).encode(), json.dumps(value)[1:-1].encode()),
    ):
        assert [h.value for h in second_opinion(data)] == [shown], data


@pytest.mark.parametrize("text", LINE_START_BENIGN + IN_PLACE_BENIGN)
def test_a_value_in_its_place_that_is_no_secret_is_not_one(text: str) -> None:
    assert second_opinion(text.encode()) == []
    assert second_opinion(json.dumps({"output": text}).encode()) == []


# A token as a URL's whole user part, no password after it (``nats://X@host``): the user part is
# the credential when it looks random.
URL_USER: Final = [
    ("git clone https://x9Kq2LmZ7tR4vW8pN3bY@git.example.com/org/repo.git", "x9Kq2LmZ7tR4vW8pN3bY"),
    ("REDIS_URL=redis://Pq7Zx2Lm9Tw4Rk8VnB3cJd@cache.internal:6379/0", "Pq7Zx2Lm9Tw4Rk8VnB3cJd"),
    ('broker: "amqp://Hm4Tq9Zx2Lp7Wk3RvN8bYc@mq.internal:5672/"', "Hm4Tq9Zx2Lp7Wk3RvN8bYc"),
    (
        "pip install --index-url https://Zt8Rk2Xw7Lm4Qp9Vn3Hb@pypi.corp.example/simple pkg",
        "Zt8Rk2Xw7Lm4Qp9Vn3Hb",
    ),
]
URL_USER_BENIGN: Final = [
    "git clone ssh://git@github.com/org/repo.git && git clone https://alice@example.com/r.git",
    "DATABASE_URL=postgres://postgres@localhost:5432/app; ftp://anonymous@ftp.example.org/pub",
    "SENTRY_DSN=https://1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d@o12345.ingest.sentry.io/67890",
    "push to https://deploy-bot-2024@git.example.com/org/repo.git",
]

# A PIN or a PUK: a code of digits under its name (``SIM_PIN=4821``), not a GPIO pin's number, a
# pin's pattern or a version pinned.
PIN: Final = [
    ("SIM_PIN=4821\nAPN=internet\n", "4821"),
    ('{"device": "kiosk-3", "pin": "739164"}', "739164"),
    ("[modem]\npuk2 = 55120934\n", "55120934"),
    ("unlock_pin: 9273\n", "9273"),
    ("PIN-Code: 6614 (nicht weitergeben)", "6614"),
]
PIN_BENIGN: Final = [
    "output:\n  - platform: gpio\n    pin: 13\n  - platform: gpio\n    pin: GPIO12\n",
    "pin_memory: true\nnum_workers: 4\nspinner: 1234\nmapping = 5678\n",
    'pin = "1.2.3"\npinned: 2024.06.01\nping: 20ms\n',
    "pin_count: 3\npin_mode = OUTPUT\n",
    "PIN 1234 is the default on these routers, change it on first login.",
]

# A table's cell under a credential's name (``client_secret | X``: psql's expanded records,
# Markdown tables, ``mysql -t``'s key/value rows).
CELL: Final = [
    (
        "-[ RECORD 1 ]+-----\napi_key       | k3Lm9Qx2Tz7Wv4Rp\nowner         | ops\n",
        "k3Lm9Qx2Tz7Wv4Rp",
    ),
    ("| name | value |\n|---|---|\n| DB_PASSWORD | harbor-lantern-77 |\n", "harbor-lantern-77"),
    (
        "+----------+-----------------+\n| password | Qz8vLm2Tw9Xc    |\n+----------+-----------------+\n",
        "Qz8vLm2Tw9Xc",
    ),
]
CELL_BENIGN: Final = [
    "| Option | Type | Default |\n|---|---|---|\n| password | string | required |\n| token | str | none |\n",
    "| field | description |\n|---|---|\n| api_key | Your API key from the dashboard |\n",
    "| secret | yes |\n| password | optional |\n",
]


@pytest.mark.parametrize(("text", "value"), URL_USER + PIN + CELL)
def test_a_credential_in_a_structure_the_opinion_reads_is_a_suspicion(
    text: str, value: str
) -> None:
    for data, shown in (
        (text.encode(), value.encode()),
        (json.dumps({"output": text}).encode(), json.dumps(value)[1:-1].encode()),
    ):
        assert [h.value for h in second_opinion(data)] == [shown], data


@pytest.mark.parametrize("text", URL_USER_BENIGN + PIN_BENIGN + CELL_BENIGN)
def test_the_same_structure_holding_no_credential_is_no_suspicion(text: str) -> None:
    assert second_opinion(text.encode()) == []
    assert second_opinion(json.dumps({"output": text}).encode()) == []


# A credential's name in a sentence, its value quoted or in backticks after a link word (``is``,
# ``was``, ``to``): a passphrase of words, which no shape tells from prose but its quotes.
PROSE_QUOTED: Final = [
    (
        'the wifi password is "purple monkey dishwasher", tell the guests',
        "purple monkey dishwasher",
    ),
    ("set DB_PASS to 'orbit lantern cedar 42' before the migration", "orbit lantern cedar 42"),
    ("my vault passphrase was `seven amber kites hum` until today", "seven amber kites hum"),
    ("the staging API_KEY is `Hq7v-22-lantern`, rotate it", "Hq7v-22-lantern"),
]
PROSE_QUOTED_BENIGN: Final = [
    'the password field says "Enter your password" in grey',
    "Set `PGPASSWORD` to `$(cat ~/.pgpass)` in the job",
    'the token is "expired" again; the password is "required" there',
    'the API_KEY is "your-api-key-here" in the sample',
    'the password is "the one in 1Password" and the secret is "not set"',
    "if the token is `None`, the password is `getpass()`",
]


@pytest.mark.parametrize(("text", "value"), PROSE_QUOTED)
def test_a_quoted_value_a_sentence_gives_a_credential_is_a_suspicion(text: str, value: str) -> None:
    for data, shown in (
        (text.encode(), value.encode()),
        (json.dumps({"output": text}).encode(), json.dumps(value)[1:-1].encode()),
    ):
        assert [h.value for h in second_opinion(data)] == [shown], data


@pytest.mark.parametrize("text", PROSE_QUOTED_BENIGN)
def test_a_quoted_word_of_a_sentence_about_a_credential_is_none(text: str) -> None:
    assert second_opinion(text.encode()) == []
    assert second_opinion(json.dumps({"output": text}).encode()) == []
