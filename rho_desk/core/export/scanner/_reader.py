"""The tolerant reader: name → value pairs from a few lines of text, whatever their syntax.

``_structure`` hands it a window of text (escapes decoded) and the line a trigger was confirmed
on; ``read`` reads what that line starts, as its syntax says, and returns the spans of the values
that hold a credential:

* the pairs named on the line (``NAME: …``, ``NAME = …``, ``"NAME": …``, several on one line),
  their value wherever it is: on the line, quoted or bare; on the following lines as a YAML block
  scalar (``|``, ``>-``), a quoted or plain scalar continued, a value the terminal wrapped
  (``wrapped``), a TOML triple-quoted string, a heredoc
  (``<<EOT``, ``<<-EOT``), a value continued with a backslash; an object or a mapping below the name,
  whose value fields (``value``, ``default``, ``data``…) hold what the name names;
* ``NAME value`` alone on a line (redis.conf, msmtprc, Dockerfile's ``ENV``), an XML element
  whose text is on the next line;
* a name given in a field of its own (``name:``/``value:``, ``<name>``/``<value>``,
  ``ParameterKey``/``ParameterValue``), terraform's ``"sensitive": true``, a Kubernetes
  ``Secret``'s ``data`` and ``stringData``, SQL's ``SET PASSWORD FOR … = '…'``;
* a table whose header names a credential column (CSV, TSV, Markdown, aligned columns), or whose
  rows are pairs (a ``Key  Value`` header).

Nothing here gives up on a fragment: a line that reads as nothing yields nothing. The lines come
from ``_lines``, their wrappers (``12:``, ``12→``, ``path:12:``, diff and hashline markers)
peeled, so their offsets stay those of the text; a table's lines are split by ``_tables``. The
credential grammar decides for every pair (``name_is_credential``, ``literal_value``).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Final

from ._joined import JOIN_END, joined_text, pieces
from ._lines import JSON_OPEN, JSON_ROW, ROW, Line, Lines
from ._named import XML_VALUE, sibling_text, value_child
from ._tables import (
    KEY_WORD,
    RULER,
    cells,
    credential_name,
    header,
    last_cell_word,
    named_cell,
    named_word,
    pairs_header,
    table_header,
    table_separator,
)
from ._values import REFERENCE_TAGS, list_item, literal_value

__all__ = ["CONTINUATION", "credential_name", "read", "table_header"]


def _blank(t: bytes, line: Line) -> bool:
    return line.start + line.indent >= line.end


# --- values -------------------------------------------------------------------------------------------

_HEAD: Final = re.compile(
    rb"(?:export[ \t]+|env[ \t]+|set[ \t]+|setenv[ \t]+|declare[ \t]+-x[ \t]+|-[ \t]+)?"
    rb"(?P<q>[\"'`]?)(?P<name>[A-Za-z_@$][A-Za-z0-9_.\-/@$\[\]]{0,120})(?P=q)[ \t]*"
    rb"(?P<sep>::=|:=|=>|\?=|\+=|=|:(?=[ \t]|$|[\"'{\[|>]))[ \t]*",
    re.IGNORECASE,
)
_BLOCK: Final = re.compile(rb"(?:!{1,2}[A-Za-z]{1,16}[ \t]+)?([|>])[+\-]?[0-9]?[ \t]*(?:#.*)?$")
_TAGGED: Final = re.compile(rb"!{1,2}(?P<tag>[A-Za-z_]{1,16})(?:[ \t]|$)")
_HEREDOC: Final = re.compile(
    rb"<<<?(?P<dash>[\-~]?)[\"']?(?P<word>[A-Za-z_][A-Za-z0-9_]{0,30})[\"']?(?:\.[A-Za-z_][A-Za-z0-9_]{0,20}(?:\(\))?)*[ \t]*[;,)]?[ \t]*$"
)
"""``<<EOT``, ``<<-EOT``, ``<<~EOT``, ``<<~TOKEN.strip`` (Ruby: a method called on the string)."""
_HEREDOC_CLOSE: Final = b";,)]}\"' \t"
"""What may follow a heredoc's closing word on its line: PHP's ``EOT;`` (``EOT,`` and ``EOT)`` in
a call), the quote and brace that close the JSON the text was in."""
_TRIPLE: Final = re.compile(rb"(\"\"\"|''')")
_COMMENT_TAIL: Final = re.compile(rb"[ \t]+[#;].*$")
_ARGUMENT: Final = re.compile(rb"(?!-[ \t])[^ \t][^\n]*[ \t][A-Za-z_][^\s=]*=\t?\Z")
"""Words, then ``NAME=`` (an argument: ``docker run -e NAME=value image``): the value is one word."""
_WORD_END: Final = re.compile(rb"[\s\"'`;|&]")
CONTINUATION: Final = rb"(?=[^\s]*[A-Za-z0-9])[A-Za-z0-9+/_.~\-]{4,}={0,2}"
"""A line that goes on with a value from the line before: one word of a token's bytes (base64's
padding at its end; ``NAME=value`` is a line of its own)."""
_CONTINUATION: Final = re.compile(CONTINUATION)
_DIGIT: Final = re.compile(rb"[0-9]")
BELOW_LEAD: Final = rb"(?:[^\s\"'\\]{1,40}?=>[ \t]*)?(?:string\([0-9]{1,7}\)[ \t]+)?"
"""What may lead a value on the line below its name: an arrow after a log's prefix (``..=> ``),
a dump's type (var_dump's ``string(16) ``)."""
LONE_VALUE: Final = (
    rb"(?=[^\s\\]{0,200}[0-9])(?=[^\s\\]{0,200}[A-Za-z])"
    rb"[A-Za-z0-9+/_.~!@%^&*?][A-Za-z0-9+/_.~!@#%^&*?\-]{7,199}={0,2}"
)
"""One word that reads as a value, alone on its line: eight characters or more, a letter and a
digit among them, no quote, bracket, separator or sign of a name or a variable (``:``, ``=``,
``$``)."""
_BELOW: Final = re.compile(
    rb"(?:(?<=[^A-Za-z0-9_.\-])|^)[\"']?(?P<name>(?:[A-Za-z]{2,16}[ \t])?[A-Za-z_][A-Za-z0-9_.\-]{0,120})"
    rb"[\"']?(?:(?::[^\]\n]{0,160})?\])?[ \t]*(?:=>|:)?\Z"
    rb"|^(?P<noun>(?:[A-Za-z]{2,16}[ \t])?[A-Za-z_][A-Za-z0-9_.\-]{0,120})[ \t]+(?:for|of)[ \t][^\n:]{1,60}:\Z"
)
"""A line that ends with a name, one word or two (``Client secret:``, ``… secret key``,
``["password"]=>``, ``'password' =>``), or begins with one and what it is for
(``Password for the reporting DB:``)."""
_BELOW_VALUE: Final = re.compile(
    BELOW_LEAD
    + rb"(?:(?P<q>[\"'])(?P<quoted>[^\n]*?)(?P=q)[ \t]*,?|(?P<bare>"
    + LONE_VALUE
    + rb"))\Z"
)
_WRAP_WIDTH: Final = 60
"""The shortest line a terminal wraps a value at (columns before the value's end)."""
_VALUE_FIELD_NAMES: Final = (
    "value values default defaultvalue data plaintext plain content current secret secretstring"
    " secret_string stringvalue string_value val parametervalue text"
)
VALUE_FIELDS: Final = frozenset(_VALUE_FIELD_NAMES.split())
"""Fields that hold the value a credential name above or beside them names (``value:`` under
``db_password:``, ``ParameterValue`` beside ``ParameterKey``)."""
NAME_FIELDS: Final = frozenset(
    {
        "name",
        "key",
        "parameterkey",
        "variable",
        "envvar",
        "env_var",
        "param",
        "field",
        "id",
        "label",
        "type",
    }
)
_LINES_MAX: Final = 400
"""Most lines one value (a block, a heredoc, a table) is read over."""

Span = tuple[int, int]


def _trimmed(t: bytes, start: int, end: int) -> Span:
    while start < end and t[start] in b" \t":
        start += 1
    while end > start and t[end - 1] in b" \t\r":
        end -= 1
    return start, end


def _quoted_end(t: bytes, pos: int, end: int, quote: int) -> int:
    """The closing ``quote`` of a string opening before ``pos`` (backslash escapes, and ``''``
    in single quotes), or -1 before ``end``."""
    mark = bytes((quote,))
    i = pos
    while i < end:
        close = t.find(mark, i, end)
        if quote == 0x22:
            escape = t.find(b"\\", i, end if close < 0 else close)
            if escape >= 0:
                i = escape + 2  # the escaped byte is skipped
                continue
        elif quote == 0x27 and 0 <= close < end - 1 and t[close + 1] == 0x27:
            i = close + 2
            continue
        return close
    return -1


@dataclass(slots=True)
class _Reader:
    t: bytes
    lines: Lines
    out: list[tuple[int, int, str]]
    """Value spans found: (start, end, rule)."""
    rule: str = "credential-assignment"

    # -- a value, wherever it is ------------------------------------------------------------------

    def value(
        self, i: int, pos: int, indent: int, name: bytes, *, forced: bool, inline: bool
    ) -> None:
        """The value that starts at ``pos`` on line ``i`` (the name's indent ``indent``)."""
        t, line = self.t, self.lines[i]
        rest_end = line.end
        rest = t[pos:rest_end]
        if not rest.strip() or (rest.lstrip().startswith((b"#", b"//")) and not inline):
            self.children(i, indent, name, forced=forced)
            return
        block = _BLOCK.match(t, pos, rest_end)
        if block is not None:
            tag = _TAGGED.match(t, pos, rest_end)
            if tag is not None and tag.group("tag").lower() == b"vault":
                return  # Ansible Vault: ciphertext
            self.block(i, indent, name, forced=forced)
            return
        tag = _TAGGED.match(t, pos, rest_end)
        if tag is not None:
            if tag.group("tag").lower() in REFERENCE_TAGS:
                return  # a reference (CloudFormation, YAML loaders)
            pos = tag.end()
            while pos < rest_end and t[pos] in b" \t":
                pos += 1
        if t.startswith(b"&", pos):  # a YAML anchor: the value follows it
            sp = t.find(b" ", pos, rest_end)
            if sp < 0:
                self.children(i, indent, name, forced=forced)
                return
            pos = sp + 1
        opened = _OPENER.match(t, pos, rest_end)
        if opened is not None and not t[opened.end() : rest_end].strip():
            self.until(
                i, _closer(opened), name, forced=forced
            )  # Nix's '', Lua's [[, Rust's r#", %q(
            return
        if opened is not None and (close := t.find(_closer(opened), opened.end(), rest_end)) >= 0:
            self.add(
                opened.end(), close, name, forced=forced, quoted=True, kind=b"quoted"
            )  # r#"…"# on its line
            return
        prefix = _QUOTE_PREFIX.match(t, pos, rest_end)
        if prefix is not None:
            pos = prefix.end()  # C#'s @"…", Python's r"…"
        lead = _HEREDOC_IN.match(t, pos, rest_end)  # $(cat <<EOF
        heredoc = _HEREDOC.match(t, pos if lead is None else lead.end(), rest_end)
        if heredoc is not None:
            self.heredoc(i, heredoc.group("word"), name, forced=forced)
            return
        triple = _TRIPLE.match(t, pos, rest_end)
        if triple is not None:
            self.triple(i, pos + 3, triple.group(1), name, forced=forced)
            return
        c = t[pos]
        if c in b"\"'`":
            close = _quoted_end(t, pos + 1, rest_end, c)
            joined = pieces(t, pos + 1, close) if close >= 0 else []  # "ab" + "cd", 'ab'"cd"
            if joined and JOIN_END.fullmatch(t, joined[-1][1] + 1, rest_end) is not None:
                self.joined(i, name, forced=forced, first=joined)  # "ab" + on the next lines
            elif len(joined) > 1:
                if joined_text(t, joined) is not None:  # not "Bearer " + "<token>"
                    self.add_lines(joined, name, forced=forced)
            elif close >= 0:
                self.add(pos + 1, close, name, forced=forced, quoted=True, kind=b"quoted")
            else:
                self.continued_quote(i, pos + 1, c, name, forced=forced)
            return
        if c == 0x7B or c == 0x5B:  # { or [
            self.nested(i, pos, name, forced=forced)
            return
        if (
            c == 0x28 and not t[pos + 1 : rest_end].strip()
        ):  # ( alone: strings joined over the next lines
            self.joined(i, name, forced=forced)
            return
        # a bare value: to the end of the line, less a comment; inline, to the next separator, the
        # quote closing the string of pairs, or the space before the next NAME= (logfmt, conninfo)
        if _ARGUMENT.match(t, line.start + line.indent, pos) is not None:
            stop = _WORD_END.search(t, pos, rest_end)
        else:
            stop = (_INLINE_STOP if inline else _COMMENT_TAIL).search(t, pos, rest_end)
        end = stop.start() if stop is not None else rest_end
        start, end = _trimmed(t, pos, end)
        if end > start and t[end - 1] == 0x5C:  # continued with a backslash (Java properties)
            self.continued_backslash(i, start, name, forced=forced)
            return
        found = len(self.out)
        self.add(start, end, name, forced=forced, quoted=False, kind=b"bare")
        if len(self.out) > found and stop is None and not inline:
            self.out.extend((s, e, self.rule) for s, e in self.wrapped(i, indent, end))

    def add(
        self, start: int, end: int, name: bytes, *, forced: bool, quoted: bool, kind: bytes
    ) -> None:
        start, end = _trimmed(self.t, start, end)
        if end <= start:
            return
        value = self.t[start:end]
        if not (forced or credential_name(name)) or b"[secret " in value:
            return  # not a credential's, or redacted already
        if not literal_value(value, quoted=quoted or kind != b"bare", name=name):
            return
        self.out.append((start, end, self.rule))

    def add_lines(self, spans: list[Span], name: bytes, *, forced: bool) -> None:
        """A value over several lines: judged whole, reported line by line."""
        spans = [_trimmed(self.t, s, e) for s, e in spans]
        spans = [(s, e) for s, e in spans if e > s]
        if not spans or not (forced or credential_name(name)):
            return
        whole = b" ".join(self.t[s:e] for s, e in spans)
        if b"[secret " in whole or not literal_value(whole, quoted=True, name=name):
            return
        self.out.extend((s, e, self.rule) for s, e in spans)

    # -- the forms of a value on the following lines --------------------------------------------------

    def following(self, i: int, indent: int) -> list[int]:
        """The lines after ``i`` indented deeper than ``indent`` (blank ones inside included)."""
        out: list[int] = []
        k = i + 1
        while k < len(self.lines) and len(out) < _LINES_MAX:
            line = self.lines[k]
            if _blank(self.t, line):
                out.append(k)
                k += 1
                continue
            if line.indent <= indent:
                break
            out.append(k)
            k += 1
        while out and _blank(self.t, self.lines[out[-1]]):
            out.pop()
        return out

    def block(self, i: int, indent: int, name: bytes, *, forced: bool) -> None:
        spans = [(self.lines[k].start, self.lines[k].end) for k in self.following(i, indent)]
        self.add_lines(spans, name, forced=forced)

    def heredoc(self, i: int, word: bytes, name: bytes, *, forced: bool) -> None:
        spans: list[Span] = []
        for k in range(i + 1, min(len(self.lines), i + 1 + _LINES_MAX)):
            line = self.lines[k]
            text = self.t[line.start : line.end].strip()
            if text.startswith(word) and not text[len(word) :].strip(_HEREDOC_CLOSE):
                self.add_lines(spans, name, forced=forced)
                return
            spans.append((line.start, line.end))
        self.add_lines(spans, name, forced=forced)  # unterminated: the rest of the window

    def triple(self, i: int, pos: int, quote: bytes, name: bytes, *, forced: bool) -> None:
        t = self.t
        spans = []
        line = self.lines[i]
        close = t.find(quote, pos, line.end)
        if close >= 0:
            self.add(pos, close, name, forced=forced, quoted=True, kind=b"quoted")
            return
        spans.append((pos, line.end))
        for k in range(i + 1, min(len(self.lines), i + 1 + _LINES_MAX)):
            line = self.lines[k]
            close = t.find(quote, line.start, line.end)
            if close >= 0:
                spans.append((line.start, close))
                break
            spans.append((line.start, line.end))
        self.add_lines(spans, name, forced=forced)

    def continued_quote(self, i: int, pos: int, quote: int, name: bytes, *, forced: bool) -> None:
        t = self.t
        spans = [(pos, self.lines[i].end)]
        for k in range(i + 1, min(len(self.lines), i + 1 + 20)):
            line = self.lines[k]
            close = _quoted_end(t, line.start, line.end, quote)
            if close >= 0:
                spans.append((line.start, close))
                break
            spans.append((line.start, line.end))
        self.add_lines(spans, name, forced=forced)

    def until(self, i: int, closer: bytes, name: bytes, *, forced: bool) -> None:
        """A string opened at the end of line ``i``: the lines after it up to ``closer``."""
        spans: list[Span] = []
        for k in range(i + 1, min(len(self.lines), i + 1 + _LINES_MAX)):
            line = self.lines[k]
            close = self.t.find(closer, line.start, line.end)
            if close >= 0:
                spans.append((line.start, close))
                break
            spans.append((line.start, line.end))
        self.add_lines(spans, name, forced=forced)

    def joined(self, i: int, name: bytes, *, forced: bool, first: list[Span] | None = None) -> None:
        """String literals joined over the next lines: ``NAME = (`` up to ``)``, or ``NAME = "ab" +``
        (``first``) while a line ends with the operator (``+``, ``.``, ``..``, ``&``)."""
        t = self.t
        spans: list[Span] = list(first) if first is not None else []
        for k in range(i + 1, min(len(self.lines), i + 1 + 50)):
            line = self.lines[k]
            text = t[line.start + line.indent : line.end]
            if text.startswith(b")"):
                break
            for m in _STRING.finditer(t, line.start, line.end):
                spans.append((m.start() + 1, m.end() - 1))
            if first is not None and JOIN_END.search(text) is None:
                break
        self.add_lines(spans, name, forced=forced)

    def continued_backslash(self, i: int, start: int, name: bytes, *, forced: bool) -> None:
        t = self.t
        spans = [(start, self.lines[i].end - 1)]
        k = i
        while k + 1 < len(self.lines) and k - i < 50:
            k += 1
            line = self.lines[k]
            s, e = _trimmed(t, line.start, line.end)
            if e > s and t[e - 1] == 0x5C:
                spans.append((s, e - 1))
                continue
            spans.append((s, e))
            break
        self.add_lines(spans, name, forced=forced)

    def wrapped(self, i: int, indent: int, end: int) -> list[Span]:
        """The rest of a bare value that ends line ``i`` (at ``end``), one word a line: a YAML
        plain scalar goes on over the lines indented deeper than its name (``indent``); a value
        the terminal wrapped goes on at the next line's start, once, when its own line is
        ``_WRAP_WIDTH`` columns or longer and the rest holds a digit."""
        t, lines = self.t, self.lines
        spans: list[Span] = []
        for k in range(i + 1, min(len(lines), i + 1 + _LINES_MAX)):
            line = lines[k]
            s, e = _trimmed(t, line.start, line.end)
            if _CONTINUATION.fullmatch(t, s, e) is None:
                break
            if line.indent > indent:
                spans.append((s, e))
                continue
            if (
                not spans
                and line.indent == 0
                and end - lines[i].start >= _WRAP_WIDTH
                and _DIGIT.search(t, s, e) is not None
            ):
                spans.append((s, e))
            break
        return spans

    def children(self, i: int, indent: int, name: bytes, *, forced: bool) -> None:
        """A mapping under ``name`` (YAML): its value fields hold what ``name`` names; an XML
        element's text on the next lines."""
        t = self.t
        credential = forced or credential_name(name)
        for n, k in enumerate(k for k in self.following(i, indent) if not _blank(t, self.lines[k])):
            line = self.lines[k]
            text = t[line.start + line.indent : line.end]
            head = _HEAD.match(text)
            if head is None:
                if credential and text.startswith(b"- "):
                    # a list under the name (``api_keys:`` / ``- X``, ``basic_auth:`` / ``- "u:X"``)
                    self.item(line.start + line.indent + 2, line.end, name)
                    continue
                if n == 0 and credential and not text.startswith((b"#", b"//", b"<")):
                    # the value on the next line (YAML, INI, Kotlin, JSON: ``password:`` then it)
                    self.value(
                        k, line.start + line.indent, line.indent, name, forced=True, inline=False
                    )
                    return
                continue
            child = head.group("name")
            if child.lower().decode("ascii", "replace") in VALUE_FIELDS and credential:
                self.value(
                    k,
                    line.start + line.indent + head.end(),
                    line.indent,
                    name,
                    forced=True,
                    inline=False,
                )

    def nested(self, i: int, pos: int, name: bytes, *, forced: bool) -> None:
        """An object (``{``) or list (``[``) under ``name``, on this line or over the next ones."""
        t = self.t
        credential = forced or credential_name(name)
        depth = 0
        k = i
        start = pos
        region: list[tuple[int, int, int]] = []  # (line, start, end) of the object's text
        while k < len(self.lines) and k - i < _LINES_MAX:
            line = self.lines[k]
            j = start
            end = line.end
            while j < end:
                c = t[j]
                if c in b"\"'":
                    close = _quoted_end(t, j + 1, end, c)
                    j = end if close < 0 else close + 1
                    continue
                if c in b"{[(":
                    depth += 1
                elif c in b"}])":
                    depth -= 1
                    if depth == 0:
                        end = j + 1
                        break
                j += 1
            region.append((k, start, end))
            if depth <= 0:
                break
            k += 1
            if k < len(self.lines):
                start = self.lines[k].start
        if (
            (forced or credential)
            and t[pos] == 0x5B
            and not any(b"{" in t[s:e] for _, s, e in region)
        ):
            # a list of strings as the value itself (Keeper's ``"value": ["X"]``), or a list of
            # them under a credential name (``"api_keys": ["X", "Y"]``)
            for _, s, e in region:
                for m in _STRING.finditer(t, s, e):
                    if t[m.end() : e].lstrip().startswith(b":"):
                        continue
                    if forced:
                        self.add(
                            m.start() + 1,
                            m.end() - 1,
                            name,
                            forced=True,
                            quoted=True,
                            kind=b"quoted",
                        )
                    else:
                        self.item(m.start(), m.end(), name)
            return
        sensitive = any(_SENSITIVE.search(t, s, e) is not None for _, s, e in region)
        if not credential and not sensitive:
            return
        for k, s, e in region:
            for head in _INLINE_HEAD.finditer(t, s, e):
                child = head.group("name").lower().decode("ascii", "replace")
                if child in VALUE_FIELDS:
                    self.value(k, head.end(), self.lines[k].indent, name, forced=True, inline=True)

    def item(self, start: int, end: int, name: bytes) -> None:
        """One item of a list under a credential name (``- X``, ``["X", "Y"]``): ``list_item``."""
        start, end = _trimmed(self.t, start, end)
        if end - start >= 2 and self.t[start] in b"\"'" and self.t[end - 1] == self.t[start]:
            start, end = start + 1, end - 1
        at = list_item(self.t[start:end], name)
        if at is not None:
            self.out.append((start + at, end, self.rule))

    # -- names not beside their values ---------------------------------------------------------------

    def pairs(self, i: int) -> None:
        """Every pair whose name is on line ``i``."""
        t, line = self.t, self.lines[i]
        text_start = line.start + line.indent
        first = True
        for head in _INLINE_HEAD.finditer(t[text_start : line.end]):
            name = head.group("name")
            inline = not first or _inline_before(t, text_start, text_start + head.start())
            first = False
            if credential_name(name):
                self.value(
                    i, text_start + head.end(), line.indent, name, forced=False, inline=inline
                )
        self.spaced(i)

    def spaced(self, i: int) -> None:
        """``NAME value`` alone on its line (redis.conf, msmtprc, Dockerfile's ``ENV NAME value``)."""
        t, line = self.t, self.lines[i]
        m = _SPACED.match(t, line.start + line.indent, line.end)
        if m is None:
            return
        name = m.group("name")
        if not credential_name(name):
            return
        start, end = m.span("value")
        if m.group("define") is not None and _NUMBER.fullmatch(t, start, end) is not None:
            return  # #define SECRET_KEY_ADDR 0x0800F000: an address, a length
        env = m.group("env") is not None
        if not env and b" " in t[start:end] and t[start] not in b"\"'":
            return  # prose: more than one word after the name
        if t[end - 1] in b".,;:!?" and t[start : end - 1].isalpha():
            return  # prose: "password combination."
        if t[start] in b"\"'" and end - start >= 2 and t[end - 1] == t[start]:
            start, end = start + 1, end - 1
            self.add(start, end, name, forced=False, quoted=True, kind=b"quoted")
            return
        self.add(start, end, name, forced=False, quoted=env, kind=b"spaced")

    def name_field(self, i: int) -> None:
        """A name given in a field of its own (``name: DB_PASSWORD``, ``<name>…</name>``,
        ``ParameterKey=…``): the value field beside it (same line) or among the lines of the
        same item (up to three lines either way, as deep as the name field or deeper)."""
        t, line = self.t, self.lines[i]
        fields = list(_NAME_FIELD.finditer(t, line.start, line.end))
        for n, m in enumerate(fields):
            named = m.group("named")
            if not credential_name(named):
                continue
            # the same line: the value field between this name field and the next one (or, when
            # none follows, the one right before it: ParameterValue=…,ParameterKey=…)
            lo = fields[n - 1].end() if n > 0 else line.start
            hi = fields[n + 1].start() if n + 1 < len(fields) else line.end
            after = [h for h in _INLINE_HEAD.finditer(t, m.end(), hi) if _field(h) in VALUE_FIELDS]
            before = [
                h for h in _INLINE_HEAD.finditer(t, lo, m.start()) if _field(h) in VALUE_FIELDS
            ]
            heads = after[:1] or before[-1:]
            for head in heads:
                self.value(i, head.end(), line.indent, named, forced=True, inline=True)
            xml = XML_VALUE.search(t, m.end(), hi) or sibling_text(t, m, hi, self.lines, i)
            if xml is not None:
                self.add(
                    xml.start("value"),
                    xml.end("value"),
                    named,
                    forced=True,
                    quoted=True,
                    kind=b"xml",
                )
            if heads or xml is not None:
                continue
            indent = line.indent + (2 if t.startswith(b"- ", line.start + line.indent) else 0)
            for k in (
                *range(i + 1, min(len(self.lines), i + 4)),
                *range(i - 1, max(-1, i - 4), -1),
            ):
                other = self.lines[k]
                if _blank(t, other):
                    continue
                if other.indent < indent - (2 if k < i else 0) and not t.startswith(
                    b"<", other.start + other.indent
                ):
                    break
                text_start = other.start + other.indent
                if t.startswith(b"- ", text_start) and k != i:
                    break  # the next item
                xml = XML_VALUE.search(t, other.start, other.end)
                if xml is not None:
                    self.add(
                        xml.start("value"),
                        xml.end("value"),
                        named,
                        forced=True,
                        quoted=True,
                        kind=b"xml",
                    )
                    break
                field = _HEAD.match(t, text_start, other.end)
                if (
                    field is not None
                    and field.group("name").lower().decode("ascii", "replace") in VALUE_FIELDS
                ):
                    self.value(k, field.end(), other.indent, named, forced=True, inline=False)
                    break

    def alone(self, i: int) -> None:
        """A line that ends with a credential name (SQL's ``PASSWORD`` or ``IDENTIFIED BY``, PHP's
        ``define(`` then ``'DB_PASSWORD',``): a quoted value on the next line is its value."""
        t, line = self.t, self.lines[i]
        begins = self.lines.begins
        after = begins[i + 3] if i + 3 < len(begins) else len(t)
        if i + 1 >= len(begins) or (
            t.find(b'"', begins[i + 1], after) < 0 and t.find(b"'", begins[i + 1], after) < 0
        ):
            return  # no quote on the next two lines
        # the value: a string that starts the next line holding anything (of the next two)
        nxt = next(
            (
                self.lines[k]
                for k in range(i + 1, min(len(self.lines), i + 3))
                if not _blank(t, self.lines[k])
            ),
            None,
        )
        if nxt is None or t[nxt.start + nxt.indent] not in b"\"'":
            return
        m = _ALONE.fullmatch(t, line.start + line.indent, _trimmed(t, line.start, line.end)[1])
        if m is None or not (m.group("name") is None or credential_name(m.group("name"))):
            return
        name = m.group("name") or b"password"
        string = _STRING.match(t, nxt.start + nxt.indent, nxt.end)
        if string is not None and not t[string.end() : nxt.end].strip(b" \t,;)"):
            self.add(
                string.start() + 1,
                string.end() - 1,
                name,
                forced=False,
                quoted=True,
                kind=b"quoted",
            )

    def below(self, i: int) -> None:
        """A line that ends with a credential's name (``Client secret:``, var_dump's
        ``["password"]=>``, a minisign comment ``… secret key``): the value alone on the next
        line, or the one after a blank one (``_BELOW_VALUE``)."""
        t, lines = self.t, self.lines
        nxt = next((k for k in range(i + 1, min(len(lines), i + 3)) if not _blank(t, lines[k])), -1)
        if nxt < 0:
            return
        below = lines[nxt]
        m = _BELOW_VALUE.match(t, *_trimmed(t, below.start + below.indent, below.end))
        if m is None:
            return
        line = lines[i]
        head = _BELOW.search(t, *_trimmed(t, line.start + line.indent, line.end))
        if head is None:
            return
        name = head.group("name") or head.group("noun")
        if m.group("q") is not None:
            self.add(*m.span("quoted"), name, forced=False, quoted=True, kind=b"quoted")
        else:
            self.add(*m.span("bare"), name, forced=False, quoted=False, kind=b"bare")

    def sensitive(self, i: int) -> None:
        """terraform's ``"sensitive": true``: the ``value`` of the object around it."""
        t = self.t
        # the object: back from the word to its opening brace, then read as a nested value
        found = _SENSITIVE.search(t, self.lines[i].start, self.lines[i].end)
        depth = 0
        for k in range(i, max(-1, i - 40), -1):
            line = self.lines[k]
            end = found.start() if k == i and found is not None else line.end
            j = end - 1
            while j >= line.start:
                c = t[j]
                if c in b"}]":
                    depth += 1
                elif c in b"{[":
                    if depth == 0:
                        self.nested(k, j, b"sensitive", forced=True)
                        return
                    depth -= 1
                j -= 1

    def kubernetes_secret(self, i: int) -> None:
        """A Secret manifest: every value under ``data`` and ``stringData`` (YAML or JSON)."""
        t = self.t
        self.rule = "kubernetes-secret"
        first = i
        while (
            first > 0 and i - first < 200 and not self.lines[first - 1].text(t).startswith(b"---")
        ):
            first -= 1
        last = i
        while (
            last + 1 < len(self.lines)
            and last - i < _LINES_MAX
            and not self.lines[last + 1].text(t).startswith(b"---")
        ):
            last += 1
        for k in range(first, last + 1):
            line = self.lines[k]
            text = t[line.start + line.indent : line.end]
            for head in _INLINE_HEAD.finditer(text):
                if head.group("name") not in (b"data", b"stringData"):
                    continue
                pos = line.start + line.indent + head.end()
                rest = t[pos : line.end].strip()
                if rest.startswith((b"{", b"[")):
                    self.entries(k, pos)
                elif not rest or rest.startswith(b"#"):
                    children = self.following(k, line.indent)
                    depth = min(
                        (self.lines[c].indent for c in children if not _blank(t, self.lines[c])),
                        default=0,
                    )
                    for c in children:
                        child = self.lines[c]
                        h = _HEAD.match(t, child.start + child.indent, child.end)
                        if h is not None and child.indent == depth:
                            self.value(
                                c, h.end(), child.indent, h.group("name"), forced=True, inline=False
                            )

    def entries(self, i: int, pos: int) -> None:
        """Every value of the JSON object opening at ``pos`` (a Secret's ``data``)."""
        t = self.t
        depth = 0
        k = i
        start = pos
        while k < len(self.lines) and k - i < _LINES_MAX:
            line = self.lines[k]
            for head in _INLINE_HEAD.finditer(t, start, line.end):
                self.value(k, head.end(), line.indent, head.group("name"), forced=True, inline=True)
            depth += t.count(b"{", start, line.end) - t.count(b"}", start, line.end)
            if depth <= 0:
                return
            k += 1
            if k < len(self.lines):
                start = self.lines[k].start

    def sql(self, i: int) -> None:
        """``SET PASSWORD FOR 'u'@'h' = 'PASS'`` (or ``= PASSWORD('PASS')``)."""
        t, line = self.t, self.lines[i]
        for m in _SQL_FOR.finditer(t, line.start, line.end):
            q = (m.group("q") or m.group("q2"))[0]
            close = _quoted_end(t, m.end(), line.end, q)
            if close < 0 and all(_blank(t, later) for later in self.lines[i + 1 : i + 3]):
                close = line.end  # the text ends first (a fragment): the value runs to its end
            if close > m.end():
                self.add(m.end(), close, b"password", forced=True, quoted=True, kind=b"quoted")

    def table(self, i: int) -> None:
        """A header naming a credential column (its cells below), or a key/value table's header
        (its rows are pairs)."""
        t, line = self.t, self.lines[i]
        head_of = header(t[line.start + line.indent : line.end])
        if head_of is None:
            return
        sep, names, pairs, columns, key = head_of
        if not pairs and self.pairs_header_above(i):
            return  # a row of a key/value table above, not a header
        last = min(len(self.lines), i + 1 + _LINES_MAX)
        if pairs and not columns and i + 1 < last:
            last = self.last_named_row(i, last, sep, key)  # a credential is named by a row's cell
            if last < 0:
                return
        bare = self.bare(i)
        for k in range(i + 1, last):
            row_start = self.row_start(k, bare=bare)
            row = t[row_start : self.lines[k].end]
            stripped = row.strip()
            if not stripped:
                break
            if RULER.fullmatch(stripped):
                continue
            got = cells(row, sep)
            if len(got) < 2 or (sep != b"  " and abs(len(got) - len(names)) > 1):
                break
            if pairs and key + 1 < len(got):
                name = got[key][0].strip(b" \"'")
                if credential_name(name):  # (``add`` asks the same first)
                    _, s, e = got[key + 1]
                    self.cell(row_start + s, row_start + e, name, forced=False)
            for col in columns:
                if col < len(got):
                    _, s, e = got[col]
                    self.cell(row_start + s, row_start + e, names[col], forced=False)

    def row_start(self, k: int, *, bare: bool) -> int:
        """Where row ``k`` begins (under a header with no wrapper, ``bare``: at a ``  12 | `` cell)."""
        t, row = self.t, self.lines[k]
        if bare and row.start > row.begin and _NUMBER_CELL.fullmatch(t, row.begin, row.start):
            return row.end - len(t[row.begin : row.end].lstrip(b" \t"))
        return row.start + row.indent

    def bare(self, i: int) -> bool:  # no wrapper on header i: none on its rows (psql's `  1 | `)
        t, line = self.t, self.lines[i]
        head = JSON_OPEN.match(t, line.begin, line.end) or JSON_ROW.match(t, line.begin, line.end)
        return ROW.match(t, line.begin if head is None else head.end(), line.end) is None

    def last_named_row(self, i: int, last: int, sep: bytes, key: int) -> int:
        """Rows to read: up to the last whose cell in column ``key`` holds a ``CELL_WORDS`` word
        (-1: none)."""
        begins, lowered, first = self.lines.begins, self.lines.lowered, self.lines.begins[i + 1]
        end = begins[last] if last < len(begins) else len(self.t)
        at = last_cell_word(self.t, lowered, sep, first, end)
        bare = self.bare(i) if at >= 0 else False
        while at >= 0:
            k = bisect.bisect_right(begins, at, i + 1, last) - 1
            got = cells(self.t[self.row_start(k, bare=bare) : self.lines[k].end], sep)
            if key < len(got) and named_cell(got[key][0].lower()):
                return k + 1
            at = last_cell_word(self.t, lowered, sep, first, begins[k])
        return -1

    def pairs_header_above(self, i: int) -> bool:
        """One of the ``_ROWS_ABOVE`` lines above line ``i`` is a key/value table's header: only
        the lines that hold ``value`` and a word of ``KEY_HEADERS`` (``KEY_WORD``) are split."""
        begins = self.lines.begins
        first = max(0, i - _ROWS_ABOVE)
        lowered = self.lines.lowered
        end = begins[i]
        at = lowered.find(b"value", begins[first], end)
        while at >= 0:
            k = bisect.bisect_right(begins, at, first, i) - 1
            if KEY_WORD.search(lowered, begins[k], begins[k + 1]) and self.pairs_header(k):
                return True
            at = lowered.find(b"value", begins[k + 1], end)  # the next line holding one
        return False

    def pairs_header(self, k: int) -> bool:
        known = self.lines.pairs_headers.get(k)
        if known is None:
            line = self.lines[k]
            text = self.t[line.start + line.indent : line.end]
            sep = table_separator(text) if b"value" in text.lower() else None
            known = self.lines.pairs_headers[k] = sep is not None and pairs_header(
                [c.strip(b" \"'") for c, _, _ in cells(text, sep)]
            )  # (no "Value" cell: the line is split only when it can hold one)
        return known

    def cell(self, start: int, end: int, name: bytes, *, forced: bool) -> None:
        t = self.t
        start, end = _trimmed(t, start, end)
        if end - start >= 2 and t[start] in b"\"'" and t[end - 1] == t[start]:
            start, end = start + 1, end - 1
        self.add(start, end, name, forced=forced, quoted=True, kind=b"cell")

    def xml_element(self, i: int) -> None:
        """``<password>`` ending its line: the element's text on the lines before its end tag."""
        t, line = self.t, self.lines[i]
        for m in _XML_OPEN.finditer(t, line.start, line.end):
            name = m.group("name")
            if not credential_name(name):
                continue
            close = b"</" + name
            spans = []
            for k in range(i + 1, min(len(self.lines), i + 20)):
                other = self.lines[k]
                at = t.find(close, other.start, other.end)
                if at >= 0:
                    spans.append((other.start, at - 3 if t.startswith(b"]]>", at - 3) else at))
                    self.add_lines(value_child(t, spans) or spans, name, forced=False)
                    break  # without its end tag, <your-api-key> is a placeholder, not an element
                spans.append((other.start, other.end))


_INLINE_HEAD: Final = re.compile(
    rb"(?:(?<=[\s{,(\[;|])|^|(?<=\\t)|(?<=: \")|(?<=:\"))(?:export[ \t]+|-[ \t]+)?(?P<q>[\"'`]?)(?P<name>[A-Za-z0-9_@$][A-Za-z0-9_.\-/@$]{0,120})(?P=q)[ \t]*"
    rb"(?P<sep>::=|:=|=>|\?=|\+=|=(?!=)|:(?=[ \t]|$|[\"'{\[|>]))[ \t]*",
)
_SPACED: Final = re.compile(
    rb"(?:(?P<env>(?i:env|setenv|setx))[ \t]+|(?i:export|set)[ \t]+|(?P<define>(?:#[ \t]*|`|%)(?:define|global))[ \t]+)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,120})[ \t]+"
    rb"(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"'=:#](?:[^ \t]|[ \t]+(?!#))*?)[ \t]*(?:[ \t]#.*)?$"
)
_NUMBER: Final = re.compile(rb"(?:0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]{0,3}")
"""A C integer literal (``0x0800F000``, ``32u``)."""
_NAME_FIELD: Final = re.compile(
    rb"(?i:name|key|parameterkey|variable|envvar|env_var|param|field|id|label|type)[\"']?[ \t]*(?:[:=]|>)[ \t]*[\"']?(?P<named>[A-Za-z0-9_.\-/]{1,120})"
)
_XML_OPEN: Final = re.compile(
    rb"<(?P<name>[A-Za-z_][A-Za-z0-9_.\-:]{0,80})(?:[ \t][^<>]*)?>(?:<!\[CDATA\[)?[ \t]*$"
)
_ALONE: Final = re.compile(
    rb".*?(?i:identified[ \t]+by)|(?:.*?[\s(,])?[\"']?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,120})[\"']?,?"
)
_SENSITIVE: Final = re.compile(rb"sensitive[\"']?[ \t]*[:=][ \t]*[\"']?true", re.IGNORECASE)
_SQL_FOR: Final = re.compile(
    rb"password[ \t]+for[ \t]+[^=;\n]{1,200}?=[ \t]*(?:(?:old_)?password[ \t]*\([ \t]*)?N?(?P<q>['\"])|set[ \t]+password[ \t]*=[ \t]*(?:password[ \t]*\([ \t]*)?N?(?P<q2>['\"])",
    re.IGNORECASE,
)
_NUMBER_CELL: Final = re.compile(rb"[ \t]*[0-9]{1,7}[ \t]*\|[ \t]?")
"""What ``ROW`` peels as ``  12 | `` and is, under a header without a wrapper, a table's first cell."""
_OPENER: Final = re.compile(
    rb"''|\[(?P<eq>=*)\[|r(?P<hash>#{1,3})\"|%[qQwW]?(?P<bracket>[({\[<])|<!\[CDATA\["
)
"""A string that opens at the end of a line and closes on a later one (``_closer``): Nix's ``''``,
Lua's ``[[``/``[==[``, Rust's ``r#"``, Ruby's ``%q(``, XML's CDATA."""
_INLINE_STOP: Final = re.compile(rb"[,;})\]\"']|[ \t]+[A-Za-z_][A-Za-z0-9_.\-]{0,120}=")
_HEREDOC_IN: Final = re.compile(rb"[\"']?\$\((?:cat|echo)[ \t]+(?=<<)")
_QUOTE_PREFIX: Final = re.compile(rb"(?:@|\$@|@\$|[rRbBuUfF]{1,2})(?=[\"'])")
_STRING: Final = re.compile(rb"\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*'")


def _closer(opened: re.Match[bytes]) -> bytes:
    if opened.group("eq") is not None:
        return b"]" + opened.group("eq") + b"]"
    if opened.group("hash") is not None:
        return b'"' + opened.group("hash")
    if opened.group("bracket") is not None:
        return {b"(": b")", b"{": b"}", b"[": b"]", b"<": b">"}[opened.group("bracket")]
    return b"]]>" if opened.group().startswith(b"<!") else b"''"


def _field(head: re.Match[bytes]) -> str:
    return head.group("name").lower().decode("ascii", "replace")


def _inline_before(t: bytes, start: int, at: int) -> bool:
    """A pair at ``at`` sits inside braces or parentheses opened earlier on its line."""
    before = t[start:at]
    return before.count(b"{") + before.count(b"(") + before.count(b"[") > before.count(
        b"}"
    ) + before.count(b")") + before.count(b"]")


_ROWS_ABOVE: Final = 40
"""How far above a header a key/value table's header makes it one of its rows instead."""


_K8S: Final = re.compile(
    rb"kind[\"']?[ \t]*:[ \t]*[\"']?secret[\"']?(?:[ \t]*(?:,|\}|$))", re.IGNORECASE
)


def read(t: bytes, lines: Lines, i: int) -> list[tuple[int, int, str]]:
    """The values (``(start, end, rule)`` in ``t``) holding a credential that line ``i`` of
    ``lines`` (``text_lines(t)``) names, begins, or heads."""
    reader = _Reader(t, lines, [])
    line = lines[i]
    text = t[line.start : line.end]
    lowered = text.lower()
    # each reader whose pattern holds a word only where the line holds it
    if b"secret" in lowered and _K8S.search(text) is not None:
        reader.kubernetes_secret(i)
        reader.rule = "credential-assignment"
    if b"sensitive" in lowered and _SENSITIVE.search(text) is not None:
        reader.sensitive(i)
    if b"password" in lowered and (
        b" for " in lowered or b"\tfor " in lowered or b"set " in lowered
    ):
        reader.sql(i)
    reader.table(i)
    # the readers below find a value only under a credential name on the line: not where the
    # line holds no credential word (a table's header, a row, prose)
    named = named_word(lowered)
    if named:
        reader.name_field(i)
        if b"<" in text:
            reader.xml_element(i)
        reader.pairs(i)
    if named or b"identified" in lowered:
        reader.alone(i)
    if named or b"key" in lowered:
        reader.below(i)
    return reader.out
