"""Credentials a URL carries outside its ``scheme://user:password@`` userinfo.

* a **path segment in a key's slot**: after a segment that names the slot (conda's ``/t/<token>/``,
  ``/api/push/<token>``, ``/ping/<uuid>``, ``/hooks/<id>``, ``/inputs/<token>``, ``/apikey/<key>``)
  or a version segment ending the path (Alchemy's ``/v2/<key>``, Infura's ``/v3/<id>``), or the
  first segment on a host whose name says it takes pings or pushes (``hc-ping.com/<uuid>``);
  taken when it looks random for that slot, so a slug, a resource's UUID after a version, a
  commit's SHA, a content hash or a file name is left alone;
* the **userinfo of a scheme written without ``//``**: ``sip:user:X@host``, CVS's
  ``:pserver:user:X@host:/root``, ``xmpp:user:X@host`` (the password runs to the last ``@``);
* **notification URLs** (Apprise's schemes): their host, user and path segments hold tokens
  (``pover://user@token``, ``discord://id/token``, ``gotify://host/token``), taken when random.
"""

from __future__ import annotations

import math
import re
from itertools import pairwise
from typing import Final

from ._catalogue import Hit
from ._grammar import vendor_token
from ._rules import Pass
from ._values import high_entropy, literal_value, random_hex, shannon

__all__ = ["url_passes"]

_SEGMENT_STOP: Final = frozenset(b"/?#&;,= \t\r\n\"'`\\()<>[]{}|*\x00\xff")
"""What ends a path segment (a URL's own delimiters, what quotes or ends it in text)."""
_SEGMENT_MAX: Final = 256
_URL_BYTES: Final = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~%!$&+,;=:@/"
)
_URL_BACK: Final = 512
"""How far back from a path the scheme's ``://`` or the host is looked for."""
_DOMAIN: Final = re.compile(
    rb"[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63})*\.[A-Za-z]{2,12}(?::[0-9]{1,5})?/"
)
_UUID: Final = re.compile(rb"[0-9a-z]{8}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{12}", re.I)

_PINGED: Final = frozenset(
    b"t push ping heartbeat heartbeats hook hooks webhook webhooks inputs input "
    b"integration integrations trigger triggers build_hooks lb".split()
)
"""Segments after which a path holds a token that may be a UUID (a ping's, a push's, an input's)."""
_KEYED: Final = frozenset(
    b"token tokens apikey api_key api-key apikeys secret secrets access_token".split()
)
"""Segments that name a key: the next segment is one when it looks random, not a UUID (the id
of a token or a secret a REST path names: ``/v1/secrets/<uuid>/versions``). In a path with no
scheme or host before it (an access log's ``GET /api/v1/apikey/<key>/usage``), a vendor's
token."""
_SLOTS: Final = rb"t|tokens?|push|ping|heartbeats?|hooks?|webhooks?|inputs?|integrations?|triggers?|build_hooks|lb|keys?|api[_\-]?keys?|secrets?|access_token|v[0-9]"
_SLOT: Final = rb"/(?:" + _SLOTS + rb")/[A-Za-z0-9]"
_SLOT_AT: Final = re.compile(rb"/(?=(?P<slot>" + _SLOTS + rb")/[A-Za-z0-9])", re.I)
"""The slot's ``/`` alone, the rest looked ahead: a search without the gate finds overlapping
slots too (``/v1/heartbeat/<token>``), as the gate does."""
_HOST_SAYS: Final = rb"(?:ping|push|heartbeat|rpc|quiknode|cloudsmith)[A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)+/[A-Za-z0-9]"
"""A host whose name says it takes a ping, a push or a node's calls (``hc-ping.com``,
``rpc.ankr.com``, ``*.quiknode.pro``, ``dl.cloudsmith.io``): a token may be its first segments."""


def _segment_end(data: bytes, start: int) -> int:
    end = start
    while end < len(data) and end - start < _SEGMENT_MAX and data[end] not in _SEGMENT_STOP:
        end += 1
    return end


def _in_url(data: bytes, at: int) -> bool:
    """``at`` is inside a URL's path: ``scheme://`` or a domain and ``/`` begin the word it is in."""
    lo = at
    while lo > 0 and at - lo < _URL_BACK and data[lo - 1] in _URL_BYTES:
        lo -= 1
    word = data[lo:at]
    return b"://" in word or _DOMAIN.match(word) is not None


def _scrambled(value: bytes, least: int) -> bool:
    """Letters and digits mixed as a generator mixes them: ``least`` bytes or more, both, and a
    letter next to a digit three times or more (``11CIX846Kf``; no word, no version ``v1beta2``)."""
    if len(value) < least:
        return False
    turns = sum(
        (a in _DIGITS) != (b in _DIGITS) and a not in _SEPARATORS and b not in _SEPARATORS
        for a, b in pairwise(value)
    )
    return turns >= max(3, len(value) // 8)


_DIGITS: Final = frozenset(b"0123456789")
_SEPARATORS: Final = frozenset(b"-_.~")


def _random(value: bytes, *, uuid: bool, least: int) -> bool:
    """A token in a key's slot: a vendor's shape, random mixed case, hex that is no digest, or
    letters and digits scrambled; a UUID only where ``uuid`` says the slot takes one."""
    if value.isdigit() or value.isalpha():
        return False
    if _UUID.fullmatch(value) is not None and (value.islower() or value.isupper()):
        return uuid  # of one case: a UUID (conda's mixed-case token of the same layout is random)
    return (
        vendor_token(value)
        or high_entropy(value)
        or random_hex(value)
        or (len(value) >= least and _scrambled(value.replace(b"-", b"").replace(b"_", b""), least))
        or _generated(value, least)
    )


def _generated(value: bytes, least: int) -> bool:
    """Letters of both cases and a digit, the class changing (case to case, letter to digit)
    five times or more, ``least`` bytes or more (Uptime Kuma's ``V2WYzRMNGh``; a word in camel
    case with a digit at its end changes fewer times)."""
    if len(value) < least or not value.isalnum() or value.isalpha() or value.isdigit():
        return False
    kinds = [0 if 48 <= b <= 57 else 1 if 97 <= b <= 122 else 2 for b in value]
    if 1 not in kinds or 2 not in kinds:
        return False
    return sum(a != b for a, b in pairwise(kinds)) >= 5


def _cased(value: bytes) -> bool:
    """Letters of both cases scattered as a generator scatters them, 20 bytes or more (Slack's
    third token: ``TIiajkdnlazkcOXrIdevi7FQ``), near random text's entropy."""
    if len(value) < 20 or not value.isalnum() or value.islower() or value.isupper():
        return False
    turns = sum((97 <= a <= 122) != (97 <= b <= 122) for a, b in pairwise(value))
    return turns >= len(value) // 4 and shannon(value) >= math.log2(len(value)) - 1


def _last(data: bytes, end: int) -> bool:
    """The path ends at ``end`` (a query, a fragment, the text's end, or one last ``/``)."""
    if end >= len(data) or data[end] != 0x2F:
        return True
    return end + 1 >= len(data) or data[end + 1] in _SEGMENT_STOP


def _path_slot(data: bytes, m: re.Match[bytes]) -> Hit | None:
    slot = m.group("slot").lower()
    start = m.end("slot") + 1
    end = _segment_end(data, start)
    value = data[start:end]
    if end < len(data) and data[end] == 0x2E:
        return None  # a file (index-4f2a.js) or a host
    if not _in_url(data, m.start()):
        # .git/hooks/pre-commit, src/v2/…; a request line's path names its key's slot
        ok = slot in _KEYED and vendor_token(value)
    elif slot in _PINGED:
        ok = _random(value, uuid=True, least=8)
    elif slot in _KEYED or slot in (b"key", b"keys"):
        ok = _random(value, uuid=False, least=12)
    else:  # a version: the key ends the path, or a method follows it (Alchemy's /getNFTs)
        after = data[end + 1 : _segment_end(data, end + 1)] if end < len(data) else b""
        ok = (_last(data, end) or after[:3] in (b"get", b"eth")) and _random(
            value, uuid=False, least=20
        )
    return Hit("url-password", start, end, value) if ok else None


def _host_slot(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """The first path segments on a host that takes pings or a node's calls."""
    host_start = m.start()
    while host_start > 0 and m.start() - host_start < 128 and data[host_start - 1] in _HOST_BYTES:
        host_start -= 1
    if not data.startswith(b"://", host_start - 3):
        return None
    start = m.end() - 1
    for _ in range(2):  # rpc.ankr.com/eth/<key>: the chain's name, then the key
        end = _segment_end(data, start)
        value = data[start:end]
        if _random(value, uuid=True, least=12):
            return Hit("url-password", start, end, value)
        if end >= len(data) or data[end] != 0x2F:
            return None
        start = end + 1
    return None


_HOST_BYTES: Final = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.")

# Apprise's notification schemes whose host, user or path holds the service's tokens
_NOTIFY: Final = (
    rb"pover|pbul|discord|tgram|slack|msteams|gotifys?|join|mmosts?|rocket|rockets|ntfys?|pushed|"
    rb"prowl|pjets?|barks?|ifttt|zulip|mailgun|sendgrid|twilio|nexmo|vonage|signals?|matrixs?|"
    rb"lametric|line|flock|gchat|guilded|kumulos|notica|opsgenie|pagerduty|pushbullet|psafers?|"
    rb"pushme|reddit|ryver|sparkpost|spush|strmlabs|techulus|threema|twist|wxteams|webex|"
    rb"smtp2go|spush|clicksend|d7sms|dapnet|bulksms|burstsms|pushy|revolt|mastodons?|toots?|"
    rb"misskeys?|ses|o365|azure|parsep|fcm|hassio|hasios|gitter|spontit|apprises?|"
    rb"pushplus|pushdeer|serverchan|wecombot|dingtalk|feishu|lark|bluesky|ntfy"
)
_NOTIFY_URL: Final = rb"(?:" + _NOTIFY + rb")://[A-Za-z0-9]"


def _notify(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """An Apprise URL's tokens: from the first of its user, host and path segments that looks
    random to the last (``slack://T/B/X``, ``pover://user@token``: one hit over the parts)."""
    if m.start() > 0 and data[m.start() - 1] in _SCHEME_BYTES:
        return None  # a longer scheme (xdiscord://)
    start = m.end() - 1
    first = last = -1
    for _ in range(8):
        end = start
        while (
            end < len(data)
            and end - start < _SEGMENT_MAX
            and data[end] not in _SEGMENT_STOP
            and data[end] not in b"@:"
        ):
            end += 1
        value = data[start:end]
        if _random(value, uuid=True, least=16) or _cased(value):
            first = start if first < 0 else first
            last = end
        if end >= len(data) or data[end] not in b"/@:":
            break
        start = end + 1
    return None if first < 0 else Hit("url-password", first, last, data[first:last])


_SCHEME_BYTES: Final = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-"
)
_USERINFO_STOP: Final = frozenset(b" \t\r\n\"'`\\<>()[]{},;|/\x00\xff")
_SCHEME: Final = re.compile(rb":?[A-Za-z][A-Za-z0-9+._\-]{0,63}:")


def _no_slashes(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``scheme:user:password@host`` (``sip:``, ``xmpp:``, CVS's ``:pserver:``): the password,
    to this ``@`` when it is the last before the host."""
    at = m.start()
    if at == 0 or data[at - 1] not in _BEFORE_AT:
        return None  # as the gate (a search without it finds every "@")
    # the userinfo's shape ends here: it holds none of the bytes searched back for, so its
    # search starts after the last of them (a word, not 420 bytes)
    back = max(0, at - 420)
    lo = max(back, *(data.rfind(stop, back, at) + 1 for stop in _NOT_USERINFO))
    if _GATED.search(data, lo, at + 2) is None:
        return None
    lo = at
    while lo > 0 and at - lo < 400 and data[lo - 1] not in _USERINFO_STOP:
        lo -= 1
    scheme = _SCHEME.match(data, lo, at)
    if scheme is None and data.find(b"=", lo, at) >= 0:
        scheme = _SCHEME.match(data, data.find(b"=", lo, at) + 1, at)  # CVSROOT=:pserver:…
    if scheme is None:
        return None
    host_end = _segment_end(data, at + 1)
    if data.find(b"@", at + 1, host_end) >= 0:
        return None  # a later @ ends the password
    user_end = data.find(b":", scheme.end(), at)
    if user_end <= scheme.end():
        # no scheme: user:X@host.name (privoxy's forward, a davfs mount's directory), taken when
        # X reads as generated and the host as a host (not user@sha256:…, mailto:ops@…)
        user = data[scheme.start() : scheme.end() - 1].lstrip(b":").lower()
        value = data[scheme.end() : at]
        host = data[at + 1 : host_end]
        if (
            user in _URI_SCHEMES
            or host.lower().startswith(b"sha")
            or not (b"." in host or b":" in host)
            or not _generated(value, 8)
        ):
            return None
        return Hit("url-password", scheme.end(), at, value)
    value = data[user_end + 1 : at]
    if not literal_value(value, quoted=True, name=b"password"):
        return None
    return Hit("url-password", user_end + 1, at, value)


_URI_SCHEMES: Final = frozenset(
    b"mailto sip sips tel xmpp im pres news nntp urn mid cid geo fax sms mms".split()
)
"""Schemes whose URI is ``scheme:user@host``, no password: the word after is a user."""


_USERINFO: Final = (
    rb"[A-Za-z][A-Za-z0-9+.\-]{1,15}:[^\s:/@\"'`\\<>]{1,128}:[^\s/\"'`\\<>]{1,256}@[A-Za-z0-9]"
)
_NO_SCHEME: Final = rb"[A-Za-z][A-Za-z0-9_.\-]{0,63}:[A-Za-z0-9]{8,64}@[A-Za-z0-9]"
_GATED: Final = re.compile(rb"(?:" + _USERINFO + rb"|" + _NO_SCHEME + rb")\Z")
"""The userinfo's shape, ending at an ``@``: the handler's test after the gate's. The gate reports
each ``@`` after a byte that can end a password and before a letter or a digit (``_AT``): a gate
rule with the shape, bounded or not, or with a byte beyond ASCII before the ``@``, cost hyperscan
3 ms a MB of a session's export, a third more than all the other keyword rules (a bounded repeat
60-190 ms more to compile); exports hold few ``@`` but in e-mail addresses and decorators, each
read in its word only."""
_BEFORE_AT: Final = frozenset(range(0x21, 0x7F)) - frozenset(b"\"'/:<>@\\`")
"""What the password's last byte is, for this rule: printable ASCII but quotes, ``/``, ``:``,
``<``, ``>``, ``@`` and ``\\`` (a password ending in another byte is not read here)."""
_AT: Final = rb"[!#-&(-.0-9;=?A-\[\]-_a-~]@[A-Za-z0-9]"
"""``_BEFORE_AT``, an ``@``, a letter or a digit: the gate's rule (its end less 2 is the ``@``)."""
_NOT_USERINFO: Final = (b" ", b"\n", b'"', b"\\", b"\t")
"""Bytes the shape holds nowhere (of the common ones: the search after the last of them is the
search of its word)."""


def url_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        # every place the gate reports is tried: /v1/heartbeat/<token> has two slots, overlapping
        Pass(_SLOT_AT, _path_slot, gate=(_SLOT, 0, 0)),
        Pass(re.compile(_HOST_SAYS, re.I), _host_slot, gate=(_HOST_SAYS, 0, 0), ordered=True),
        Pass(re.compile(_NOTIFY_URL, re.I), _notify, gate=(_NOTIFY_URL, 0, 0), ordered=True),
        # scheme:user:password@host and user:X@host: the gate reports the "@" (an end costs
        # less than a start), the handler reads the shape back from it
        Pass(re.compile(rb"@[A-Za-z0-9]"), _no_slashes, gate=(_AT, 0, 2)),
    ]
