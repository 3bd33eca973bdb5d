"""Credential grammar: secrets recognised by the name that holds them.

The token rules of ``_rules`` know a secret by its shape; a password has none, so these rules
know it by where it stands:

* a **credential name** (``pass``, ``passwd``, ``pwd``, ``secret``, ``token``, ``credential``,
  ``auth``, ``cookie``, and ``key`` with a qualifier: ``api``, ``access``, ``private``,
  ``signing``, ``master``, ``encryption``, ``shared access``...) in any case and separator style
  (``DB_PASS``, ``connectionPassword``, ``auth-token``; the names' grammar is ``_names``),
  followed by ``=``, ``:``, ``=>`` or an XML element's ``>``;
* the flags and arguments of **command lines** (``_commands``, which reads values as this
  module does);
* a password **named, then given** after a space: ``PASSWORD 'X'``, ``signingPassword "X"``,
  "the password is X" (quoted, or after ``is``/``was`` a value that reads as a credential);
* ``.netrc``'s ``password X``, ``.pgpass`` lines, auth tuples in code (``auth=("u", "p")``);
* private keys that are not PEM: PuTTY's ``Private-Lines:`` block, a JWK's private members,
  a 64-hex key under a key-ish name.

A value runs to the end of its quoted string (quotes escaped at any JSON depth), or of its token
(whitespace, a quote or an escape ends it): never to the first symbol. A value is a secret when
it is not a reference (``$VAR``, ``${{ ... }}``, ``os.environ[...]``, ``settings.KEY``, a call, a
type) nor a placeholder, and mixes classes (letters with digits or symbols), or is base64 of
``user:password``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from itertools import pairwise
from typing import Final

from ._catalogue import Hit
from ._joined import empty_join, joined_call, joined_text, pieces
from ._names import (
    FOREIGN_WORDS,
    NAME_BYTES,
    credential_name,
    digest_prefixed,
    id_half,
    name_before,
    name_is_key,
    vendor_keyed,
)
from ._rules import Pass
from ._values import (
    SIZED_HEX,
    VALUE_MAX,
    config_value,
    high_entropy,
    id_shaped,
    key_id,
    list_item,
    literal_value,
    quoted_password,
    random_hex,
    secretish,
    shannon,
    sized_key,
    value_span,
    within_store_reference,
    wrapped_literal,
)
from ._work import spend

try:  # RE2 runs the name pass's alternation as one DFA: measured ~5x faster than re (docs/security.md)
    import re2 as _re2  # type: ignore[import-untyped]
except ImportError:  # pragma: no cover - the lock pins google-re2; re gives the same matches
    _re2 = None

__all__ = [
    "ASSIGN_PREFILTER",
    "KEYWORDS",
    "der_private_key",
    "grammar_passes",
    "hex_key_pass",
    "jwk_hits",
    "line_before",
    "vendor_token",
]

_FOREIGN: Final = b"|".join(FOREIGN_WORDS)

# --- a vendor's token under a vendor's key ----------------------------------------------------

_TOKEN_SHAPE: Final = re.compile(rb"[A-Za-z0-9][A-Za-z0-9_.\-]{14,254}[A-Za-z0-9=]")
_TOKEN_PARTS: Final = re.compile(rb"[._\-]")
_HEX: Final = re.compile(rb"[0-9a-fA-F]+")
_DIGITS: Final = frozenset(b"0123456789")
VENDOR_PART_MIN: Final = 16
"""The shortest random part of a vendor's token under a ``vendor_keyed`` name."""


def vendor_token(value: bytes) -> bool:
    """A vendor's token, whatever its prefix and parts (``SG.x.y``, ``appl_x``): one word of
    letters, digits, ``_``, ``.`` and ``-``, whose longest part is random, ``VENDOR_PART_MIN`` or
    more: mixed-case letters and digits near random text's entropy, hex that is no digest, or
    letters of one case and digits (base 36, three or more of each) as near; not a run of the
    alphabet."""
    if _TOKEN_SHAPE.fullmatch(value) is None:
        return False
    part = max(_TOKEN_PARTS.split(value.rstrip(b"=")), key=len)
    if len(part) < VENDOR_PART_MIN or 3 * sum(b - a == 1 for a, b in pairwise(part)) >= len(part):
        return False  # short, or a run of the alphabet (``abcdefghijklmnopqrstuvwxyz123``)
    if high_entropy(part) or random_hex(part):
        return True
    if not part.isalnum() or not (part.islower() or part.isupper()) or _HEX.fullmatch(part):
        return False  # one-case hex is judged by random_hex (a digest is no token)
    digits = sum(c in _DIGITS for c in part)
    return 3 <= digits <= len(part) - 3 and shannon(part) >= min(4.0, math.log2(len(part)) - 1)


# --- the passes -------------------------------------------------------------------------------

# a declared type between the name and the operator: ``var token string = ``, ``token: str = ``,
# VB's ``Dim token As String = ``
_TYPE: Final = (
    rb"(?:[ \t]{1,4}(?:(?:as[ \t]{1,4})?string|str|\[\]byte)|[ \t]{0,4}:[ \t]{0,4}(?:string|str))?"
)
_PAD: Final = rb"(?:[ \t]|\\t){0,4}"
"""Between a name and its operator: spaces and tabs, a tab JSON-escaped too (odbc.ini's
``Password\\t= X`` in an export)."""
_QUOTED_OP: Final = rb"[\"'](?:>>)?" + _PAD + rb"(?:->|:>|=>)"
"""Between a quoted name and its value, operators of code that pair them (a pass of their own
only after a quote: ``->`` is a member's access after a bare name): Scala's and Mathematica's
``"K" -> "X"``, Mathematica's ``:>``, an Erlang binary's ``<<"K">> => <<"X">>``."""
_ASSIGN: Final = (
    rb"(?P<rest>[a-z0-9_.\-]{0,32})(?P<sep>\\{0,7}(?:[\"'],(?=[ \t]{0,4}(?:@|\$|L|u8)?\\{0,7}[\"'])|[\"'][ \t]{1,4}value[ \t]{0,2}="
    rb"|"
    + _QUOTED_OP
    + rb"|[\"']?"
    + _TYPE
    + _PAD
    + rb"(?:=>|:{1,3}=|[?.+]=|\|\||[:=]|>(?=[^<])))[ \t]{0,4})"
)
"""After a name: ``=``, ``:``, ``=>``, Go's ``:=``, make's ``::=`` and ``?=``, PHP's ``.=``, a
default after ``||``, an XML start tag's ``>``, the comma between a quoted name and its quoted
value (``setProperty("DB_TOKEN", "...")``), or an XML ``key="NAME" value="..."`` pair (NuGet)."""
_ARROWS: Final = (b"=>", b"->", b":>")
"""Operators ending in ``>`` that pair a name with its value (not an XML start tag's ``>``)."""
KEYWORDS: Final = (
    rb"(?:pass|pw|secret|token|cred|auth|cookie|key|psk|access[_.\-]?id|" + _FOREIGN + rb")"
)
_SUBSCRIPT: Final = (
    rb"(?P<rest>[a-z0-9_.\-]{0,32})(?P<sep>\\{0,7}[\"']?\]"
    + _PAD
    + rb"(?:\|\|=?|[?.+]?=(?!=))[ \t]{0,4})"
)
"""``_ASSIGN`` for a name that ends a subscript (``default['db']['password'] = ``,
``os.environ["TOKEN"] = ``, ``smtp[:password] ||= ``; not ``==``, nor a Markdown link's
``[token]: ``): a pass of its own, whose gate looks for the ``]`` and the operator after it (in
the name pass's gate it cost the benchmark's key prefixes a tenth of their scan)."""
SUBSCRIPT_GATE: Final = rb"\]" + _PAD + rb"(?:\|\||[?.+]?=)"
SUBSCRIPT_WINDOW: Final = 64
"""The longest match of ``_SUBSCRIPT`` from its keyword to the gate's end (a keyword of 11 bytes,
32 more of the name, 7 backslashes, a quote, the ``]``, a pad of 8 and an operator of 3: 63)."""
ASSIGN_PREFILTER: Final = (
    rb"[a-z0-9_.\-]{0,32}\\{0,7}(?:[\"'],|[\"'][ \t]{1,4}value|"
    + _QUOTED_OP
    + rb"|[\"']?"
    + _TYPE
    + _PAD
    + rb"(?:=>|[:=>]|[?.+]=|\|\|))"
)
"""``_ASSIGN`` without its groups and lookarounds (RE2 has neither): the same match starts."""


def _rest_not(word: bytes) -> bytes:
    """The rest of a name (``_ASSIGN``'s ``rest``, at most 32 name bytes) that does not begin with
    ``word``, as a lookaround-free regex: ``auth`` and a rest other than ``orization...``."""
    letters = b"abcdefghijklmnopqrstuvwxyz"
    alternatives = [
        word[:i]
        + rb"(?:["
        + letters.replace(word[i : i + 1], b"")
        + rb"0-9_.\-][a-z0-9_.\-]{0,%d})?" % (31 - i)
        for i in range(len(word))
    ]
    return rb"(?:" + rb"|".join(alternatives) + rb")"


_RUN_BYTE: Final = rb"[^\s\"'`\x00\xff\\<]"
"""A byte that always continues an unquoted value (``_VALUE_BYTE`` less its escapes and tags)."""
_NAMED_VALUE_GATE: Final = (
    rb"(?:[(\[]|\\{0,7}[\"'`]|"
    + _RUN_BYTE
    + rb"{64}|"
    + _RUN_BYTE
    + rb"{0,63}(?:[^\s\"'`\x00\xff\\<:](?:[\s\"'`\x00\xff\\<]|$)|\\{1,7}[^\"'\\]|<[^/]))"
)
"""What ``_NOT_A_NAMED_VALUE`` lets through, without lookarounds (a superset): a tuple, a quoted
value, a long one (64 bytes or more), or one whose run of plain bytes ends with a byte other
than ``:`` or goes on past an escape (escaped backslashes too: ``\\\\abc`` in JSON) or a ``<``."""
_NAMED_SEP_GATE: Final = (
    rb"\\{0,7}(?:[\"'],|"
    + _QUOTED_OP
    + rb"|[\"']?"
    + _TYPE
    + _PAD
    + rb"(?:=>|>)|(?:[\"'][ \t]{1,4}value[ \t]{0,2}=|[\"']?"
    + _TYPE
    + _PAD
    + rb"(?::{1,3}=|[?.+]=|\|\||[:=]))[ \t]{0,4}"
    + _NAMED_VALUE_GATE
    + rb")"
)
NAMED_GATE: Final = (
    rb"(?:(?:pass|pw|secret|token|cred|key|psk|access[_.\-]?id|"
    + _FOREIGN
    + rb")[a-z0-9_.\-]{0,32}|auth"
    + _rest_not(b"orization")
    + rb"|cookie[a-z0-9_.\-]{1,32})"
    + _NAMED_SEP_GATE
    + rb"|cookie(?:\\|'|\"[^:]|[ \t=>?.+|])"
)
"""Where the name rule can report, for the hyperscan gate (caseless): ``KEYWORDS`` and
``_ASSIGN`` without lookarounds, less what the pass skips (``Authorization``, ``cookie:``) and
with the value ``_NOT_A_NAMED_VALUE`` requires (``password= token:`` in a list of names is not
reported). A cookie name with no rest is reported at any separator other than ``:``."""
NAMED_WINDOW: Final = 160
"""The longest match of ``NAMED_GATE``, from its first byte (138: a keyword, 32 more name bytes,
7 backslashes, a quote, a type, the operator, spaces and 65 bytes of value; 4 more when the pad
before the operator is JSON-escaped tabs; a test checks it):
the gate reports a match's end, and the name is searched this far before it."""
PASS_SPACE_WINDOW: Final = 11
"""The longest match of the ``password X`` pass's gate (``pass``, ``word``, one space)."""


_STOP: Final = rb"(?:[\s\"'`\x00\xff]|\\(?:[nrtu\"'\\/]|\Z)|</)"
"""``_UNQUOTED_STOP`` as a pattern to embed."""
_VALUE_BYTE: Final = rb"(?:[^\s\"'`\x00\xff\\<]|\\(?![nrtu\"'\\/]|\Z)|<(?!/))"
"""A byte of an unquoted value: anything ``_UNQUOTED_STOP`` does not stop at."""
_NOT_A_NAMED_VALUE: Final = (
    rb"(?-i:(?!(?<!>)(?<!>[ \t])(?<!>[ \t]{2})(?<!>[ \t]{3})(?<!>[ \t]{4})(?![(\[]|\\{0,7}[\"'`])"
    + _VALUE_BYTE
    + rb"{0,498}:(?="
    + _STOP
    + rb"|\Z)))"
)
"""What ``_named`` rejects, rejected by its pattern instead (one call less a candidate, and a
text of names followed by names has one at every name): after a separator that is not an XML
start tag's ``>``, an unquoted value that does not open a tuple and ends with ``:`` before its
first stop, or the end of the data, within ``VALUE_MAX`` (``password= token:``: the next name
of a list of names). ``secretish`` refuses every such value. Case-sensitive like
``_UNQUOTED_STOP``; the pattern before it is atomic, so refusing one match never lets a shorter
one of the same name through."""


def prefilter(pattern: bytes) -> re.Pattern[bytes]:
    """``pattern`` compiled by RE2 when installed (linear time; an alternation of literals in one
    DFA pass), else by ``re``. Used only for ``finditer`` and ``start()``: the candidates are
    confirmed by the full ``re`` pattern."""
    if _re2 is not None:
        compiled: re.Pattern[bytes] = _re2.compile(pattern)
        return compiled
    return re.compile(pattern)


def _letter_before(data: bytes, pos: int) -> bool:
    """The UTF-8 character that ends at ``pos`` is a letter (not a symbol such as ``→``)."""
    start = pos - 1
    while start > 0 and pos - start < 4 and data[start] & 0xC0 == 0x80:
        start -= 1
    char = data[start:pos].decode("utf-8", "replace")
    return char.isalpha() or char == "\ufffd"


def _named(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``NAME = value``, ``NAME: value``, ``NAME => value``, ``<NAME>value``, ``NAME="value"``; a
    query's parameter (``?secret=X&issuer=Y``) to its ``&``: a query's value holds none unencoded."""
    hit = _named_value(data, m)
    if hit is not None and hit.rule == "signed-url-query":
        cut = data.find(b"&", hit.start, hit.end)
        if cut > hit.start:
            return Hit(hit.rule, hit.start, cut, data[hit.start : cut])
    return hit


def _named_value(data: bytes, m: re.Match[bytes]) -> Hit | None:
    name_start, name = name_before(data, m.end("rest"))
    if name_start > 0 and data[name_start - 1] >= 0x80 and _letter_before(data, name_start):
        return None  # the name continues in another script: the fold view sees it whole
    if not credential_name(name) and name_start > 1 and data[name_start - 1] == 0x20:
        # words apart: "Secret Key = ...", "Client Secret: ..." (one word before, in an INI or a form)
        first_start, first = name_before(data, name_start - 1)
        if first.isalpha() and credential_name(first + b"_" + name):
            name_start, name = first_start, first + b"_" + name
    keyed: Callable[[bytes], bool] | None = None
    if not credential_name(name):
        if vendor_keyed(name.decode("ascii", "replace")):
            keyed = (
                vendor_token  # SENDGRID_KEY=: a credential when its value reads as a vendor's token
            )
        elif id_half(name.decode("ascii", "replace")):
            keyed = id_shaped  # secretId, accessid: a key pair's id half, when shaped as a key
        elif name.lower().endswith(b"key") and name_is_key(name.decode("ascii", "replace")):
            keyed = _no_value  # KEY = 128'h…: a key only as a sized hex literal (below)
        else:
            return None
    if name.lower() in (b"cookie", b"set-cookie"):
        return None  # the Cookie header has its own rule
    if within_store_reference(data, name_start) or digest_prefixed(data, name_start):
        return None  # arn:aws:secretsmanager:…:secret:prod/db; checksum/secret: a digest
    sep = m.group("sep").rstrip()
    pos = m.end()
    sized = SIZED_HEX.match(data, pos, min(len(data), pos + VALUE_MAX))
    if sized is not None and keyed is not id_shaped:
        # a Verilog sized hex literal under a key's name (``localparam [127:0] KEY = 128'h…``)
        if not sized_key(sized.group("hex")):
            return None
        return Hit("credential-assignment", *sized.span("hex"), sized.group("hex"))
    if sep.endswith(b",") and (name_start == 0 or data[name_start - 1] not in b"\"'"):
        return None  # "NAME", "value": the name is quoted too
    if (
        sep.endswith(b"=")
        and b"value" in sep.lower()
        and _XML_KEY.search(data, max(0, name_start - 16), name_start) is None
    ):
        return None  # NAME" value="...": only in <add key="NAME" value="..."/>
    if keyed is not None:
        span = value_span(data, pos)
        if span is None:
            return None
        joined = _joined(data, pos, span)
        if joined is not None and (  # a key's pieces joined in code: judged as the value they make
            high_entropy(joined[2]) if keyed is _no_value else keyed(joined[2])
        ):
            return Hit("credential-assignment", *joined)
        if keyed is _no_value or not keyed(data[span[0] : span[1]]):
            return None
        return Hit("credential-assignment", span[0], span[1], data[span[0] : span[1]])
    if sep.endswith(b">") and not sep.endswith(_ARROWS):
        if name_start == 0 or data[name_start - 1] != 0x3C:
            return None  # ">" only closes an XML element's start tag
        if (
            _PLACEHOLDER_TAG.search(data, max(0, name_start - 16), name_start - 1) is not None
            and _CLOSED_TEXT.match(data, pos) is None
        ):
            return None  # NAME=<your-api-key>: a placeholder standing as a value, not an element
        if (
            _QUOTE_END.search(data, max(0, name_start - 9), name_start - 1)
            and _QUOTE_START.match(data, pos)
            and _CLOSED_TEXT.match(data, pos) is None
        ):
            return None  # password "<password>": a template's placeholder, quoted whole
        # the element's text may start on the next line (raw or JSON-escaped), indented
        lead = _XML_LEAD.match(data, pos, min(len(data), pos + _XML_LEAD_MAX))
        pos = lead.end() if lead is not None else pos
        span = value_span(data, pos, stop_at_tag=True)
    elif pos < len(data) and data[pos] in b"([" and b"auth" in name.lower():
        return _auth_tuple(data, pos)
    elif pos < len(data) and data[pos] == 0x5B and (listed := _flow_list(data, pos, name)):
        return listed
    else:
        span = value_span(data, pos, tab_led=True)
    if span is None:
        return None
    start, end, quoted = span
    value = data[start:end]
    if name.upper() in (b"PWD", b"OLDPWD") and value[:1] in (b"/", b"~"):
        return None  # the shell's working directory
    rule = (
        "signed-url-query"
        if name_start > 0 and data[name_start - 1] in b"?&"
        else "credential-assignment"
    )
    if quoted and sep.endswith(b",") and _KEY_AFTER.match(data, end) is not None:
        return None  # {"variable": "DB_PW", "value": "…"}: the next field's key, not a value
    if quoted:
        # a quoted value is the credential whatever its shape (letters only, spaces); a backquoted
        # one is a command's output or a template unless it reads as a credential
        command = data[start - 1] == 0x60 and not sep.endswith(b":=")  # Go's `…` is a raw string
        joined = _joined(data, pos, span)  # "ab" + "cd", 'ab'"cd", "".join(["ab", "cd"])
        if joined is not None and (
            secretish(joined[2], quoted=True)
            or (not command and literal_value(joined[2], quoted=True, name=name))
        ):
            return Hit(rule, *joined)
        if secretish(value, quoted=True) or (
            not command and literal_value(value, quoted=True, name=name)
        ):
            return Hit(rule, start, end, value)
        inner = wrapped_literal(data, start, end)  # "{{ lookup(…) | default('X') }}"
        joined = None if inner is not None else _judged(data, joined_call(data, start, end))
        if joined is not None and literal_value(joined[2], quoted=True, name=name):
            return Hit(rule, *joined)  # "{{ 'ab' ~ 'cd' }}"
        return None if inner is None else Hit(rule, *inner, data[inner[0] : inner[1]])
    if value.endswith(b":"):
        return None  # the next name of a list of names (the pattern's guard refuses these too)
    if sep.endswith(b">") and not sep.endswith(_ARROWS):
        # an XML element's text, to its end tag
        close = data.find(b"<", start, min(len(data), start + VALUE_MAX))
        if close > start:
            text_end = close
            while text_end > start and data[text_end - 1] in b" \t":
                text_end -= 1
            if literal_value(data[start:text_end], quoted=True, name=name):
                return Hit(rule, start, text_end, data[start:text_end])
    joined = _joined(data, pos, span)  # CONCAT('ab', 'cd'), strings.Join([]string{…}, "")
    if joined is not None and literal_value(joined[2], quoted=True, name=name):
        return Hit(rule, *joined)
    config = config_value(data, name_start, name, m.group("sep"), start, end)
    if config is not None and literal_value(data[config[0] : config[1]], quoted=False, name=name):
        return Hit(rule, config[0], config[1], data[config[0] : config[1]])
    if (inner := wrapped_literal(data, start)) is not None:
        return Hit(rule, *inner, data[inner[0] : inner[1]])  # Hash::make('X'), fetch(…) { "X" }
    if not secretish(value, quoted=False) or key_id(value, name):
        return None
    return Hit(rule, start, end, value)


def _joined(data: bytes, pos: int, span: tuple[int, int, bool]) -> tuple[int, int, bytes] | None:
    """A value at ``pos`` (``span`` as ``value_span`` read it) written as literals joined in code
    (``_joined``): from its first piece to its last, and the value the pieces make. None when it
    is one literal or none, or a piece stands for what it names (``"Bearer " + "<token>"``)."""
    start, end, quoted = span
    if not quoted:
        return _judged(data, joined_call(data, pos))
    return _judged(data, pieces(data, start, end) if end > start else empty_join(data, end))


def _judged(data: bytes, spans: list[tuple[int, int]] | None) -> tuple[int, int, bytes] | None:
    """``_joined``'s answer for the pieces ``spans``."""
    if spans is None or len(spans) < 2:
        return None
    whole = joined_text(data, spans)
    return None if whole is None else (spans[0][0], spans[-1][1], whole)


_KEY_AFTER: Final = re.compile(rb"\\{0,7}[\"'][ \t]{0,4}:")
_PLACEHOLDER_TAG: Final = re.compile(rb"(?:=|(?<![0-9]):)[ \t]{0,4}(?:\\{0,7}[\"'])?\Z")
"""Before an element's ``<``: an assignment's operator (not a ``read_file`` row's ``12:``)."""
_QUOTE_END: Final = re.compile(rb"[\"'`]\Z")
_QUOTE_START: Final = re.compile(rb"\\{0,7}[\"'`]")
"""A quote right before an element's ``<`` and right after its ``>``: ``"<password>"`` is a
template's placeholder (Gherkin's outlines, prompts, docs), not an element with text (unless its
end tag follows on the line: ``'<password>"X"</password>'`` is an element whose text is quoted)."""
_CLOSED_TEXT: Final = re.compile(rb"[^<\n]{1,256}</")
"""An element's text on its start tag's line, then an end tag: ``body=<password>X</password>`` is
an element after an operator, not a placeholder (``_element`` reads it so, gate or not)."""
_XML_KEY: Final = re.compile(rb"\b(?:key|name)[ \t]{0,2}=[ \t]{0,2}\\{0,7}[\"']\Z", re.IGNORECASE)
_XML_LEAD: Final = re.compile(rb"(?:[ \t\r\n]|\\[nrt])*")
_XML_LEAD_MAX: Final = 64
"""Most whitespace skipped between an element's start tag and its text, in bytes."""


_TUPLE: Final = re.compile(
    rb"[(\[][ \t]*(?P<q1>\\{0,7}[\"'])[^\"'\\\n]{1,128}(?P=q1)[ \t]*,[ \t]*(?P<q2>\\{0,7}[\"'])(?P<value>(?:[^\"'\\\n]|\\[^\"'])+?)(?P=q2)"
)


_FLOW_LIST: Final = re.compile(
    rb"\[[ \t]*(?:\\{0,7}[\"'][^\"'\\\r\n]{1,200}\\{0,7}[\"'][ \t]*,?[ \t]*){1,16}\]"
)
_FLOW_ITEM: Final = re.compile(rb"\\{0,7}[\"']([^\"'\\\r\n]{1,200})\\{0,7}[\"']")


def _flow_list(data: bytes, pos: int, name: bytes) -> Hit | None:
    """``"api_keys": ["X", "Y"]``, ``passwords = ['X', 'Y']``: a list of strings on one line under a
    credential name, from its first item that reads as a credential to its last (items that name
    secrets, such as compose's ``["db_password"]``, do not)."""
    m = _FLOW_LIST.match(data, pos, min(len(data), pos + 4 * VALUE_MAX))
    if m is None:
        return None
    items = [
        (i.start(1) + at, i.end(1))
        for i in _FLOW_ITEM.finditer(data, m.start(), m.end())
        if (at := list_item(i.group(1), name)) is not None
    ]
    if not items:
        return None
    start, end = items[0][0], items[-1][1]
    return Hit("credential-assignment", start, end, data[start:end])


def _no_value(value: bytes) -> bool:
    """No value but a sized hex literal is a key under a bare ``KEY`` (``_named`` reads those)."""
    return False


def _auth_tuple(data: bytes, pos: int) -> Hit | None:
    """``auth=("user", "password")``: the password."""
    m = _TUPLE.match(data, pos, min(len(data), pos + VALUE_MAX))
    if m is None or len(m.group("value")) < 3 or m.group("value").startswith(b"[secret"):
        return None
    return Hit("credential-assignment", m.start("value"), m.end("value"), m.group("value"))


_NETRC_CONTEXT: Final = re.compile(rb"(?:^|[\s\"'])(?:machine|login|default)[ \t]", re.IGNORECASE)
_NETRC_WINDOW: Final = 256


def _netrc(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``.netrc``: ``password X`` after ``machine`` or ``login`` (same file, a few lines before)."""
    lo = max(0, m.start() - _NETRC_WINDOW)
    spend(m.start() - lo)
    if m.start() > 0 and data[m.start() - 1] in NAME_BYTES:
        return None
    if _NETRC_CONTEXT.search(data, lo, m.start()) is None:
        return None
    span = value_span(data, m.end("ws"))
    if span is None or span[1] - span[0] < 3:
        return None
    start, end, _ = span
    if data.startswith(b"[secret", start):
        return None  # already redacted
    return Hit("credential-assignment", start, end, data[start:end])


_SAID: Final = re.compile(rb"(?:is|was)[ \t]+", re.IGNORECASE)


def _pass_space(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``password X`` in ``.netrc``, else a password named and then given after a space: SQL's
    ``PASSWORD 'PASS'``, Gradle's ``signingPassword "PASS"``, prose's ``the password is PASS``
    (a quoted value, or after ``is``/``was`` a token that reads as a credential)."""
    hit = _netrc(data, m)
    if hit is not None:
        return hit
    word_end = m.start("ws")
    _, name = name_before(data, word_end)
    if not credential_name(name):
        return None  # bypass, compass
    pos = m.end()
    said = _SAID.match(data, pos)
    if said is not None:
        pos = said.end()
    span = value_span(data, pos)
    if span is None:
        return None
    start, end, quoted = span
    joined = _joined(data, pos, span)
    if joined is not None:  # PASSWORD 'ab' || 'cd', PASSWORD CONCAT('ab', 'cd')
        return Hit("credential-assignment", *joined) if quoted_password(joined[2]) else None
    if not quoted and said is None:
        return None  # "password foo" without a quote: a word of prose
    value = data[start:end]
    if quoted:
        if not quoted_password(value):
            return None
    else:
        value = value.rstrip(b".,;:!?)")
        end = start + len(value)
        if not secretish(value, quoted=False):
            return None
    if value.startswith(b"[secret"):
        return None  # already redacted
    return Hit("credential-assignment", start, end, value)


_COMMAND_WINDOW: Final = 256
_LINE_BREAK: Final = re.compile(rb"\n|\\n|\x00|\xff")


def line_before(data: bytes, pos: int) -> bytes:
    lo = max(0, pos - _COMMAND_WINDOW)
    spend(pos - lo)
    line = data[lo:pos]
    cuts = [m.end() for m in _LINE_BREAK.finditer(line)]
    return line[cuts[-1] :] if cuts else line


_ROW_WRAPPER: Final = re.compile(rb"(?:[^\s:]{1,200}:)?[0-9]{1,9}:|[+\- ]")
_ROW_BREAKS: Final = (b"\n", b"\\n", b"\xff", b"\x00", b'"')


def row_wrapped(data: bytes, pos: int) -> bool:
    """What stands between ``pos`` and the start of its line is a tool's row wrapper: a
    ``read_file`` row's ``12:``, a grep row's ``path:12:``, a diff's or a patch's ``+``."""
    lo = pos
    while lo > 0 and pos - lo < 212 and data[lo - 1] not in b'\n\xff\x00"':
        if lo >= 2 and data[lo - 2 : lo] == b"\\n":
            break
        lo -= 1
    if lo > 0 and not (data[lo - 1 : lo] in _ROW_BREAKS or data[lo - 2 : lo] == b"\\n"):
        return False
    return _ROW_WRAPPER.fullmatch(data, lo, pos) is not None


def _escaped(data: bytes, pos: int) -> bool:
    """The byte at ``pos`` follows an odd number of backslashes: an escape's letter."""
    j = pos
    while j > 0 and data[j - 1] == 0x5C:
        j -= 1
    return (pos - j) % 2 == 1


def _pgpass(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``host:port:database:user:password`` on a line of its own."""
    host_start = m.start()
    while (
        host_start > 0
        and m.start() - host_start < 253
        and data[host_start - 1] in NAME_BYTES | {0x2A}
    ):
        host_start -= 1
    if host_start < m.start() and data[host_start] in b"nr" and _escaped(data, host_start):
        host_start += 1  # the letter of an escaped line break (``\\n``) before the host
    if host_start == m.start():
        return None
    before = data[max(0, host_start - 2) : host_start]
    if (
        host_start > 0
        and not before.endswith((b"\n", b"\\n", b"\xff", b"\x00", b'"', b" ", b"'"))
        and not row_wrapped(data, host_start)
    ):
        return None
    value = m.group("value")
    if not secretish(value, quoted=True) and len(value) < 8:
        return None
    fields = data[m.start() + 1 : m.start("value") - 1].split(b":")
    if fields[-1].isdigit() and fields[-2].isdigit():
        return None  # a run of numbers (a sequencer's read name, a time): no database and user
    return Hit("credential-assignment", m.start("value"), m.end("value"), value)


_DSN_STOP: Final = frozenset(b" \t\r\n\"'`\\(),;<>[]{}\x00\xff")
_DSN_MAX: Final = 384
"""Longest ``user:password`` read back from a DSN's ``@``."""


def _go_dsn(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """Go's MySQL driver DSN, ``user:password@tcp(host:3306)/db`` (``unix(…)``, ``udp(…)``): the
    password, from the userinfo's first ``:`` to the ``@`` (it may hold ``:`` and ``@``)."""
    at = m.start()
    lo = at
    while lo > 0 and at - lo < _DSN_MAX and data[lo - 1] not in _DSN_STOP:
        lo -= 1
    userinfo = data[lo:at]
    name_end = max(
        userinfo.rfind(b"=", 0, userinfo.find(b":")), userinfo.rfind(b"/", 0, userinfo.find(b":"))
    )
    colon = userinfo.find(b":", name_end + 1)
    if colon <= name_end + 1:
        return None  # no user name, or no password: reader@tcp(…)
    start = lo + colon + 1
    value = data[start:at]
    if not literal_value(value, quoted=True, name=b"password"):
        return None  # %s, ${DB_PASS}, a placeholder
    return Hit("url-password", start, at, value)


_PUTTY_BODY: Final = re.compile(rb"(?:[A-Za-z0-9+/=]|\r|(?:\n|\\n)(?:[0-9]{1,9}:)?|\\r|[ \t])*")
"""Base64 lines, each maybe in a read_file row (``7:``)."""
PUTTY_MAX: Final = 16384


def _putty(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """PuTTY ``.ppk`` (v2 and v3): the ``Private-Lines:`` block."""
    body = _PUTTY_BODY.match(data, m.end(), min(len(data), m.end() + PUTTY_MAX))
    assert body is not None
    spend(body.end() - m.end())
    value = data[m.end() : body.end()].strip()
    if len(value) < 16:
        return None
    return Hit("private-key", m.start(), body.end(), b"ppk:" + value[:64])


_JWK_MEMBER: Final = re.compile(
    rb"(?<![A-Za-z0-9_])\\{0,7}[\"'](?:d|p|q|dp|dq|qi|k)\\{0,7}[\"'][ \t]*:[ \t]*\\{0,7}[\"'](?P<value>[A-Za-z0-9_\-]{16,})"
)
JWK_WINDOW: Final = 8192


def jwk_hits(data: bytes, positions: list[int]) -> list[Hit]:
    """The private members of the JWKs around ``positions`` (where ``kty`` occurs, in order).

    Each position looks ``JWK_WINDOW`` bytes each way; a position inside a window already searched
    only extends it, so every byte is searched once."""
    out: list[Hit] = []
    covered = -1
    for pos in positions:
        if pos < covered:
            continue
        lo = max(0, pos - JWK_WINDOW, covered)
        hi = min(len(data), pos + JWK_WINDOW)
        covered = hi
        spend(hi - lo)
        for member in _JWK_MEMBER.finditer(data, lo, hi):
            value = member.group("value")
            out.append(
                Hit("private-key", member.start("value"), member.end("value"), b"jwk:" + value)
            )
    return out


_HEX_CONTEXT: Final = re.compile(
    rb"priv|secret|wallet|account|signer|signing|mnemonic|seed|master|encrypt|hmac|sk\b|_key\b|-key\b|key\s*[:=]",
    re.IGNORECASE,
)
_HEX_BENIGN: Final = re.compile(
    rb"sha|hash|digest|checksum|integrity|commit|etag|fingerprint|blob|tree|rev|object|cache|md5|crc|merkle|root|public",
    re.IGNORECASE,
)
HEX_CONTEXT_WINDOW: Final = 48


def _hex_key(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """64 hex digits (``0x`` or not) under a key-ish name: a raw private key (wallets, ed25519 seeds)."""
    start, end = m.span()
    if start > 0 and data[start - 1] in NAME_BYTES and data[max(0, start - 2) : start] != b"0x":
        return None
    if end < len(data) and data[end] in NAME_BYTES:
        return None
    line = line_before(data, start - (2 if data[max(0, start - 2) : start] == b"0x" else 0))[
        -HEX_CONTEXT_WINDOW:
    ]
    if _HEX_CONTEXT.search(line) is None or _HEX_BENIGN.search(line) is not None:
        return None
    return Hit("private-key", start, end, m.group())


def hex_key_pass() -> Pass:
    """The token pass of ``_hex_key`` (it runs over the runs, as the vendor tokens do). Bounded:
    the gate reports a run of hex digits where it ends, not at every byte of it (1 MB of ``%41``
    decodes to a run of ``A``: a report a byte held 12.5 x the input)."""
    return Pass(re.compile(rb"[0-9a-fA-F]{64}"), _hex_key, bounded=True)


def grammar_passes() -> list[Pass]:
    """The passes of this module, in the form ``SecretScanner`` runs keyword passes."""
    return [
        Pass(
            re.compile(rb"(?>" + KEYWORDS + _ASSIGN + rb")" + _NOT_A_NAMED_VALUE, re.IGNORECASE),
            _named,
            anchor=prefilter(KEYWORDS + ASSIGN_PREFILTER),
            skip=(b"authorization", b"cookie:", b'cookie":'),
            gate=(NAMED_GATE, 0, 0),
            window=NAMED_WINDOW,
            # a keyword in any name, then a bounded name and value: about 15 times another rule's
            # cost in hyperscan on text dense with names (the benchmark's key prefixes)
            weight=15,
        ),
        Pass(
            re.compile(rb"(?>" + KEYWORDS + _SUBSCRIPT + rb")" + _NOT_A_NAMED_VALUE, re.IGNORECASE),
            _named,
            anchor=prefilter(KEYWORDS + rb"[a-z0-9_.\-]{0,32}\\{0,7}[\"']?\]"),
            skip=(b"authorization", b"cookie:", b'cookie":'),
            gate=(SUBSCRIPT_GATE, 0, 0),
            window=SUBSCRIPT_WINDOW,
        ),
        Pass(
            re.compile(rb"pass(?:word|wd|phrase)?(?P<ws>[ \t]+)(?=[^\s])", re.IGNORECASE),
            _pass_space,
            # the gate reports the keyword's first space (a start costs hyperscan more than an end)
            anchor=re.compile(rb"pass"),
            gate=(rb"pass(?:word|wd|phrase)?[ \t]", 0, 0),
            window=PASS_SPACE_WINDOW,
        ),
        Pass(
            re.compile(
                rb":(?:[0-9]{1,5}|\*):[^:\s\"'\\]{1,63}:[^:\s\"'\\]{1,63}:(?P<value>[^\s\"'\\\x00\xff]{3,256})"
            ),
            _pgpass,
        ),
        Pass(re.compile(rb"Private-Lines:[ \t]*[0-9]{1,3}"), _putty),
        Pass(re.compile(rb"@(?:tcp|unix|udp)[46]?\("), _go_dsn),
        Pass(re.compile(rb"-us(?<=[0-9a-f]{32}-us)[0-9]{1,2}(?![0-9A-Za-z])"), _mailchimp),
        Pass(_BUNDLER, _bundler),
        Pass(re.compile(rb"FlyV1 (?P<value>fm[12][ar]?_[A-Za-z0-9+/=_,\-]{32,})"), _flyio),
    ]


_BUNDLER: Final = re.compile(
    rb"BUNDLE_(?:[A-Z0-9\-]+_)*[A-Z0-9\-]+__[A-Z0-9_\-]+\\{0,7}[\"']?[ \t]{0,4}[:=][ \t]{0,4}\\{0,7}[\"']?(?P<value>[^\s:\"'\\]{1,128}:[^\s\"'\\]{3,256})"
)


def _bundler(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """Bundler's credentials for a gem server, ``BUNDLE_GEMS__EXAMPLE__COM=user:password``: the password."""
    value = m.group("value")
    colon = value.index(b":")
    start = m.start("value") + colon + 1
    if data.startswith(b"[secret", start):
        return None
    return Hit("credential-assignment", start, m.end("value"), value[colon + 1 :])


def _mailchimp(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """Mailchimp API key: 32 hex digits, ``-us`` and the datacenter number."""
    start = m.start() - 32
    if start > 0 and data[start - 1] in NAME_BYTES:
        return None
    return Hit("mailchimp-api-key", start, m.end(), data[start : m.end()])


def _flyio(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A Fly.io token as ``fly tokens create`` prints it: ``FlyV1 fm2_…,fm2_…``."""
    return Hit("flyio-token", m.start("value"), m.end("value"), m.group("value"))


def der_private_key(decoded: bytes) -> bool:
    """DER of a private key or a key store: PKCS#12 (version 3, then pkcs7-data), PKCS#8 and
    PKCS#1 (version 0), SEC1 (version 1, then the key). Certificates and public keys start
    otherwise (a SEQUENCE, not a version)."""
    if len(decoded) < 24 or decoded[0] != 0x30:
        return False
    i = 2 + (decoded[1] & 0x7F) if decoded[1] & 0x80 else 2
    head, after = decoded[i : i + 3], decoded[i + 3 : i + 4]
    if head == b"\x02\x01\x03" and after == b"\x30":
        return b"\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x07" in decoded[i + 3 : i + 24]
    if head == b"\x02\x01\x00":
        return after in (b"\x30", b"\x02")
    return head == b"\x02\x01\x01" and after == b"\x04"
