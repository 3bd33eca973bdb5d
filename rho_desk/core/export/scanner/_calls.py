"""Calls: a credential passed to a client's function or constructor by position, no name beside it.

What a call says, in any language, is read from its structure, not from a list of APIs:

* its **callee** (``_CALLEE``): the chain of names before its ``(`` (``Net::SMTP.start``, ``new
  postmark.ServerClient``, ``amqp.credentials.plain``, ``ftp:user``, ``fromDriverManager[IO]``,
  ``(require('sequelize'))``), read as words: a word of authentication (``auth``, ``credential``,
  ``login``, ``bind``, ``basic``, ``password``, ``_pw``, ``token``, ``secret``: ``AUTH_WORDS``) or
  of a client of a service (``connect``, ``client``, ``pool``, ``dialer``, ``initialize``,
  ``transport``, ``DriverManager``, a protocol's name: ``smtp``, ``ftp``, ``ldap``, ``amqp``,
  ``mqtt``, ``redis``…; and the few SDKs whose names say neither, ``SDKS``: ``CLIENT_WORDS``).
  Words common in code that say neither alone (``open``, ``start``, ``init``, ``sql``) are not
  among them: ``Net::FTP.open`` is a client's by its ``FTP``;
* its **arguments** (``_arguments``, over the call's lines, wrappers peeled): each a string
  literal (also wrapped: ``Some("X")``, ``"X".to_owned()``, ``"X".toCharArray()``), a number, a
  name, a named argument (``user=…``, ``password: …``: the name pass's), or other code;
* and **where the password stands** among them, in a call whose callee says either:

  - right after a user: a literal, or a name that says user (``user``, ``dn``, ``login``,
    ``account``): ``basic_auth("u", Some("X"))``, ``connect(host, 22, "u", "X")``,
    ``Connection(server, "cn=admin,…", "X")``, ``SMBConnection("u", "X", client, server)``;
  - after a host and what is no literal (a port, a timeout, a database's number):
    ``JedisPool(cfg, "redis.internal", 6379, 2000, "X")``, ``Redis("host", 6379, 0, "X")``;
  - alone: in a call whose last name says authentication (``ssh.Password("X")``) when it reads
    as a password, or in a client's constructor when it reads as random (``ServerClient("<uuid>")``,
    ``SparkPost("<40 hex>")``, ``NewMailersend("mlsn.<hex>")``);

  and, in any call, the second of two literals a ``"%s:%s"`` format joins (``String(format:
  "%@:%@", "u", "X")``, ``fmt.Sprintf``, ``"{}:{}".format``, ``"%s:%s" % (…)``): a user and its
  password made one Basic credential.

A value found by its position must read as a password (``_password``: mixed characters, not a
host, a port, a URL or a scheme, a path, a DN, an e-mail address, a format, a date or a version);
alone, as random (``_random``). And a table of known functions (``CALLS``: ``NetworkCredential(user,
X)``, ``new PDO(dsn, user, X)``, ``smtp.PlainAuth(id, user, X, host)``...) says where their
password is when it is any literal (letters only too).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ._lines import Line
from ._values import high_entropy, literal_value, secretish, shannon
from ._work import spend

__all__ = [
    "AUTH_WORDS",
    "CALLS",
    "CALL_GATE",
    "CALL_LITERALS",
    "CLIENT_WORDS",
    "SDKS",
    "call_values",
    "in_literal",
]

CALLS: Final[dict[str, int]] = {
    "networkcredential": 1,
    "getconnection": 2,
    "pdo": 2,
    "login": 1,
    "ftp": 2,
    "ftp_tls": 2,
    "plainauth": 2,
    "mysqli": 2,
    "mysqli_connect": 2,
    "mysql_connect": 2,
    "connect": 2,
    "httpbasicauth": 1,
    "httpdigestauth": 1,
    "basicauth": 1,
    "setbasicauth": 1,
    "usernamepasswordcredentials": 1,
    "usernamepasswordauthenticationtoken": 1,
    "passwordauthentication": 1,
    "simple_bind_s": 1,
    "simple_bind": 1,
    "bind_s": 1,
    "pass_": 0,
    "auth": -1,
}
"""Functions (their last name, lower case) and the index of the argument they take a password at
(-1: the last string literal, ``auth("X")`` of Redis clients, ``db.auth("user", "X")``, before a
callback): there any literal is the password, whatever its shape."""
_LOOSE_CALLS: Final = frozenset({b"connect"})
"""Names shared with calls that take no password (``socket.connect``, an MQTT client's): their
argument must also read as a credential (``secretish``): ``DBI->connect($dsn, 'u', 'X')``,
``pymysql.connect(host, user, X)``."""

AUTH_WORDS: Final = (
    "auth",
    "cred",
    "login",
    "logon",
    "signin",
    "passw",
    "passphrase",
    "pwd",
    "_pw",
    "pw_",
    "bind",
    "basic",
    "token",
    "secret",
    "apikey",
    "api_key",
)
"""What in a callee's name says authentication (lower case, anywhere in a name: ``basic_auth``,
``CreateCredential``, ``username_pw_set``, ``NtlmPasswordAuthenticator``, ``l.Bind``)."""
SDKS: Final = ("sequelize", "sparkpost", "mandrill", "messagebird", "mailjet", "plivo", "vonage")
"""Clients whose names say nothing of a client or a credential, and take one by position."""
CLIENT_WORDS: Final = (
    "connect",
    "client",
    "pool",
    "dialer",
    "initiali",
    "transport",
    "drivermanager",
    "forurl",
    "smtp",
    "ftp",
    "imap",
    "pop3",
    "ldap",
    "smb",
    "cifs",
    "amqp",
    "mqtt",
    "redis",
    "mongo",
    "ssh",
    "mail",
    *SDKS,
)
"""What in a callee's chain of names says a client of a service (lower case, anywhere in a name:
``AMQPStreamConnection``, ``NewDialer``, ``Net::SMTP.start``, ``JedisPool``, ``ftp:user``)."""

_WORDS: Final = b"|".join(w.encode() for w in sorted((*AUTH_WORDS, *CLIENT_WORDS), key=len)[::-1])
_TABLE: Final = b"|".join(re.escape(n.encode()) for n in sorted(CALLS, key=len, reverse=True))
_FORMAT: Final = rb"(?:%[@sv]|\{[0-9]?\}):(?:%[@sv]|\{[0-9]?\})"
"""Two placeholders joined by a colon: a user and its password made one (``%s:%s``, ``{}:{}``)."""
_CALLEE_GATE: Final = (
    rb"(?:(?:"
    + _TABLE
    + rb")[ \t]*\(|(?:"
    + _WORDS
    + rb")[a-z0-9_.:$>'\")\\\-]*(?:\[[^\]\r\n]*\])?[ \t]*\()"
)
_CONSTANT_WORDS: Final = rb"(?:pwd|passwd|password|passphrase|secret|token|bearer|apikey|api_key)"
_CONSTANT_GATE: Final = _CONSTANT_WORDS + rb"[ \t]*,[ \t]*\\*[\"']"
"""An argument named as a credential by its constant, then a literal: ``CURLOPT_USERPWD, "u:X"``."""
CALL_GATE: Final = _CALLEE_GATE + rb"|" + _FORMAT + rb"|" + _CONSTANT_GATE
"""What the gate reports a call at (caseless): a known function's name, or a chain of names holding
a word of ``AUTH_WORDS`` or ``CLIENT_WORDS``, before its ``(``; or a ``user:password`` format."""
CALL_LINE: Final = (
    _CALLEE_GATE
    + rb"(?:(?:[^\r\n\\]|\\+[^rn\\\"'])*?\\*[\"']|[ \t]*(?:\\+[rn]|[\r\n]|$))|"
    + _FORMAT
    + rb"|"
    + _CONSTANT_GATE
)
"""The line a call's arguments can be read on (its test, caseless): ``CALL_GATE`` where a quote
follows the callee's ``(`` on its line, or the line ends there (the arguments on the lines after)."""
CALL_LITERALS: Final = rb"(?:" + _TABLE + rb"|" + _WORDS + rb"|%[@sv]:%|\}:\{|pwd|passwd|bearer)"
"""What every line the gate reports a call on holds (lower case)."""

_TABLE_CALL: Final = re.compile(rb"(?<![A-Za-z0-9_])(?P<name>" + _TABLE + rb")[ \t]*\(", re.I)
_GATE: Final = re.compile(CALL_LINE, re.I)
_CALLEE: Final = re.compile(
    rb"(?P<new>\bnew[ \t]+)?(?:\(require\([\"'](?P<module>[A-Za-z0-9_@/.\-]{1,80})[\"']\)\)"
    rb"|(?P<chain>[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::|->|:)[A-Za-z_$][A-Za-z0-9_$]*)*))"
    rb"(?:\[[^\]\n]{0,80}\]|::<[^>\n]{0,80}>)?[ \t]*\("
)
"""A call's callee: a chain of names (``new`` before it kept), or a module required and called."""
_STRING: Final = re.compile(rb"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")
_FORMAT_CALL: Final = re.compile(
    rb"[\"']" + _FORMAT + rb"[\"'][ \t]*(?:\)?[ \t]*,|%[ \t]*\(?|\.format\()[ \t]*"
    rb"(?P<user>\"[^\"\\\n]{1,128}\"|'[^'\\\n]{1,128}')[ \t]*,[ \t]*"
    rb"(?P<value>\"(?:[^\"\\\n]|\\.){6,256}\"|'(?:[^'\\\n]|\\.){6,256}')",
    re.I,
)
_CONSTANT: Final = re.compile(
    rb"(?<![A-Za-z0-9_])(?P<name>(?:[A-Z][A-Z0-9_]{0,60}?)??(?P<user>USER)?"
    + _CONSTANT_WORDS.upper()
    + rb")[ \t]*,[ \t]*(?P<q>[\"'])(?P<text>(?:(?!(?P=q))[^\\\n]|\\.){1,256})(?P=q)"
)
"""A literal after a constant naming a credential, in any call: libcurl's ``CURLOPT_USERPWD,
"u:X"`` (the part after the user's ``:``), ``CURLOPT_PASSWORD``, ``pycurl.PROXYUSERPWD``."""
_REACH_LINES: Final = 8
"""Lines a call's arguments are read over (its first included)."""
_REACH_BYTES: Final = 2048

# --- an argument's kind ---------------------------------------------------------------------------

_METHODS: Final = (
    rb"(?:\.(?:to_owned|to_string|into|toCharArray|getBytes|encode|as_bytes|as_str)\(\))*"
)
_LITERAL: Final = re.compile(
    rb"(?P<open>(?:Some|Ok|Optional\.of|String::from|String\.valueOf|new[ \t]+String|SecretStr|str)?\()?"
    rb"[ \t]*(?:[bBrRuU@]|rb|br)?(?P<q>[\"'])(?P<text>(?:(?!(?P=q))[^\\\n]|\\.)*)(?P=q)"
    + _METHODS
    + rb"[ \t]*(?(open)\))"
    + _METHODS
)
"""A string literal argument, wrapped or not: ``"X"``, ``Some("X")``, ``"X".to_owned()``."""
_NUMBER: Final = re.compile(rb"-?(?:0x[0-9A-Fa-f]+|[0-9][0-9_]*)[lL]?")
_NAME: Final = re.compile(
    rb"[$@]{0,2}[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|->|::)[A-Za-z_][A-Za-z0-9_]*)*"
)
_NAMED: Final = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*[ \t]*(?:=(?![=>])|:(?![:=]))")
"""A named argument (``user="u"``, Swift's ``format:``, Ruby's ``password:``): the name pass's."""
_NOTHING: Final = frozenset({b"none", b"null", b"nil", b"undefined", b"true", b"false", b"0"})
_USER_NAMES: Final = re.compile(
    rb"(?i:.*(?:user(?:name)?|usr|login|dn|account|email|principal|uid|sid|client_?id|app_?id|key_?id))"
)
"""A name holding a user (or an id a secret is paired with): the argument before its password."""
_HOST_NAMES: Final = re.compile(
    rb"(?i:.*(?:host(?:name)?|server|addr(?:ess)?|endpoint|url|uri|dsn|broker))"
)
_HOST: Final = re.compile(
    rb"(?i:localhost|[a-z0-9\-]+(?:\.[a-z0-9\-]+)+|[0-9]{1,3}(?:\.[0-9]{1,3}){3})(?::[0-9]{1,5})?"
    rb"|[a-z][a-z0-9+.\-]*://\S*|jdbc:\S*"
)

_LITERAL_KIND, _NUMBER_KIND, _NAME_KIND, _NAMED_KIND, _OTHER_KIND = range(5)


def _kind(t: bytes, segments: list[tuple[int, int]]) -> tuple[int, int, int]:
    """The kind of the argument made of ``segments`` (one per line it spans), and for a literal
    where its text is (else where the argument is)."""
    parts = [(a, b) for a, b in segments if t[a:b].strip()]
    if len(parts) != 1:
        return _OTHER_KIND, 0, 0
    a, b = parts[0]
    while a < b and t[a] in b" \t":
        a += 1
    while b > a and t[b - 1] in b" \t":
        b -= 1
    m = _LITERAL.fullmatch(t, a, b)
    if m is not None:
        return _LITERAL_KIND, m.start("text"), m.end("text")
    if _NUMBER.fullmatch(t, a, b) is not None:
        return _NUMBER_KIND, a, b
    if _NAMED.match(t, a, b) is not None:
        return _NAMED_KIND, a, b
    if _NAME.fullmatch(t, a, b) is not None:
        return _NAME_KIND, a, b
    return _OTHER_KIND, a, b


# --- a value's shape --------------------------------------------------------------------------------

_NOT_A_PASSWORD: Final = re.compile(
    rb"(?i:[a-z][a-z0-9+.\-]*:(?!\Z)"  # a URL's, a JDBC or a DSN's scheme, host:port
    rb"|(?:cn|uid|ou|dc|o|c|l|st|mail|dn)=[^,=]*(?:,|\Z)"  # a DN
    rb"|[^@\s]+@[a-z0-9\-]+(?:\.[a-z0-9\-]+)+\Z"  # an e-mail address
    rb"|(?:.*%[-+0-9.]*[a-z@]){2}"  # a format
    rb"|.*\{[0-9]?\}"
    rb"|[0-9]{4}-[0-9]{2}-[0-9]{2}"  # a date
    rb"|v?[0-9]+(?:\.[0-9]+)+(?:[-+.][a-z0-9.]+)?\Z)"  # a version
)
_SYMBOLS: Final = re.compile(rb"[^A-Za-z0-9_.\-]")
_UPPER: Final = re.compile(rb"[A-Z]")
_LOWER: Final = re.compile(rb"[a-z]")
_DIGIT: Final = re.compile(rb"[0-9]")
_UUID: Final = re.compile(rb"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_PREFIXED: Final = re.compile(rb"(?P<prefix>[A-Za-z]{2,8}[_.\-])(?P<body>[A-Za-z0-9_\-]{24,})")
_NOT_A_PREFIX: Final = frozenset({b"sha", b"sha1", b"sha256", b"sha512", b"md5", b"v1", b"v2"})


def _random(value: bytes) -> bool:
    """A value that reads as generated: a UUID, 32 hex digits or more, letters of both cases and
    digits near random text's entropy, or such a body after a short prefix (``atsk_``, ``mlsn.``)."""
    if _UUID.fullmatch(value) is not None:
        return True
    m = _PREFIXED.fullmatch(value)
    if m is not None and m.group("prefix")[:-1].lower() not in _NOT_A_PREFIX:
        value = m.group("body")
    if len(value) >= 32 and not value.strip(b"0123456789abcdefABCDEF"):
        return shannon(value) >= 3.0
    return len(value) >= 16 and high_entropy(value)


_CASE_SWITCH: Final = re.compile(rb"[a-z](?=[A-Z])|[A-Z](?=[a-z][A-Z0-9])")
"""Where a word's case switches inside it: a host's labels switch rarely (``Web01.Acme``), random
letters often."""


def _password(value: bytes) -> bool:
    """A literal that reads as a password where one stands: mixed (letters of both cases and
    digits, a symbol, or random), and none of the values a client's call also takes there."""
    if not 6 <= len(value) <= 256 or b"\\" in value or b" " in value:
        return False
    if not secretish(value, quoted=True) or not literal_value(value, quoted=True):
        return False
    if _NOT_A_PASSWORD.match(value) is not None:
        return False
    if _HOST.fullmatch(value) is not None and len(_CASE_SWITCH.findall(value)) < 4:
        return False  # a host (``Web01.Acme.lan``), not ``DqU5Yf8NLjVga.uL``
    if b"/" in value and not _random(value):
        return False  # a path, a MIME type, a topic
    mixed = (
        _UPPER.search(value) is not None
        and _LOWER.search(value) is not None
        and _DIGIT.search(value) is not None
    )
    return mixed or _SYMBOLS.search(value) is not None or _random(value)


# --- a call ---------------------------------------------------------------------------------------


def _arguments(t: bytes, lines: Sequence[Line], i: int, pos: int) -> list[list[tuple[int, int]]]:
    """The top-level arguments of the call whose ``(`` ends at ``pos`` on line ``i``, each as its
    segments (one per line), over at most ``_REACH_LINES`` lines (the wrappers of the lines after
    the first peeled), up to its ``)``."""
    out: list[list[tuple[int, int]]] = []
    segments: list[tuple[int, int]] = []
    depth = 0
    start, end, j = pos, lines[i].end, i
    budget = _REACH_BYTES
    while True:
        k = start
        while k < end:
            c = t[k]
            if c == 0x22 or c == 0x27:
                m = _STRING.match(t, k, end)
                k = m.end() if m is not None else end
                continue
            if c in b"([{":
                depth += 1
            elif c in b")]}":
                if depth == 0:
                    segments.append((start, k))
                    out.append(segments)
                    return out
                depth -= 1
            elif c == 0x2C and depth == 0:
                segments.append((start, k))
                out.append(segments)
                segments = []
                start = k + 1
            k += 1
        segments.append((start, end))
        budget -= end - start
        j += 1
        if j >= len(lines) or j - i >= _REACH_LINES or budget <= 0:
            out.append(segments)
            return out
        start, end = lines[j].start, lines[j].end


def _words_in(chain: bytes, words: Sequence[str]) -> bool:
    lowered = chain.lower().decode("latin-1")
    return any(w in lowered for w in words)


def _last_name(chain: bytes) -> bytes:
    last = re.split(rb"\.|::|->|:", chain)[-1]
    return last


_NOT_A_CLIENT: Final = re.compile(
    rb"(?i:.*(?:uuid|guid|hash|digest|sha[0-9]*|md5|hex|colou?r|commit|checkout|objectid|verify|"
    rb"public|pub|parse|get|find|fetch|lookup|author))"
)
"""A callee taking a random value that is no secret: an id, a digest, a colour, a public key."""


def _lone(t: bytes, chain: bytes, constructor: bool, a: int, b: int) -> bool:
    """A call's one literal, ``t[a:b]``: a password where the call's last name says authentication,
    a random value where it is a client's constructor."""
    last = _last_name(chain)
    if _NOT_A_CLIENT.match(last) is not None:
        return False
    value = t[a:b]
    if _words_in(last, AUTH_WORDS) and not last.lower().startswith(b"author"):
        return _password(value) or _random(value)
    if constructor or _words_in(last, CLIENT_WORDS) or last.lower().startswith(b"init"):
        return _random(value) and literal_value(value, quoted=True)
    return False


def _positional(
    t: bytes, chain: bytes, constructor: bool, args: list[tuple[int, int, int]]
) -> list[tuple[int, int]]:
    """The passwords among a call's arguments (their kinds), by where they stand."""
    out: list[tuple[int, int]] = []
    host = False
    literals = [n for n, (kind, _, _) in enumerate(args) if kind == _LITERAL_KIND]
    for n, (kind, a, b) in enumerate(args):
        if kind == _NAMED_KIND:
            break  # positional arguments come first
        if kind != _LITERAL_KIND:
            host = host or (kind == _NAME_KIND and _HOST_NAMES.fullmatch(t, a, b) is not None)
            continue
        value = t[a:b]
        before = args[n - 1] if n else None
        if before is not None and before[0] == _LITERAL_KIND:
            user = 0 < before[2] - before[1] <= 128 and b" " not in t[before[1] : before[2]]
        elif before is not None and before[0] == _NAME_KIND:
            user = _USER_NAMES.fullmatch(t, before[1], before[2]) is not None
        else:
            user = False
        after_host = host and before is not None and before[0] != _LITERAL_KIND
        placed = (user or after_host) and _password(value)
        if placed or (len(literals) == 1 and n == 0 and _lone(t, chain, constructor, a, b)):
            out.append((a, b))
        host = host or _HOST.fullmatch(value) is not None
    return out


def _table_values(t: bytes, line: Line, lines: Sequence[Line], i: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for m in _TABLE_CALL.finditer(t, line.start, line.end):
        args = [_kind(t, segs) for segs in _arguments(t, lines, i, m.end())]
        at = CALLS[m.group("name").lower().decode("ascii")]
        if at < 0:
            literals = [n for n, (kind, _, _) in enumerate(args) if kind == _LITERAL_KIND]
            if not literals:
                continue
            at = literals[-1]
        if at >= len(args) or args[at][0] != _LITERAL_KIND:
            continue
        _, a, b = args[at]
        value = t[a:b]
        if m.group("name").lower() in _LOOSE_CALLS and not secretish(value, quoted=True):
            continue  # connect(host, port, "topic"): a generic name's third literal is a password only when it reads as one
        if literal_value(value, quoted=True) and len(value) >= 6:
            out.append((a, b))
    return out


def call_values(t: bytes, lines: Sequence[Line], i: int) -> list[tuple[int, int]]:
    """The string literals the calls on line ``i`` pass at their password's place."""
    line = lines[i]
    spend(line.end - line.start)
    if _GATE.search(t, line.start, line.end) is None:
        return []
    out = _table_values(t, line, lines, i)
    for m in _CONSTANT.finditer(t, line.start, line.end):
        a, b = m.span("text")
        if m.group("user") is not None:
            cut = t.find(b":", a, b)
            if cut < 0:
                continue
            a = cut + 1
        if _password(t[a:b]) and b"%" not in t[a:b]:
            out.append((a, b))  # not a header's name after ``HEADER_TOKEN``
    for m in _FORMAT_CALL.finditer(t, line.start, line.end):
        a, b = m.start("value") + 1, m.end("value") - 1
        if _password(t[a:b]):
            out.append((a, b))
    for m in _CALLEE.finditer(t, line.start, line.end):
        chain = m.group("chain") or m.group("module") or b""
        if not _words_in(chain, AUTH_WORDS) and not _words_in(chain, CLIENT_WORDS):
            continue
        constructor = (
            m.group("new") is not None
            or m.group("module") is not None
            or _last_name(chain)[:1].isupper()
            or _last_name(chain) == b"new"
        )
        args = [_kind(t, segs) for segs in _arguments(t, lines, i, m.end())]
        out += _positional(t, chain, constructor, args)
    return sorted(set(out))


def in_literal(t: bytes, line: Line, start: int, end: int) -> bool:
    """``t[start:end]`` lies inside a string literal given as a call's argument on ``line`` (a
    DSN's ``password=X`` in ``new PDO('…;password=X')``): on a call's line, what the other
    readers find there."""
    for m in _STRING.finditer(t, line.start, line.end):
        if m.start() < start and end < m.end():
            before = t[line.start : m.start()].rstrip(b" \t")
            return before.endswith((b"(", b","))
    return False
