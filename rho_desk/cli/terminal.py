"""The one terminal writer: nothing a session, a model, a tool, a file name, a ledger or a journal
holds can act on the screen rho-desk prints it to.

``show`` prints a conversation, ``sessions`` titles and folders, ``changes`` paths and commands,
``usage`` what Rho recorded, ``continue`` what a model streams, ``trash``, ``team`` and ``audit``
what other tools and other people wrote. Any of it may carry characters a terminal acts on
instead of showing: a carriage return or an escape sequence that moves the cursor, erases a line,
conceals text (SGR 8), makes a link (OSC 8), sets the window title or the clipboard; a
bidirectional override that reorders a line (U+202E); zero-width and other invisible characters.

Every command but the app prints through :func:`shown` (``rho_desk.cli.main`` wraps standard
output and standard error in a :class:`TerminalOutput` for the whole command):

* text: every control character but newline and tab as ``\\x1b``, ``␍``; bidi controls,
  invisible characters and spaces other than U+0020 as ``<U+202E>``
  (:func:`rho_desk.core.text.visible.visible`, as the approval block shows them);
* JSON (``--json``, ``snapshot``): the same characters as JSON escapes (``\\u202e``), so the
  document means exactly what it meant and still shows nothing hidden.

**Piped output is escaped too**: a pager (``less -R``), ``watch``, ``tee`` or a ``| cat`` hands it
to a terminal just the same. ``--raw`` prints text byte for byte, for a program that needs it
(``changes --patch --raw | git apply``); it is refused when standard output is a terminal.
Standard error is always escaped.

A command that draws on the terminal itself (``continue``'s live progress line, the erasing of a
reply that broke off) writes its own sequences with :func:`control`, never text it was given;
and :func:`before_prompt` resets the terminal's attributes before every question it asks.

A new command needs nothing to be safe: whatever it prints to ``sys.stdout``/``sys.stderr`` goes
through :func:`shown`. Code that writes elsewhere (a stream it was handed before ``main`` ran, a
file descriptor) calls :func:`shown` itself.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import Any, Final, TextIO, cast

from ..core.text.visible import map_hidden, visible

__all__ = [
    "RAW_HELP",
    "RESET",
    "TerminalOutput",
    "before_prompt",
    "control",
    "guarded_output",
    "json_shown",
    "shown",
]

RESET: Final = "\x1b[0m\x1b]8;;\x1b\\"
"""What comes before every prompt: attributes back to normal (no conceal, no colour) and any open
hyperlink closed."""

RAW_HELP: Final = (
    "print text byte for byte, control characters and all, for a program to read (refused on a "
    "terminal); without it, control, bidi and invisible characters in what this command prints are "
    "shown as text (\\x1b, ␍, <U+202E>; JSON as \\u202e), on a terminal and piped alike"
)
"""The help of ``--raw``, which every command but the app has (``rho_desk.cli``)."""


def shown(text: str) -> str:
    """``text`` as printed: every control character but newline and tab, every bidi control and
    invisible character shown as text (``\\x1b[2K``, ``␍``, ``<U+202E>``). Idempotent."""
    return visible(text, tabs=True)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code > 0xFFFF:  # a surrogate pair, as JSON spells a character beyond the BMP
        code -= 0x10000
        return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
    return f"\\u{code:04x}"


def json_shown(text: str) -> str:
    """JSON text with every hidden character (``\\u202e``, C1 controls, DEL...) written as its JSON
    escape: the same document, nothing hidden on a screen. Outside a JSON string only
    whitespace can stand, so only characters in strings change, and a newline between values
    stays."""
    return map_hidden(text, _json_escape)


class TerminalOutput:
    """A text stream that writes to ``stream`` through :func:`shown` (or :func:`json_shown`)."""

    def __init__(self, stream: TextIO, *, json: bool = False) -> None:
        self.stream = stream
        self._shown = json_shown if json else shown

    def write(self, text: str) -> int:
        self.stream.write(self._shown(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    @property
    def buffer(self) -> Any:
        """Bytes would pass unseen: there is none (write text)."""
        raise AttributeError("TerminalOutput has no byte buffer: write text")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def control(stream: TextIO, sequence: str) -> None:
    """Write rho-desk's own terminal ``sequence`` (cursor moves, line erasing) as it is: never text
    that came from elsewhere."""
    target = stream.stream if isinstance(stream, TerminalOutput) else stream
    target.write(sequence)


def before_prompt(stream: TextIO) -> None:
    """Reset the terminal (:data:`RESET`) before a question, when ``stream`` is one."""
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        terminal = False
    if terminal:
        control(stream, RESET)


def _wrapped(stream: TextIO | None, *, json: bool) -> TextIO | None:
    if stream is None or isinstance(stream, TerminalOutput):
        return stream
    return cast(TextIO, TerminalOutput(stream, json=json))


@contextlib.contextmanager
def guarded_output(*, raw: bool = False, json: bool = False) -> Iterator[None]:
    """For the ``with`` block, ``sys.stdout`` prints through :func:`shown` (``json``:
    :func:`json_shown`; ``raw``: as it is) and ``sys.stderr`` through :func:`shown`."""
    out, err = sys.stdout, sys.stderr
    if not raw:
        sys.stdout = _wrapped(out, json=json)
    sys.stderr = _wrapped(err, json=False)
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        sys.stdout, sys.stderr = out, err
