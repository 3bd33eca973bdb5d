"""Small text helpers for labels: plurals, sizes, message times, and shortening at a word boundary."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ...core.text.sizes import size_text  # one way to say a size, shared with the command line

if TYPE_CHECKING:
    from ...core.stores.rho_files import RevisionNode
    from ...core.stores.rho_files.queries import TreeQueries
    from ...core.stores.summary import SessionSummary

__all__ = [
    "listed_title",
    "message_time",
    "plural",
    "revision_words",
    "session_title",
    "shorten",
    "size_text",
]


def listed_title(summary: SessionSummary) -> str:
    """A session's title in the session list: its title, else the first prompt's first line,
    else the short id."""
    if summary.title:
        return summary.title
    if summary.first_user_message:
        return summary.first_user_message.strip().splitlines()[0]
    return f"Session {summary.id[:8]}"


def session_title(summary: SessionSummary | None, fallback: str) -> str:
    """What the window calls a session (the session list's title: its title in Rho's index, else
    the first line of its first prompt), else ``fallback`` when the library has neither."""
    if summary is None or not (summary.title or (summary.first_user_message or "").strip()):
        return fallback
    return listed_title(summary)


def revision_words(tree: TreeQueries | None, node: RevisionNode) -> str:
    """``revision 9``, or ``revision 9 (node 3fa2c1d0)`` when another node of the open tree has
    the same number (see :meth:`TreeQueries.revision_name`)."""
    return tree.revision_name(node) if tree is not None else f"revision {node.revision}"


def message_time(stamp: str | None, fmt: str) -> str:
    """A message's timestamp (Rho's seconds since 1970, as text) in ``fmt``, local time; ``""``
    when it has none. A snapshot document carries no times (its messages read ``"0"``): that is
    "unknown", never January 1970."""
    if not stamp or not stamp.isdigit() or int(stamp) == 0:
        return ""
    try:
        return time.strftime(fmt, time.localtime(int(stamp)))
    except (OverflowError, OSError, ValueError):
        return ""


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 revision``, ``3 revisions``, ``1,204 messages`` (``nouns`` for irregular plurals)."""
    word = (
        noun
        if count == 1
        else (nouns or (noun + "es" if noun.endswith(("s", "sh", "ch", "x")) else noun + "s"))
    )
    return f"{count:,} {word}"


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters, cut after a whole word and marked ``…``.

    A single word longer than most of the room is cut inside the word rather than leaving
    almost nothing.
    """
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    room = line[: limit - 1]
    cut = room.rfind(" ")
    if cut >= limit * 0.6:
        room = room[:cut]
    return room.rstrip(" ,;:.-") + "…"
