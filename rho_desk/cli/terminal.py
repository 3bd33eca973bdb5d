"""What the commands print on a terminal: nothing a session file holds can act on it.

``show`` prints a conversation, ``sessions`` titles and folders, ``changes`` paths and commands,
``trash``, ``team`` and ``usage`` what other tools and other people wrote. Any of it may carry
control characters: a carriage return or an escape sequence that rewrites what is on the screen,
sets the window title or, on some terminals, the clipboard. When standard output is a terminal,
:func:`guard_stdout` shows every C0 and C1 control character but newline and tab as text
(``\\x1b``, ``␍``, as :mod:`rho_desk.core.visible` does for approvals). Piped or redirected
output is left byte for byte as it is, and JSON never holds a raw control character anyway.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Final, TextIO, cast

from ..core.visible import visible

__all__ = ["TerminalOutput", "guard_stdout"]

_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _shown(match: re.Match[str]) -> str:
    return visible(match.group())


class TerminalOutput:
    """A text stream that writes to ``stream`` with control characters shown as text."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(_CONTROL.sub(_shown, text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def guard_stdout() -> None:
    """Wrap ``sys.stdout`` in a :class:`TerminalOutput` when it is a terminal."""
    stream = sys.stdout
    if stream is None or isinstance(stream, TerminalOutput):
        return
    try:
        terminal = stream.isatty()
    except (AttributeError, ValueError):
        return
    if terminal:
        sys.stdout = cast(TextIO, TerminalOutput(stream))
