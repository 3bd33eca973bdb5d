"""The gate's narrower patterns report every place a rule can find a secret.

The gate (``_prefilter``) reports fewer places when its patterns say what the handlers require:
the name rule's value (``NAMED_GATE``), the Authorization value that is not the next header's
name, an assignment's digit, a flag's space before its dash. A gate that reports too little
loses secrets silently, so the gated scan is compared with ``re`` alone on texts built from
the pieces those patterns look at, at random and by hand.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rho_desk.core.export import SecretScanner
from rho_desk.core.export.scanner._grammar import _SUBSCRIPT, KEYWORDS, SUBSCRIPT_WINDOW
from rho_desk.core.export.scanner._prefilter import HYPERSCAN, Gate, Rule
from rho_desk.core.export.scanner._rules import _top_level_alternatives
from rho_desk.core.export.scanner._secrets import _passes
from rho_desk.core.export.scanner._vendors import VENDOR_TOKENS

from .test_scanner_engines import hits, re_only_scanner

pytestmark = pytest.mark.skipif(not HYPERSCAN, reason="hyperscan is not installed")

PIECES = [
    b"password",
    b"passwd",
    b"token",
    b"TOKEN",
    b"Authorization",
    b"author",
    b"auth",
    b"cookie",
    b"Cookie",
    b"api_key",
    b"secret",
    b"_",
    b"-",
    b".",
    b"=",
    b":",
    b": ",
    b"= ",
    b"=>",
    b":=",
    b"::=",
    b"?=",
    b".=",
    b"||",
    b">",
    b"<",
    b"</",
    b" ",
    b"  ",
    b"\t",
    b"\n",
    b"\\n",
    b"\\N",
    b"\\",
    b"\\x41",
    b"\\u0073",
    b"%2D",
    b'"',
    b"'",
    b'\\"',
    b",",
    b"(",
    b"[",
    b" value=",
    b"string",
    b" str",
    b"Bearer ",
    b"mysql ",
    b"-p",
    b"--password ",
    b"-u ",
    b"curl ",
    b"x",
    b"abc",
    b"S3cr3t",
    b"hunter22",
    b"9f8e7d6c5b",
    b"Q1w2E3r4T5y6",
    b"k" * 70,
    b"a1" * 40,
    b"s3" * 300,
]
"""What the narrowed gate patterns look at: names, separators, stops, escapes, values short and long."""

LONGEST_QUOTE = b"\\" * 7 + b'"'
"""The longest quote the gates allow around a name or a value (seven backslashes, then ``"``)."""

KNOWN = ["kr-openai-9f8e7d6c5b4a3f2e1d0c"]


@pytest.fixture(scope="module")
def scanners() -> tuple[SecretScanner, SecretScanner]:
    gated, plain = SecretScanner(KNOWN), re_only_scanner(KNOWN)
    assert gated._gate is not None and plain._gate is None
    return gated, plain


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=24).map(b"".join))
def test_gated_and_plain_agree_on_random_texts(
    scanners: tuple[SecretScanner, SecretScanner], text: bytes
) -> None:
    gated, plain = scanners
    assert hits(gated, text) == hits(plain, text)


EDGES = [
    b"password: abc123xyz",
    b"password= token: Authorization: Cookie: https://u:@h",
    b"passwd: s3cr3tpass:",
    b"password: " + b"a1" * 50 + b":",
    b"password: " + b"a1" * 300 + b": more",
    b"<password>s3cret99</password>",
    b"<password>\n    s3cret99\n</password>",
    b"author_token=abc123def",
    b"authorization_key = s3cr3tvalue9",
    b"cookie_secret=abc123def",
    b"session_cookie: abc123def",
    b'cookie"=abc123def',
    b"cookie = abc123def",
    b"x.password:\\nfoo123",
    b"password: abc:\\Nfoo123",
    b"password: abc<def123",
    b"password: abc1</x>",
    b'auth=("user", "hunter22")',
    b'password = "abc:"',
    b"password: 'x1y2z3:'",
    b"token string = abc123xyz",
    b"token: str = abc123xyz",
    b"token := abc123xyz",
    b"TOKEN ::= abc123xyz",
    b"TOKEN ?= abc123xyz",
    b"$token .= 'abc123'",
    b"token || abc123xyz",
    b'setProperty("DB_TOKEN", "abc123xyz")',
    b'<add key="API_TOKEN" value="abc123xyz"/>',
    b"password =     abc123xyz",
    b"-pS3cretpw mysql",
    b"mysql -pS3cretpw",
    b"mysql\t-pS3cretpw",
    b"x-pS3cretpw mysql",
    b"sk-proj-abc",
    b"tool --password S3cret1",
    b"a--password S3cret1",
    b"curl -u admin:S3cretpw1 https://h",
    b"Authorization: Basic dXNlcjpwYXNzd29yZA==",
    b"Authorization: Cookie:",
    b"Authorization: abc123:def456",
    b"\\u0073k-proj-" + b"A1b2" * 10,
    b"token=\\u0061bc123xyz",
    b"pass\\x77ord=abc123xyz",
    b"sk%2Dproj%2D" + b"A1b2" * 10,
    b" \\u0073 \\x41 %2D ",
    b"printf '\\160\\141\\163\\163\\167\\157\\162\\144\\75hunter22'",
    b"Bearer passwordBearer Q1w2E3r4T5y6",
    b"tokentoken=abc12345xyz",
    b"xCookie'=S3cr3t",
    b"xCookie\\'=S3cr3t",
    b"a_cookie' => S3cr3t",
    # the window passes: values and spaces longer than their gates look at
    b"Authorization: Basic" + b" " * 12 + b"dXNlcjpwYXNzd29yZA==",
    b"authorization:\tbearer\t\t\t\t\t\t\t\t\tQ1w2E3r4T5y6",
    b"Authorization: " + b"A1b2" * 20 + b":",
    b"Authorization: " + b"A1b2" * 40 + b": x",
    b"Authorization: token " + b"z9" * 70,
    b"Bearer\t\t\t\tQ1w2E3r4T5y6U7i8==== Bearer Q1w2E3r4T5y6",
    b"AUTHORIZATION = BEARER " + b"Q1w2" * 8,
    b"Cookie: " + b"ab1_cd2." * 16 + b"=S3cr3tvalue",
    b"Cookie: " + b"ab1_cd2." * 16 + b"a=S3cr3tvalue",
    b'cookie:\\\\\\"session=abc123def',
    # the longest match of each window pass's gate
    b"Cookie" + LONGEST_QUOTE + b"    :    " + LONGEST_QUOTE + b"ab1_cd2." * 16 + b"=S3cr3tvalue",
    b"Authorization"
    + LONGEST_QUOTE
    + b"    =    "
    + LONGEST_QUOTE
    + b"basic        "
    + b"A1b2" * 16
    + b"x y",
    b"Authorization"
    + LONGEST_QUOTE
    + b"    =    "
    + LONGEST_QUOTE
    + b"token        "
    + b"A1b2" * 15
    + b"A1b:x y",
    b"Authorization"
    + LONGEST_QUOTE
    + b"    =    "
    + LONGEST_QUOTE
    + b"digest"
    + b" " * 9
    + b"A1b2" * 16,
    b"Bearer    Q1w2E3r4T5y6",
    b"passphrase\t'S3cr3t!pw'",
    b"password" + b" " * 40 + b"'S3cr3t!pw'",
    b"PASSPHRASE\t'S3cr3t!pw'",
    b"the password is Q1w2E3r4T5y6",
    # an element's attributes, as the gate sees them: after a space, each with its ``name=``
    b"<TOKEN,>y6>=</",
    b"<password foo>S3cr3tPass9</password>",
    b'<password  Type="x">S3cr3tPass9</password>',
    b'<wsse:Password\tType="x">S3cr3tPass9</wsse:Password>',
    # a value that starts with an escaped backslash (a text's ``\Qx7...`` in JSON), or ``\/``
    b"tokentokenTOKEN_: \\\\x41",
    b"TOKEN: \\\\abcdef1234XYZ",
    b"TOKEN: \\/abcdef1234XYZ",
    b'{"text": "DB_PASSWORD=\\\\Qx7pLm92vRt"}',
    b"secret_key: \\\\\\\\zH3kq8WpV2",
    b"docker run -e AUTH_TOKEN=\\\\t7GkPq2Lz9 img",
    # an element with its text and end tag right after an operator: an element, not a placeholder
    b"=<token>=||'</",
    b"TOKEN=<token>=||'</x>",
    b"body=<password>S3cr3tPass9</password>",
    b"xml: <password>S3cr3tPass9</password>",
    b'{"body": "<password>S3cr3tPass9</password>"}',
    b"API_KEY=<your-api-key>\nnext: S3cr3tPass9</x>",
    # a name inside a placeholder value whose digit ends both: hyperscan gives one start per end
    b"secret=kkkkkkkkkkkkkkkksecretc:2E3r4T5y",
    b"token=" + b"k" * 40 + b"api_key=Q1w2E3r4T5y6",
    b"password=" + b"x" * 30 + b"password=" + b"x" * 30 + b"TOKEN: 9f8e7d6c5b",
    # a query parameter inside another's value; values past the bound (``VALUE_BOUND``), judged
    # and redacted whole: letters and a mask's end past it, runs of names with and without
    # placeholders before a value
    b"xsig=zzzzzzzz?sig=Q1w2E3r4T5",
    b"xsignature=zzzzzzzz/x?signature=Q1w2E3r4T5",
    b"https://h/x?api_key=" + b"Ab1" * 200 + b"&x=1",
    b"password=1" + b"23" * 150 + b"abc end",
    b"token=ab1" + b"*" * 300 + b"wxyzwxyzwxyz end",
    (b"secret=1" + b"x" * 40) * 20 + b"Q9w8E7r6T5y4U3i2" * 20,
    b"TOKEN=a1" * 100,
    b"x" + b"api_key=9" * 100,
    # the value's first digit as far in as the gate looks, and one byte further
    b"password=" + b"abc" * 42 + b"a1x",
    b"password=" + b"abc" * 42 + b"ab1x",
    b"api-key" + LONGEST_QUOTE + b"    :    " + LONGEST_QUOTE + b"kY" * 63 + b"k1",
    b"X_PASSWORD_" + b"V" * 19 + LONGEST_QUOTE + b"    =    " + LONGEST_QUOTE + b"aB" * 63 + b"a1",
]


@pytest.mark.parametrize("text", EDGES, ids=range(len(EDGES)))
def test_gated_and_plain_agree_at_the_edges(
    scanners: tuple[SecretScanner, SecretScanner], text: bytes
) -> None:
    gated, plain = scanners
    assert hits(gated, text) == hits(plain, text)


def test_a_header_name_is_not_an_authorization_value(
    scanners: tuple[SecretScanner, SecretScanner],
) -> None:
    """``Authorization: Cookie:`` lists header names; a value after the header is still found."""
    for scanner in scanners:
        assert scanner.scan(b"Vary: Authorization: Cookie: Accept") == []
        found = scanner.scan(b"Authorization: Zm9vYmFyOmJhejEyMw==")
        assert [h.rule for h in found] == ["authorization-header"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (b"Authorization: Splunk 0f3b7e2c-5d1a-4a8b-9c6e-2f7d1b3a9e55", b"0f3b7e2c-5d1a"),
        (b'"authorization": "GenieKey 8d2f1c7e93ab4b15a6f0"', b"8d2f1c7e93ab4b15a6f0"),
        (b"Authorization: Bearer abcdefghijklmnopqrst", b"abcdefghijklmnopqrst"),
        (b'"authorization": "none configured for this route"', None),
        (b"authorization: pending approval by the security team", None),
        (b"Authorization: Custom ${API_TOKEN}", None),
    ],
)
def test_a_scheme_the_rule_does_not_know_takes_a_credential_not_a_word(
    scanners: tuple[SecretScanner, SecretScanner], text: bytes, value: bytes | None
) -> None:
    """After a vendor's scheme (``Splunk``, ``GenieKey``) the credential is redacted; a word after
    a word (prose about authorization) is not a scheme and its credential."""
    for scanner in scanners:
        found = [h for h in scanner.scan(text) if h.rule == "authorization-header"]
        if value is None:
            assert found == [], text
        else:
            assert len(found) == 1 and value in text[found[0].start : found[0].end], text


def test_lone_escapes_are_not_decoded_and_escaped_tokens_are(
    scanners: tuple[SecretScanner, SecretScanner],
) -> None:
    gated, _ = scanners
    decoded: list[tuple[int, int, bytes]] = []
    gated.scan(b" \\u0073 \\x41 %2D " * 100, decoded=decoded)
    assert decoded == []
    token = b"sk-proj-" + b"A1b2" * 10
    escaped = b"".join(b"\\u%04x" % c for c in token[:4]) + token[4:]
    percent = token.replace(b"-", b"%2D")
    for text in (escaped, percent, b"\\\\u0073" + token[1:]):
        assert [h.rule for h in gated.scan(b"x " + text + b" y")] == ["openai-api-key"], text


def test_each_window_covers_the_longest_match_of_its_gate() -> None:
    """A window pass's gate reports a match's end; the pass's start must lie within its window
    (``NAMED_WINDOW`` and the others)."""
    windowed = [rule for rule in _passes()[1] if rule.window]
    assert len(windowed) == 14
    for rule in windowed:
        assert rule.gate is not None and rule.gate[1:] == (0, 0)
        _, longest = re._parser.parse(rule.gate[0].decode("latin-1")).getwidth()  # type: ignore[attr-defined]
        assert longest <= rule.window, rule.gate[0]


def test_the_subscript_window_covers_its_name() -> None:
    """The subscript pass's gate finds the ``]`` and the operator only: its window must reach back
    from the operator's end to the keyword that starts the pattern (the pattern's last
    ``[ \t]{0,4}`` is after the gate's end)."""
    _, longest = re._parser.parse((KEYWORDS + _SUBSCRIPT).decode("latin-1")).getwidth()  # type: ignore[attr-defined]
    assert longest - 4 <= SUBSCRIPT_WINDOW


def test_the_gate_reports_nothing_on_a_list_of_names(
    scanners: tuple[SecretScanner, SecretScanner],
) -> None:
    """The benchmark's key prefixes: every place is rejected by the gate, not by a handler."""
    gated, _ = scanners
    line = b"Bearer  password= token: Authorization: Cookie: https://u:@h -u x: sk-proj- xoxb-1- \\u0073 %2D\n"
    assert gated._gate is not None
    reports = gated._gate.scan(line * 50)
    assert sum(len(r) for r in reports.starts) == 0
    assert sum(len(e) for e in reports.ends) == 0


def _vendor_examples() -> st.SearchStrategy[tuple[str, bytes]]:
    """A token of each vendor rule's alternatives, drawn from its own pattern."""
    alternatives = [
        (name, alternative)
        for name, pattern in VENDOR_TOKENS
        for alternative in _top_level_alternatives(pattern)
    ]
    return st.sampled_from(alternatives).flatmap(
        lambda pair: st.tuples(st.just(pair[0]), st.from_regex(re.compile(pair[1]), fullmatch=True))
    )


@settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    _vendor_examples(),
    st.sampled_from([b" ", b"=", b'"', b"\n", b"token: "]),
    st.sampled_from([b" ", b'"', b"\n", b""]),
)
def test_every_vendor_token_is_reported_by_its_gate_expressions(
    scanners: tuple[SecretScanner, SecretScanner],
    example: tuple[str, bytes],
    before: bytes,
    after: bytes,
) -> None:
    """A vendor pass's gate searches each token on its own (``Pass.alternatives``), some by an
    expression of their own (``VENDOR_GATES``): the gated scan finds what ``re`` alone finds,
    for tokens of every length their patterns allow."""
    gated, plain = scanners
    _, token = example
    text = b"x" + before + token + after
    assert hits(gated, text) == hits(plain, text)


@pytest.mark.parametrize(
    "quote", [b'"', b"'", b'\\"', b'\\\\\\"'], ids=["json", "repr", "escaped", "escaped twice"]
)
def test_a_jwk_is_found_from_its_quoted_kty(
    scanners: tuple[SecretScanner, SecretScanner], quote: bytes
) -> None:
    """The gate reports a quoted ``kty`` only (an unquoted one is noise in base64); a JWK's private
    members are found whichever quote its names take."""
    secret = b"GawgguFyGrWKav7AX4VKUg7x9e0d1c8b2a3f4e5d6c7b8a9"
    text = b"{%skty%s: %soct%s, %sk%s: %s%s%s}" % (
        quote,
        quote,
        quote,
        quote,
        quote,
        quote,
        quote,
        secret,
        quote,
    )
    for scanner in scanners:
        assert [h.value for h in scanner.scan(text) if h.rule == "private-key"] == [
            b"jwk:" + secret
        ], scanner


@pytest.mark.parametrize(
    "token",
    [
        b"figd_----------------------0000000000000000=00",  # found by hypothesis: '=' where the run ends
        b"figd_" + b"Ab3" * 12 + b"xy=Q9",
        b"pscale_tkn_" + b"Zq7" * 10 + b"k=.w",
    ],
    ids=["figma-dashes", "figma", "planetscale"],
)
def test_a_token_running_past_its_run_is_found_where_the_gate_reports_it(
    scanners: tuple[SecretScanner, SecretScanner], token: bytes
) -> None:
    """A token may end up to two bytes past its run (an '=' or '.' where the run stops): the
    gated scan maps the gate's report back to the run's piece, as the full pass finds it."""
    gated, plain = scanners
    text = b"x " + token + b" "
    assert hits(plain, text) != []
    assert hits(gated, text) == hits(plain, text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("DB_PASSWORD=\\Qx7pLm92vRt", "\\Qx7pLm92vRt"),
        ("TOKEN: \\abcdef1234XYZ", "\\abcdef1234XYZ"),
        ("secret_key: \\\\zH3kq8WpV2", "zH3kq8WpV2"),
        ("  client_secret: \\Zq8mW3kLp0vB", "\\Zq8mW3kLp0vB"),
    ],
)
def test_a_value_starting_with_a_backslash_is_found_in_json(
    scanners: tuple[SecretScanner, SecretScanner], text: str, value: str
) -> None:
    """In JSON a text's backslash is doubled: the gate let a credential-named value that starts
    with ``\\\\`` pass unread (the plain scan found it)."""
    gated, _plain = scanners
    data = json.dumps({"text": text}).encode()
    escaped = json.dumps(value)[1:-1].encode()
    at = data.index(escaped)
    assert any(h[1] <= at and at + len(escaped) <= h[2] for h in hits(gated, data)), hits(
        gated, data
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("body=<password>S3cr3tPass9</password>", "S3cr3tPass9"),
        ("xml: <password>S3cr3tPass9</password>", "S3cr3tPass9"),
        ('$req = "<token>Zx9Qw2Lm7Rt4</token>";', "Zx9Qw2Lm7Rt4"),
    ],
)
def test_an_element_after_an_operator_is_read_when_it_is_closed(
    scanners: tuple[SecretScanner, SecretScanner], text: str, value: str
) -> None:
    """``NAME=<your-api-key>`` is a placeholder; ``body=<password>X</password>``, its text and end
    tag on its line, is an element: the gated scan skipped it (the plain one read it)."""
    gated, _plain = scanners
    for data in (text.encode(), json.dumps({"text": text}).encode()):
        at = data.index(value.encode())
        assert any(h[1] <= at and at + len(value) <= h[2] for h in hits(gated, data)), data
    assert hits(gated, b"API_KEY=<your-api-key>") == []


PEM_PIECES = [
    b"-----BEGIN RSA PRIVATE KEY-----",
    b"-----BEGIN PRIVATE KEY-----",
    b"BEGIN OPENSSH PRIVATE KEY--",
    b"-----END RSA PRIVATE KEY-----",
    b"-----BEGIN",
    b"-----BEGI",
    b"-----B",
    b"-----END",
    b"-----begin",
    b"-",
    b"-----",
    b"-" * 9,
    b"\n",
    b"\\n",
    b" " * 5,
    b":",
    b"Z9",
    b"QUJDREVGR0g=",
    b"keys/id_001.pem:1:",
    b"\xe2\x86\x92",
    b"|",
]
"""What the private-key gate looks at: headers, what follows them up to the next ``-----BEGIN``
or ``-----END``, base64 bytes and others, dashes in runs short and long, the end of the text."""


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(PEM_PIECES), min_size=1, max_size=24).map(b"".join))
def test_gated_and_plain_agree_on_private_key_headers(
    scanners: tuple[SecretScanner, SecretScanner], text: bytes
) -> None:
    gated, plain = scanners
    assert hits(gated, text) == hits(plain, text)


def test_grep_output_of_private_key_headers_gives_the_gate_nothing(
    scanners: tuple[SecretScanner, SecretScanner],
) -> None:
    """Headers with too little between them for a key: the private-key pass looks at the last
    header only (nothing follows it), and where a key follows, at the key."""
    gated, _ = scanners
    assert gated._gate is not None
    line = b"keys/id_%03d.pem:1:-----BEGIN RSA PRIVATE KEY-----\n"
    grep = b"".join(line % i for i in range(50))
    assert min(gated._gate.scan(grep).ends[0]) > len(grep) - len(line % 0)
    key = b"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7" + b"Qx9" * 20
    assert min(gated._gate.scan(grep + key).ends[0]) > len(grep)
    assert [h.rule for h in gated.scan(grep + key)] == ["private-key"]


def test_the_gate_over_spans_reports_what_it_reports_over_the_whole_text() -> None:
    """``Gate.scan_spans`` (the token gate reads the runs' regions only): a match inside a span is
    reported where the scan of the whole text reports it; one that reads the gap after a span, one
    byte past that span's end (the byte a vendor token's boundary reads); none cut by a span."""
    token = b"sk_live_A1b2C3d4"
    data = b"ab " + token + b" cd " + token + b"x.yz " + token + b"\n" + token + b"Z " + token
    whole = Gate([Rule(rb"sk_live_[A-Za-z0-9]{8}(?:[^A-Za-z0-9]|$)")]).scan(data)
    assert list(whole.ends[0]) == [20, 61, len(data)]  # not the two glued to x and Z
    starts = [m.start() for m in re.finditer(b"sk_live_", data)]
    # the first and third whole, the second cut after it (its boundary is the gap, not x), the
    # fourth with its Z, the last cut in half
    spans = [(0, 21), (starts[1] - 2, starts[1] + 16), (starts[2] - 1, starts[2] + 18)]
    spans += [(starts[3], starts[3] + 17), (starts[4], starts[4] + 10)]
    found = Gate([Rule(rb"sk_live_[A-Za-z0-9]{8}(?:[^A-Za-z0-9]|$)")]).scan_spans(
        data, [a for a, _ in spans], [b for _, b in spans]
    )
    assert list(found.ends[0]) == [20, starts[1] + 17, 61]


def test_matching_says_what_a_full_scan_says_of_each_wanted_rule() -> None:
    """``Gate.matching`` (a probe's block) stops once every wanted rule has matched: each wanted
    rule is True where the full scan reports it, whichever matches first and in which part,
    and a rule not wanted is False."""
    rules = [Rule(rb"alpha[0-9]", once=True), Rule(rb"beta[0-9]", once=True)]
    rules += [Rule(rb"gamma[0-9]", once=True)]
    texts = [b"", b"alpha1 beta2 gamma3", b"gamma3 beta2", b"beta2 " * 50 + b"alpha1", b"none"]
    for parts in (1, 2, 3):
        g = Gate(rules, parts)
        for text in texts:
            ends = g.scan(text).ends
            for wanted in ([True] * 3, [True, False, True], [False, True, False], [False] * 3):
                expected = [want and bool(e) for want, e in zip(wanted, ends, strict=True)]
                assert g.matching(text, wanted) == expected, (parts, text, wanted)
