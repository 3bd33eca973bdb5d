"""The secret rules as patterns and handlers: what a secret looks like in raw bytes.

Each rule is a ``Pass``: a regex (starting with a literal, for speed) and the handler that
decides what a match means, with what the scanner needs to run it cheaply (an anchor searched
in lower-cased text, the head of long runs only, the gate's start pattern). ``token_passes`` run
over the runs of base64/identifier bytes, ``keyword_passes`` over the text; the handlers apply
the boundary rules that let a token start right after an escape sequence (``run_start``,
``unescaped_start``). ``aws_secret_near`` finds an unlabelled AWS secret key next to its id.
The catalogue of rule ids is ``_catalogue``; the scanner that runs these passes is ``_secrets``;
the private-key rule, pattern, handler and gate, is ``_pem``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from ._bounded import VALUE_BOUND, WholeValue
from ._catalogue import Hit, placeholder_password
from ._lines import break_before
from ._names import digest_prefixed
from ._pem import PEM_GATE, PEM_HEADER, PEM_WINDOW, private_key
from ._values import (
    ciphertext,
    high_entropy,
    literal_value,
    masked,
    store_reference,
    within_store_reference,
)
from ._vendors import (
    INFIX_TOKENS,
    ONE_CASE_PREFIXES,
    SECRET_PREFIX,
    VENDOR_GATES,
    VENDOR_NAMED,
    VENDOR_SUFFIXES,
    VENDOR_TOKENS,
    random_token,
)
from ._work import spend

__all__ = [
    "AWS_PAIR_WINDOW",
    "Handler",
    "Pass",
    "aws_secret_near",
    "gate_head",
    "keyword_passes",
    "run_start",
    "token_passes",
    "unescaped_start",
]

# --- character classes ------------------------------------------------------------------------

_ALNUM: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_DIGITS: Final = frozenset(b"0123456789")
_LETTERS: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_LOWER: Final = frozenset(b"abcdefghijklmnopqrstuvwxyz")
_UPPER: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# A value ends at whitespace, quotes, backslashes (JSON escapes), separators and the buffer
# separators; \x00 separates decoded pieces in the rescans.
_VALUE: Final = rb"[^\s\"'`\\,;&<>(){}\[\]\x00\xff]"
_COOKIE_VALUE: Final = rb"[^\r\n\"'`\\<>\x00\xff]"
_QUERY_VALUE: Final = rb"[^&#\s\"'`\\<>\x00\xff]"
# an optional quote, possibly JSON-escaped once or more (`\"`, `\\\"` in JSON inside JSON)
_Q: Final = rb"(?:\\{0,7}[\"'])?"
_ASSIGN: Final = _Q + rb"[ \t]{0,4}[:=][ \t]{0,4}" + _Q
_AUTH_WORD: Final = rb"(?:bearer|basic|token|digest|bot|ssws|apikey|[a-z][a-z0-9\-]{1,23})"
"""A scheme before an Authorization header's credential: the usual ones, or any word (a vendor's:
``Splunk``, ``GenieKey``, ``Klaviyo-API-Key``, ``Zoho-oauthtoken``, ``DeepL-Auth-Key``)."""
_AUTH_SCHEME: Final = rb"(?:" + _AUTH_WORD + rb"[ \t]+)?"
_VALUE_NOT_COLON: Final = rb"[^\s\"'`\\,;&<>(){}\[\]\x00\xff:]"
"""The last byte of a header value: a value that ends with ``:`` is the next header's name
(``Authorization: Cookie:`` in a list of header names)."""
_AFTER_VALUE: Final = rb"(?:[\s\"'`\\,;&<>(){}\[\]\x00\xff]|$)"
_VALUE_NO_DIGIT: Final = rb"[^\s\"'`\\,;&<>(){}\[\]\x00\xff0-9]"
_COLON: Final = _Q + rb"[ \t]{0,4}:[ \t]{0,4}" + _Q
_WHOLE: Final = WholeValue(rb"[" + _VALUE[2:])
_QUERY_NAME: Final = rb"(?:gnature|sig|dential|key)"
QUERY_WINDOW: Final = 9
"""The longest match of the query pass's gate (``gnature=`` and a byte of value)."""
# The longest match of the Authorization, Bearer and Cookie passes' gates (a test checks each):
# the gate reports a match's end, and the scanner searches the keyword this far before it.
# Hyperscan tracks where a match starts at a cost, most of all on text dense with the keywords
# (the benchmark's key prefixes: the keyword gate 12.9 ms a MB tracking these starts, 9.6 without).
AUTHORIZATION_WINDOW: Final = 135
BEARER_WINDOW: Final = 22
COOKIE_WINDOW: Final = 160
ASSIGNMENT_DIGIT: Final = 128
"""An assignment's value (``password=…``) has a digit within its first this many bytes: the
gate reports that digit, and the name begins at most ``ASSIGNMENT_WINDOW`` bytes before it."""
ASSIGNMENT_WINDOW: Final = 185


_HEX: Final = frozenset(b"0123456789abcdefABCDEF")


def _escaped(data: bytes, i: int) -> bool:
    """True when ``data[i]`` is preceded by an odd number of backslashes (it is escaped)."""
    j = i - 1
    while j >= 0 and data[j] == 0x5C:
        j -= 1
    return (i - 1 - j) % 2 == 1


# Escape sequences, as tools print them. The rule: an escape sequence is never part of a word, so
# the position right after one is a token boundary, whatever letters or digits the escape ends
# with (``\x1b[K`` of ``grep --color``, ``\x00`` of a bytes repr, ``=3D`` of quoted-printable,
# ``%253D`` of double URL-encoding, ``\n`` and ``\u00e9`` of JSON, at any depth of backslashes).
_ESC: Final = rb"(?:\x1b|\\+(?:x1[bB]|u001[bB]|033|e)|\^\[)"
_ESCAPE: Final = (
    rb"(?:\\+(?:x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0-7]{1,3}|[nrtbfvae])"
    rb"|%(?:25){0,4}[0-9A-Fa-f]{2}"
    rb"|=[0-9A-F]{2}"
    rb"|" + _ESC + rb"(?:\[[0-9;?]{0,16}[A-Za-z]|\][0-9;]{0,8}))"
)
_ESCAPE_TAIL: Final = re.compile(_ESCAPE + rb"\Z")
_ESCAPE_SEQ: Final = re.compile(_ESCAPE)
_ESCAPE_WINDOW: Final = 32
"""Longest escape sequence the boundary rule recognises, in bytes."""


def _escape_before(data: bytes, pos: int) -> bool:
    """True when an escape sequence ends right before ``pos`` (searched in a bounded window)."""
    return _ESCAPE_TAIL.search(data, max(0, pos - _ESCAPE_WINDOW), pos) is not None


def _boundary_before(data: bytes, start: int) -> bool:
    """True when ``start`` is not inside a longer alphanumeric word (an escape is not a word)."""
    return start == 0 or data[start - 1] not in _ALNUM or _escape_before(data, start)


_ESCAPE_LEAD: Final = frozenset(b"\\%=[];")


def run_start(data: bytes, start: int, end: int) -> int:
    """Skip the tail of an escape a run begins with (``\\nQUJD...`` and ``=3DQUJD`` start at ``Q``)."""
    if start == 0 or data[start - 1] not in _ESCAPE_LEAD:
        return start
    for m in _ESCAPE_SEQ.finditer(
        data, max(0, start - _ESCAPE_WINDOW), min(end, start + _ESCAPE_WINDOW)
    ):
        if m.start() < start < m.end():
            return m.end()
    return start


def unescaped_start(data: bytes, start: int, end: int) -> int:
    """Skip the tail of a JSON escape a run begins with (``\\nQUJD...`` starts at ``Q``; a line
    break escaped twice, ``\\\\nQUJD`` in JSON inside JSON, too)."""
    if start > 0 and data[start - 1] == 0x5C and (_escaped(data, start) or data[start] in b"nrt"):
        if (
            data[start] == 0x75
            and end - start >= 5
            and all(b in _HEX for b in data[start + 1 : start + 5])
        ):
            return start + 5
        return start + 1
    return start


def _boundary_after(data: bytes, end: int) -> bool:
    return end >= len(data) or data[end] not in _ALNUM


def _mixed(value: bytes) -> bool:
    """Has both a digit and a letter: random credentials do, ordinary words and names do not."""
    return not _DIGITS.isdisjoint(value) and not _LETTERS.isdisjoint(value)


def _huggingface(value: bytes) -> bool:
    """Mixed, or 34 letters of both cases (Hugging Face tokens are 34 letters)."""
    return _mixed(value) or (
        len(value) == 34 and not (_LOWER.isdisjoint(value) or _UPPER.isdisjoint(value))
    )


# --- the passes -------------------------------------------------------------------------------

Handler = Callable[[bytes, "re.Match[bytes]"], "Hit | None"]


@dataclass(frozen=True)
class Pass:
    """One rule: a regex (it starts with a literal, for speed) and what a match means."""

    pattern: re.Pattern[bytes]
    handle: Handler
    anchor: re.Pattern[bytes] | None = None
    """For keyword rules: a literal searched in the lower-cased text, where ``pattern`` (compiled
    case-insensitively) is then matched: one search finds ``password``, ``Password`` and
    ``PASSWORD``."""
    narrow: bool = False
    """For token rules: of runs that look like base64 data (``NARROW_SKIP`` bytes or more with
    ``+`` or ``/``) search only the head: a vendor token starts a run, it is not buried in one."""
    skip: tuple[bytes, ...] | None = None
    """For keyword rules: anchor matches that start with one of these (in the lower-cased text)
    are left to another rule (``authorization``, ``cookie:``) without confirming them."""
    confirm: re.Pattern[bytes] | None = None
    """For token rules: the full pattern, matched on the data where ``pattern`` matched a run
    (a JWT continues past its first run at the dot)."""
    bounded: bool = False
    """For token rules: the handler requires a byte other than a letter or digit after the match
    (a vendor token inside a longer run of base64 is not one); the gate requires it too."""
    gate: tuple[bytes, int, int] | None = None
    """For keyword rules, where a hyperscan gate (``_prefilter``) finds the places the pattern can
    begin: ``(regex, offset, back)``, the start of a match of the regex plus ``offset`` when
    ``back`` is 0, else its end less ``back``. Without it an anchored rule's gate is derived from
    its anchor; with it the regex says more (what the handler requires), caseless when the
    rule is anchored or its pattern is."""
    weight: int = 1
    """What the rule's gate pattern costs hyperscan against the others' (``Rule.weight``); 0 for a
    few literals, placed last (the parts of the rules before it stay as they were)."""
    alternatives: tuple[bytes, ...] = ()
    """For token rules: what the gate searches instead of ``pattern``, one expression each (every
    match of the pattern is a match of one of them that ends where it ends). A vendor pass joins
    tokens under their shared first byte, which is all the literal hyperscan would find in the
    joined pattern; one by one, each token has its own (``NRAK-``, ``xoxb-``). For keyword rules
    with a ``gate`` whose ``back`` is set: what the gate searches instead of its regex, one
    expression each (their ends are the regex's ends)."""
    window: int = 0
    """With ``gate`` (offset and back 0): the regex's match is at most this long, and the gate
    reports its end; the scanner searches ``anchor`` in the window before each (a regex that
    counts, such as a value's length, has no start of match in hyperscan, and tracking one costs
    where the keywords crowd). The regex begins where the pattern does, or where the anchor's
    lookbehind head does (``zation(?<=authorization)``)."""
    ordered: bool = False
    """For keyword rules with a ``gate`` and no ``anchor``: confirmed where the gate reports them
    as ``finditer`` finds matches without the gate, in order and none inside the match before
    (without it, every place the gate reports is tried: overlapping matches too)."""
    extend: re.Pattern[bytes] | None = None
    """The pattern's ``value`` is bounded (``_bounded``): a hit that reaches the bound runs on to this."""


def _token(
    rule: str, *, right: bool = False, check: Callable[[bytes], bool] | None = None, skip: int = 0
) -> Handler:
    def handle(data: bytes, m: re.Match[bytes]) -> Hit | None:
        start, end = m.span()
        if not _boundary_before(data, start):
            return None
        if right and not _boundary_after(data, end):
            return None
        value = m.group()
        if check is not None and not check(value[skip:]):
            return None
        return Hit(rule, start, end, value)

    return handle


def _openai_or_anthropic(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start, end = m.span()
    value = m.group()
    if not _boundary_before(data, start) or not _mixed(value[3:]):
        return None
    rule = (
        "anthropic-api-key"
        if value.startswith(b"sk-ant-")
        else "openrouter-api-key"
        if value.startswith(b"sk-or-")
        else "openai-api-key"
    )
    return Hit(rule, start, end, value)


def _stripe(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start, end = m.span()
    value = m.group()
    if not _boundary_before(data, start) or not _mixed(value[8:]):
        return None
    return Hit("stripe-api-key", start, end, value)


_SCHEMES: Final = frozenset(
    {b"bearer", b"basic", b"token", b"digest", b"bot", b"ssws", b"apikey", b"negotiate", b"ntlm"}
)


_SCHEME_BEFORE: Final = re.compile(rb"([A-Za-z][A-Za-z0-9\-]{1,23})[ \t]+\Z")
"""The scheme word right before an Authorization header's value. A scheme the rule does not know
(a vendor's: ``Splunk``, ``GenieKey``) is taken with a credential that has a letter and a digit
(``_mixed``), not with a word."""


_VARIABLE: Final = re.compile(rb"\$(?:env:)?[A-Za-z_][A-Za-z0-9_]*|%[A-Za-z_][A-Za-z0-9_]*%")
"""A shell's, PowerShell's or cmd.exe's variable standing for the value (``$TOKEN``,
``$env:TOKEN``, ``%TOKEN%``): the command line names the secret, it does not hold it."""


_STANDS_FOR: Final = re.compile(rb"[ \t]+(?:\$|%[A-Za-z_]|<[A-Za-z])")
"""After a scheme: a variable or a ``<placeholder>`` standing for the credential."""
_LOWER_WORD: Final = re.compile(rb"[a-z]+")
_WORD_AFTER: Final = re.compile(rb"[ \t]+[a-z]")
"""After a value: another lower-case word, as in a sentence."""


_AUTH_PARAM: Final = re.compile(rb"[A-Za-z][A-Za-z_\-]{0,31}=")
"""An auth-param's name and its ``=`` (RFC 9110: ``username=``, ``realm=``, ``keyId=``)."""
_MORE_PARAMS: Final = re.compile(
    rb'\\{0,3}"[^"\\\n]{0,200}\\{0,3}"[ \t]*,[ \t]*[A-Za-z][A-Za-z_\-]{0,31}='
)
"""After an auth-param's name: its quoted value, a comma and the next param's name."""


def _authorization(data: bytes, m: re.Match[bytes]) -> Hit | None:
    value = m.group("value")
    if value.lower() in _SCHEMES or _VARIABLE.fullmatch(value) is not None:
        return None  # "Authorization: Bearer <token>" with a placeholder: nothing to hide
    if _STANDS_FOR.match(data, m.end("value")) is not None:
        return None  # "Authorization: Splunk ${HEC_TOKEN}": a scheme, then what stands for it
    scheme = _SCHEME_BEFORE.search(data, m.start(), m.start("value"))
    if _AUTH_PARAM.fullmatch(value) is not None and (
        (scheme is not None and scheme.group(1).lower() == b"digest")
        or _MORE_PARAMS.match(data, m.end("value")) is not None
    ):
        return None  # Digest username="u", realm=…: an auth-param's name, not a token
    if scheme is not None and scheme.group(1).lower() not in _SCHEMES and not _mixed(value):
        return None  # "authorization": "none configured …": a word after a word, not a credential
    if (
        scheme is None
        and _LOWER_WORD.fullmatch(value) is not None
        and (
            _WORD_AFTER.match(data, m.end("value")) is not None
            or not literal_value(value, quoted=False)
        )
    ):
        return None  # "Authorization: required for every endpoint", "authorization": "missing"
    return Hit("authorization-header", m.start("value"), m.end("value"), value)


def _bearer(data: bytes, m: re.Match[bytes]) -> Hit | None:
    value = m.group("value")
    if not _mixed(value):
        return None  # "Bearer authentication" is prose, not a token
    return Hit("bearer-token", m.start("value"), m.end("value"), value)


_COOKIE_PAIR: Final = re.compile(rb"[A-Za-z0-9_.\-]{1,128}=")


def _cookie(data: bytes, m: re.Match[bytes]) -> Hit | None:
    value = m.group("value").rstrip()
    if _COOKIE_PAIR.match(value) is None:
        return None  # a cookie header starts with name=value; "Cookie: header values..." is prose
    start = m.start("value")
    return Hit("cookie", start, start + len(value), value)


def _url(data: bytes, m: re.Match[bytes]) -> Hit | None:
    for name, rule in (
        ("password", "url-password"),
        *(
            (hook, "webhook-url")
            for hook in ("slack", "discord", "teams", "zapier", "ifttt", "make")
        ),
    ):
        if name in m.re.groupindex and m.group(name) is not None:
            if rule == "url-password" and placeholder_password(m.group(name)):
                return None  # postgres://user:password@localhost: the word standing for one
            return Hit(rule, m.start(name), m.end(name), m.group(name))
    user = m.group("user") if "user" in m.re.groupindex else None
    if user is not None and len(user) <= 256 and high_entropy(user):
        # a token as the URL's whole userinfo (nats://X@host, https://X@pypi.fury.io/…): a
        # random-looking user name of both cases and digits is a credential; git@, postgres@, a
        # person's name are not, nor hex (a Sentry DSN's public key, an id)
        return Hit("url-password", m.start("user"), m.end("user"), user)
    return None


def _param_name(data: bytes, end: int) -> tuple[bytes, int]:
    """The parameter name ending at ``end`` and the offset where it starts."""
    start = end
    while (
        start > 0 and end - start < 64 and (data[start - 1] in _ALNUM or data[start - 1] in b"_-.")
    ):
        start -= 1
    return data[start:end], start


def _query_delimited(data: bytes, name_start: int) -> bool:
    """The name follows ``?``, ``&`` or ``;`` (``&amp;`` in HTML): it is a URL query parameter."""
    return name_start > 0 and data[name_start - 1] in b"?&;"


_SIGNED_PARAMS: Final = frozenset(
    {
        b"sig",
        b"signature",
        b"x-amz-signature",
        b"x-goog-signature",
        b"x-amz-credential",
        b"x-goog-credential",
        b"credential",
    }
)


_KEY_PARAMS: Final = frozenset(
    {b"key", b"api_key", b"apikey", b"api-key", b"access_key", b"secret_key", b"private_key"}
)


def _signed_query(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A query parameter ``NAME=VALUE``: any ``…signature``, or a signing or key parameter."""
    name, name_start = _param_name(data, m.start("value") - 1)
    if not _query_delimited(data, name_start):
        return None
    name = name.lower()
    if not name.endswith(b"gnature") and name not in _SIGNED_PARAMS and name not in _KEY_PARAMS:
        return None
    value = m.group("value")
    if len(value) < 8:
        return None
    return Hit("signed-url-query", m.start("value"), m.end("value"), value)


def _assignment(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``password: x``, ``"client_secret": "..."``, ``GITHUB_TOKEN=...``, ``api_key=...``."""
    value = m.group("value")
    bounded = len(value) == VALUE_BOUND  # judged whole: a letter or a mask's end may lie past it
    if not (_mixed(value) or (bounded and _WHOLE.letter_next(data, m.end()))):
        return None  # references (os.environ, self.token, an ARN) and placeholders have no digits
    if (
        store_reference(value)
        or ciphertext(value)
        or (_WHOLE.masked(data, m.start("value")) if bounded else masked(value))
    ):
        return None
    if data[m.end("value") : m.end("value") + 1] == b"(" and b"." in value:
        return None  # secretsmanager.Secret.fromSecretNameV2(…): a call
    if not _names_a_value(m.group("name")):
        return None  # SECRET_NAME, token_length: a name about the credential
    full, name_start = _param_name(data, m.start("name"))
    if any(word in full.lower() for word in _NOT_SECRET_WORDS) or full.lower().endswith(_SITE_KEY):
        return None  # publicToken, csrf-token, data-sitekey: public, or anti-forgery
    if within_store_reference(data, name_start) or digest_prefixed(data, name_start):
        return None  # arn:aws:secretsmanager:…:secret:prod/db; checksum/secret: a digest

    rule = "signed-url-query" if _query_delimited(data, name_start) else "credential-assignment"
    return Hit(rule, m.start("value"), m.end("value"), value)


_ABOUT: Final = frozenset(
    b"name names length len size id file path type url count algorithm algo arn hash digest"
    b" checksum sha1 sha256 sha512 md5".split()
)


_NOT_SECRET_WORDS: Final = (b"public", b"csrf", b"xsrf", b"authenticity")
_SITE_KEY: Final = (b"sitekey", b"site_key", b"site-key")
"""A name ending so is a captcha's site key, the page's half (``SITE_KEY_SECRET`` is not)."""


def _names_a_value(rest: bytes) -> bool:
    """False when the name continues with a word saying what it holds is about the credential
    (``secret_length``, ``SECRET_NAME``, ``token_file``)."""
    words = [w for w in re.split(rb"[_\-.]+", rest.lower()) if w]
    return not words or words[-1] not in _ABOUT


_CURL_WINDOW: Final = 512


def _curl_user(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``curl -u user:password`` (the command within ``_CURL_WINDOW`` bytes before, same line)."""
    lo = max(0, m.start() - _CURL_WINDOW)
    spend(m.start() - lo)
    line, _ = break_before(data, lo, m.start())
    if data.find(b"curl", max(lo, line), m.start()) < 0:
        return None
    group = (
        "value" if m.group("value") is not None else "user"
    )  # -u API_KEY: (the key as user name)
    value = m.group(group)
    if value.startswith((b"$", b"%", b"[secret", b"<", b"[", b"{{")) or value.endswith(
        (b">", b"]")
    ):
        return None  # a variable or a placeholder, not the password (or the placeholder of one redacted)
    if value.lower().strip(b"'\"") in _CURL_PLACEHOLDERS or len(set(value)) == 1:
        return None  # curl -u user:password in a usage text
    if group == "user" and not _mixed(value):
        return None
    return Hit("curl-user-password", m.start(group), m.end(group), value)


_CURL_PLACEHOLDERS: Final = frozenset(
    {b"password", b"passwd", b"pass", b"pwd", b"secret", b"token", b"test", b"apikey", b"api_key"}
)


def _azure_client_secret(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start = m.start() - 4
    if not _boundary_before(data, start) or not _mixed(m.group()):
        return None
    return Hit("azure-ad-client-secret", start, m.end(), data[start : m.end()])


def _telegram(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start = m.start()
    while start > 0 and m.start() - start < 16 and data[start - 1] in _DIGITS:
        start -= 1
    if not _boundary_before(data, start):
        return None
    return Hit("telegram-bot-token", start, m.end(), data[start : m.end()])


def _facebook_app(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A Facebook app access token: the app id (15 or 16 digits), ``|``, the app secret."""
    start = m.start()
    while start > 0 and m.start() - start < 17 and data[start - 1] in _DIGITS:
        start -= 1
    if (
        not 15 <= m.start() - start <= 16
        or not _boundary_before(data, start)
        or not _mixed(m.group()[1:])
    ):
        return None
    return Hit("facebook-app-token", start, m.end(), data[start : m.end()])


_JWT_HEAD: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _jwt_short_header(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A JWT whose header (``eyJ...``, 8 to 15 characters) is too short to be found on its own."""
    start = m.start()
    while start > 0 and m.start() - start < 16 and data[start - 1] in _JWT_HEAD:
        start -= 1
    if (
        not 8 <= m.start() - start <= 15
        or not data.startswith(b"eyJ", start)
        or not _boundary_before(data, start)
    ):
        return None
    return Hit("jwt", start, m.end(), data[start : m.end()])


def _compile(pattern: bytes) -> re.Pattern[bytes]:
    return re.compile(pattern)


def _vendor_passes() -> list[tuple[re.Pattern[bytes], tuple[bytes, ...]]]:
    """The vendor tokens as one pattern per first character: every alternative starts with that
    literal character, which ``re`` then finds by a fast search (a single alternation of them
    all is tried at nearly every position, 60 times slower). Each with its gate's expressions:
    the alternatives one by one (``Pass.alternatives``)."""
    groups: dict[bytes, list[bytes]] = {}
    gates: dict[bytes, list[bytes]] = {}
    for i, (name, pattern) in enumerate(VENDOR_TOKENS):
        for alternative in _top_level_alternatives(pattern):
            first = alternative[:1]
            assert first.isalnum(), alternative  # a literal first character
            group = groups.setdefault(first, [])
            group.append(b"(?P<v%d_%d>%s)" % (i, len(group), alternative[1:]))
            gate = gates.setdefault(first, [])
            own = VENDOR_GATES.get(name, alternative)
            if own not in gate:
                gate.append(own)
    # the first character outside the groups: ``re`` searches a leading literal fast
    return [
        (
            re.compile(re.escape(first) + b"(?:" + b"|".join(alternatives) + b")"),
            tuple(gates[first]),
        )
        for first, alternatives in sorted(groups.items())
    ]


def _top_level_alternatives(pattern: bytes) -> list[bytes]:
    out: list[bytes] = []
    depth = 0
    start = 0
    escaped = False
    for i, c in enumerate(pattern):
        if escaped:
            escaped = False
        elif c == 0x5C:
            escaped = True
        elif c in b"([":
            depth += 1
        elif c in b")]":
            depth -= 1
        elif c == 0x7C and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    out.append(pattern[start:])
    return out


def _vendor(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start, end = m.span()
    if not _boundary_before(data, start) or not _boundary_after(data, end):
        return None
    value = m.group()
    if (
        not _mixed(value)
        and (_LOWER.isdisjoint(value) or _UPPER.isdisjoint(value))
        and not value.startswith(ONE_CASE_PREFIXES)
    ):
        return None  # a token's random part mixes letters and digits or cases; a name does not
    group = m.lastgroup or "v0_0"
    rule = VENDOR_TOKENS[int(group[1 : group.index("_")])][0]
    suffix = _SUFFIXES.get(rule)
    tail = suffix.match(data, end, end + 32) if suffix is not None else None
    if tail is not None:
        end, value = tail.end(), data[start : tail.end()]
    return Hit(rule, start, end, value)


_SUFFIXES: Final = {rule: re.compile(suffix) for rule, suffix in VENDOR_SUFFIXES.items()}


def _secret_prefixed(data: bytes, m: re.Match[bytes]) -> Hit | None:
    start, end = m.span()
    if not _boundary_before(data, start) or (end < len(data) and data[end] in b"+/"):
        return None
    if not random_token(m.group("body")):
        return None
    return Hit("prefixed-secret", start, end, m.group())


def _infix(rule: str, head: bytes) -> Handler:
    """A token found by its fixed part (``.atlasv1.``, ``_mmk``, ``.acc_``): its head, of
    ``head``'s shape, found back from there within ``_INFIX_HEAD`` bytes."""
    shape = re.compile(rb"(?:" + head + rb")\Z")

    def handle(data: bytes, m: re.Match[bytes]) -> Hit | None:
        lo = max(0, m.start() - _INFIX_HEAD)
        spend(m.start() - lo)
        found = shape.search(data, lo, m.start())
        if (
            found is None
            or not _boundary_before(data, found.start())
            or not _boundary_after(data, m.end())
        ):
            return None
        value = data[found.start() : m.end()]
        return Hit(rule, found.start(), m.end(), value) if _mixed(value) else None

    return handle


_INFIX_HEAD: Final = 64


# keys known by the vendor's name beside them (``_vendors.VENDOR_NAMED``)
_NAMED_SHAPES: Final = {
    word: tuple((rule, re.compile(shape)) for rule, words, shape in VENDOR_NAMED if word in words)
    for word in {w for _, words, _ in VENDOR_NAMED for w in words}
}
_NAMED_WINDOW: Final = 96
"""How far after the vendor's name its key may start, on the name's line ..."""
_NAMED_VALUE_MAX: Final = 128
"""... and how long it may be (a longer run is not one of these keys)."""
_CANDIDATE: Final = re.compile(rb"[A-Za-z0-9_\-+/.%~]+(?:={1,3}(?![A-Za-z0-9]))?")
_OPERATORS: Final = frozenset(b"=:>,|?")
_SAYS_CREDENTIAL: Final = re.compile(
    rb"key|token|secret|api|pass|auth|cred|access|licen[cs]e|bearer"
)
_SAYS_PUBLIC: Final = re.compile(
    rb"(?:^|[_\-. ])(?:id|ids|pub|public|publishable|user|username|email|url|uri|host|endpoint|region|site|domain|model|version|org)(?:$|[_\-. ])"
)
_LINE_END: Final = re.compile(rb"\n|\\n|\xff|\x00|\r")
_UUID_SHAPE: Final = re.compile(
    rb"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
)


def _bits(value: bytes) -> float:
    """Shannon entropy, bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def _vendor_named(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A key of a vendor's shape a few words after the vendor's name, on its line: after an
    operator (``=``, ``:``, ``=>``...) or where the name says credential (``Mistral API key
    abc…``); never where the name says id, public, user or URL."""
    shapes = _NAMED_SHAPES.get(m.group().lower())
    if not shapes or (m.start() > 0 and data[m.start() - 1] in _LETTERS):
        return None  # the name is part of a word (``SetSysctl``, ``CameraKit``)
    word = m.start()
    while (
        word > 0
        and m.start() - word < 48
        and (data[word - 1] in _ALNUM or data[word - 1] in b"_-.")
    ):
        word -= 1
    stop = min(len(data), m.end() + _NAMED_WINDOW + _NAMED_VALUE_MAX)
    cut = _LINE_END.search(data, m.end(), stop)
    stop = cut.start() if cut is not None else stop
    spend(stop - word)
    operator = False
    for count, token in enumerate(_CANDIDATE.finditer(data, m.end(), stop)):
        if count > 6 or token.start() > m.end() + _NAMED_WINDOW:
            return None
        between = data[m.end() : token.start()]
        operator = operator or not _OPERATORS.isdisjoint(between)
        name = data[word : token.start()].lower()
        value = token.group()
        for rule, shape in shapes:
            if shape.fullmatch(value) is None:
                continue
            if not (_mixed(value) or _UUID_SHAPE.fullmatch(value)) or _SAYS_PUBLIC.search(
                name.rstrip(b" \t\"'`=:>,|?")
            ):
                return None
            if _bits(value) < min(3.0, math.log2(len(value)) - 1.2):
                return None  # a pattern (aaaa1111bbbb2222), not a key
            if operator or _SAYS_CREDENTIAL.search(name) is not None:
                return Hit(rule, token.start(), token.end(), value)
            return None
        if operator:
            return None  # the value after the operator is not the vendor's key
    return None


_B64_WORD: Final = re.compile(rb"[A-Za-z0-9+/]+")
AWS_PAIR_WINDOW: Final = 256
"""How far from an access key id its unlabelled secret access key is looked for, in bytes."""


def aws_secret_near(data: bytes, hit: Hit) -> list[Hit]:
    """The secret access key printed next to an access key id (the console's credentials CSV,
    ``aws configure list`` output, a JSON ``Credentials`` object), with or without a label:
    40 base64 characters, both cases, with a digit or a slash."""
    out = []
    lo, hi = max(0, hit.start - AWS_PAIR_WINDOW), min(len(data), hit.end + AWS_PAIR_WINDOW)
    spend(hi - lo)
    for m in _B64_WORD.finditer(data, lo, hi):
        start, end = unescaped_start(data, m.start(), m.end()), m.end()
        if end - start != 40 or (end < len(data) and data[end] == 0x3D):
            continue
        value = data[start:end]
        if _LOWER.isdisjoint(value) or _UPPER.isdisjoint(value):
            continue
        if not _DIGITS.isdisjoint(value) or b"/" in value or b"+" in value:
            out.append(Hit("aws-secret-access-key", start, end, value))
    return out


# Token rules: a fixed prefix then random characters. Every match lies inside one run of
# base64/identifier characters at least ``MIN_RUN`` long (or starts in the few bytes before one,
# ``ya29.`` or ``SG.``), so these run over the (small) buffer of such runs only, and each
# candidate is confirmed against the full data.
def token_passes() -> list[Pass]:
    return [
        Pass(_compile(rb"sk-[A-Za-z0-9_\-]{32,}"), _openai_or_anthropic),
        Pass(_compile(rb"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"), _stripe),
        Pass(
            _compile(rb"g(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})"),
            _token("github-token"),
        ),
        Pass(
            _compile(rb"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}"),
            _token("aws-access-key-id", right=True),
        ),
        Pass(_compile(rb"AIza[0-9A-Za-z_\-]{35}"), _token("google-api-key", right=True)),
        *(
            Pass(pattern, _vendor, narrow=True, bounded=True, alternatives=gates)
            for pattern, gates in _vendor_passes()
        ),
        Pass(
            _compile(rb":A(?<=[0-9]{5}:A)[A-Za-z0-9_\-]{34}(?![A-Za-z0-9_\-])"),
            _telegram,
            narrow=True,
        ),
        Pass(_compile(SECRET_PREFIX), _secret_prefixed, narrow=True),
        Pass(
            _compile(rb"hf_[A-Za-z0-9]{30,}"),
            _token("huggingface-token", check=_huggingface, skip=3),
        ),
        Pass(_compile(rb"npm_[A-Za-z0-9]{36,}"), _token("npm-token")),
        Pass(_compile(rb"\|[A-Za-z0-9_\-]{27,40}(?![A-Za-z0-9_\-])"), _facebook_app, narrow=True),
        Pass(_compile(rb"pypi-AgE[A-Za-z0-9_\-]{40,}"), _token("pypi-token")),
        Pass(
            _compile(rb"eyJ[A-Za-z0-9_\-]{13,}"),
            _token("jwt"),
            confirm=_compile(rb"eyJ[A-Za-z0-9_\-]{13,}\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"),
        ),
        # a header too short to be a run of its own ({"ver":"2"}): found from its payload
        Pass(
            _compile(rb"\.eyJ[A-Za-z0-9_\-]{4,}"),
            _jwt_short_header,
            confirm=_compile(rb"\.eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]*"),
        ),
        Pass(
            _compile(
                rb"RHO_AUDIT_(?:API_KEY_7f3a|OAUTH_ACCESS_1c9d|REFRESH_442e|COOKIE_88b1|SIGNED_QUERY_629a)"
            ),
            _token("rho-audit-canary"),
        ),
    ]


# Keyword rules run over the whole text, one regex each. ``re`` finds a literal prefix fast, at a
# speed set by how often the literal's *first* byte occurs: each literal therefore starts at a rare
# letter of its keyword ("zation" for Authorization, "ken" for Token), and a lookbehind checks
# the rest. Measured on 100 MB of session JSON: ~32 ms a pass, against ~60-75 ms for "ookie",
# "earer" or "ecret". Names may continue after the keyword (client_secret_value, TOKEN_V2).
_ASSIGNMENT_LITERALS: Final = (
    rb"word(?<=password)",
    rb"cret(?<=secret)",
    rb"ken(?<=token)",
    rb"pi(?:_key|key|-key)",
)
"""Searched in the lower-cased text (``_folded``): any case of the names matches."""


def keyword_passes() -> list[Pass]:
    v = _VALUE
    passes = [
        Pass(
            PEM_HEADER,
            private_key,
            anchor=re.compile(rb"begin"),
            gate=(PEM_GATE, 0, 0),
            window=PEM_WINDOW,
        ),
        _folded(
            rb"zation(?<=authorization)",
            rb"zation(?<=authorization)"
            + _ASSIGN
            + _AUTH_SCHEME
            + rb"(?P<value>"
            + v
            + rb"{6,}+)(?<!:)",
            _authorization,
            # the gate reports only a value that does not end with ":", as the pattern requires, or
            # one too long to look at (64 bytes), or a scheme followed by more than 8 spaces
            gate=(
                rb"authorization"
                + _ASSIGN
                + rb"(?:(?:"
                + _AUTH_WORD
                + rb"[ \t]{1,8})?(?:"
                + v
                + rb"{5,63}"
                + _VALUE_NOT_COLON
                + _AFTER_VALUE
                + rb"|"
                + v
                + rb"{64})|"
                + _AUTH_WORD
                + rb"[ \t]{9})",
                0,
                0,
            ),
            window=AUTHORIZATION_WINDOW,
        ),
        _folded(
            rb"bearer",
            rb"bearer[ \t]{1,4}(?P<value>[A-Za-z0-9\-._~+/]{12,}=*)",
            _bearer,
            gate=(rb"bearer[ \t]{1,4}[A-Za-z0-9\-._~+/]{12}", 0, 0),
            window=BEARER_WINDOW,
        ),
        _folded(
            rb"kie(?<=cookie)",
            rb"kie(?<=cookie)" + _COLON + rb"(?P<value>" + _COOKIE_VALUE + rb"{4,})",
            _cookie,
            # the gate reports only a header whose value starts with a pair, as ``_cookie`` requires
            gate=(rb"cookie" + _COLON + _COOKIE_PAIR.pattern, 0, 0),
            window=COOKIE_WINDOW,
        ),
        Pass(
            _compile(
                # the password runs to the last "@" before the host (a password may hold an
                # unencoded "@"; a user name may be an e-mail address)
                rb"://(?:[^/\s:\"'`\\<>\x00\xff]{0,128}:(?P<password>[^/\s\"'`\\<>\x00\xff]{1,256})@"
                # a token as the whole userinfo: unbounded, which hyperscan's gate runs cheaper
                # than a bounded repeat (no "@" in the class: linear for re too)
                rb"|(?P<user>[A-Za-z0-9_\-.~]{16}[A-Za-z0-9_\-.~]*)@[A-Za-z0-9]"
                rb"|discord(?:app)?\.com/api/webhooks/(?P<discord>[0-9]+/[A-Za-z0-9_\-]{20,}))"
            ),
            _url,
        ),
        # Slack and Microsoft Teams webhooks, with or without their scheme ("k" is a rare letter)
        Pass(
            _compile(
                rb"k(?:\.com/(?<=hooks\.slack\.com/)(?:services|workflows|triggers)/(?P<slack>[A-Za-z0-9+/_\-]{20,})"
                rb"|b2/(?<=webhookb2/)(?P<teams>[A-Za-z0-9@.\-]{20,}/IncomingWebhook/[A-Za-z0-9/\-]{10,})"
                # Zapier's catch hooks, IFTTT's Maker key, Make's hooks: the URL is the credential
                rb"|s/catch/(?<=hooks\.zapier\.com/hooks/catch/)(?P<zapier>[0-9]+/[A-Za-z0-9]{6,})"
                rb"|ey/(?<=/with/key/)(?P<ifttt>[A-Za-z0-9_\-]{16,})"
                rb"|\.(?<=hook\.)[a-z0-9]{2,8}\.make\.com/(?P<make>[a-z0-9]{24,}))"
            ),
            _url,
        ),
        # one pass for the four query names, confirmed at each (a value holds the next name)
        Pass(
            _compile(_QUERY_NAME + rb"=(?P<value>" + _QUERY_VALUE + rb"{1,%d})" % VALUE_BOUND),
            _signed_query,
            anchor=_compile(_QUERY_NAME),
            gate=(_QUERY_NAME + rb"=" + _QUERY_VALUE, 0, 0),
            window=QUERY_WINDOW,
            extend=_compile(rb"[" + _QUERY_VALUE[2:]),
        ),
    ]
    passes += [
        Pass(
            _compile(
                rb"-(?:u|-user)(?:=|[ \t]{1,5})(?:\\{0,7}[\"']?[^\s:\"'\\]{0,128}(?:\\{0,7}[\"'])?:(?:\\{0,7}[\"'])?"
                rb"(?P<value>[^\s\"'\\]{3,256})|\\{0,7}[\"']?(?P<user>[^\s:\"'\\]{8,128}):(?=[\"'\s\\]))"
            ),
            _curl_user,
        ),
        Pass(
            _compile(rb"Q~(?<=[A-Za-z0-9_~.]{3}[0-9]Q~)[A-Za-z0-9_~.\-]{31,34}"),
            _azure_client_secret,
        ),
        _vendor_names(),
        *(
            _folded(re.escape(fixed.lower()), re.escape(fixed.lower()) + tail, _infix(rule, head))
            for rule, head, fixed, tail in INFIX_TOKENS
        ),
    ]
    digit = _VALUE_NO_DIGIT + rb"{0,%d}[0-9]" % (ASSIGNMENT_DIGIT - 1)
    for literal in _ASSIGNMENT_LITERALS:
        word, _ = gate_head(literal)
        name = rb"[A-Za-z0-9_\-]{0,24}"
        passes.append(
            _folded(
                literal,
                literal
                + rb"(?P<name>"
                + name
                + rb")"
                + _ASSIGN
                + rb"(?P<value>(?="
                + digit
                + rb")"
                + v
                + rb"{8,%d})" % VALUE_BOUND,
                _assignment,
                # the gate reports the value's first digit (``_assignment`` requires one), and
                # the name is searched in the window before it: hyperscan gives one start per
                # end, the leftmost, and the value that starts there may be a placeholder
                # (``secret=kkkk…secretc:2E3r4T5y``) where a later name's is not
                gate=(word + name + _ASSIGN + digit, 0, 0),
                window=ASSIGNMENT_WINDOW,
                extend=_WHOLE.end,
            )
        )
    return passes


def _vendor_names() -> Pass:
    """The vendors' names of ``VENDOR_NAMED`` (searched in lower case, confirmed in any), longest
    first so that ``linked_in`` is not read as ``linked``."""
    words = sorted(_NAMED_SHAPES, key=len, reverse=True)
    anchor = rb"(?:" + b"|".join(re.escape(w) for w in words) + rb")"
    return Pass(re.compile(anchor, re.IGNORECASE), _vendor_named, anchor=re.compile(anchor))


_LOOKBEHIND_HEAD: Final = re.compile(rb"([a-z]+)\(\?<=([a-z]+)\)")


def gate_head(anchor: bytes) -> tuple[bytes, int]:
    """An anchor as a gate searches it (hyperscan has no lookbehind), and how far into that the
    anchor's match starts: ``zation(?<=authorization)...`` is ``authorization...``, 7 in;
    an anchor without such a head is itself, 0 in."""
    m = _LOOKBEHIND_HEAD.match(anchor)
    if m is None or not m.group(2).endswith(m.group(1)):
        return anchor, 0
    return m.group(2) + anchor[m.end() :], len(m.group(2)) - len(m.group(1))


def _folded(
    anchor: bytes,
    pattern: bytes,
    handle: Handler,
    *,
    gate: tuple[bytes, int, int] | None = None,
    window: int = 0,
    extend: re.Pattern[bytes] | None = None,
) -> Pass:
    """``pattern`` (its keyword in lower case) searched in the lower-cased text, confirmed on the
    text case-insensitively; ``anchor`` is the keyword alone (the pattern starts with it).
    ``gate``: what the hyperscan gate looks for instead of the pattern (``Pass.gate``); with a
    ``window`` (``Pass.window``) the keyword is what the scanner searches before each report."""
    assert pattern.startswith(anchor)
    searched = anchor if window else pattern
    return Pass(
        re.compile(pattern, re.IGNORECASE),
        handle,
        anchor=re.compile(searched),
        gate=gate,
        window=window,
        extend=extend,
    )
