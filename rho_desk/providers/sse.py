"""Server-sent events: an incremental parser for the streams both provider APIs send.

Follows the WHATWG event-stream rules that matter for model APIs: lines end in LF, CR or CRLF
(also when a CRLF is split across two network chunks); ``data`` lines of one event are joined
with LF; one leading space after the colon is dropped; lines starting with ``:`` are comments;
an event is dispatched at a blank line and an unterminated event at end of stream is discarded
(it is a torn event, and the caller must treat the stream as truncated). Input is bytes, decoded
as UTF-8 per line, so multi-byte characters split across chunks are safe.

Bounded: a single line or event above ``max_event_bytes`` raises ``SseError`` instead of
growing without limit when a server (or something in between) misbehaves.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgspec

from ..core.errors import InputError

__all__ = ["SseDecoder", "SseError", "SseEvent"]

DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024


class SseError(InputError, ValueError):
    """The byte stream is not a valid event stream (oversized, or not UTF-8)."""


class SseEvent(msgspec.Struct, frozen=True):
    """One dispatched event."""

    event: str
    """The ``event:`` field; ``message`` when the server sent none."""
    data: str
    """The ``data:`` lines joined with LF."""
    id: str | None = None
    """The last ``id:`` seen in the stream, if any."""


class SseDecoder:
    """Feed bytes with ``feed``; it yields each complete event.

    Args:
        max_event_bytes: the largest line or event accepted.
    """

    __slots__ = (
        "_buffer",
        "_data",
        "_data_bytes",
        "_event",
        "_has_data",
        "_last_id",
        "_max",
        "_pending_cr",
        "_started",
    )

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self._max = max_event_bytes
        self._buffer = bytearray()
        self._pending_cr = False
        self._data: list[str] = []
        self._data_bytes = 0
        self._has_data = False
        self._event = ""
        self._last_id: str | None = None
        self._started = False

    @property
    def has_partial_event(self) -> bool:
        """True when bytes of an event arrived but its terminating blank line did not."""
        return bool(self._buffer) or self._has_data or bool(self._event)

    def feed(self, chunk: bytes) -> Iterator[SseEvent]:
        """Consume ``chunk``; yield every event it completes."""
        if not chunk:
            return
        start = 0
        if self._pending_cr:
            # the previous chunk ended in CR: a LF right here belongs to the same line break
            self._pending_cr = False
            if chunk[:1] == b"\n":
                start = 1
        n = len(chunk)
        while start < n:
            lf = chunk.find(b"\n", start)
            cr = chunk.find(b"\r", start)
            if lf < 0 and cr < 0:
                self._buffer += chunk[start:]
                if len(self._buffer) > self._max:
                    raise SseError(f"an event-stream line is longer than {self._max} bytes")
                return
            if cr < 0 or (0 <= lf < cr):
                end, nxt = lf, lf + 1
            else:
                end = cr
                if cr + 1 < n:
                    nxt = cr + 2 if chunk[cr + 1 : cr + 2] == b"\n" else cr + 1
                else:
                    nxt = cr + 1
                    self._pending_cr = True
            self._buffer += chunk[start:end]
            line = bytes(self._buffer)
            self._buffer.clear()
            start = nxt
            event = self._line(line)
            if event is not None:
                yield event

    def _line(self, raw: bytes) -> SseEvent | None:
        if len(raw) > self._max:
            raise SseError(f"an event-stream line is longer than {self._max} bytes")
        if not self._started:
            self._started = True
            if raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
        if not raw:
            return self._dispatch()
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise SseError("an event-stream line is not valid UTF-8") from None
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
            self._data_bytes += len(raw)
            self._has_data = True
            if self._data_bytes > self._max:
                raise SseError(f"an event-stream event is larger than {self._max} bytes")
        elif name == "event":
            self._event = value
        elif name == "id" and "\0" not in value:
            self._last_id = value
        # "retry" and unknown fields are ignored: reconnection is the engine's business
        return None

    def _dispatch(self) -> SseEvent | None:
        if not self._has_data:
            self._event = ""
            return None
        event = SseEvent(self._event or "message", "\n".join(self._data), self._last_id)
        self._data = []
        self._data_bytes = 0
        self._has_data = False
        self._event = ""
        return event
