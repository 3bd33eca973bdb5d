"""Values named otherwise than by ``NAME = value``: by a call, an element, a user's ``/``, a rule.

By the call that takes them, by an XML element whose name is in an attribute or beside
attributes, by the ``user/`` before them:

* **a call whose callee names a credential**: its first argument, a quoted literal, or a
  brace initialiser's (``.password("X")``, ``kAuthToken{"X"}``, ``red:auth("X")``, ``setApiKey('X')``, ``withToken("X")``); not a getter or
  a lookup, whose argument is a name (``getSecret("db")``, ``os.getenv("TOKEN")``);
* **an XML element with attributes**: ``<wsse:Password Type="…">X</wsse:Password>``, and an
  element named by its ``name`` or ``key`` attribute, ``<property
  name="hibernate.connection.password">X</property>``;
* **an HTML password field's value**: ``<input type="password" name="pw" value="X">``, its
  attributes in any order (the value is often written with character references, which the
  decoders read);
* **Oracle's ``user/password@``**: ``jdbc:oracle:thin:scott/X@//host``, ``etl/X@(DESCRIPTION=…)``
  (a command line's ``user/X@db`` is ``_argv``'s, by its client);
* **a session cookie given in code**, named by the cookie's name after ``cookies=`` or
  ``Cookie(``: ``cookies={"sessionid": "X"}``, ``Cookie("sessionid", "X", "/", host)``;
* **a Redis ACL rule's ``>X``**, on a ``user NAME …`` line or after ``ACL SETUSER NAME``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final, Protocol

from ._catalogue import Hit
from ._lines import break_before
from ._names import name_before, name_is_credential, name_words
from ._rules import Pass
from ._values import literal_value, secretish
from ._work import spend

__all__ = ["XML_VALUE", "named_passes", "sibling_text", "value_child"]

_KEYWORD: Final = rb"(?:pass|pwd|secret|token|auth|key|cred)"
_MAX: Final = 256

# --- calls ------------------------------------------------------------------------------------

_CALL: Final = re.compile(
    _KEYWORD + rb"(?P<rest>[a-z0-9_]{0,40})[ \t]?[({][ \t]?(?P<q>\\{0,7}[\"'`])", re.IGNORECASE
)
_CALL_GATE: Final = _KEYWORD + rb"[a-z0-9_]{0,40}[ \t]?[({][ \t]?[\\\"'`]"
"""``_CALL`` with at most one space around ``(`` (a superset of what the gate can afford: one
unbounded run of spaces with the match's start makes hyperscan's automaton too large)."""
_PATH: Final = re.compile(rb"[\w.\-~]*(?:/[\w.\-]+)+/?")
_LOOKUPS: Final = frozenset(
    {
        "get",
        "load",
        "read",
        "fetch",
        "find",
        "lookup",
        "resolve",
        "has",
        "is",
        "check",
        "validate",
        "verify",
        "delete",
        "remove",
        "revoke",
        "rotate",
        "describe",
        "list",
        "require",
        "env",
        "getenv",
        "parse",
        "decode",
        "ref",
        "use",
        "from",
        "by",
        "for",
        "to",
        "name",
        "path",
        "file",
    }
)
"""A callee's word that says its argument names or finds the credential, not gives it."""


def _literal_end(data: bytes, start: int, quote: bytes) -> int | None:
    end = data.find(quote, start, start + _MAX)
    if end <= start:
        return None
    if any(b in data[start:end] for b in (b"\n", b"\x00", b"\xff")):
        return None
    return end


def _call(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``.password("X")``: the literal a call named for a credential takes first."""
    if data[m.end("rest") : m.end("rest") + 1] in (b" ", b"\t"):
        return None  # "secrets (`…`)": prose before a parenthesis, not a call
    _, name = name_before(data, m.end("rest"))
    callee = name.rsplit(b".", 1)[-1].rsplit(b":", 1)[-1]
    text = callee.decode("ascii", "replace")
    words = name_words(text)
    if not words or not _LOOKUPS.isdisjoint(words) or not name_is_credential(text):
        return None
    quote = m.group("q")
    start = m.end()
    end = _literal_end(data, start, quote)
    if end is None:
        return None
    value = data[start:end]
    spend(end - start)
    if value.startswith(b"[secret") or not secretish(value, quoted=True):
        return None
    if _PATH.fullmatch(value) is not None:
        return None  # a file the credential is in
    return Hit("credential-assignment", start, end, value)


# --- XML elements with attributes ----------------------------------------------------------------

_ELEMENT: Final = re.compile(
    _KEYWORD
    + rb"(?P<rest>[a-z0-9_.:]{0,40})(?P<close>\\{0,7}[\"'])?(?P<attrs>(?:[ \t]{1,4}[a-z0-9_:\-]{1,40}=[^<>\n]{0,256}?)?)>(?P<value>[^<\n]{1,256})</",
    re.IGNORECASE,
)
_ELEMENT_GATE: Final = (
    _KEYWORD + rb"[a-z0-9_.:]{0,40}(?:(?:\\{0,7}[\"'])?[ \t]{1,4}[a-z0-9_:\-]{1,40}=|\\{0,7}[\"']>)"
)
_TAG_OPEN: Final = re.compile(rb"<(?:[A-Za-z_][A-Za-z0-9_\-]{0,30}:)?$")
_NAME_ATTR: Final = re.compile(rb"(?:name|key|id)[ \t]*=[ \t]*\\{0,7}[\"']$", re.IGNORECASE)
_NAMING_ATTR: Final = re.compile(rb"[ \t](?:name|key)[ \t]*=[ \t]*\\{0,7}[\"']$", re.IGNORECASE)
"""An attribute that names its element even with attributes after it (``<string name="api_key"
translatable="false">``; an ``id`` names a node of a page, whose text is a label)."""


def _element(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``<wsse:Password Type="…">X</wsse:Password>``, ``<property name="…password">X</property>``."""
    name_start, name = name_before(data, m.end("rest"))
    lead = data[max(0, name_start - 64) : name_start]
    if m.group("close") is None:
        # the keyword is in the element's name: ``<ns:Password attr="…">``
        if _TAG_OPEN.search(lead) is None:
            return None
        local = name
    else:
        # the keyword is in an attribute naming the element: ``name="db.password">``, other
        # attributes after it or not (``name="mqtt_pass" translatable="false">``)
        attrs = m.group("attrs")
        if _NAME_ATTR.search(lead) is None or (
            attrs and (_NAMING_ATTR.search(lead) is None or attrs.rstrip().endswith(b"/"))
        ):
            return None  # an id names a node of a page; <add key="…" value="…" /> has no text
        local = name.rsplit(b".", 1)[-1]
    if not name_is_credential(local.decode("ascii", "replace")):
        return None
    start, end = m.start("value"), m.end("value")
    value = data[start:end].strip()
    if not value or value.startswith(b"[secret") or not literal_value(value, quoted=True):
        return None
    start = data.index(value, start, end)
    return Hit("credential-assignment", start, start + len(value), value)


# --- HTML password fields -------------------------------------------------------------------

_INPUT_TYPE: Final = re.compile(rb"password\\{0,7}[\"']?[^<>\n]{0,512}?>", re.IGNORECASE)
_INPUT_GATE: Final = rb"type[ \t]*=[ \t]*\\{0,7}[\"']?password"
_INPUT_HEAD: Final = re.compile(
    rb"<input\b[^<>\n]{0,512}?\btype[ \t]*=[ \t]*\\{0,7}[\"']?$", re.IGNORECASE
)
_INPUT_VALUE: Final = re.compile(
    rb"\bvalue[ \t]*=[ \t]*(?P<q>\\{0,7}[\"'])(?P<value>[^<>\n]{1,256}?)(?P=q)", re.IGNORECASE
)


def _input(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``<input type="password" … value="X">``: the value of a password field, wherever its
    ``value`` attribute is in the tag."""
    start = m.start()
    lt = data.rfind(b"<", max(0, start - 512), start)
    if lt < 0 or _INPUT_HEAD.match(data[lt:start]) is None:
        return None
    tag = data[lt : m.end()]
    spend(len(tag))
    found = _INPUT_VALUE.search(tag)
    if found is None:
        return None
    value = found.group("value")
    if value.startswith(b"[secret") or not literal_value(value, quoted=True):
        return None
    return Hit("credential-assignment", lt + found.start("value"), lt + found.end("value"), value)


# --- Oracle's user/password@ ----------------------------------------------------------------------

_ORACLE: Final = re.compile(rb"@(?://|\(DESCRIPTION)", re.IGNORECASE)
_THIN: Final = re.compile(
    rb"thin:(?P<user>[A-Za-z0-9_$#]{1,30})/(?P<value>[^\s/@\"'\\]{1,64})@", re.IGNORECASE
)
_USER_BYTES: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$#")
_VALUE_STOP: Final = frozenset(b" \t\n\"'\\/=:\xff\x00")


def _oracle_value(data: bytes, start: int, end: int) -> Hit | None:
    value = data[start:end]
    if not value or value.startswith(b"[secret") or not literal_value(value, quoted=True):
        return None
    return Hit("credential-assignment", start, end, value)


def _oracle(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``etl/X@(DESCRIPTION=…)``, ``app/X@//host:1521/svc``: the password between a user's ``/``
    and an Oracle connect descriptor's ``@``."""
    at = m.start()
    lo = at
    while lo > 0 and at - lo < 64 and data[lo - 1] not in _VALUE_STOP:
        lo -= 1
    if lo == at or lo == 0 or data[lo - 1] != 0x2F:
        return None
    user = lo - 1
    while user > 0 and lo - 1 - user < 30 and data[user - 1] in _USER_BYTES:
        user -= 1
    if user == lo - 1 or (user > 0 and data[user - 1] not in b" \t\n\"'=:\xff\x00"):
        return None  # no user, or a path (a/b/c@//…)
    return _oracle_value(data, lo, at)


def _thin(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``jdbc:oracle:thin:scott/X@host:1521:SID``."""
    return _oracle_value(data, m.start("value"), m.end("value"))


# --- cookies given in code ---------------------------------------------------------------------

_COOKIES_GATE: Final = (
    rb"cookies(?:[ \t]{0,4}[=:(]|\.(?:set|add|update)\()|cookie(?:[ \t]{0,4}[=(]|\.(?:set|add)\()"
)
"""Where cookies are given in code: ``cookies=``, ``cookies:``, ``Cookie(``, ``cookies.set(``
(not the ``Cookie:`` header, the cookie rule's)."""
_COOKIES: Final = re.compile(_COOKIES_GATE, re.IGNORECASE)
_SESSION_WORDS: Final = (b"sess", b"sid")
_NAME_BYTE: Final = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_PAIR_TAIL: Final = re.compile(
    rb"(?P<nq>\\{0,7}[\"'])?[ \t]{0,4}(?P<sep>[:=,])[ \t]{0,4}(?P<q>\\{0,7}[\"'])"
    rb"(?P<value>[^\"'\\\n]{8,256})(?P=q)"
)
"""After a cookie's name: its quote, ``:``, ``=`` or ``,``, and its quoted value."""


def _cookies(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A session cookie given in code, on the line after ``cookies=``, ``cookies:``, ``Cookie(``
    or ``cookies.set(``: a cookie whose name says session (``sessionid``, ``PHPSESSID``,
    ``connect.sid``, ``ASP.NET_SessionId``, ``laravel_session``) and its quoted value, as a dict's
    member (``cookies={"ASP.NET_SessionId": "X"}``), a keyword (``cookies=dict(laravel_session=
    "X")``) or by position (PowerShell's ``New-Object System.Net.Cookie("sessionid", "X", …)``)."""
    lo = m.end()
    window = data[lo : lo + _MAX].lower()
    spend(len(window))
    stop = min(
        (at for at in (window.find(b"\n"), window.find(b"\\n")) if at >= 0), default=len(window)
    )
    for word in _SESSION_WORDS:
        at = window.find(word, 0, stop)
        if at < 0:
            continue
        begin, end = lo + at, lo + at + len(word)
        while begin > lo and end - begin < 80 and data[begin - 1] in _NAME_BYTE:
            begin -= 1
        while end < lo + stop and end - begin < 80 and data[end] in _NAME_BYTE:
            end += 1
        tail = _PAIR_TAIL.match(data, end, lo + stop)
        if tail is None:
            continue
        opened = data[begin - 1 : begin] in (b'"', b"'")
        if (tail.group("nq") is not None) != opened or (tail.group("sep") == b"," and not opened):
            continue  # a quoted name is closed, and a name by position is quoted
        value = tail.group("value")
        if value.startswith(b"[secret") or not (
            secretish(value, quoted=True) or literal_value(value, quoted=True)
        ):
            continue
        return Hit("cookie", tail.start("value"), tail.end("value"), value)
    return None


# --- Redis ACL rules ---------------------------------------------------------------------------

_ACL_RULE: Final = re.compile(
    rb"user[ \t]+[^\s]{1,64}(?:[ \t]+[^\s>'\"]\S{0,63}){0,16}?[ \t]+'?>"
    rb"(?P<value>[^\s'\"\\<>&|]{4,256})",
    re.IGNORECASE,
)
_ACL_LEAD: Final = re.compile(
    rb"(?:[^\s:\"]{0,200}:)?(?:[0-9]{1,7}[:#][0-9A-Za-z]{0,8}:?)?\+?[ \t]*(?:acl[ \t]+set)?",
    re.IGNORECASE,
)
"""What may stand before ``user`` on an ACL file's line: a row's, grep's or a diff's wrapper."""
_ACL_BACK: Final = 256


def _acl(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``>X`` in a Redis (or Valkey) ACL rule adds the password ``X``: ``user worker on >X ~jobs:*``
    at a line's start (``users.acl``, ``redis.conf``), ``ACL SETUSER worker on >X`` anywhere (a
    prompt, ``redis-cli``'s arguments)."""
    start = m.start()
    if (
        data[max(0, start - 3) : start].lower() != b"set"
        or data[max(0, start - 8) : start - 3].lower().rstrip(b" \t")[-3:] != b"acl"
    ):
        floor = max(0, start - _ACL_BACK)
        brk, width = break_before(data, floor, start)
        quote = data.rfind(b'"', max(floor, brk + width), start)
        begin = quote + 1 if quote >= 0 else brk + width if brk >= 0 else floor
        spend(start - begin)
        if (begin == floor and floor > 0) or _ACL_LEAD.fullmatch(data, begin, start) is None:
            return None
    value = m.group("value")
    if value.startswith(b"[secret") or not literal_value(value, quoted=True):
        return None
    return Hit("credential-assignment", m.start("value"), m.end("value"), value)


def named_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        Pass(_CALL, _call, anchor=re.compile(_KEYWORD), gate=(_CALL_GATE, 0, 0)),
        Pass(_ELEMENT, _element, anchor=re.compile(_KEYWORD), gate=(_ELEMENT_GATE, 0, 0)),
        Pass(_INPUT_TYPE, _input, anchor=re.compile(rb"password"), gate=(_INPUT_GATE, 0, 8)),
        Pass(_ORACLE, _oracle, anchor=re.compile(rb"@(?://|\(description)")),
        Pass(_THIN, _thin, anchor=re.compile(rb"thin:")),
        Pass(
            _COOKIES,
            _cookies,
            anchor=re.compile(rb"cookie"),
            gate=(_COOKIES_GATE, 0, 0),
        ),
        # the gate: ``user`` and the blank the rule wants after it (a text of usernames and
        # ``user,`` columns holds many a ``user`` that begins no rule)
        Pass(_ACL_RULE, _acl, anchor=re.compile(rb"user"), gate=(rb"user[ \t]", 0, 5)),
    ]


# --- an XML value in the element after its name's, or in a child --------------------------------

_XML_CLOSE: Final = re.compile(rb"</[A-Za-z_][A-Za-z0-9_.\-:]{0,80}>[ \t]*$")
_XML_SIBLING: Final = re.compile(
    rb"(?:</[A-Za-z_][A-Za-z0-9_.\-:]{0,80}>[ \t]*)?"
    rb"<(?!(?i:key|name)\b)[A-Za-z_][A-Za-z0-9_.\-:]{0,80}(?:[ \t][^<>]*)?>(?P<value>[^<]+)</"
)
XML_VALUE: Final = re.compile(rb"<(?i:value|val|parametervalue)(?:[ \t][^<>]*)?>(?P<value>[^<]+)</")
"""A value element and its text (``<Value>X</Value>``, CloudFormation's ``<ParameterValue>``)."""


class _Line(Protocol):
    start: int
    end: int
    indent: int


def sibling_text(
    t: bytes, m: re.Match[bytes], hi: int, lines: Sequence[_Line], i: int
) -> re.Match[bytes] | None:
    """After a name given as an element's text (``<key>NAME``: ``m``'s group ``named``, on line
    ``i`` of ``lines``, ending at ``hi``): the next element's text (not another ``<key>``), on
    this line or, when the name's end tag ends it, on the next: plist's ``<key>…</key><string>X``."""
    if not t.startswith(b">", m.start("named") - 1):
        return None
    found = _XML_SIBLING.match(t, m.end(), hi)
    if found is None and i + 1 < len(lines) and _XML_CLOSE.match(t, m.end(), hi) is not None:
        below = lines[i + 1]
        found = _XML_SIBLING.match(t, below.start + below.indent, below.end)
    return found


def value_child(t: bytes, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The span of a ``<Value>`` child's text among an element's lines (``spans``), or none:
    unattend.xml's ``<AdministratorPassword><Value>X</Value><PlainText>true</PlainText>``, read
    in place of the element's lines."""
    for start, end in spans:
        found = XML_VALUE.search(t, start, end)
        if found is not None:
            return [found.span("value")]
    return []
