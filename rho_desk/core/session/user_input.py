"""User input: the content of the user message a run (or a steering request) appends."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from ..errors import InvalidConfiguration
from ..wire.model import ContentBlock, ImageContent

__all__ = ["UserInput", "as_blocks"]


class UserInput(msgspec.Struct, frozen=True):
    """The blocks of one ``User`` message. Build it with ``text``, ``text_and_images`` or ``content``."""

    blocks: tuple[ContentBlock, ...]

    @classmethod
    def text(cls, text: str) -> UserInput:
        """``[Text(text)]``; the empty string is allowed."""
        return cls((ContentBlock(text=text),))

    @classmethod
    def text_and_images(cls, text: str, images: Iterable[ImageContent]) -> UserInput:
        """``[Text(text), Image, ...]``."""
        return cls((ContentBlock(text=text), *(ContentBlock(image=i) for i in images)))

    @classmethod
    def content(cls, blocks: Iterable[ContentBlock]) -> UserInput:
        """Arbitrary blocks.

        Raises:
            InvalidConfiguration: ``blocks`` is empty.
        """
        blocks = tuple(blocks)
        if not blocks:
            raise InvalidConfiguration("user input must contain at least one content block")
        return cls(blocks)


def as_blocks(value: UserInput | str) -> tuple[ContentBlock, ...]:
    """The blocks of a ``UserInput``, or of plain text."""
    if isinstance(value, str):
        return (ContentBlock(text=value),)
    if isinstance(value, UserInput):
        return value.blocks
    raise TypeError(f"expected UserInput or str, not {type(value).__name__}")
