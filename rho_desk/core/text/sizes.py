"""A size for a person, one way everywhere: ``512 B``, ``18 KB``, ``4.2 MB`` (binary units)."""

from __future__ import annotations

__all__ = ["size_text"]


def size_text(value: int | None) -> str:
    """``512 B``, ``18 KB``, ``4.2 MB``; empty for an unknown size."""
    if value is None:
        return ""
    if value < 1024:
        return f"{value} B"
    if value < 1024 * 1024:
        return f"{value // 1024} KB"
    return f"{value / 1024 / 1024:.1f} MB"
