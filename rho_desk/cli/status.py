"""Exit statuses and the one-line failure every subcommand prints (see the package's docstring).

Kept apart from the parser so that subcommand modules, which the parser imports, import no part
of it back.
"""

from __future__ import annotations

import sys

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_PROBLEMS", "fail"]

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_BAD_INPUT = 2


def fail(message: str, status: int = EXIT_BAD_INPUT) -> int:
    """Print one line to stderr and return ``status``.

    The message may quote what a session file chose (its folder, a title, a line): every
    control character, escape sequence and invisible character in it is shown as text
    (:func:`~rho_desk.core.text.visible.visible`), so that it cannot rewrite the words it sits in,
    such as the options a refusal tells the user to type.
    """
    from ..core.text.visible import visible

    print(f"rho-desk: {visible(message)}", file=sys.stderr)
    return status
