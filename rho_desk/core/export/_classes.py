"""The nine content classes of an export and the user's selection among them.

The names are part of the interface (``--include``/``--exclude``, the export dialog, receipts;
architecture.md "Content class names"); the order is the order of the seed's "Export safety"
checklist, split where the issue splits it.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import InputError

__all__ = [
    "ALL_CLASSES",
    "CLASS_NAMES",
    "ContentClass",
    "Selection",
    "UnknownContentClass",
    "parse_classes",
]


class ContentClass(enum.Enum):
    """A kind of sensitive content, valued by its command-line name."""

    INSTRUCTIONS = "instructions"
    """System and project instructions (the ``System`` message)."""
    USER = "user"
    """User text (not attached documents)."""
    ASSISTANT = "assistant"
    """Assistant text of completed and aborted turns."""
    TOOL_RECORDS = "tool_records"
    """Tool-call arguments and tool results: file contents, diffs, command output, URLs."""
    IMAGES = "images"
    """Base64 image data."""
    DOCUMENTS = "documents"
    """Extracted document text, file names, MIME types, truncation notices, extraction warnings."""
    REASONING_SUMMARIES = "reasoning_summaries"
    """Provider-written reasoning summaries."""
    PROVIDER_CONTEXT = "provider_context"
    """Opaque provider replay blocks (and their portable fallbacks)."""
    METADATA = "metadata"
    """Custom snapshot metadata and the prompt-cache key."""

    def __str__(self) -> str:
        return self.value


ALL_CLASSES: tuple[ContentClass, ...] = tuple(ContentClass)
CLASS_NAMES: tuple[str, ...] = tuple(c.value for c in ContentClass)


class UnknownContentClass(InputError):
    """A class name that is not one of the nine; the text lists the valid names."""


def parse_classes(
    text: str | Iterable[str], *, source: str | None = None
) -> frozenset[ContentClass]:
    """Class names separated by commas (or an iterable of names) as a set.

    Names are case-insensitive; ``-`` is accepted for ``_``; blanks are ignored; ``all`` and
    ``none`` stand for every class and for no class.

    Raises:
        UnknownContentClass: a name is not a content class (the message lists the valid ones).
    """
    items = text.split(",") if isinstance(text, str) else list(text)
    chosen: set[ContentClass] = set()
    unknown: list[str] = []
    for raw in items:
        name = raw.strip().lower().replace("-", "_")
        if not name or name == "none":
            continue
        if name == "all":
            chosen.update(ContentClass)
            continue
        try:
            chosen.add(ContentClass(name))
        except ValueError:
            unknown.append(raw.strip())
    if unknown:
        raise UnknownContentClass(
            f"unknown content class {', '.join(repr(u) for u in unknown)}; "
            f"valid classes: {', '.join(CLASS_NAMES)} (or all, none)",
            source=source,
        )
    return frozenset(chosen)


@dataclass(frozen=True)
class Selection:
    """Which classes leave the machine. Secrets are redacted whatever the selection."""

    included: frozenset[ContentClass]

    @classmethod
    def everything(cls) -> Selection:
        return cls(frozenset(ALL_CLASSES))

    @classmethod
    def including(cls, classes: Iterable[ContentClass]) -> Selection:
        return cls(frozenset(classes))

    @classmethod
    def excluding(cls, classes: Iterable[ContentClass]) -> Selection:
        return cls(frozenset(ALL_CLASSES) - frozenset(classes))

    @property
    def excluded(self) -> frozenset[ContentClass]:
        return frozenset(ALL_CLASSES) - self.included

    def includes(self, cls: ContentClass) -> bool:
        return cls in self.included

    def included_names(self) -> list[str]:
        """Included class names in the canonical order."""
        return [c.value for c in ALL_CLASSES if c in self.included]

    def excluded_names(self) -> list[str]:
        """Excluded class names in the canonical order."""
        return [c.value for c in ALL_CLASSES if c not in self.included]
