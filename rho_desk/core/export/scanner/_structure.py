"""Structure: name → value pairs read from text whatever its syntax, where the name pass cannot see.

The name pass of ``_grammar`` reads a pair whose value stands right after its name on one line
(``NAME=value``, ``"name": "value"``). Many credentials are written otherwise, and this module
reads them as the syntax says:

* **the value is on the lines after the name**: YAML block scalars (``password: |``, ``>-``), a
  quoted scalar continued on the next line, a plain one on deeper lines, a value the terminal
  wrapped, TOML's ``\"\"\"`` strings, heredocs (HCL's ``<<EOT``
  and ``<<-EOT``), Java properties continued with ``\\``, an XML element whose text is on the
  next line, a JSON or HCL object or a YAML mapping under a credential name (``"db_password":
  {"value": …}``);
* **the name is not beside the value**: a Kubernetes ``Secret`` (everything under ``data`` and
  ``stringData``), terraform's ``"sensitive": true`` beside a ``value``, a name given in a field
  of its own (``- name: DB_PASSWORD`` / ``value: …``, ``<name>…</name><value>…</value>``,
  ``ParameterKey=…,ParameterValue=…``), tables whose header names the column (CSV, TSV,
  Markdown, aligned columns) or whose rows are pairs (``Key  Value``: ``vault kv get``), and
  SQL's ``SET PASSWORD FOR 'u'@'h' = '…'``;
* **``NAME VALUE`` with a space**: a line holding a credential name and one value (redis.conf's
  ``requirepass``, msmtprc's ``password``, Dockerfile's ``ENV NAME value``).

**Where it reads.** Reading structure costs Python work per line, so it reads only around the
lines the gate reports (``TRIGGERS``: each a pattern that holds within one line, confirmed by
``re`` on that line, so a gated scan and an ungated one read the same lines). Around each such
line a window of the text is taken (``view``): inside a JSON string its escapes are decoded
(again for JSON inside JSON, up to ``VIEW_LEVELS``), and the line wrappers tools print (``12:``
and ``12→`` rows, ``path:12:`` grep rows, diff ``+``/``-``/`` `` lines, hashline ``+`` lines)
are peeled before reading; the hits are mapped back to the bytes they came from, so the wrappers
stay in the output.

**What it decides.** The credential grammar decides for every pair (``name_is_credential``); a
value under a credential name is a secret whatever its shape (letters only, spaces, several
lines) unless it is a reference, a placeholder or a type (``literal_value``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from ._args import ANY_LITERALS
from ._argv import (
    COMMAND_GATE,
    COMMAND_GATES,
    COMMAND_NAMES,
    LED_NAMES,
    STDIN_PROGRAMS,
    command_values,
)
from ._calls import CALL_GATE, CALL_LINE, CALL_LITERALS, call_values, in_literal
from ._catalogue import Hit
from ._engine import gated_origins
from ._lines import ROW, Line, Lines, peel, text_lines
from ._names import FOREIGN_WORDS
from ._prefilter import Rule
from ._reader import BELOW_LEAD, CONTINUATION, LONE_VALUE, VALUE_FIELDS, read, table_header
from ._records import RECORD_HEADER, record_line, record_values
from ._tables import ROW_END, cells, named_cell, named_word, table_separator
from ._values import tab_lead
from ._window import JSON_LINE, VIEW_LEVELS, WINDOW_FORWARD, WINDOW_REACH, View, region, view
from ._words import WIRE_FRAME, word_values
from ._work import spend

__all__ = [
    "TRIGGERS",
    "TRIGGER_LITERALS",
    "VIEW_LEVELS",
    "structure_hits",
    "structure_rules",
    "trigger_lines",
]

# --- the gate: lines where a structure can hold a credential ----------------------------------------

_FOREIGN: Final = b"|".join(FOREIGN_WORDS)
_KW: Final = (
    rb"(?:pass|pwd|[_.\-]pw|secret|token|cred|auth|bearer|cookie|psk|[a-z0-9_.\-]key|"
    + _FOREIGN
    + rb")"
)
"""The credential words of a name (``key`` only after a qualifier: ``api_key``, ``privateKey``;
alone it names no credential, and ``-----BEGIN … KEY`` and ``keys/`` are everywhere)."""
_NCH: Final = rb"[a-z0-9_.\-]"
_PATH_NCH: Final = rb"[a-z0-9_.\-/]"
"""A byte of a name given in a field of its own, which may be a path (SSM's ``/prod/db/password``)."""
_GATE_NAME: Final = (
    rb"(?:(?:pass|pwd|[_.\-]pw|secret|token|cred|psk|bearer|[a-z0-9_.\-]key|"
    + _FOREIGN
    + rb")"
    + _NCH
    + rb"*|auth(?:[a-np-z0-9_.\-]"
    + _NCH
    + rb"*)?)"
)
"""A credential word and the rest of its name, as the gate looks for it (``auth`` not followed by
``o``: ``Authorization`` and ``author`` fill HTTP headers and metadata, and name no value)."""
_WORD_NAME: Final = (
    rb"(?:(?:pass|pwd|[_.\-]pw|secret|token|cred|psk|[a-z0-9_.\-]key|"
    + _FOREIGN
    + rb")"
    + _NCH
    + rb"*|auth(?:[a-np-z0-9_.\-]"
    + _NCH
    + rb"*)?)"
)
"""A credential word and the rest of its name, as the gate looks for it before a directive's words
(not ``bearer``: ``Authorization: Bearer X`` is the header rules')."""
_Q: Final = rb"(?:\\{0,7}[\"'])?"
_SP: Final = rb"[ \t]*"
_BREAK: Final = rb"(?:\r|\n|\x00|\xff|\\{1,7}[nr])"
"""A line break: raw, JSON-escaped (at any depth: the last backslash and the letter), or the
separators of joined buffers."""
_BOL: Final = rb"(?:^|" + _BREAK + rb"|:[ \t]*\\{0,7}\")"
"""The start of a line: a break, or the opening quote of a JSON member's string value."""
_EOL: Final = rb"(?:$|" + _BREAK + rb"|\")"
"""The end of a line: a break, or the quote that ends a JSON string (confirmed unescaped)."""
_CLOSED: Final = rb"(?:$|" + _BREAK + rb"|\"(?:[\s,}\]:\\\x00\xff]|$))"
"""``_EOL`` where the quote is followed by what follows a JSON string's end (a quote followed by
a value's first byte opens that value: ``password = "X"`` is the name pass's)."""
_WRAP: Final = rb"(?:[ \t]*[0-9]{1,7}(?::|\xe2\x86\x92|\\{1,7}u2192|[ \t]*\||\t|\\{1,7}t)|[^\s:\"\\\x00\xff]{1,120}:[0-9]{1,7}[:\-]|[+\->])?"
"""An optional row wrapper at the start of a line (a superset of what ``_reader`` peels)."""
_SEP: Final = rb"(?:\\{1,7}t|[,\t|]|[ \t]{2})"
_CELL_KW: Final = rb"(?:pass|pwd|[_.\-]pw|secret|token|cred|psk|[a-z0-9_.\-]key|" + _FOREIGN + rb")"
_TRIPLE_QUOTE: Final = rb"(?:\\{0,7}\"){3}|(?:\\{0,7}'){3}"
_AFTER: Final = (
    rb"(?:=>|:=|=|:)"
    + _SP
    + rb"(?:[|>][+\-]?[0-9]?|!{1,2}[a-z]{1,16}(?:"
    + _SP
    + rb"[|>][+\-]?[0-9]?)?|(?:"
    + _TRIPLE_QUOTE
    + rb")[^\"'\\\r\n\x00\xff]*"
    + rb"|(?:\\{0,7}[\"']?\$\((?:cat|echo)[ \t]+)?<<<?[\-~]?\\{0,7}[\"']?[a-z_][a-z0-9_]{0,30}\\{0,7}[\"']?(?:\.[a-z_][a-z0-9_]{0,20}(?:\(\))?){0,3}[;,)]?"
    + rb"|''|\[=*\[|r#{1,3}\\{0,7}\"|%[qw]?[({\[<]|<!\[cdata\[|[{\[(]"
    + rb"|\\{0,7}[\"'][^\"'\r\n\x00\xff]{0,200}\\{0,7}[\"']"
    + _SP
    + rb"(?:(?:\+|\.\.?|&|\|\||<>|~)(?:[ \t]+_)?|\\{1,7}))?"
)
"""After a name, a value that is elsewhere: a block scalar's indicator, a tag, a triple quote, a
heredoc (``<<~EOT.strip``, ``<<<EOT``, ``$(cat <<EOF``), a string opened to close on a later line
(Nix's ``''``, Lua's ``[[``, Rust's ``r#"``, Ruby's ``%q(``, CDATA), a string joined to the next
line's (``"ab" +``, ``"ab" ||``, VB's ``"ab" & _``, a backslash: ``"ab" \\``), an opening brace,
or nothing (a mapping or the value below)."""
_AFTER_GATE: Final = (
    _AFTER.replace(rb"{0,200}", rb"*")
    .replace(rb"{0,30}", rb"*")
    .replace(rb"{0,20}", rb"*")
    .replace(rb"{1,16}", rb"+")
    .replace(rb"){0,3}", rb")*")
)
"""``_AFTER`` for the gate, its bounded repeats unbounded (a superset): hyperscan's automaton for
the bounds woke at every credential word (8 % of the keyword gate's instructions on 1 MB of
names, the benchmark's key prefixes)."""
_TOKEN: Final = rb"[a-z0-9+/=_.~\-]"
"""A byte of a token's value (caseless)."""
_OPEN: Final = rb"(?:[@$]{1,2}|[rbuf]{1,2})?\\{0,7}[\"'`]"
"""A string's opening quote (C#'s ``@"``, Python's ``r"``, a template literal's backtick)."""
_V: Final = rb"[^\s\"'\\=:]"
_WORDS_VALUE: Final = (
    rb"(?:[^\s=:]{1,40}[ \t]+){0,6}(?:\\{0,7}[\"']|(?:[0-9]"
    + _V
    + rb"{5,}|"
    + _V
    + rb"[0-9]"
    + _V
    + rb"{4,}|"
    + _V
    + rb"{2}[0-9]"
    + _V
    + rb"{3,}|"
    + _V
    + rb"{3}[0-9]"
    + _V
    + rb"{2,}|"
    + _V
    + rb"{4}[0-9]"
    + _V
    + rb"+|"
    + _V
    + rb"{5,}[0-9]"
    + _V
    + rb"*)={0,2}(?:[\s\"'\\;,)\]]|$))"
)
"""Within the next few words (none a pair's ``NAME=`` or ``NAME:``; type codes such as ``0`` or
``ascii`` among them), a word that opens a quote or one of six characters or more holding a
digit: ``word_values``
reports only a quoted first value or one that reads as generated (``_random``: it holds a digit),
so prose ("the token is refreshed hourly") is no trigger line."""
_PADDED: Final = rb"(?:[ \t]{5,}(?:=>|:=|[:=])[ \t]*|[ \t]{0,4}(?:=>|:=|[:=])[ \t]{5,})"
"""An operator with more padding than the name pass reads (four spaces or tabs either side)."""
_SPACED_VALUE: Final = (
    rb"(?:\\{0,7}[\"'][^\"'\x00\xff]{1,200}\\{0,7}[\"']|[^\s\"'=:\\][^\s\"'\\]{0,200})"
)

_MEMBER: Final = rb"(?:(?::[^\]\r\n\x00\xff]{0,160})?\])?"
"""The end of a dump's member name (var_dump's ``["NAME"]``, ``["NAME":"Class":private]``)."""
_FOR: Final = rb"[ \t]+(?:for|of)[ \t][^\r\n\x00\xff:\\]{1,60}:"
"""What a credential is for, before a colon (``Password for the reporting DB:``)."""
_MEMBER_GATE: Final = _MEMBER.replace(rb"{0,160}", rb"*")
_FOR_GATE: Final = _FOR.replace(rb"{1,60}", rb"+")
"""``_MEMBER`` and ``_FOR`` for the value-below gate, their bounded repeats unbounded (a superset):
hyperscan's automaton for the bounds woke at every credential word, 5.1 of the 29 ms the keyword
gate took over the benchmark's MB of key prefixes (1.0 ms unbounded)."""

_VALUE_OBJECT: Final = (
    rb"[:=]"
    + _SP
    + rb"\{(?:[^{}\r\n\x00\xff]{0,200}[,\s])?"
    + _SP
    + rb"\\{0,7}[\"']?(?:"
    + "|".join(sorted(VALUE_FIELDS, key=len, reverse=True)).encode()
    + rb")\\{0,7}[\"']?"
    + _SP
    + rb"[:=]"
)
"""After a name, an object opening on its line with a field that holds the name's value
(``"app.mail.pwd": {"value": X, "origin": …}``, ``"dbPassword": {"isSecret": false, "value":
X}``); an object that goes on past its line is ``value-after``'s."""

TABLE_HEADER_MAX: Final = 240
"""Longest table header read, in bytes."""

# The gate's patterns: cheap supersets of the tests below (unbounded where the test bounds, no
# line start where the test wants one); hyperscan scans them with every other keyword rule.
TRIGGERS: Final[dict[str, bytes]] = {
    # NAME: |, NAME = <<EOT, NAME = """, NAME: {, NAME: (nothing: a mapping follows), NAME: !tag |
    "value-after": _GATE_NAME
    + _Q
    + _SP
    + _AFTER_GATE
    + rb"(?:[ \t]+#[^\r\n\"\\\x00\xff]*)?"
    + _SP
    + _CLOSED,
    # NAME: "value that goes on
    "open-quote": _GATE_NAME
    + _Q
    + _SP
    + rb"[:=]"
    + _SP
    + _OPEN
    + rb"(?:[^\"'`\\\r\n\x00\xff]|\\[^nr\"'\\])*"
    + _BREAK,
    # NAME=value\  (continued on the next line)
    # (the gate looks for the backslash that ends a line: at depth one in JSON, three before the n)
    "continued": rb"[^\\\s]\\{2,7}[nr]|[^\\\s]\\\r?\n",
    # NAME: value  ending its line, the value going on over the next (``_FOLLOWS``)
    "value-wrapped": _GATE_NAME + _Q + _SP + rb"[:=]" + _SP + _TOKEN + rb"{6,}" + _SP + _EOL,
    # NAME value  (alone on its line; ENV NAME value)
    "spaced": (
        _GATE_NAME
        + rb"[ \t]+(?:\\*[\"'][^\"'\x00\xff]*\\*[\"']|[^\s\"'=:\\][^\s\"'\\]*)(?:[ \t]+#[^\r\n\x00\xff]*)?"
        + _SP
        + rb"\\*\"?,?\\*"
        + _EOL
    ),
    # NAME:        value  (aligned output: padding wider than the name pass reads, either side)
    "aligned": _GATE_NAME + _Q + _PADDED + rb"[^\s]",
    # a=1 NAME=value b=2  (pairs on one line: logfmt, a conninfo string, an environment list)
    "pair-among-pairs": rb"[ \t]" + _NCH + rb"*" + _GATE_NAME + rb"=[^\s=\\\"']",
    # NAME alone on its line, its value quoted on the next (SQL's PASSWORD, PHP's define( 'NAME',)
    "alone": rb"(?:" + _GATE_NAME + _Q + rb",?|identified[ \t]+by)" + _SP + _EOL,
    # a line ending with a credential's name, its value alone on the next (``Client secret:``,
    # var_dump's ``["password"]=>``, a minisign ``… secret key`` comment; ``_BELOW_NEXT``)
    # (its bounded repeats unbounded: _MEMBER_GATE, _FOR_GATE)
    "value-below": rb"(?:"
    + _GATE_NAME
    + rb"|[a-z]{2,}[ \t]key)"
    + rb"(?:"
    + _Q
    + _MEMBER_GATE
    + _SP
    + rb"(?:=>|:)?|"
    + _FOR_GATE
    + rb")"
    + _SP
    + _EOL,
    "env-spaces": rb"(?:env|setenv)[ \t]+" + _NCH + rb"*" + _KW + _NCH + rb"*[ \t]+[^\s=\\]",
    # a table's header naming a column: a credential's cell beside a separator
    # (aligned columns: three spaces before the credential's cell, two after it; a column named
    # auth alone is not looked for: Authorization fills HTTP dumps)
    "table": (
        rb"(?:(?:\\{1,7}t|[,\t|]|[ \t]{3})[ \"'\\]*"
        + _NCH
        + rb"*(?: "
        + _NCH
        + rb"+)?"
        + _CELL_KW
        + rb"|"
        + _CELL_KW
        + rb"[a-z0-9_.\- \"'\\]*"
        + _SEP
        + rb")"
    ),
    # a key/value table's header
    # (read on its values' side, ``…value``, ``…val``, or mysql's ``| k | v |``: the names' cell
    # is judged by the header's test, ``pairs_key``; a gate led by the names' words cost the
    # benchmark's key prefixes a tenth of their scan)
    "key-value-table": _SEP
    + rb"[ \t|\"']*[a-z_]*val(?:ue)?s?[ \t\"']*(?:[|,\t\r\n\\]|$)"
    + rb"|[ \t|]k[ \t]*(?:\||\t|\\t)[ \t]*v[ \t]*(?:\||\t|\\t|\r|\n|\\[rn]|$)",
    # - name: DB_PASSWORD (value: in a field of its own), <name>db.password</name>, key="password"
    "name-field": (
        rb"(?:name|key|parameterkey|variable|envvar|env_var|param|field|id|label|type)\\*[\"']?"
        + _SP
        + rb"(?:[:=]|>)"
        + _SP
        + rb"\\*[\"']?"
        + _PATH_NCH
        + rb"*"
        + _KW
    ),
    # "db_password": {"value": …}  (the value in an object under the name on its line; the gate
    # looks for the object's value field, the test for the name before it)
    "value-object": _VALUE_OBJECT.replace(rb"{0,7}", rb"*").replace(rb"{0,200}", rb"*"),
    "kubernetes-secret": rb"kind\\*[\"']?" + _SP + rb":" + _SP + rb"\\*[\"']?secret",
    "sensitive": rb"sensitive\\*[\"']?" + _SP + rb"[:=]" + _SP + rb"(?:\\*[\"'])?true",
    "sql": rb"password[ \t]+for[ \t]|set[ \t]+password[ \t]*=",
    "xml-element": rb"<"
    + _NCH
    + rb"*"
    + _KW
    + _NCH
    + rb"*(?:[ \t][^<>\r\n\x00\xff]*)?>(?:<!\[cdata\[)?"
    + _SP
    + _BREAK,
    # a command line: a known client's name, or an option reading a password from standard input
    "command": COMMAND_GATE,
    # a credential word, then its value among the next words (directives, protocol verbs)
    "words": (
        rb"(?:"
        + _WORD_NAME
        + rb"|community|key|login|identify)\\{0,7}[\"']?,?[ \t]+"
        + _WORDS_VALUE
        + rb"|"
        + WIRE_FRAME
    ),
    # a call taking a password by position
    "call": CALL_GATE,
    # a comment naming the file or the layout of the records under it (``_records``)
    "record-header": RECORD_HEADER,
}
"""What the gate reports, one pattern per kind of line worth reading: a credential name whose
value is elsewhere than right after it, a table header naming a credential, a name given in a
field, a Kubernetes Secret, terraform's ``sensitive``, SQL's ``PASSWORD FOR``. Each report is
confirmed on its line by the kind's own test (``_CONFIRM``), which looks at that line only."""

TRIGGER_LITERALS: Final = re.compile(
    rb"pass|pwd|pw|secret|token|cred|auth|bearer|cookie|key|psk|community|login|identify|"
    + _FOREIGN
    + rb"|"
    + CALL_LITERALS
    + rb"|sensitive|stdin|-p|"
    + STDIN_PROGRAMS
    + rb"|"
    + COMMAND_NAMES
    + rb"|"
    + LED_NAMES
    + rb"|"
    + ANY_LITERALS
    + rb"|"
    + TRIGGERS["key-value-table"]
)
"""Every confirmed line holds one of these (lower case; a key/value table's header, ``| k | v |``,
may hold none of the words): without the gate, the lines holding one
are the candidates (``-p``: a password flag beside a user flag, ``_argv._PAIRED_FLAGS``)."""

_FULL_NAME: Final = rb"(?<![a-z0-9_.\-])" + _NCH + rb"{0,80}" + _KW + _NCH + rb"{0,40}"
_LEAD: Final = _FULL_NAME + _Q + _SP
_BELOW_NAME: Final = rb"(?<![a-z0-9_.\-+/])" + _NCH + rb"{0,40}" + _KW + _NCH + rb"{0,20}"
"""``_FULL_NAME`` as a name ending a line with its value below (``value-below``, ``alone``): not
after ``+`` or ``/``, and shorter than a line of wrapped base64 (76 or 64 columns), whose random
letters hold a credential word now and then (38 lines in a MB: each read as a name above its
value, 22 -> 29 ms a MB)."""
_COMMENT: Final = rb"(?:[ \t]+#[^\r\n\"\\\x00\xff]{0,200})?"


def structure_rules() -> list[Rule]:
    """The gate's rules for ``TRIGGERS``, exact (hyperscan's prefilter mode widens bounded
    repeats): each reports the end of every match (``Reports.starts``); the command lines' as one
    expression a client (``COMMAND_GATES``)."""
    return [
        Rule(
            pattern,
            caseless=True,
            last=pattern,
            alternatives=COMMAND_GATES if name == "command" else (),
        )
        for name, pattern in TRIGGERS.items()
    ]


def _pattern(p: bytes) -> Callable[[bytes], object]:
    return re.compile(p, re.IGNORECASE).search


def _on_text(test: Callable[[bytes], object]) -> Callable[[bytes], object]:
    """``test`` of a line's text (``_line_text``: escapes decoded, wrappers peeled)."""
    return lambda line: test(_line_text(line))


def _table_line(line: bytes) -> bool:
    """A table's header (``table_header``), at most ``TABLE_HEADER_MAX`` bytes long."""
    text = _line_text(line)
    return len(text) <= TABLE_HEADER_MAX and table_header(text)


_CONFIRM: Final[dict[str, Callable[[bytes], object]]] = {
    "value-after": _pattern(
        _LEAD + _AFTER + _COMMENT + _SP + rb"(?:$|" + _BREAK + rb"|(?<!\\)\"(?=[\s,}\]:]|$))"
    ),
    "value-object": _pattern(_LEAD + _VALUE_OBJECT),
    "open-quote": _pattern(
        _LEAD + rb"[:=]" + _SP + _OPEN + rb"(?:[^\"'`\\\r\n\x00\xff]|\\[^nr\"'\\])*\\{0,7}$"
    ),
    "continued": _pattern(_LEAD + rb"[:=].*\\$"),
    "value-wrapped": _pattern(
        _LEAD + rb"[:=]" + _SP + _TOKEN + rb"{6,}" + _SP + rb"(?:$|" + _BREAK + rb"|(?<!\\)\")"
    ),
    "spaced": _on_text(
        _pattern(
            rb"^(?:(?:export|env|set|setenv|setx)[ \t]+)?"
            + _FULL_NAME
            + rb"[ \t]+"
            + _SPACED_VALUE
            + _COMMENT
            + _SP
            + rb"(?:\"[,}]?)?$"
        )
    ),
    "aligned": _pattern(_FULL_NAME + _Q + _PADDED + rb"[^\s]"),
    "pair-among-pairs": _pattern(rb"=[^\s=\\\"']{1,200}[ \t]+" + _FULL_NAME + rb"=[^\s=\\\"']"),
    "alone": _on_text(
        _pattern(rb"(?:^|[\s(,])[\"']?" + _BELOW_NAME + rb"[\"']?,?$|identified[ \t]+by$")
    ),
    "value-below": _pattern(
        rb"(?:"
        + _BELOW_NAME
        + rb"|(?<![a-z0-9_.\-])[a-z]{2,16}[ \t]key)"
        + rb"(?:"
        + _Q
        + _MEMBER
        + _SP
        + rb"(?:=>|:)?|"
        + _FOR
        + rb")"
        + _SP
        + rb"(?:$|"
        + _BREAK
        + rb"|(?<!\\)\")"
    ),
    "env-spaces": _on_text(_pattern(rb"^(?:env|setenv)[ \t]+" + _FULL_NAME + rb"[ \t]+[^\s=\\]")),
    "table": _table_line,
    "key-value-table": lambda line: _table_line(line),
    "name-field": _pattern(
        rb"(?:name|key|parameterkey|variable|envvar|env_var|param|field|id|label|type)\\{0,7}[\"']?"
        + _SP
        + rb"(?:[:=]|>)"
        + _SP
        + rb"\\{0,7}[\"']?"
        + _PATH_NCH
        + rb"{0,40}"
        + _KW
    ),
    "kubernetes-secret": _pattern(
        rb"kind\\{0,7}[\"']?"
        + _SP
        + rb":"
        + _SP
        + rb"\\{0,7}[\"']?secret\\{0,7}[\"']?"
        + _SP
        + rb"(?:,|\}|\\{0,7}\"|\\{0,7}$)"
    ),
    "sensitive": _pattern(TRIGGERS["sensitive"]),
    "sql": _pattern(TRIGGERS["sql"]),
    "xml-element": _pattern(
        rb"<" + _FULL_NAME + rb"(?:[ \t][^<>]{0,200})?>(?:<!\[cdata\[)?" + _SP + rb"\\{0,7}$"
    ),
    "command": _pattern(COMMAND_GATE),
    "words": _pattern(
        rb"(?:"
        + _FULL_NAME
        + rb"|community|key|login|identify)\\{0,7}[\"']?,?[ \t]+"
        + _WORDS_VALUE
        + rb"|"
        + WIRE_FRAME
    ),
    "call": _pattern(CALL_LINE),
    "record-header": _on_text(record_line),
}


_CONFIRMS: Final = [
    (_CONFIRM[name], re.compile(gate, re.IGNORECASE).search) for name, gate in TRIGGERS.items()
]
"""Per trigger: its test of a line, and its gate pattern, searched in the line and the break that
ends it (a line confirmed is always one the gate reports: a scan with the gate and one without
read the same lines)."""


def _confirmed(
    data: bytes,
    start: int,
    end: int,
    test: Callable[[bytes], object],
    gate: Callable[[bytes], object],
) -> bool:
    if test in _FOLLOWS_FIRST and not _followed(data, start, end, test):
        return False
    return _line_confirmed(data, start, end, test, gate) and _followed(data, start, end, test)


def _line_confirmed(
    data: bytes,
    start: int,
    end: int,
    test: Callable[[bytes], object],
    gate: Callable[[bytes], object],
) -> bool:
    """The line's part of ``_confirmed``: what the line itself holds (the same for the same bytes)."""
    return bool(test(data[start:end])) and gate(data[start : end + 2]) is not None


def _followed(data: bytes, start: int, end: int, test: Callable[[bytes], object]) -> bool:
    """What the lines after line ``data[start:end]`` hold, when ``test``'s reader needs it."""
    follows = _FOLLOWS.get(test)
    return follows is None or follows(data, start, end)


_LINE_BREAK: Final = rb"(?:\r?\n|\\{1,7}r\\{1,7}n|\\{1,7}[nr]|\r|\x00|\xff)"
_INDENT: Final = rb"(?:[ \t]|\\{1,7}t)*"
_LINE_HEAD: Final = (
    rb"(?:[^\r\n\x00\xff]{0,240}?\\{0,7}\"[ \t]*:[ \t]*(?=\\{0,7}\")|"
    + _WRAP
    + rb"|[ \t]*[0-9]{1,7}#[0-9a-z]{2,8}[:|])"
    + _INDENT
)
_QUOTED_NEXT: Final = re.compile(
    _LINE_BREAK
    + rb"(?:"
    + _LINE_HEAD
    + _LINE_BREAK
    + rb")?"
    + _LINE_HEAD
    + rb"(?:\\{0,7}[\"']|\\{1,7}u00(?:22|27))",
    re.IGNORECASE,
)
"""After a line that ends with a credential name, where the alone reader finds its value: the next
line, or the one after a blank one, opens with a quote (after its wrapper, indentation or the head
of a JSON member). A superset of ``_Reader.alone``'s test, on the raw bytes: a line of prose that
ends with "token" is no trigger line."""
_WORD_NEXT: Final = re.compile(
    _LINE_BREAK + _LINE_HEAD + CONTINUATION + rb"[ \t]*(?:" + _LINE_BREAK + rb"|$|\\{0,7}\")",
    re.IGNORECASE,
)
"""After a line that ends with a credential's value, where ``_Reader.wrapped`` finds the rest of
it: the next line is one word (after its wrapper and indentation)."""
_KEY_VALUE_HEADER: Final = re.compile(TRIGGERS["key-value-table"], re.IGNORECASE)
_TABLE_REACH: Final = 4096
"""How far after a key/value table's header its end is looked for: a table going on past it is
read."""


def _named_rows(data: bytes, start: int, end: int) -> bool:
    """Line ``data[start:end]``, a key/value table's header, or its rows up to the line that
    certainly ends the table (``ROW_END``) can hold what ``read`` takes: a credential word in a
    row's first cell (``last_named_row``, ``CELL_WORDS``), or what ``_header_reads`` finds on
    the line. Most such tables name no credential (``Key  Value`` of ``vault kv get``, ``| key
    | value |``) and are not read."""
    line = data[start:end]
    sep = _HEADER_READS.get(line)
    if sep is None:
        if len(_HEADER_READS) > _HEADERS_KEPT:
            _HEADER_READS.clear()
        sep = _HEADER_READS[line] = _header_reads(line.lower())
    if not isinstance(sep, bytes):
        return sep
    table_end = ROW_END[sep].search(data, end, min(len(data), end + _TABLE_REACH))
    if table_end is None:
        return True
    rows = data[end : table_end.start() + 1].lower()
    if not named_cell(rows):
        return False
    if b"\\" in rows or b'"' in rows:
        return True
    return any(_first_cell_named(row, sep) for row in rows.split(b"\n") if named_cell(row))


def _first_cell_named(row: bytes, sep: bytes) -> bool:
    """A credential word in the first cell of ``row`` (a raw line in lower case, no escape or
    quote in it) however a reader of the table splits it: after the row's wrapper, after a
    diff's marker too, or from its first byte (a numbered row under a header with no wrapper,
    ``_Reader.row_start``). A word elsewhere in a row (``| db_host | token | … |``) names no
    pair of a key/value table."""
    wrapper = ROW.match(row)
    at = wrapper.end() if wrapper is not None else 0
    for text in (row.lstrip(), row[at:], row[at + 1 :]):
        first = cells(text, sep)
        if first and named_cell(first[0][0]):
            return True
    return False


_KEY_END: Final = re.compile(
    rb"(?:key|name|field|propert(?:y|ie)|setting|variable|parameter|option|attribute|var|path|k)s?"
    rb"[ \t\"']*\Z"
)
"""The names' side of a key/value table's header, before its values' cell (``pairs_key``; the
gate and ``_KEY_VALUE_HEADER`` find the values' side)."""
_CELL_BEFORE: Final = re.compile(rb"[^\s|,][ \t]*(?:[|,\t]|  )")
"""A cell before a key/value table's names (Magento's ``| config_id | … | path | value |``): the
names are not the rows' first cells, which ``_first_cell_named`` reads."""
_HEADER_READS: dict[bytes, bytes | bool] = {}
"""``_header_reads`` by the line (a table prints its header again and again)."""
_HEADERS_KEPT: Final = 4096


def _header_reads(line: bytes) -> bytes | bool:
    """What a key/value table's header ``line`` (in lower case) needs for ``read`` to take
    anything: nothing (True: a credential word in one of the header's cells, a column, or on the
    line for the other readers, ``named_word``, ``_words_line``), its rows (their separator), or
    nothing can come of it (False: no table). A line holding an escape or a quote may read
    otherwise in a view (decoded, a JSON member's head peeled), as may one that a diff's ``-``
    may lead: always read."""
    if b"\\" in line or b'"' in line or b"identified" in line or b"sensitive" in line:
        return True
    row = ROW.match(line)
    at = row.end() if row is not None else 0
    if line.startswith(b"+", at):
        at += 1  # a diff's marker, peeled after a row's ``12:``
    header = _KEY_VALUE_HEADER.search(line, at)
    key = None if header is None else _KEY_END.search(line, at, header.start())
    if (
        header is None
        or key is None
        or line.startswith(b"-", at)
        or named_word(line[at:])
        or named_cell(line[at : key.start()])
        or named_cell(line[header.end() :])
        or _CELL_BEFORE.search(line, at, key.start()) is not None
        or (
            _WORDS_VALUE_BYTE.search(line, at) is not None
            and _WORDS_LINE.search(line[at:]) is not None
        )
    ):
        return True
    return table_separator(line[at:]) or False  # none: ``table`` reads nothing


_BELOW_NEXT: Final = re.compile(
    _LINE_BREAK
    + rb"(?:"
    + _LINE_HEAD
    + _LINE_BREAK
    + rb")?"
    + _LINE_HEAD
    + BELOW_LEAD
    + rb"(?:\\{0,7}[\"']|"
    + LONE_VALUE
    + rb"[ \t]*(?:"
    + _LINE_BREAK
    + rb"|$|\\{0,7}\"))",
    re.IGNORECASE,
)
"""After a line that ends with a credential's name, where ``_Reader.below`` finds its value: the
next line (or the one after a blank one) is a string or one word holding a letter and a digit,
after a dump's type or arrow (``string(16) "…"``, ``..=> '…'``)."""
_FOLLOWS: Final[dict[Callable[[bytes], object], Callable[[bytes, int, int], bool]]] = {
    _CONFIRM["alone"]: lambda data, _, end: _QUOTED_NEXT.match(data, end) is not None,
    _CONFIRM["value-below"]: lambda data, _, end: _BELOW_NEXT.match(data, end) is not None,
    _CONFIRM["value-wrapped"]: lambda data, _, end: _WORD_NEXT.match(data, end) is not None,
    _CONFIRM["key-value-table"]: _named_rows,
}
"""Triggers whose reader reads the lines after theirs: what those lines must hold (from the
trigger line's end). ``_CONFIRM["key-value-table"]`` is a test of its own for this (``table``'s
and ``key-value-table``'s tests are the same function)."""
_FOLLOWS_FIRST: Final = frozenset(
    {_CONFIRM["alone"], _CONFIRM["value-below"], _CONFIRM["value-wrapped"]}
)
"""Triggers whose test of the lines after theirs is one anchored match, asked before the line's own
test: most lines that end with a credential word are prose or code (``… no token``), whose next
line holds no value, and the line's test searches every word of it (the 3,776 lines the gate
reports in the benchmark's 100 MB export took 147 ms to confirm, 67 ms with these asked first)."""


_LINE_UNESCAPE: Final = re.compile(rb"\\+([t\"'\\])")


def _line_text(line: bytes) -> bytes:
    """A raw line as text: its JSON escapes of tabs, quotes and backslashes decoded, the head of a
    pretty JSON line (``"Text": "``) dropped and its wrapper peeled."""
    text = (
        _LINE_UNESCAPE.sub(lambda m: b"\t" if m.group(1) == b"t" else m.group(1), line)
        if b"\\" in line
        else line
    )
    head = JSON_LINE.match(text)
    if head is not None:
        text = text[head.end() :]
    return peel(text).strip().rstrip(b"\\")


LINE_MAX: Final = 16384
"""Longest line read for structure: a longer one (no line break within this many bytes either
way) is not a trigger line, with or without the gate."""
_BREAK_BYTES: Final = (b"\n", b"\\n", b"\r", b"\x00", b"\xff", b"\\r")
"""The line breaks, a JSON export's own first (each of its lines is a string: the nearest one
bounds the search for the escaped breaks inside the string)."""
_OTHER_BREAKS: Final = re.compile(rb"\r|\x00|\xff|\\[nr]")
"""The breaks other than a newline."""


def _line_at(data: bytes, pos: int) -> tuple[int, int] | None:
    """``(start, end)`` of the line holding ``pos`` (a break that starts at ``pos`` ends that
    line; the letter of an escaped break belongs to it), or None for a line longer than
    ``LINE_MAX``. Each kind of break is looked for only as far as the nearest one found so far."""
    if 0 < pos < len(data) and data[pos] in b"nr" and data[pos - 1] == 0x5C:
        pos -= 1
    lo = max(0, pos - LINE_MAX)
    # most lines are bounded by a newline each side and hold no other break: three searches
    before = data.rfind(b"\n", lo, pos)
    if before >= 0:
        after = data.find(b"\n", pos, min(len(data), pos + LINE_MAX))
        if after >= 0 and _OTHER_BREAKS.search(data, before + 1, after) is None:
            return before + 1, after
    start = -1
    for brk in _BREAK_BYTES:
        at = data.rfind(brk, max(lo, start - len(brk)), pos)
        if at >= 0:
            start = max(start, at + len(brk))
    if start < 0:
        if lo > 0:
            return None
        start = 0
    hi = min(len(data), pos + LINE_MAX)
    end = hi
    for brk in _BREAK_BYTES:
        at = data.find(brk, pos, end + len(brk) - 1)
        if 0 <= at < end:
            end = at
    if end == hi and hi < len(data):
        return None
    return start, end


def trigger_lines(data: bytes, reports: Sequence[Iterable[int]] | None) -> list[int]:
    """The starts of the lines a trigger's test confirms: those holding a report of the gate
    (``reports``: per trigger, the ends of its matches), or, without the gate (``None``), every
    line holding one of ``TRIGGER_LITERALS``, tried with every test."""
    return sorted(_trigger_bounds(data, reports)[0])


_CALL_KIND: Final = list(TRIGGERS).index("call")
_OTHER_CONFIRMS: Final = [c for n, c in enumerate(_CONFIRMS) if n != _CALL_KIND]


_KINDS_SHIFT: Final = 5
"""A report and its trigger as one number (``end << _KINDS_SHIFT | trigger``), sorted as one."""
assert len(TRIGGERS) <= 1 << _KINDS_SHIFT


def _trigger_bounds(
    data: bytes, reports: Sequence[Iterable[int]] | None
) -> tuple[dict[int, int], dict[int, int] | None, set[int]]:
    """``trigger_lines`` with the end of each line (``{start: end}``) and, with the gate, the
    triggers it reported on each (``{start: bits}``, a bit per trigger in ``TRIGGERS``' order),
    and the lines only the call trigger confirms (read by the call reader alone: a call's line
    is no other reader's, ``auth := fmt.Sprintf("%s:%s", …)`` no pair's).
    The gate's reports of every trigger are taken in the order of the text, so each line is found
    once (``_line_at``), however many triggers report it, and tried once per trigger that does."""
    found: dict[int, int] = {}
    calls: set[int] = set()
    if reports is None:
        spend(len(data))
        tried: set[int] = set()
        for m in TRIGGER_LITERALS.finditer(data.lower()):
            bounds = _line_at(data, m.start())
            if bounds is None or bounds[0] in tried:
                continue
            tried.add(bounds[0])
            spend((bounds[1] - bounds[0]) * len(_CONFIRMS))
            if any(_confirmed(data, *bounds, test, gate) for test, gate in _OTHER_CONFIRMS):
                found[bounds[0]] = bounds[1]
            elif _confirmed(data, *bounds, *_CONFIRMS[_CALL_KIND]):
                found[bounds[0]] = bounds[1]
                calls.add(bounds[0])
        return found, None, calls
    reported: dict[int, int] = {}
    memo: dict[tuple[int, int, bytes], bool] = {}  # a test's verdict by the bytes it reads
    mask = (1 << _KINDS_SHIFT) - 1
    codes = sorted(end << _KINDS_SHIFT | kind for kind, ends in enumerate(reports) for end in ends)
    start, end = -1, -2  # the line of the report before
    kinds = 0  # the triggers reported on it (a bit each)
    work = 0
    for code in codes:
        pos = max(0, (code >> _KINDS_SHIFT) - 1)
        if not (start <= pos <= end and end - start < LINE_MAX - 2):
            bounds = _line_at(data, pos)
            if bounds is None:
                continue
            if bounds[0] != start:
                if kinds:
                    reported[start] = kinds
                kinds = reported.get(bounds[0], 0)
            start, end = bounds
        kind = code & mask
        if kinds >> kind & 1:
            continue  # tried on this line already
        kinds |= 1 << kind
        if start in found and start not in calls:
            continue
        work += 2 * (end - start)
        test, gate = _CONFIRMS[kind]
        if test in _FOLLOWS_FIRST and not _followed(data, start, end, test):
            continue
        confirmed: bool | None
        if end - start > _MEMO_LINE:
            confirmed = _line_confirmed(data, start, end, test, gate)
        else:  # a line printed again (a table's header, a log's line) is confirmed once
            key = (kind, end - start, data[start : end + 2])
            confirmed = memo.get(key)
            if confirmed is None:
                confirmed = _line_confirmed(data, start, end, test, gate)
                if len(memo) < _MEMO_LINES:
                    memo[key] = confirmed
        # (what follows the line is no part of it: asked each time)
        if confirmed and _followed(data, start, end, test):
            if kind == _CALL_KIND:
                calls.add(start)
            else:
                calls.discard(start)
            found[start] = end
    if kinds:
        reported[start] = kinds
    spend(work)
    return found, reported, calls


_MEMO_LINE: Final = 256
_MEMO_LINES: Final = 8192
"""Lines up to ``_MEMO_LINE`` bytes have their confirmation kept, at most ``_MEMO_LINES`` of them."""
_COMMAND: Final = 1 << list(TRIGGERS).index("command")
_RECORDS: Final = 1 << list(TRIGGERS).index("record-header")
_CALL: Final = 1 << list(TRIGGERS).index("call")


_WORDS_LINE: Final = re.compile(
    rb"(?:"
    + _FULL_NAME
    + rb"|community|key|login|identify)[\"']?,?[ \t]+"
    + _WORDS_VALUE
    + rb"|"
    + WIRE_FRAME,
    re.IGNORECASE,
)


_WORDS_VALUE_BYTE: Final = re.compile(rb"[0-9\"']")
"""What a value of ``_WORDS_VALUE`` holds: a quote, or a digit."""


def _words_line(t: bytes, line: Line) -> bool:
    """Line ``line`` of ``t`` (a view: escapes decoded) can hold a directive's value (the words
    trigger's test): only there are its words split. A line with no quote and no digit holds no
    such value, and is not searched."""
    return (
        _WORDS_VALUE_BYTE.search(t, line.start, line.end) is not None
        and _WORDS_LINE.search(t, line.start, line.end) is not None
    )


def structure_hits(
    data: bytes,
    reports: Sequence[Iterable[int]] | None,
    bodies: list[tuple[int, int]],
    body_starts: list[int],
) -> list[Hit]:
    """The credentials the structure around each confirmed trigger line holds (``trigger_lines``
    of the gate's ``reports``, or of every line without the gate), outside the blobs' bodies."""
    out: list[Hit] = []
    window: tuple[int, int, View, Lines] | None = None
    ends, reported, calls = _trigger_bounds(data, reports)
    starts = list(gated_origins(sorted(ends), bodies, body_starts))
    every = _COMMAND | _CALL | _RECORDS
    for i, line_start in enumerate(starts):
        line_end = ends[line_start]
        limit = min(len(data), line_start + LINE_MAX)
        if line_end >= limit and limit < len(data):
            continue  # longer than LINE_MAX from its start
        # a window serves the trigger lines after its own while they lie well inside it
        if window is None or not (
            window[0] <= line_start and line_end + WINDOW_FORWARD // 2 <= window[1]
        ):
            last = starts[bisect.bisect_left(starts, line_end + WINDOW_REACH, i) - 1]
            lo, hi = region(
                data, line_start, line_end, max(WINDOW_FORWARD, last - line_end + WINDOW_FORWARD)
            )
            v = view(data, lo, hi)
            window = (lo, hi, v, text_lines(v.text))
        _, _, v, lines = window
        k = max(0, bisect.bisect_right(lines.begins, v.local(line_start)) - 1)
        line = lines[k]
        if line_start in calls:  # a call's line, and no other trigger's: its literals are read
            found = [f for f in read(v.text, lines, k) if in_literal(v.text, line, f[0], f[1])]
            values = call_values(v.text, lines, k)
            out += _hits(data, v, found + [(a, b, "credential-assignment") for a, b in values])
            continue
        found = read(v.text, lines, k)
        # a command line or a call only on a line the gate reported it on, when the line read is
        # the raw line itself (no escape decoded, the same bounds): the readers' first test is
        # the gate's pattern, so the gate reported every place it holds
        kinds = (
            reported.get(line_start, 0)
            if reported is not None
            and not v.maps
            and v.base + line.begin == line_start
            and v.base + line.end == line_end
            else every
        )
        values = [
            *(command_values(v.text, lines, k) if kinds & _COMMAND else ()),
            *(word_values(v.text, lines, k) if _words_line(v.text, line) else ()),
            *(call_values(v.text, lines, k) if kinds & _CALL else ()),
            *(record_values(v.text, lines, k) if kinds & _RECORDS else ()),
        ]
        found += [(start, end, "credential-assignment") for start, end in values]
        out += _hits(data, v, found)
    return out


def _hits(data: bytes, v: View, found: list[tuple[int, int, str]]) -> list[Hit]:
    """The hits of ``found`` (spans of the view ``v`` of ``data``), at their raw bytes."""
    out: list[Hit] = []
    for start, end, rule in found:
        raw_start, raw_end = v.raw(start, end)
        if start > 0 and v.text[start - 1] == 0x09:
            raw_start = tab_lead(data, raw_start)
        if raw_end <= raw_start or data.startswith(b"[secret", raw_start):
            continue
        out.append(Hit(rule, raw_start, raw_end, v.text[start:end]))
    return out
