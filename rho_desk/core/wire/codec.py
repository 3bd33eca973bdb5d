"""Reading and writing Rho's JSON: the only way wire values enter or leave rho-desk.

Two encodings, byte-compatible with upstream's serde_json (spec/engine.md §0.1): compact (no
whitespace; transcript lines, token estimates) and pretty (2-space indent, ``": "``, no trailing
newline; ``SessionSnapshot.to_json``). Escaping matches serde: only ``"``, ``\\`` and control
characters are escaped, with lowercase ``\\u00xx``; everything else is written raw as UTF-8.

Every decoding failure becomes a ``WireFormatError`` naming the JSON path and the reason; random
bytes, absurd nesting and truncated input never escape as anything else.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Any, Final, TypeVar

import msgspec

from ..errors import WireFormatError
from ..system.collector import collection_paused
from .model import Message
from .snapshot import SessionSnapshot

__all__ = [
    "TruncatedJson",
    "decode",
    "decode_history",
    "decode_message",
    "decode_snapshot",
    "encode",
    "encode_pretty",
    "encode_pretty_changed",
    "gc_paused",
    "to_builtins",
]

T = TypeVar("T")

_ENCODER = msgspec.json.Encoder()
_PATH = re.compile(r"^(?P<reason>.*?) - at `(?P<path>\$[^`]*)`$", re.DOTALL)


class TruncatedJson(WireFormatError):
    """The input ended in the middle of a JSON value (a torn write, typically)."""


def encode(value: Any) -> bytes:
    """Compact JSON, as serde_json's ``to_string`` writes it."""
    return _ENCODER.encode(value)


def encode_pretty(value: Any) -> bytes:
    """Pretty JSON, as serde_json's ``to_string_pretty`` writes it (no trailing newline)."""
    return msgspec.json.format(_ENCODER.encode(value), indent=2)


_HISTORY: Final = b'\n  "history": []'
_MESSAGE_OPEN: Final = b"\n    {"
_MESSAGE_CLOSE: Final = b"\n    }"
"""In a snapshot's pretty encoding: its empty history, and the first and last lines of a message
of its history (an object at depth 2, whose own lines are all deeper). JSON writes no raw line
break inside a string: every line start is structure."""


def _message_text(message: Message) -> bytes:
    """A message's lines as the pretty encoding of a snapshot holds them (at depth 2)."""
    return b"    " + encode_pretty(message).replace(b"\n", b"\n    ")


def _around(snapshot: SessionSnapshot) -> tuple[bytes, bytes]:
    """What comes before a snapshot's messages in its pretty encoding, and what after."""
    head = encode_pretty(msgspec.structs.replace(snapshot, history=()))
    cut = head.index(_HISTORY)
    return head[:cut] + _HISTORY[:-1] + b"\n", b"\n  ]" + head[cut + len(_HISTORY) :]


def encode_pretty_changed(
    previous: bytes,
    before: SessionSnapshot,
    after: SessionSnapshot,
    changed: Iterable[int],
    near: Iterable[int],
) -> bytes:
    """``encode_pretty(after)``, given ``previous = encode_pretty(before)``, where ``after``'s
    history is as long as ``before``'s and holds equal messages outside the indices ``changed``,
    and ``near`` gives offsets in ``previous`` inside the changed messages (where a scan found
    what changed them).

    The changed messages are found around those offsets (each is checked to be, byte for byte,
    the encoding of the message it replaces), encoded again and put in their place, the fields
    outside the history are encoded again, and every other byte is copied: a full encoding's
    bytes (a pretty value indents the same at any depth) for a few messages' work. When a changed
    message is not found that way, ``after`` is encoded whole.
    """
    wanted = sorted(set(changed))
    history = after.history
    if not wanted or not history or len(history) != len(before.history):
        return encode_pretty(after)
    head, tail = _around(before)
    first, last = len(head) - 1, len(previous) - len(tail)  # the line breaks around the messages
    if not (previous.startswith(head) and previous.endswith(tail)):
        return encode_pretty(after)
    spans: dict[int, int] = {}
    for at in near:
        if first < at < last:
            start = previous.rfind(_MESSAGE_OPEN, first, at)
            if start >= 0 and start not in spans:
                end = previous.find(_MESSAGE_CLOSE, at, last)
                spans[start] = end + len(_MESSAGE_CLOSE) if end >= 0 else -1
    located = sorted(spans.items())
    if len(located) != len(wanted):
        return encode_pretty(after)
    view = memoryview(previous)  # slices of it are not copied before the join
    new_head, new_tail = _around(after)
    out: list[bytes | memoryview] = [new_head[:-1]]
    pos = first
    for i, (start, end) in zip(wanted, located, strict=True):
        if end < 0 or view[start + 1 : end] != _message_text(before.history[i]):
            return encode_pretty(after)
        out.append(view[pos : start + 1])
        out.append(_message_text(history[i]))
        pos = end
    out.append(view[pos:last])
    out.append(new_tail)
    return b"".join(out)


def to_builtins(value: Any) -> Any:
    """Plain dicts/lists/strings of a wire value, in wire shape (for tests and tools)."""
    return msgspec.to_builtins(value)


_DECODERS: dict[object, msgspec.json.Decoder[Any]] = {}


def _decoder(type_: object) -> msgspec.json.Decoder[Any]:
    """One decoder per type, built on first use (a lost race builds an equal one: harmless)."""
    decoder = _DECODERS.get(type_)
    if decoder is None:
        decoder = _DECODERS[type_] = msgspec.json.Decoder(type_)
    return decoder


def gc_paused() -> AbstractContextManager[None]:
    """Pause the cyclic GC around a bulk decode: it is most of the cost (environment.md §0.5).
    The one pause the export and the window's loads share (``core.system.collector``), so a
    decode ending in one thread does not turn collection back on under a job in another."""
    return collection_paused()


def translate_error(
    exc: Exception, *, source: str | None = None, line: int | None = None
) -> WireFormatError:
    """A msgspec (or recursion) failure as a located ``WireFormatError``."""
    if isinstance(exc, RecursionError):
        return WireFormatError("JSON nesting is too deep", source=source, line=line)
    text = str(exc)
    if isinstance(exc, msgspec.ValidationError):
        match = _PATH.match(text)
        reason, path = (match["reason"], match["path"]) if match else (text, None)
        reason = reason.replace("Object contains unknown field", "unknown variant")
        return WireFormatError(reason, source=source, line=line, path=path)
    if text == "Input data was truncated":
        return TruncatedJson("JSON ends before the value is complete", source=source, line=line)
    return WireFormatError(text, source=source, line=line)


def decode(
    data: bytes | str | memoryview,
    type_: type[T],
    *,
    source: str | None = None,
    line: int | None = None,
) -> T:
    """Decode ``data`` as ``type_`` or raise a located ``WireFormatError``."""
    try:
        decoded: T = _decoder(type_).decode(data)
        return decoded
    except (msgspec.MsgspecError, RecursionError, ValueError, TypeError) as exc:
        raise translate_error(exc, source=source, line=line) from None


def decode_snapshot(data: bytes | str, *, source: str | None = None) -> SessionSnapshot:
    """A snapshot document (schema 1 or 2, compact or pretty)."""
    with gc_paused():
        return decode(data, SessionSnapshot, source=source)


def decode_message(data: bytes | str, *, source: str | None = None) -> Message:
    return decode(data, Message, source=source)


def decode_history(data: bytes | str, *, source: str | None = None) -> tuple[Message, ...]:
    with gc_paused():
        return decode(data, tuple[Message, ...], source=source)
