"""Rho's message wire format: the one definition of every persisted message type.

Rho writes externally tagged JSON (``{"User": [{"Text": "hi"}]}``). Each tagged enum here is a
frozen struct with one optional field per variant, renamed to the variant's wire name, and a
check that exactly one is set; msgspec then decodes and encodes it directly, in C, without an
intermediate dict (measured: 100k messages in ~120 ms against ~1.1 s for pydantic).

Field order is declaration order and equals upstream's. Omission rules follow spec/engine.md §2:
``omit_defaults`` drops optional fields equal to their default; fields that must always be
written but may be missing on read use a ``default_factory`` (msgspec never omits those).

Values are immutable (frozen structs, tuples), so histories can be shared between a session,
its snapshots and its clones without copying. The one exception is arbitrary JSON payloads
(``ToolCall.arguments``, ``ProviderContextBlock.data``): plain dicts and lists, kept in
insertion order, which callers must treat as read-only.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator
from typing import Annotated, Any, Final, TypeAlias

import msgspec
from msgspec import field
from msgspec.structs import force_setattr

__all__ = [
    "PORTABLE_FALLBACK_KIND",
    "U64",
    "U64_MAX",
    "AbortedAssistant",
    "AssistantMessage",
    "ContentBlock",
    "ImageContent",
    "Message",
    "MessageKind",
    "ModelIdentity",
    "ModelUsage",
    "PartialToolCall",
    "ProviderContextBlock",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "check_u64",
]

U64_MAX: Final = 2**64 - 1
PORTABLE_FALLBACK_KIND: Final = "rho.sdk.portable_fallback.v1"


def check_u64(name: str, value: int | None) -> None:
    """Reject values above 2^64-1 (msgspec already rejects negatives and floats)."""
    if value is not None and value > U64_MAX:
        raise ValueError(f"`{name}` is above the largest 64-bit unsigned integer")


def _empty() -> tuple[Any, ...]:
    # A default_factory, not a default: msgspec never omits such fields when encoding, which is
    # how "defaults to [] when missing on read, but always written" is expressed.
    return ()


U64: TypeAlias = Annotated[int, msgspec.Meta(ge=0)]
"""An unsigned 64-bit integer on the wire (the upper bound is checked in ``__post_init__``)."""


class ModelIdentity(msgspec.Struct, frozen=True, gc=False):
    """The exact provider/API/model that produced something. Equality is exact, case-sensitive."""

    provider: str
    """Provider name on the wire, e.g. ``openai``."""
    api: str
    """API family, e.g. ``responses`` or ``anthropic-messages``."""
    model: str
    """Model id as the provider names it."""

    def __str__(self) -> str:
        return f"{self.provider}/{self.api}/{self.model}"


EMPTY_IDENTITY: Final = ModelIdentity("", "", "")


class ImageContent(msgspec.Struct, frozen=True, gc=False):
    """An image inside a message."""

    data: str
    """Standard base64 of the image bytes, without a ``data:`` prefix."""
    mime_type: str
    """``image/png``, ``image/jpeg``, ``image/gif`` or ``image/webp`` in practice."""

    @staticmethod
    def mime_type_from_bytes(header: bytes) -> str | None:
        """Recognise PNG, JPEG, GIF and WebP by their magic bytes."""
        if header.startswith(b"\x89PNG\r\n\x1a\n"):
            return "image/png"
        if header.startswith(b"\xff\xd8\xff"):
            return "image/jpeg"
        if header.startswith((b"GIF87a", b"GIF89a")):
            return "image/gif"
        if header.startswith(b"RIFF") and header[8:12] == b"WEBP":
            return "image/webp"
        return None


class ToolCall(msgspec.Struct, frozen=True, gc=False):
    """A tool call made by the model (or by the host)."""

    id: str
    """Provider-assigned call id; a ToolResult with the same id answers it."""
    name: str
    """Tool name as registered."""
    arguments: Any
    """Arbitrary JSON; protocol validation requires an object. Key order is preserved."""


class ContentBlock(
    msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True, gc=False
):
    """One block of User/Assistant content: exactly one of Text, Image, ToolCall."""

    text: str | None = field(default=None, name="Text")
    image: ImageContent | None = field(default=None, name="Image")
    tool_call: ToolCall | None = field(default=None, name="ToolCall")

    def __post_init__(self) -> None:
        if (self.text is not None) + (self.image is not None) + (self.tool_call is not None) != 1:
            raise ValueError("a content block needs exactly one of `Text`, `Image`, `ToolCall`")

    @classmethod
    def of_text(cls, text: str) -> ContentBlock:
        if cls is not ContentBlock or text is None:
            return cls(text=text)
        block = _copy_block(_TEXT_BLOCK)  # as Message.user_text
        force_setattr(block, "text", text)
        return block

    @classmethod
    def of_image(cls, data: str, mime_type: str) -> ContentBlock:
        return cls(image=ImageContent(data, mime_type))

    @classmethod
    def of_tool_call(cls, id: str, name: str, arguments: Any) -> ContentBlock:
        if cls is not ContentBlock:
            return cls(tool_call=ToolCall(id, name, arguments))
        block = _copy_block(_CALL_BLOCK)  # as Message.user_text
        force_setattr(block, "tool_call", ToolCall(id, name, arguments))
        return block


class ToolSpec(msgspec.Struct, frozen=True, gc=False):
    """A tool as offered to the model (not persisted; counted by the token estimate)."""

    name: str
    description: str
    input_schema: Any
    """JSON Schema of the arguments object."""


class ToolResult(msgspec.Struct, frozen=True, gc=False):
    """The result of one tool call, as its own message."""

    id: str
    """The id of the ToolCall this answers."""
    ok: bool
    """False when the tool reported an error; ``content`` is then the error text."""
    content: str
    """Tool output text (file contents, command output, ...)."""


class PartialToolCall(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A streamed tool call as far as it got before a turn was aborted."""

    id: str | None = None
    """Last id seen in the stream; written as ``null`` when none arrived."""
    name: str | None = None
    """Last name seen in the stream; written as ``null`` when none arrived."""
    arguments: str
    """Raw, possibly incomplete argument JSON text."""


class ProviderContextBlock(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """Opaque provider-native context (encrypted reasoning, signed thinking blocks, ...).

    Replayable only to the exact identity that produced it. A block of kind
    ``rho.sdk.portable_fallback.v1`` with no position and string data is instead the portable
    plain-text fallback of its message and is never replayed.
    """

    identity: ModelIdentity
    """The exact provider/API/model that produced the block."""
    kind: str
    """Provider-specific kind, e.g. ``anthropic_content_block``."""
    position: U64 | None = None
    """Position among the provider's output items; omitted when absent."""
    data: Any
    """Arbitrary JSON, opaque to rho-desk (may be ``null``)."""

    def __post_init__(self) -> None:
        check_u64("position", self.position)

    @property
    def is_portable_fallback(self) -> bool:
        return (
            self.kind == PORTABLE_FALLBACK_KIND
            and self.position is None
            and isinstance(self.data, str)
        )

    def is_replayable_to(self, target: ModelIdentity) -> bool:
        return not self.is_portable_fallback and self.identity == target


def _with_fallback(
    blocks: tuple[ProviderContextBlock, ...], text: str, provenance: ModelIdentity | None
) -> tuple[ProviderContextBlock, ...]:
    kept = tuple(b for b in blocks if not b.is_portable_fallback)
    fallback = ProviderContextBlock(
        identity=provenance if provenance is not None else EMPTY_IDENTITY,
        kind=PORTABLE_FALLBACK_KIND,
        data=text,
    )
    return (*kept, fallback)


def _first_fallback(blocks: tuple[ProviderContextBlock, ...]) -> str | None:
    for block in blocks:
        if block.is_portable_fallback:
            return block.data  # type: ignore[no-any-return]
    return None


class ModelUsage(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Token and cost figures of a model request. Every key is always written (``null`` if unknown).

    ``input_tokens`` is the uncached input only, and absent (not 0) when the cache split is unknown.
    """

    input_tokens: U64 | None = None
    output_tokens: U64 | None = None
    cache_read_tokens: U64 | None = None
    cache_write_tokens: U64 | None = None
    total_tokens: U64 | None = None
    context_window: U64 | None = None
    cost_usd_micros: U64 | None = None
    """Cost in millionths of a US dollar."""

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            value = getattr(self, name)
            check_u64(name, value)

    @property
    def is_empty(self) -> bool:
        return all(getattr(self, name) is None for name in self.__struct_fields__)

    def saturating_add(self, other: ModelUsage) -> ModelUsage:
        """Merge usage within a turn or across steps; ``context_window`` takes the latest."""

        def add(a: int | None, b: int | None) -> int | None:
            if a is None and b is None:
                return None
            return min((a or 0) + (b or 0), U64_MAX)

        return ModelUsage(
            input_tokens=add(self.input_tokens, other.input_tokens),
            output_tokens=add(self.output_tokens, other.output_tokens),
            cache_read_tokens=add(self.cache_read_tokens, other.cache_read_tokens),
            cache_write_tokens=add(self.cache_write_tokens, other.cache_write_tokens),
            total_tokens=add(self.total_tokens, other.total_tokens),
            context_window=(
                other.context_window if other.context_window is not None else self.context_window
            ),
            cost_usd_micros=add(self.cost_usd_micros, other.cost_usd_micros),
        )

    __add__ = saturating_add

    def total_input_tokens(self) -> int | None:
        parts = (self.input_tokens, self.cache_read_tokens, self.cache_write_tokens)
        if all(p is None for p in parts):
            return None
        return min(sum(p or 0 for p in parts), U64_MAX)

    def inclusive_prompt_tokens(self) -> int | None:
        """Prompt size including cache hits: max(input + cache, total - output)."""
        base = self.total_input_tokens()
        rest = None
        if self.total_tokens is not None and self.output_tokens is not None:
            rest = max(self.total_tokens - self.output_tokens, 0)
        if base is not None and rest is not None:
            return max(base, rest)
        return base if base is not None else rest

    @classmethod
    def from_inclusive_prompt(
        cls,
        prompt: int | None,
        output: int | None = None,
        cache_read: int | None = None,
        cache_write: int | None = None,
        reported_total: int | None = None,
        context_window: int | None = None,
        cost_usd_micros: int | None = None,
    ) -> ModelUsage:
        """For providers whose prompt count includes cache hits (OpenAI-style usage)."""
        input_tokens = None
        if prompt is not None and (cache_read is not None or cache_write is not None):
            input_tokens = max(prompt - (cache_read or 0) - (cache_write or 0), 0)
        total: int | None
        if reported_total is not None:
            total = reported_total
        elif prompt is not None and output is not None:
            total = min(prompt + output, U64_MAX)
        else:
            total = prompt
        return cls(
            input_tokens=input_tokens,
            output_tokens=output,
            cache_read_tokens=cache_read,
            cache_write_tokens=cache_write,
            total_tokens=total,
            context_window=context_window,
            cost_usd_micros=cost_usd_micros,
        )


class AssistantMessage(msgspec.Struct, frozen=True, omit_defaults=True, gc=False):
    """A completed assistant turn with provenance (payload of ``EnrichedAssistant``)."""

    content: tuple[ContentBlock, ...] = field(default_factory=_empty)
    """Always written, even when empty; ``[]`` when missing on read."""
    provenance: ModelIdentity | None = None
    """The identity that produced the message; omitted when absent."""
    reasoning_summary: str | None = None
    """Provider-written reasoning summary; omitted when absent. Raw reasoning is never kept."""
    provider_context: tuple[ProviderContextBlock, ...] = ()
    """Opaque replay blocks plus the portable fallback, if any; omitted when empty."""
    portable_fallback: str | None = None
    """Legacy input key only: folded into ``provider_context`` on read, never written."""

    def __post_init__(self) -> None:
        if self.portable_fallback is not None:
            force_setattr(
                self,
                "provider_context",
                _with_fallback(self.provider_context, self.portable_fallback, self.provenance),
            )
            force_setattr(self, "portable_fallback", None)

    def portable_fallback_text(self) -> str | None:
        """The plain-text stand-in for opaque context: the first fallback block's text."""
        return _first_fallback(self.provider_context)

    def with_portable_fallback(self, text: str) -> AssistantMessage:
        return msgspec.structs.replace(
            self, provider_context=_with_fallback(self.provider_context, text, self.provenance)
        )

    def retain_portable_context(self) -> AssistantMessage:
        """Drop every provider-context block except portable fallbacks."""
        return msgspec.structs.replace(
            self, provider_context=tuple(b for b in self.provider_context if b.is_portable_fallback)
        )


class AbortedAssistant(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, gc=False):
    """What an interrupted (cancelled or failed) assistant turn had produced."""

    content: tuple[ContentBlock, ...]
    """Captured text blocks and completed tool calls, in stream order."""
    reasoning: str
    """Raw reasoning: always ``""`` once sanitized (snapshots clear it)."""
    provenance: ModelIdentity | None = None
    reasoning_summary: str | None = None
    provider_context: tuple[ProviderContextBlock, ...] = ()
    tool_calls: tuple[PartialToolCall, ...]
    """Every streamed tool call, complete or not, by stream index."""
    usage: ModelUsage
    """Usage of the interrupted attempt (may be all ``null``)."""

    def portable_fallback_text(self) -> str | None:
        return _first_fallback(self.provider_context)

    def sanitized(self) -> AbortedAssistant:
        return self if self.reasoning == "" else msgspec.structs.replace(self, reasoning="")


class MessageKind(enum.Enum):
    """The six message variants, valued by their wire names."""

    SYSTEM = "System"
    USER = "User"
    ASSISTANT = "Assistant"  # legacy completed assistant, still used for host tool calls
    ENRICHED_ASSISTANT = "EnrichedAssistant"
    ABORTED_ASSISTANT = "AbortedAssistant"
    TOOL_RESULT = "ToolResult"


class Message(
    msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True, gc=False
):
    """One history entry: exactly one variant is set (``kind`` says which)."""

    system: str | None = field(default=None, name="System")
    user: tuple[ContentBlock, ...] | None = field(default=None, name="User")
    assistant: tuple[ContentBlock, ...] | None = field(default=None, name="Assistant")
    enriched_assistant: AssistantMessage | None = field(default=None, name="EnrichedAssistant")
    aborted_assistant: AbortedAssistant | None = field(default=None, name="AbortedAssistant")
    tool_result: ToolResult | None = field(default=None, name="ToolResult")

    def __post_init__(self) -> None:
        count = (
            (self.system is not None)
            + (self.user is not None)
            + (self.assistant is not None)
            + (self.enriched_assistant is not None)
            + (self.aborted_assistant is not None)
            + (self.tool_result is not None)
        )
        if count != 1:
            raise ValueError(
                "a message needs exactly one of `System`, `User`, `Assistant`, "
                "`EnrichedAssistant`, `AbortedAssistant`, `ToolResult`"
            )

    # -- constructors ---------------------------------------------------------------------

    @classmethod
    def system_text(cls, text: str) -> Message:
        return cls(system=text)

    @classmethod
    def user_blocks(cls, blocks: Iterable[ContentBlock]) -> Message:
        if cls is not Message:
            return cls(user=tuple(blocks))
        message = _copy_message(_USER_MESSAGE)  # as user_text
        force_setattr(message, "user", tuple(blocks))
        return message

    @classmethod
    def user_text(cls, text: str) -> Message:
        if cls is not Message or text is None:
            return cls(user=(ContentBlock(text=text),))
        # one variant set by construction: made from a blank of its own, without running the
        # check of __post_init__ twice per message (a long log's reader makes tens of thousands)
        block = _copy_block(_TEXT_BLOCK)
        force_setattr(block, "text", text)
        message = _copy_message(_USER_MESSAGE)
        force_setattr(message, "user", (block,))
        return message

    @classmethod
    def assistant_blocks(cls, blocks: Iterable[ContentBlock]) -> Message:
        """The legacy ``Assistant`` variant (host tool calls, compaction markers)."""
        return cls(assistant=tuple(blocks))

    @classmethod
    def assistant_text(cls, text: str) -> Message:
        """Legacy ``Assistant([Text])``, as upstream's ``assistant_text`` helper builds it."""
        return cls(assistant=(ContentBlock(text=text),))

    @classmethod
    def enriched(cls, message: AssistantMessage) -> Message:
        if cls is not Message or message is None:
            return cls(enriched_assistant=message)
        made = _copy_message(_ENRICHED_MESSAGE)  # as user_text
        force_setattr(made, "enriched_assistant", message)
        return made

    @classmethod
    def aborted(cls, message: AbortedAssistant) -> Message:
        return cls(aborted_assistant=message)

    @classmethod
    def result(cls, id: str, ok: bool, content: str) -> Message:
        if cls is not Message:
            return cls(tool_result=ToolResult(id, ok, content))
        made = _copy_message(_RESULT_MESSAGE)  # as user_text
        force_setattr(made, "tool_result", ToolResult(id, ok, content))
        return made

    # -- inspection -----------------------------------------------------------------------

    @property
    def kind(self) -> MessageKind:
        if self.user is not None:
            return MessageKind.USER
        if self.enriched_assistant is not None:
            return MessageKind.ENRICHED_ASSISTANT
        if self.tool_result is not None:
            return MessageKind.TOOL_RESULT
        if self.assistant is not None:
            return MessageKind.ASSISTANT
        if self.system is not None:
            return MessageKind.SYSTEM
        return MessageKind.ABORTED_ASSISTANT

    @property
    def content(self) -> tuple[ContentBlock, ...]:
        """The content blocks of User/Assistant/EnrichedAssistant/AbortedAssistant, else ``()``."""
        if self.user is not None:
            return self.user
        if self.assistant is not None:
            return self.assistant
        if self.enriched_assistant is not None:
            return self.enriched_assistant.content
        if self.aborted_assistant is not None:
            return self.aborted_assistant.content
        return ()

    def completed_assistant_content(self) -> tuple[ContentBlock, ...] | None:
        """Content of ``Assistant``/``EnrichedAssistant``; ``None`` for every other variant."""
        if self.assistant is not None:
            return self.assistant
        if self.enriched_assistant is not None:
            return self.enriched_assistant.content
        return None

    def tool_calls(self) -> Iterator[ToolCall]:
        """The ToolCall blocks of this message's content, in order."""
        for block in self.content:
            if block.tool_call is not None:
                yield block.tool_call

    def text(self) -> str:
        """All Text blocks (or the System text) joined, for previews and search."""
        if self.system is not None:
            return self.system
        if self.tool_result is not None:
            return self.tool_result.content
        return "".join(b.text for b in self.content if b.text is not None)

    def provider_context(self) -> tuple[ProviderContextBlock, ...]:
        if self.enriched_assistant is not None:
            return self.enriched_assistant.provider_context
        if self.aborted_assistant is not None:
            return self.aborted_assistant.provider_context
        return ()

    def sanitized(self) -> Message:
        """Raw reasoning of an AbortedAssistant cleared; every other message unchanged."""
        aborted = self.aborted_assistant
        if aborted is None or aborted.reasoning == "":
            return self
        return Message(aborted_assistant=aborted.sanitized())


_copy_block: Final[Callable[[ContentBlock], ContentBlock]] = ContentBlock.__copy__  # type: ignore[attr-defined]
_copy_message: Final[Callable[[Message], Message]] = Message.__copy__  # type: ignore[attr-defined]
"""msgspec's copy of a struct (in C; it does not run ``__post_init__``)."""
_TEXT_BLOCK: Final = ContentBlock(text="")
_CALL_BLOCK: Final = ContentBlock(tool_call=ToolCall("", "", None))
_USER_MESSAGE: Final = Message(user=())
_ENRICHED_MESSAGE: Final = Message(enriched_assistant=AssistantMessage())
_RESULT_MESSAGE: Final = Message(tool_result=ToolResult("", True, ""))
"""Blanks the constructors of :class:`ContentBlock` and :class:`Message` copy and fill (one variant set, as the check
of ``__post_init__`` requires)."""
