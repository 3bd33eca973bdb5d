"""Words: a credential given by position in a directive line, not by ``NAME=``.

The reader of a directive line (``_structure`` calls it on the lines its gate confirms; a call's
positional arguments are ``_calls``'):

* **directive lines** (``word_values``): a line of words (a shell splits it; quoted words split
  again) where a credential word is followed, within a few words, by its value: Cisco's
  ``username u privilege 15 password 0 X`` and ``enable secret 0 X``, haproxy's ``user u
  insecure-password X``, Sentinel's ``auth-pass master X``, bind's ``secret "X";``, nginx's
  ``proxy_set_header X-Api-Key X;``, ``RequestHeader set X-Auth-Token "X"``, a protocol's ``PASS
  X`` or ``"AUTH" "default" "X"``, and the verbs of ``VERBS`` (IMAP's ``LOGIN user X``). Type
  codes between (``0``, ``7``, ``ascii``, ``hex``) are skipped; a value further than the word
  right after the name (or any value of a directive's word) must read as a generated credential
  (``_random``: letters and digits), so prose ("the password is in the vault") and code stay;
  each statement of the line (up to ``;``, ``|``) is read alone (Tasmota's ``Backlog A x;
  MqttPassword X; …``), a quoted string of words is split again when one of them names a
  credential, and a name after a query's ``key=`` is one (``?cmnd=WebPassword X`` decoded).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Final

from ._argv import Word, split
from ._lines import Line
from ._names import NOT_SECRET_WORDS, name_is_credential
from ._values import literal_value, secretish
from ._work import spend

__all__ = [
    "DIRECTIVE_WORDS",
    "VERBS",
    "WIRE_FRAME",
    "word_values",
]

DIRECTIVE_WORDS: Final = frozenset(
    {"community", "key", "psk", "set-key", "auth-pass", "requirepass", "masterauth", "priv"}
)
"""Words that name a credential in a directive line even where the grammar alone would not (SNMP's
``community``, SNMPv3's ``priv aes 128 X``, ``tacacs-server key 7 X``, a WLAN's ``psk set-key
ascii 0 X``); so does any name
whose last word is ``key`` (``message-digest-key``, ``authentication-key``)."""
VERBS: Final = {b"login": 2, b"pass": 1, b"auth": -1, b"identify": 1}
"""Protocol verbs (upper case in their transcripts) and where their password is: the n-th word
after the verb (IMAP's ``LOGIN user X``, FTP's and POP3's ``PASS X``, IRC's ``IDENTIFY X``),
``-1`` the second word after it, or the first (Redis' ``AUTH [user] X``, also inside ``HELLO 3
AUTH user X SETNAME n``; SMTP's ``AUTH PLAIN X``)."""
_TYPE_CODES: Final = frozenset(
    {
        b"0",
        b"5",
        b"6",
        b"7",
        b"8",
        b"9",
        b"ascii",
        b"hex",
        b"plain",
        b"clear",
        b"cleartext",
        b"unencrypted",
    }
)
_REACH: Final = 3
"""Most words read after a credential word (type codes not counted)."""
_TRIM: Final = b";,{}()"
_STOPS: Final = b".!?"
"""What ends a sentence after a quoted word (a `:` after one is a key's, a `,` an item's)."""
_JSON_HEAD: Final = re.compile(rb'[ \t]*[\[{]?[ \t]*"[^"\n]{0,200}"[ \t]*:[ \t]*"')
_PROMPT: Final = re.compile(rb"[ \t]*[A-Za-z0-9_.\-:@/()\[\]=]{1,64}[>#][ \t]+(?=[A-Za-z])")
"""A client's prompt before what was typed at it (``127.0.0.1:6379> AUTH X``, ``mysql>``,
``postgres=#``): its ``>`` is no shell redirection."""
_DIGITS: Final = frozenset(b"0123456789")
_PATH_START: Final = (b"/", b"./", b"../", b"~/")
_LETTER: Final = re.compile(rb"[A-Za-z]")
_CODE_BYTES: Final = frozenset(b"[]()<>{}")
_SEPARATED: Final = re.compile(rb"[A-Za-z][A-Za-z0-9]*(?:[_.\-][A-Za-z0-9]+)+")
_NAME_CHARS: Final = re.compile(r"[A-Za-z0-9_.:\-]+")
_ALGORITHM: Final = re.compile(
    rb"(?:hmac-)?(?:sha|md|blake|sha3-)[0-9]{1,3}(?:-[0-9]{1,3})?|aes-?[0-9]{3}(?:-[a-z]{2,8})?|ed25519|rsa[0-9]{0,4}",
    re.IGNORECASE,
)
"""An algorithm's name (``hmac-sha256``, ``aes-256-gcm``): the kind of a key named before it."""
_KEYWORD: Final = re.compile(rb"[A-Z][A-Z_]{2,31}")
"""An option's upper-case keyword (SQL's ``REGION``, ``ENDPOINT``): the quoted word after it is
its value, not that of a credential word before it."""
_ASSIGN: Final = frozenset({b"=", b":=", b"=>", b":", b"::=", b"?=", b"+=", b"<-", b"->"})
_PAIRED: Final = _ASSIGN | {b"to", b"-"}
"""Operators between a map's key and its value (Kotlin's ``"K" to v`` too; ``->`` split as a
shell splits it, ``-`` then the redirection ``>``)."""


_NAMES: dict[bytes, int] = {}
"""``_name`` by the word (a command's words and a directive's names repeat)."""


def _name(word: bytes) -> int:
    """2: ``word`` names a credential by the grammar; 1: by a directive's word (``key``,
    ``community``, ``…-key``); 0: not (cached)."""
    known = _NAMES.get(word)
    if known is None:
        if len(_NAMES) > 4096:
            _NAMES.clear()
        known = _NAMES[word] = _named(word)
    return known


def _named(word: bytes) -> int:
    text = word.strip(_TRIM + b":\"'").decode("ascii", "replace")
    if not text or len(text) > 80 or _NAME_CHARS.fullmatch(text) is None:
        return 0
    if name_is_credential(text):
        return 2
    lowered = text.lower()
    return 1 if lowered in DIRECTIVE_WORDS or re.split(r"[-_.]", lowered)[-1] == "key" else 0


def _random(value: bytes) -> bool:
    """A value that reads as a generated credential: eight characters or more, letters and digits
    (``secretish`` too), no brackets of code."""
    return (
        len(value) >= 8
        and not _DIGITS.isdisjoint(value)
        and _LETTER.search(value) is not None
        and _CODE_BYTES.isdisjoint(value)
        and secretish(value, quoted=True)
    )


WIRE_FRAME: Final = rb"\*[0-9]{1,2}\.\.\$[0-9]{1,2}\.\.(?:auth|hello|config)\.\."
"""A command of Redis' wire protocol (RESP) that may pass a password, as ``tcpdump -A`` prints
it, CR LF as dots: ``*2..$4..AUTH..$12..X..``. Its strings are the command's words (``_frame``).
(strace escapes CR LF as ``\\r\\n``, which end a line for the structure reader: there the
frame's strings are lines of their own.)"""
_FRAME_HEAD: Final = re.compile(rb"\*([0-9]{1,2})\.\.")
_FRAME_STRING: Final = re.compile(rb"\$([0-9]{1,5})\.\.")


def _frame(w: Word) -> list[Word] | None:
    """The strings of the wire protocol frame ``w`` holds (``*N``, then ``$len`` and the string,
    each ended by CR LF, printed as ``..``), as words: a string is its length long when the
    separator follows there, else up to the next separator."""
    head = _FRAME_HEAD.search(w.text)
    if head is None:
        return None
    sep = b".."
    out: list[Word] = []
    pos = head.end()
    for _ in range(int(head.group(1))):
        m = _FRAME_STRING.match(w.text, pos)
        if m is None:
            break
        start, end = m.end(), m.end() + int(m.group(1))
        if w.text[end : end + len(sep)] != sep:
            end = w.text.find(sep, start)
            end = len(w.text) if end < 0 else end
        if end > start:
            out.append(Word(w.text[start:end], w.at[start:end]))
        pos = end + len(sep)
    return out or None


def _pieces(words: list[Word]) -> list[Word]:
    """``words``, a quoted word with spaces that starts with a verb or a credential word split
    again (``"PASS X\\r\\n"`` in an strace), and a wire protocol frame made its strings, the
    command ending there (``*2..$4..AUTH..$16..X..``)."""
    out: list[Word] = []
    for w in words:
        head = w.text.split(b" ", 1)[0]
        frame = _frame(w) if b"*" in w.text else None
        if frame is not None:
            out += [*frame, Word(b";", [frame[-1].at[-1]], op=True)]
        elif (
            w.quoted
            and b" " in w.text
            and (head.lower() in VERBS or _name(head) == 2 or _names_inside(w.text))
        ):
            for m in re.finditer(rb"[^ \t]+", w.text):
                out.append(Word(m.group(), w.at[m.start() : m.end()]))
                if m.group().endswith(b";"):  # ``A x; MqttPassword X; …``: statements
                    out.append(Word(b";", [w.at[m.end() - 1]], op=True))
        else:
            out.append(w)
    return out


_QUERY_KEY: Final = re.compile(rb"[A-Za-z0-9_?&/.:%\-]{1,60}")
"""What a word holds before ``=`` when the name after it is a command's (a URL query's
``?cmnd=WebPassword X`` once decoded)."""


def _queried(word: bytes) -> bytes:
    """The name after a query's ``key=`` in ``word`` (``/cm?cmnd=WebPassword``), or ``b""``."""
    key, eq, name = word.rpartition(b"=")
    return name if eq and name and _QUERY_KEY.fullmatch(key) is not None else b""


def _names_inside(text: bytes) -> bool:
    """A quoted string of words one of which (after a query's ``key=``) names a credential."""
    return any(
        _name(piece.rstrip(b";,")) == 2 or _name(_queried(piece)) == 2
        for piece in text.split(b" ")[1:]
        if len(piece) > 3
    )


def _value(w: Word) -> tuple[int, int, bytes] | None:
    text = w.text
    start, end = 0, len(text)
    while end > start and text[end - 1] in _TRIM:
        end -= 1
    if text.endswith(b"\\r\\n", 0, end):
        end -= 4
    if text[start:end].count(b"'") == 1 and text.endswith(b"'", 0, end):
        end -= 1  # the close of a string that a split word began (``"curl -H 'Bearer X'}"``)
    while start < end and text[start] in _TRIM:
        start += 1
    if end <= start:
        return None
    if w.lead:  # "X". or 'X'!: the sentence's stop after the closing quote is no part of X
        k = end
        while k > start + 1 and text[k - 1] in _STOPS:
            k -= 1
        if k < end and w.at[k] - w.at[k - 1] > 1:
            end = k
    a, b = w.span(start, end)
    return a, b, text[start:end]


def _string_end(t: bytes, start: int, end: int) -> int:
    """Where the JSON string whose text begins at ``start`` closes (its unescaped ``"``), or
    ``end``: a line's words inside a member's value are that string's, not the members after it."""
    close = t.find(b'"', start, end)
    while close >= 0:
        k = close
        while k > start and t[k - 1] == 0x5C:
            k -= 1
        if (close - k) % 2 == 0:
            return close
        close = t.find(b'"', close + 1, end)
    return end


def _in_placeholder(t: bytes, start: int, w: Word) -> bool:
    """``w`` is inside a placeholder the export wrote (``[secret redacted: rule fp:…]``)."""
    at = w.at[0] if w.at else start
    opened = t.rfind(b"[secret ", start, at)
    return opened >= 0 and t.find(b"]", opened, at) < 0


def _argument(words: list[Word], k: int) -> bool:
    """After a name and a comma (``words[k]``), the next word is its value as a call's next
    argument is (``put(Context.SECURITY_CREDENTIALS, "X")``): a string that no pair's operator
    follows. Not the next item of a list or a map (``token, "Accept" -> …``, ``credential_chain,
    REGION 'eu'``)."""
    if k + 1 >= len(words) or not words[k + 1].quoted:
        return False
    return k + 2 >= len(words) or words[k + 2].text not in _PAIRED


def word_values(t: bytes, lines: Sequence[Line], i: int) -> list[tuple[int, int]]:
    """The values credential words of line ``i`` name among the words after them."""
    line = lines[i]
    spend(line.end - line.start)
    head = _JSON_HEAD.match(t, line.start, line.end) or _PROMPT.match(t, line.start, line.end)
    stop = line.end if head is None or head.re is _PROMPT else _string_end(t, head.end(), line.end)
    split_words = _pieces(split(t, line.start if head is None else head.end(), [(stop, stop)]))
    calls = {id(w) for w, nxt in itertools.pairwise(split_words) if nxt.op and nxt.text == b"("}
    # each statement, up to an operator that ends one (``;``, ``|``, a tag's ``<``), is read
    # alone: a name and its value are in one (Tasmota's ``Backlog A x; MqttPassword X; …``)
    words: list[Word] = []
    statement: list[int] = []
    count = 0
    for w in split_words:
        if w.op and w.text != b"(":
            count += 1
        elif not w.op and not _in_placeholder(t, line.start, w):
            words.append(w)
            statement.append(count)
    out: list[tuple[int, int]] = []
    for k, w in enumerate(words):
        verb = VERBS.get(w.text.strip(b"\"':").lower())
        if verb is not None:
            for at in (k + 2, k + 1) if verb < 0 else (k + verb,):
                same = at < len(words) and statement[at] == statement[k]
                got = _value(words[at]) if same else None
                if got is not None and _random(got[2]) and literal_value(got[2], quoted=True):
                    out.append(got[:2])
                    break
            continue
        named = _name(w.text) or (_name(_queried(w.text)) == 2 and 2)
        if not named or w.text.startswith(b"-") or w.text.endswith((b":", b"=")) or id(w) in calls:
            continue
        if k + 1 < len(words) and words[k + 1].text in _ASSIGN:
            continue  # NAME = value: a pair, the name pass's
        if w.text.endswith(b",") and not w.quoted and not _argument(words, k):
            continue  # an item of a list or a map (``"Authorization" -> token, "Accept" -> …``)
        if k > 0 and words[k - 1].text.lower().decode("ascii", "replace") in NOT_SECRET_WORDS:
            continue  # a public key (``minisign public key 99D3…``): public, no credential
        seen = 0
        for n in range(k + 1, len(words)):
            if seen >= _REACH or statement[n] != statement[k]:
                break
            nxt = words[n]
            if nxt.text.lower() in _TYPE_CODES:
                continue
            seen += 1
            if seen > 1 and nxt.quoted and _KEYWORD.fullmatch(words[n - 1].text) is not None:
                break  # REGION 'eu-west-1': another option's value (DuckDB's CREATE SECRET …)
            got = _value(nxt)
            if got is None:
                continue
            value = got[2]
            if value.startswith(b"[secret"):
                break  # redacted already
            if value.endswith(b":") and nxt.quoted:
                break  # the next member's key (``"name": "password", "value": …``)
            if _SEPARATED.fullmatch(value) is not None and _name(value):
                break  # another name (``import { a_key, b_key }``)
            if seen == 1 and value.startswith(_PATH_START):
                break  # the credential's file (``private-key /etc/wireguard/wg0.key peer …``)
            if named == 1 and _ALGORITHM.fullmatch(value) is not None:
                continue  # a key's algorithm (``generate-tsig-key name hmac-sha256``), not the key
            first = seen == 1 and nxt.quoted and named == 2
            if not literal_value(value, quoted=True, name=w.text.strip(b"\"':")):
                continue
            if first or _random(value):
                out.append(got[:2])
                break
    return out
