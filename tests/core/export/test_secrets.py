"""The secret scanner: every rule, every encoding, known credentials, and no false alarms."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

import pytest

import rho_desk
from rho_desk.core.export import RULES, Hit, SecretScanner, fingerprint
from rho_desk.core.export.scanner._secrets import KNOWN_SECRET_MIN_LENGTH, merge_hits

from .builders import KNOWN, KNOWN_SPECIAL, SECRETS, Secret, known_forms, secret_forms

SCANNER = SecretScanner([KNOWN, KNOWN_SPECIAL])


def _covers(data: bytes, hits: list[Hit], needle: bytes) -> bool:
    """Some hit's span covers every occurrence of ``needle``."""
    start = data.find(needle)
    assert start >= 0
    return any(h.start <= start and start + len(needle) <= h.end for h in hits)


@pytest.mark.parametrize("secret", SECRETS, ids=lambda s: s.kind)
def test_each_rule_finds_its_secret(secret: Secret) -> None:
    data = f"before {secret.text} after".encode()
    hits = SCANNER.scan(data)
    assert secret.kind in {h.rule for h in hits}
    assert _covers(data, hits, secret.value.encode())


_ENCODED_FORMS = ("percent", "json", "base64_0", "base64_1", "base64_2", "unicode")
# Only the combinations that exist: a secret starting with punctuation has no unicode form.
_SECRET_FORMS = [
    pytest.param(secret, form, id=f"{form}-{secret.kind}")
    for secret in SECRETS
    for form in _ENCODED_FORMS
    if form in secret_forms(secret)
]


@pytest.mark.parametrize(("secret", "form"), _SECRET_FORMS)
def test_encoded_forms_are_found(secret: Secret, form: str) -> None:
    planted = secret_forms(secret)[form]
    data = f"x {planted} y".encode()
    hits = SCANNER.scan(data)
    assert hits, form
    # the whole encoded value is covered, whatever the encoding
    core = (
        secret.value
        if form == "json" or (form == "unicode" and secret.value in planted)
        else planted.strip()
    )
    assert _covers(data, hits, core.encode()), (form, hits)


@pytest.mark.parametrize("value", [KNOWN, KNOWN_SPECIAL])
@pytest.mark.parametrize(
    "form",
    ["plain", "upper", "lower", "percent", "json", "html", "base64_0", "base64_1", "base64_2"],
)
def test_known_credentials_are_found_in_every_form(value: str, form: str) -> None:
    planted = known_forms(value)[form]
    data = f"[{planted}]".encode()
    hits = [h for h in SCANNER.scan(data) if h.rule == "known-credential"]
    assert hits, form
    assert all(h.value == value.encode() for h in hits)  # fingerprinted as the credential itself


def test_known_credentials_inside_json_inside_json() -> None:
    once = json.dumps({"a": KNOWN_SPECIAL})
    twice = json.dumps({"b": once}).encode()
    assert [h.rule for h in SCANNER.scan(twice)] == ["known-credential"]


def test_short_known_credentials_are_counted_not_searched() -> None:
    scanner = SecretScanner(["abc", "x" * KNOWN_SECRET_MIN_LENGTH, "", "   "])
    assert scanner.ignored_short == 1 and scanner.known_count == 1
    assert scanner.scan(b"abc abc abc") == []


def test_a_token_after_a_json_newline_escape_is_still_a_token() -> None:
    data = json.dumps("output\n" + SECRETS[0].value + "\nmore").encode()
    assert [h.rule for h in SCANNER.scan(data)] == ["openai-api-key"]
    b64 = base64.b64encode(f"key {SECRETS[2].value} ".encode()).decode()
    data = json.dumps("line\n" + b64 + "\n").encode()
    assert [h.rule for h in SCANNER.scan(data)] == ["github-token"]


def test_private_key_span_covers_the_whole_block() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nAKCAQEA\n-----END RSA PRIVATE KEY-----"
    for data in (f"a\n{block}\nb".encode(), json.dumps({"k": block}).encode()):
        [hit] = SCANNER.scan(data)
        text = data[hit.start : hit.end]
        assert text.startswith(b"-----BEGIN") and text.endswith(b"-----END RSA PRIVATE KEY-----")
    cut = b"x -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0\n"
    [hit] = SCANNER.scan(cut)
    assert b"MIIEvQ" in cut[hit.start : hit.end]


def test_header_and_assignment_contexts() -> None:
    cases = {
        b'headers = {"Authorization": "Bearer 9f8e7d6c5b4a39281"}': "9f8e7d6c5b4a39281",
        b"Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==": "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
        b"set-cookie: sid=31d4d96e407aad42; Path=/; Secure": "sid=31d4d96e407aad42; Path=/; Secure",
        b"export GITHUB_TOKEN=abc123def456ghi7": "abc123def456ghi7",
        b'{"client_secret": "0a1b2c3d4e5f6a7b"}': "0a1b2c3d4e5f6a7b",
        b"https://x.blob.core.windows.net/c/f?sv=2022&sig=AbC123xYz%2Bq9&se=2026": "AbC123xYz%2Bq9",
        b"https://maps.googleapis.com/x?key=Zx81Yw72Xv63&mode=1": "Zx81Yw72Xv63",
        b"api_key: sk1a2b3c4d5e6f": "sk1a2b3c4d5e6f",
    }
    for data, value in cases.items():
        hits = SCANNER.scan(data)
        assert _covers(data, hits, value.encode()), data


@pytest.mark.parametrize(
    "text",
    [
        "The Bearer authentication scheme sends a token in the Authorization header.",
        "Cookie: header values are name=value pairs",  # prose about cookies has no '=' right after
        "password = os.environ['DB_PASSWORD']\ntoken_count = len(tokens)\nsecret: str",
        "commit 3f786850e387550fdab836ed7e6dc881de23001b\nuuid 9b2c6f2e-3c1d-4a5e-8f70-1a2b3c4d5e6f",
        "/usr/lib/python3.11/site-packages/rho_desk/core/export/_secrets.py:120",
        "scikit-learn and sk-learn-compatible-estimator-wrappers-for-everyone",
        "Authorization: Bearer <token>  and  Authorization: Bearer ${TOKEN}",
        "https://example.com/search?q=hello+world&page=2#top",
        "spoken = 'hello'; broken: true; the key=value pairs",
        "[secret redacted: openai-api-key fp:0123456789abcdef]",
        "Cookie: [secret redacted: cookie fp:0123456789abcdef]",
    ],
)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert SCANNER.scan(text.encode()) == []


def test_the_projects_own_engine_code_has_no_false_alarms() -> None:
    core = Path(rho_desk.__file__).parent / "core"
    sources = sorted((core / "wire").glob("*.py")) + sorted((core / "stores").rglob("*.py"))
    data = b"\xff".join(p.read_bytes() for p in sources)
    assert len(data) > 50_000
    assert SecretScanner().scan(data) == []


def test_hits_never_show_the_value() -> None:
    [hit] = SCANNER.scan(SECRETS[0].text.encode())
    assert SECRETS[0].value not in repr(hit) and "sk-proj" not in repr(hit)


def test_fingerprints_are_keyed_and_stable() -> None:
    a, b = bytes(32), bytes(range(32))
    assert fingerprint(a, "sk-secret") == fingerprint(a, b"sk-secret")
    assert fingerprint(a, "sk-secret") != fingerprint(b, "sk-secret")
    assert fingerprint(a, "sk-secret") != fingerprint(a, "sk-secreT")
    fp = fingerprint(a, "sk-secret")
    assert fp.startswith("fp:") and len(fp) == 19 and "secret" not in fp


def test_scan_strings_gives_offsets_per_string() -> None:
    strings = ["nothing here", f"a {SECRETS[0].value}", "é" * 3 + SECRETS[4].value]
    found = SCANNER.scan_strings(strings)
    assert sorted(found) == [1, 2]
    [hit] = found[2]
    assert strings[2].encode()[hit.start : hit.end] == SECRETS[4].value.encode()


def test_large_base64_blobs_are_decoded_once() -> None:
    blob = base64.b64encode(
        b"\x89PNG" + bytes(range(256)) * 40 + SECRETS[4].value.encode() + bytes(3000)
    )
    scanner = SecretScanner()
    first = scanner.scan(b'"data": "' + blob + b'"')
    assert [h.rule for h in first] == ["aws-access-key-id"] and first[0].encoding == "base64"
    assert len(scanner._blob_cache) == 1
    again = scanner.scan(b'{"x": "' + blob + b'"}')
    assert [h.rule for h in again] == ["aws-access-key-id"]


def test_merge_hits_keeps_the_first_rule_and_the_union() -> None:
    merged = merge_hits([Hit("b", 5, 9, b""), Hit("a", 0, 6, b""), Hit("c", 20, 22, b"")])
    assert [(h.rule, h.start, h.end) for h in merged] == [("a", 0, 9), ("c", 20, 22)]


def test_every_rule_is_documented() -> None:
    assert {s.kind for s in SECRETS} <= set(RULES)
    assert all(RULES.values())


def test_percent_encoding_of_everything() -> None:
    data = quote(f"token={SECRETS[0].value}", safe="").encode()
    assert [h.encoding for h in SCANNER.scan(data)] == ["percent"]


def _full(scanner: SecretScanner, data: bytes) -> list[tuple[str, int, int]]:
    return [(h.rule, h.start, h.end) for h in scanner.scan(data)]


def _incremental(scanner: SecretScanner, old: bytes, new: bytes) -> list[tuple[str, int, int]]:
    return [(h.rule, h.start, h.end) for h in scanner.rescan(old, scanner.scan(old), new)]


def test_rescan_after_redaction_equals_a_full_scan() -> None:
    from rho_desk.core.export import Selection, export_snapshot
    from rho_desk.core.export._redact import apply_selection
    from rho_desk.core.wire.codec import encode_pretty

    from .builders import canary_snapshot, secrets_messages

    source = canary_snapshot(extra=secrets_messages())
    before = encode_pretty(apply_selection(source, Selection.everything())[0])
    after = export_snapshot(
        source, Selection.everything(), key=bytes(32), known_secrets=[KNOWN], incremental=False
    ).data
    scanner = SecretScanner([KNOWN])
    assert _incremental(scanner, before, after) == _full(scanner, after) == []
    # and where secrets remain: put some back
    broken = after.replace(b"[secret redacted:", SECRETS[0].value.encode() + b" [", 5)
    assert _incremental(scanner, after, broken) == _full(scanner, broken) != []


def test_rescan_handles_inserted_removed_and_unterminated_lines() -> None:
    import random

    rng = random.Random(7)
    scanner = SecretScanner([KNOWN])
    # JSON lines, as in a pretty export: text is escaped, so no raw newline inside a value
    lines = [
        f'    "k{i}": {json.dumps(rng.choice(["plain words", SECRETS[i % len(SECRETS)].text, "more text", KNOWN]))},'
        for i in range(300)
    ]
    old = "\n".join(lines).encode()
    for trial in range(60):
        new_lines = list(lines)
        for _ in range(rng.randint(1, 6)):
            at = rng.randrange(len(new_lines))
            op = rng.choice(["replace", "insert", "delete", "secret"])
            if op == "replace":
                new_lines[at] = '    "x": "[secret redacted: jwt fp:0011223344556677]",'
            elif op == "insert":
                new_lines.insert(
                    at, f'    "new": {json.dumps(SECRETS[trial % len(SECRETS)].text)},'
                )
            elif op == "delete" and len(new_lines) > 1:
                del new_lines[at]
            else:
                new_lines[at] = new_lines[at].replace("plain", SECRETS[0].value)
        new = "\n".join(new_lines).encode() + (b"\n" if trial % 2 else b"")
        assert _incremental(scanner, old, new) == _full(scanner, new), trial
    assert _incremental(scanner, old, old) == _full(scanner, old)
    assert _incremental(scanner, b"", old) == _full(scanner, old)
    assert _incremental(scanner, old, b"") == []
