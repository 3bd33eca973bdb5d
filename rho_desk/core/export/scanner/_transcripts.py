"""Transcripts: a prompt's command or expression naming a credential, its value on the next lines.

A session holds terminals and REPLs pasted or printed as text: ``$ bw get password grafana``,
``irb(main):001:0> Rails.application.credentials.aws[:secret_access_key]``, ``jshell>
System.getenv("DB_PASS")``, ``127.0.0.1:6379> HGETALL creds``. The value is on the line after
the prompt, alone, and the name that says it is a credential is in the prompt's line. The pass
reads each prompt line (``PROMPT``: a shell's ``$``, ``%`` or ``PS C:\\>``, with or without
``user@host:dir``; the REPLs of Python, IPython, ipdb, pdb, gdb, node, deno, R, irb, pry, the
Rails console, iex, jshell, scala, Clojure, Julia, ghci, ``php -a``, Kotlin, redis-cli), after a
line's wrapper (``12:``, ``path:12:``, ``+``), and its output, the lines up to the next prompt:

* a shell command is read as a tool call's (``_printers.printed_values``): a printer's output
  (``op item get --fields``, ``bw get password``), a reader's of a credential's variable (``echo
  $X_PASSWORD``), a selector naming one (``doppler secrets get DB_PASSWORD --plain``);
* an expression whose last name names a credential (``os.environ['MAPBOX_SECRET']``,
  ``conf.getString("db.password")``, ``Application.get_env(:shop, :stripe_secret)``) gives its
  result, the first output line without the REPL's marker (``=>``, ``$1 ==>``, ``val res0:
  String =``, ``Out[3]:``, ``[1]``, ``Just``) and its quotes, when it is one value: not a literal
  (``undefined``, ``true``), a number, a path, a URL, a structure.

It reads Redis' numbered replies (``1) "requirepass"``, ``2) "X"``: ``CONFIG GET``,
``HGETALL``), prompt or not: the value after a field that names a credential.

Both read the raw text and a JSON string alike (lines broken by ``\\n``, quotes escaped). The
gate finds a prompt at a line's start by its end (``> ``, ``$ ``...), so a ``>`` in code costs
nothing.
"""

from __future__ import annotations

import json
import re
from typing import Final

from ._catalogue import Hit
from ._names import name_is_credential
from ._printers import LINES_MAX, VALUE_MIN, printed_values
from ._rules import Pass
from ._work import spend

__all__ = ["PROMPT_GATE", "REPLY_GATE", "transcript_passes"]

_STARTS_AT: Final = rb'\n[ \t]{0,40}"|\n|\\n|\x00|\xff|(?:: |\[|, ?)"'
"""Where a line starts: after a break (raw or JSON-escaped), a separator, or the quote that opens a
JSON string (after ``: ``, ``[``, ``,`` or a line's indentation)."""
_LINE_START: Final = rb"(?:^|" + _STARTS_AT + rb")"
_LEAD: Final = rb"(?:[\w./\-]{1,200}:\d{1,7}:|\d{1,7}(?::|\t|\\t|\xe2\x86\x92)|\+)?[ \t]*"
"""A line's wrapper before a prompt or a reply: grep's ``path:12:``, a row's ``12:``, a diff's ``+``."""
_SHELL: Final = (
    rb"(?:[\w.\-]{1,40}@[\w.\-]{1,60}[: ][^\n\"\\$%#>]{0,120})?[$%]"  # $, user@host:~/dir$, % (zsh)
    rb"|PS [A-Za-z]:[^\n\">]{0,120}>"  # PowerShell
)
_REPL: Final = (
    rb">>>|>>?|ipdb>|\(Pdb\)|\(gdb\)|In \[\d{1,5}\]:|php >|julia>|ghci>|jshell>|scala>"
    rb"|irb\([^)\n\"]{1,40}\):\d{1,5}(?::\d{1,3})?[>*]|\[\d{1,5}\] pry\([^)\n\"]{1,40}\)>"
    rb"|iex\(\d{1,5}\)>|[\w.\-]{1,40}=>|[\w.\-]{1,60}:\d{2,5}>"
)
_PREFIX: Final = rb"(?:(?P<shell>" + _SHELL + rb")|(?P<repl>" + _REPL + rb"))"
PROMPT_GATE: Final = _LINE_START + _LEAD + rb"(?:" + _SHELL + rb"|" + _REPL + rb") "
"""Where a prompt line can be: a line's start, its wrapper, a prompt and a space (the gate
reports its end: the prompt's last byte is two before it)."""
_PROMPT: Final = re.compile(_LEAD + _PREFIX + rb"\Z")
_MARK: Final = re.compile(rb"[>$%:)] ")
REPLY_GATE: Final = _LINE_START + _LEAD + rb"\d{1,4}\) "
"""Where a numbered reply of Redis can be (its ``) `` ends the report)."""
_STARTS: Final = re.compile(_STARTS_AT)
_OPENS: Final = re.compile(rb'(?:\n[ \t]{0,40}|: |\[|, ?)"\Z')
_EOL: Final = re.compile(rb"\n|\\n|\x00|\xff")
"""A line's end: a break, raw or JSON-escaped, or a separator."""
_QUOTE: Final = re.compile(rb'(?<!\\)"')
_QUOTE_OR_SEPARATOR: Final = re.compile(rb'(?<!\\)"|\x00|\xff')
_SEPARATOR: Final = re.compile(rb"\x00|\xff")
_LOOK_BACK: Final = 400
"""The most bytes from a line's start to its prompt's end (a wrapper, ``user@host:dir``)."""
_OUTPUT_MAX: Final = 4096
"""The most bytes of a prompt's output read."""
_LINE_MAX: Final = 512
"""The longest prompt line read (a command, an expression)."""
_RESULT: Final = re.compile(
    r"(?:=>|\$\d{1,5} ==>|(?:val )?res\d{1,5}: [^=\n]{1,60} =|val \w{1,40}: [^=\n]{1,60} ="
    r"|Out\[\d{1,5}\]:|<|\[1\]|Just|\$\d{1,5} = (?:0x[0-9a-f]{1,16} )?)[ \t]*"
)
"""A REPL's marker before the result it prints."""
_ROW: Final = re.compile(_LEAD.decode("latin-1").replace("\\xe2\\x86\\x92", "\u2192"))
_NAME_SEGMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_LITERALS: Final = frozenset(
    {"undefined", "null", "nil", "none", "true", "false", "nan", "infinity", "ok", "nothing"}
)
_PATH: Final = re.compile(r"[~.]?/?(?:[\w.-]+/)+[\w.-]*\.\w{1,8}|[~.]{0,2}/[\w./-]*")
_REPLY_VALUE: Final = re.compile(
    rb'(\\?)"((?:[^"\\\n]|\\[^n"]){1,4096})\1"[ \t]*(?=\n|\\n|"|\x00|\xff|\Z)'
)


def _line_start(data: bytes, at: int) -> int:
    """Where the line holding ``at`` starts (after a break, a separator or the quote that opens a
    JSON string: ``_STARTS_AT``), or -1 when it is further than ``_LOOK_BACK`` bytes or a quote
    that opens no string is between (no prompt holds a quote)."""
    lo = max(0, at - _LOOK_BACK)
    raw = max(data.rfind(b"\n", lo, at), data.rfind(b"\x00", lo, at), data.rfind(b"\xff", lo, at))
    escaped = data.rfind(b"\\n", lo, at)
    start = max(raw + 1 if raw >= 0 else -1, escaped + 2 if escaped >= 0 else -1)
    if start < 0 and lo == 0:
        start = 0
    quote = data.rfind(b'"', max(lo, start), at)
    if quote >= 0:
        opens = _OPENS.search(data, max(0, quote - 42), quote + 1) is not None
        return quote + 1 if opens else -1
    return start


def _text(raw: bytes, escaped: bool) -> str:
    if escaped:
        try:
            out = json.loads(b'"' + raw + b'"')
        except ValueError:
            out = None
        if isinstance(out, str):
            return out
    return raw.decode("utf-8", "replace")


def _span(data: bytes, start: int, end: int, value: str) -> tuple[int, int] | None:
    """Where ``value`` is in ``data[start:end]``, as it is or JSON-escaped."""
    for form in (value.encode(), json.dumps(value)[1:-1].encode()):
        at = data.find(form, start, end)
        if at >= 0:
            return at, at + len(form)
    return None


def _prompt(data: bytes, m: re.Match[bytes]) -> Hit | None:
    mark = m.start()
    start = _line_start(data, mark)
    if start < 0:
        return None
    prompt = _PROMPT.match(data, start, mark + 1)
    if prompt is None:
        return None
    eol = _EOL.search(data, m.end(), m.end() + _LINE_MAX)
    if eol is None or eol.group() not in (b"\n", b"\\n"):
        return None  # the prompt's line is the text's last: no output
    escaped = eol.group() == b"\\n"  # a JSON string: its end is an unescaped quote
    if escaped and _QUOTE.search(data, m.end(), eol.start()) is not None:
        return None  # the string ends on the prompt's line
    out_start = eol.end()
    out_end, lines = _output(data, out_start, escaped)
    spend(out_end - start)
    line = _text(data[m.end() : eol.start()], escaped)
    output = "\n".join(lines)
    if not output.strip():
        return None
    values = printed_values(line, output) if prompt.group("shell") is not None else []
    values += _result(line, output)
    for value in values:
        span = _span(data, out_start, out_end, value)
        if span is not None:
            return Hit("credential-assignment", span[0], span[1], data[span[0] : span[1]])
    return None


def _output(data: bytes, start: int, escaped: bool) -> tuple[int, list[str]]:
    """A prompt's output from ``start``: its lines (``LINES_MAX`` at most, ``_OUTPUT_MAX`` bytes)
    up to the next prompt line, the text's end or a JSON string's end; and where it ends."""
    ends = _QUOTE_OR_SEPARATOR if escaped else _SEPARATOR
    limit = min(len(data), start + _OUTPUT_MAX)
    lines: list[str] = []
    pos = start
    while pos < limit and len(lines) <= LINES_MAX:
        eol = _EOL.search(data, pos, limit)
        line_end = eol.start() if eol is not None else limit
        end = ends.search(data, pos, line_end)
        text = _text(data[pos : end.start() if end is not None else line_end], escaped)
        row = _ROW.match(text)
        if _is_prompt(text[row.end() :] if row is not None else text):
            return pos, lines  # the next command: its output is not this one's
        lines.append(text)
        if end is not None:
            return end.start(), lines
        if eol is None or eol.group() not in (b"\n", b"\\n"):
            return line_end, lines
        pos = eol.end()
    return pos, lines


def _is_prompt(line: str) -> bool:
    """``line`` starts with a prompt and a space (the next command: the output ends before it)."""
    raw = line.encode("utf-8", "replace")
    return any(
        _PROMPT.match(raw, 0, mark.start() + 1) is not None
        for mark in _MARK.finditer(raw, 0, _LOOK_BACK)
    )


def _names_credential(expression: str) -> bool:
    """The expression's last name names a credential (``ENV["SMTP_PASSWORD"]``)."""
    names = _NAME_SEGMENT.findall(expression)
    return bool(names) and name_is_credential(names[-1])


def _result(expression: str, output: str) -> list[str]:
    if not _names_credential(expression):
        return []
    lines = [line for line in output.split("\n", LINES_MAX) if line.strip()]
    if not lines:
        return []
    first = lines[0].strip()
    row = _ROW.match(first)
    first = first[row.end() :].strip() if row is not None else first
    marker = _RESULT.match(first)
    value = first[marker.end() :] if marker is not None else first
    quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
    if quoted:
        value = value[1:-1]
    elif any(c.isspace() for c in value):
        return []
    return [value] if _standalone(value) else []


def _standalone(value: str) -> bool:
    """A value that can be a credential printed alone: long enough, no literal, number, path,
    URL or structure."""
    if len(value) < VALUE_MIN or value.lower() in _LITERALS or value.isdigit():
        return False
    return not ("://" in value or value[0] in "[{(<#" or _PATH.fullmatch(value) is not None)


def _reply(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """``N) "field"`` naming a credential, then ``N+1) "X"`` on the next line: X."""
    start = _line_start(data, m.start())
    if start < 0:
        return None
    head = re.compile(_LEAD + rb"\d{1,4}\Z").match(data, start, m.start())
    if head is None:
        return None
    field = _REPLY_VALUE.match(data, m.end())
    if field is None:
        return None
    name = field.group(2).decode("utf-8", "replace")
    if not name_is_credential(name):
        return None
    brk = _EOL.match(data, field.end())
    if brk is None or brk.group() not in (b"\n", b"\\n"):
        return None
    nxt = re.compile(_LEAD + rb"\d{1,4}\) ").match(data, brk.end())
    if nxt is None:
        return None
    value = _REPLY_VALUE.match(data, nxt.end())
    if value is None:
        return None
    raw = value.group(2)
    if len(raw) < VALUE_MIN or raw.isdigit():
        return None
    spend(value.end() - m.start())
    return Hit("credential-assignment", value.start(2), value.end(2), raw)


def _transcript(data: bytes, m: re.Match[bytes]) -> Hit | None:
    """A prompt's value, or a reply's (``N) ``: a Redis reply, or pdb's and gdb's prompt)."""
    if data[m.start() : m.start() + 1] == b")":
        hit = _reply(data, m)
        if hit is not None:
            return hit
    return _prompt(data, m)


_BOUNDED: Final = re.compile(rb"\{[12],\d+\}")
_GATE: Final = _BOUNDED.sub(b"+", rb"(?:" + PROMPT_GATE + rb"|" + REPLY_GATE + rb")")
"""``PROMPT_GATE`` or ``REPLY_GATE`` with their bounded repeats made unbounded: a bounded repeat
after every line start cost the gate a third of a scan of PEM header lines. A wider gate only
reports more ends for ``_transcript`` to refuse, so it finds what they find."""
_GATES: Final = tuple(
    _BOUNDED.sub(b"+", gate)
    for gate in (
        _LINE_START + _LEAD + rb"(?:" + _SHELL + rb") ",
        _LINE_START + _LEAD + rb"(?:" + _REPL + rb") ",
        REPLY_GATE,
    )
)
"""``_GATE``'s alternatives, searched each on its own (their ends are its ends): one expression
for the three cost hyperscan 58 ms on 20 MB of a session, the three 24."""


def transcript_passes() -> list[Pass]:
    """The pass of this module, in the form ``SecretScanner`` runs keyword passes: one pass for
    prompts and replies (each pass costs a read of the text)."""
    return [Pass(_MARK, _transcript, anchor=_MARK, gate=(_GATE, 0, 2), alternatives=_GATES)]
