"""Small text helpers for labels: plurals and sizes."""

from __future__ import annotations

__all__ = ["plural", "size_text"]


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 revision``, ``3 revisions``, ``1,204 messages`` (``nouns`` for irregular plurals)."""
    word = noun if count == 1 else (nouns or (noun + "es" if noun.endswith(("s", "sh", "ch", "x")) else noun + "s"))
    return f"{count:,} {word}"


def size_text(value: int | None) -> str:
    """``512 B``, ``18 KB``, ``4.2 MB``."""
    if value is None:
        return ""
    if value < 1024:
        return f"{value} B"
    if value < 1024 * 1024:
        return f"{value // 1024} KB"
    return f"{value / 1024 / 1024:.1f} MB"
