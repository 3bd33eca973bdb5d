"""The HTTP side shared by every adapter: one streamed POST, its cancellation, and its failures.

``HttpStream`` opens a streamed request with httpx, hands the adapter decoded server-sent events,
and turns every way the exchange can fail into a typed ``ProviderError`` whose text holds no key,
header, query secret or raw response body:

========================================  ==============  ==========  =========================
failure                                   kind            retryable   notes
========================================  ==============  ==========  =========================
HTTP 401, 403                             Authentication  no
HTTP 408, 504                             Timeout         yes
HTTP 429                                  RateLimit       yes         ``Retry-After`` honoured
HTTP 5xx (also Anthropic's 529)           Unavailable     yes         ``Retry-After`` honoured
other HTTP 4xx                            Other           no
connection refused / DNS / TLS            Unavailable     yes
connect, read (idle), write timeouts      Timeout         yes
disconnect before any output              Unavailable     yes
disconnect or truncation after output     InvalidResponse yes         a fresh request may work
malformed event stream or JSON            InvalidResponse no
provider ``error`` event in the stream    by its type     by its type
========================================  ==============  ==========  =========================

Retries are the engine's job (spec/engine.md §8.4): nothing here retries. Errors are raised
outside ``except`` blocks so they carry no ``__context__`` pointing at an httpx exception
(whose ``request`` holds the authorization header).

Cancellation closes the HTTP response at once: ``guard_cancellation`` runs the adapter's work
in a child task that the cancellation token (or the cancellation of the caller's task) cancels;
leaving the ``async with`` of the response then closes the connection mid-body.
"""

from __future__ import annotations

import email.utils
import json
import logging
import re
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar

import httpx
import msgspec

from ..core.cancellation import CancellationToken, race
from ..core.errors import (
    Cancelled,
    ProviderDiagnostic,
    ProviderError,
    ProviderErrorKind,
    Retryability,
)
from ..core.secrets.scrub import REDACTED, Scrubber, SecretString, strip_query
from .sse import SseDecoder, SseError, SseEvent

__all__ = [
    "EventStream",
    "HttpStream",
    "Timeouts",
    "closed_without_events",
    "guard_cancellation",
    "parse_retry_after",
    "stream_error",
]

log = logging.getLogger("rho_desk.providers")


class _StripUrlQueries(logging.Filter):
    """Rewrites httpx's own request log lines: they print the full URL, query secrets included.

    httpx logs ``HTTP Request: POST <url> "HTTP/1.1 200 OK"`` at INFO; an endpoint query value
    (a signed URL, an Azure ``api-key``) would otherwise reach every log handler.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(
                strip_query(str(arg))
                if isinstance(arg, httpx.URL) and (arg.query or arg.userinfo)
                else arg
                for arg in record.args
            )
        return True


_HEADER_PAIR = re.compile(r"\(b'([^']*)', b'(?:[^'\\]|\\.)*'\)")


class _RedactHeaderValues(logging.Filter):
    """Rewrites httpcore's DEBUG traces, which print response headers (``Set-Cookie``...)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and "(b'" in record.msg:
            record.msg = _HEADER_PAIR.sub(lambda m: f"(b'{m.group(1)}', b'{REDACTED}')", record.msg)
        return True


def _install_log_filter() -> None:
    # Logger-level filters apply only to records logged through that very logger, so each
    # emitting logger gets its own.
    targets: list[tuple[str, type[logging.Filter]]] = [("httpx", _StripUrlQueries)]
    targets += [
        (f"httpcore.{name}", _RedactHeaderValues)
        for name in ("http11", "http2", "connection", "proxy")
    ]
    for name, kind in targets:
        logger = logging.getLogger(name)
        if not any(isinstance(f, kind) for f in logger.filters):
            logger.addFilter(kind())


_install_log_filter()

T = TypeVar("T")

MAX_ERROR_BODY_READ: Final = 1024 * 1024
"""How much of an error body is read: up to this size it is parsed whole, and only the message
parsed from it is cut (its head and its tail kept, :func:`head_and_tail`), so a cut never breaks
the JSON it came in; a longer body is not parsed. The raw body is never shown."""
MAX_DIAGNOSTIC_MESSAGE: Final = 2000
_ERROR_TYPE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")

RETRYABLE = Retryability.RETRYABLE
PERMANENT = Retryability.PERMANENT


class Timeouts(msgspec.Struct, frozen=True):
    """Network time limits, in seconds."""

    connect: float = 15.0
    """Establishing the connection (TCP and TLS)."""
    idle: float = 180.0
    """Longest silence between two chunks of the streamed response (also the wait for headers)."""
    write: float = 60.0
    """Sending the request body (large images take a while on slow links)."""

    def to_httpx(self) -> httpx.Timeout:
        return httpx.Timeout(
            connect=self.connect, read=self.idle, write=self.write, pool=self.connect
        )


# --- error construction --------------------------------------------------------------------


def parse_retry_after(
    headers: Mapping[str, str], *, now: datetime | None = None
) -> timedelta | None:
    """The server's requested delay: ``retry-after-ms``, else ``Retry-After`` (seconds or date).

    Returns ``None`` when absent, unparseable, or not in the future.
    """
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            millis = float(raw_ms.strip())
        except ValueError:
            millis = -1.0
        if millis > 0 and millis == millis and millis < 1e12:
            return timedelta(milliseconds=millis)
    raw = (headers.get("retry-after") or "").strip()
    if not raw:
        return None
    if raw.isdigit():
        seconds = int(raw)
        return timedelta(seconds=seconds) if 0 < seconds < 10**9 else None
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    delay = when - (now or datetime.now(UTC))
    return delay if delay > timedelta(0) else None


def _clean_type(value: object, scrub: Scrubber) -> str | None:
    """A provider error type or code, only if it looks like one (``rate_limit_error``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not _ERROR_TYPE.match(value):
        return None
    return value if scrub(value) == value else None


def _error_fields(payload: Any, scrub: Scrubber) -> tuple[str | None, str | None, str | None]:
    """(type, code, message) from the error shapes OpenAI-compatible servers and Anthropic use."""
    error: Any = payload
    if isinstance(payload, dict) and "error" in payload:
        error = payload["error"]
    if isinstance(error, str):
        return None, None, error
    if not isinstance(error, dict):
        return None, None, None
    kind = _clean_type(error.get("type"), scrub)
    code = _clean_type(error.get("code"), scrub)
    message = error.get("message")
    if not isinstance(message, str):
        message = error.get("detail") if isinstance(error.get("detail"), str) else None
    return kind, code, message


MAX_REASON_CHARS: Final = 300
"""How much of the server's own error message the error text shows (one line, scrubbed)."""

# Error types and messages with which servers say "your request is invalid" even on a 5xx
# (llama-cpp-python answers a request-validation failure with HTTP 500): resending the same
# request cannot succeed, so it is not retried.
_INVALID_REQUEST_TYPES: Final = frozenset(
    {
        "invalid_request_error",
        "invalid_request",
        "validation_error",
        "bad_request",
        "BadRequestError",
    }
)
_INVALID_REQUEST_MESSAGE: Final = re.compile(
    r"(?i)\bvalidation errors?( for|:)|\binput should be\b|\bfield required\b|\bextra inputs are not permitted\b"
)


def head_and_tail(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters by dropping its middle, not its end.

    Servers put the cause last as often as first (llama.cpp: "... the request exceeds the
    available context size, try increasing it"), so both ends are kept: 60% from the head,
    the rest from the tail, joined by " … ".
    """
    if len(text) <= limit:
        return text
    head = limit * 3 // 5
    tail = max(limit - head - 3, 1)
    return text[:head].rstrip() + " … " + text[-tail:].lstrip()


def _reason(message: str | None, scrub: Scrubber) -> str | None:
    """The server's own error message for a person: scrubbed, on one line, its middle dropped
    when it is long (:func:`head_and_tail`)."""
    if not message:
        return None
    line = head_and_tail(" ".join(scrub(message).split()), MAX_REASON_CHARS)
    return line or None


def _diagnostic(parts: list[str], message: str | None, scrub: Scrubber) -> ProviderDiagnostic:
    if message:
        parts = [*parts, f"message: {head_and_tail(scrub(message), MAX_DIAGNOSTIC_MESSAGE)}"]
    return ProviderDiagnostic("; ".join(parts))


def status_error(
    status: int, headers: Mapping[str, str], body: bytes, scrub: Scrubber, *, label: str
) -> ProviderError:
    """The typed error for an HTTP error status; ``body`` feeds only the scrubbed diagnostic."""
    retry_after = parse_retry_after(headers)
    if status in (401, 403):
        kind, retry = ProviderErrorKind.AUTHENTICATION, PERMANENT
    elif status in (408, 504):
        kind, retry = ProviderErrorKind.TIMEOUT, RETRYABLE
    elif status == 429:
        kind, retry = ProviderErrorKind.RATE_LIMIT, RETRYABLE
    elif status >= 500:
        kind, retry = ProviderErrorKind.UNAVAILABLE, RETRYABLE
    else:
        kind, retry = ProviderErrorKind.OTHER, PERMANENT
    payload: Any = None
    if body and len(body) <= MAX_ERROR_BODY_READ:
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            payload = None
    etype, code, message = (
        _error_fields(payload, scrub) if payload is not None else (None, None, None)
    )
    rejected = status == 500 and (
        bool({etype, code} & _INVALID_REQUEST_TYPES)
        or bool(message and _INVALID_REQUEST_MESSAGE.search(message))
    )
    if rejected:
        kind, retry = ProviderErrorKind.OTHER, PERMANENT
    text = f"{label} returned HTTP {status}"
    if etype:
        text += f" ({etype})"
    reason = _reason(message, scrub)
    if reason:
        text += f": {reason}"
    if rejected:
        text += " (the server rejected the request as invalid; not retried)"
    if kind is ProviderErrorKind.AUTHENTICATION:
        text += "; check the API key and its permissions"
    elif status == 404:
        text += "; check the base URL and the model name"
    if retry_after is not None and kind in (
        ProviderErrorKind.RATE_LIMIT,
        ProviderErrorKind.UNAVAILABLE,
    ):
        from ..core.errors import format_retry_after

        text += f"; retry in {format_retry_after(retry_after)}"
    parts = [f"HTTP {status}"]
    if etype:
        parts.append(f"type: {etype}")
    if code:
        parts.append(f"code: {code}")
    if len(body) > MAX_ERROR_BODY_READ:
        parts.append(
            f"the response body was over {MAX_ERROR_BODY_READ} bytes (not read whole, not shown)"
        )
    elif payload is None and body:
        parts.append(f"the response body was not JSON ({len(body)} bytes, not shown)")
    return ProviderError(
        kind,
        text,
        retry,
        diagnostic=_diagnostic(parts, message, scrub),
        retry_after=retry_after if retry is RETRYABLE else None,
    )


_STREAM_ERROR_KINDS: Final = {
    "overloaded_error": (ProviderErrorKind.UNAVAILABLE, RETRYABLE),
    "api_error": (ProviderErrorKind.UNAVAILABLE, RETRYABLE),
    "server_error": (ProviderErrorKind.UNAVAILABLE, RETRYABLE),
    "service_unavailable": (ProviderErrorKind.UNAVAILABLE, RETRYABLE),
    "rate_limit_error": (ProviderErrorKind.RATE_LIMIT, RETRYABLE),
    "rate_limit_exceeded": (ProviderErrorKind.RATE_LIMIT, RETRYABLE),
    "timeout_error": (ProviderErrorKind.TIMEOUT, RETRYABLE),
    "authentication_error": (ProviderErrorKind.AUTHENTICATION, PERMANENT),
    "permission_error": (ProviderErrorKind.AUTHENTICATION, PERMANENT),
    "invalid_api_key": (ProviderErrorKind.AUTHENTICATION, PERMANENT),
}


def stream_error(payload: Any, scrub: Scrubber, *, label: str) -> ProviderError:
    """The typed error for an ``error`` object reported inside a stream (HTTP status was 200)."""
    etype, code, message = _error_fields(payload, scrub)
    kind, retry = _STREAM_ERROR_KINDS.get(
        etype or code or "", (ProviderErrorKind.INVALID_RESPONSE, PERMANENT)
    )
    text = f"{label} reported an error in the stream"
    if etype or code:
        text += f" ({etype or code})"
    parts = ["stream error event"]
    if etype:
        parts.append(f"type: {etype}")
    if code:
        parts.append(f"code: {code}")
    return ProviderError(kind, text, retry, diagnostic=_diagnostic(parts, message, scrub))


def malformed(what: str) -> ProviderError:
    """A stream whose content cannot be understood (permanent: the same request fails the same)."""
    return ProviderError(
        ProviderErrorKind.INVALID_RESPONSE, f"provider stream was malformed: {what}", PERMANENT
    )


def closed_without_events(label: str) -> ProviderError:
    """HTTP 200, then the stream closed before a single event.

    Local servers do this for a prompt over their context size or for input the model cannot
    take (an image for a text-only chat template); the same request fails the same way again.
    """
    return ProviderError(
        ProviderErrorKind.INVALID_RESPONSE,
        f"{label} answered HTTP 200 and then closed the stream without sending any event (a prompt"
        " over the server's context size, or input the model cannot take, such as an image for a"
        " text-only model); not retried",
        PERMANENT,
    )


def truncated(output_started: bool, where: str = "the server") -> ProviderError:
    """The stream ended without its terminal event."""
    if output_started:
        return ProviderError(
            ProviderErrorKind.INVALID_RESPONSE,
            f"the reply from {where} ended mid-stream, before it was complete",
            RETRYABLE,
        )
    return ProviderError(
        ProviderErrorKind.UNAVAILABLE,
        "provider closed the connection before sending a response",
        RETRYABLE,
    )


# --- cancellation --------------------------------------------------------------------------


async def guard_cancellation(token: CancellationToken, work: Callable[[], Awaitable[T]]) -> T:
    """Run ``work()`` in a child task that dies the moment ``token`` fires.

    Cancelling the caller's task cancels the child as well (External mode: the engine drops the
    call); the token firing cancels only the child, and this raises
    ``ProviderError.interrupted("provider request cancelled")`` (spec/engine.md §8.5). Either way
    the child's ``async with`` blocks run before this returns, so the HTTP response is closed.
    """
    try:
        return await race(work(), token)
    except Cancelled:
        raise ProviderError.interrupted("provider request cancelled") from None


# --- the streamed request ------------------------------------------------------------------


class EventStream:
    """The decoded events of one open response. Iterate with ``async for``."""

    __slots__ = ("_decoder", "_owner", "_response", "events_seen", "output_started")

    def __init__(self, owner: HttpStream, response: httpx.Response) -> None:
        self._owner = owner
        self._response = response
        self._decoder = SseDecoder()
        self.output_started = False
        """Set by the adapter once it has forwarded output; decides how a disconnect is typed."""
        self.events_seen = 0
        """Server-sent events decoded so far."""

    def ended_early(self) -> ProviderError:
        """The error for a stream that ended without its terminal event."""
        if self.events_seen == 0 and not self.has_partial_event:
            return closed_without_events(self._owner.label)
        return truncated(self.output_started, self._owner.display_url)

    @property
    def has_partial_event(self) -> bool:
        return self._decoder.has_partial_event

    @property
    def is_event_stream(self) -> bool:
        """Whether the server answered with ``text/event-stream`` (some ignore ``stream: true``)."""
        kind: str = self._response.headers.get("content-type", "text/event-stream")
        return kind.split(";")[0].strip().lower() == "text/event-stream"

    @property
    def content_type(self) -> str:
        kind: str = self._response.headers.get("content-type", "")
        return kind.split(";")[0].strip().lower()

    async def read_json(self, limit: int = 64 * 1024 * 1024) -> Any:
        """The whole body as JSON (servers that answered a streamed request without streaming)."""
        data = bytearray()
        failure: ProviderError | None = None
        try:
            async for chunk in self._response.aiter_bytes():
                data += chunk
                if len(data) > limit:
                    failure = malformed(f"the response body is larger than {limit} bytes")
                    break
        except httpx.HTTPError as exc:
            failure = self._owner.transport_error(exc, output_started=False)
        if failure is not None:
            raise failure
        try:
            return json.loads(data)
        except (ValueError, UnicodeDecodeError):
            failure = malformed(f"the {self.content_type or 'untyped'} response body was not JSON")
        raise failure

    async def __aiter__(self) -> AsyncIterator[SseEvent]:
        chunks = self._response.aiter_bytes()
        while True:
            failure: ProviderError | None = None
            try:
                chunk = await chunks.__anext__()
            except StopAsyncIteration:
                return
            except httpx.HTTPError as exc:
                failure = self._owner.transport_error(exc, output_started=self.output_started)
            if failure is not None:
                raise failure
            try:
                events = list(self._decoder.feed(chunk))
            except SseError as exc:
                failure = malformed(str(exc))
            if failure is not None:
                raise failure
            self.events_seen += len(events)
            for event in events:
                yield event


class HttpStream:
    """Streamed POSTs to one API endpoint, with secret headers kept out of every text.

    Args:
        base_url: the API root, e.g. ``https://api.anthropic.com/v1``.
        label: how error texts name the server (``Anthropic``, ``OpenAI-compatible server``).
        headers: non-secret headers sent with every request.
        secret_headers: headers whose values are secrets (sent, never shown).
        timeouts: network time limits.
        client: an httpx client to use instead of a private one (tests, shared pools); the
            caller then owns its lifetime.
        secrets: more values to scrub from every text (the bare API key, for instance).
    """

    def __init__(
        self,
        base_url: str,
        *,
        label: str,
        headers: Mapping[str, str] | None = None,
        secret_headers: Mapping[str, SecretString] | None = None,
        timeouts: Timeouts | None = None,
        client: httpx.AsyncClient | None = None,
        secrets: Iterable[SecretString] = (),
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.label = label
        self.timeouts = timeouts or Timeouts()
        self._headers = dict(headers or {})
        self._secret_headers = dict(secret_headers or {})
        self._client = client
        self._owns_client = client is None
        query_values = [v for _, v in httpx.URL(base_url).params.multi_items()]
        userinfo = httpx.URL(base_url).userinfo.decode("utf-8", "replace")
        self.scrub = Scrubber(
            [
                *secrets,
                *self._secret_headers.values(),
                *(v for v in self._headers.values() if len(v) >= 8),
                *query_values,
                *([userinfo] if userinfo else []),
            ]
        )

    def __repr__(self) -> str:
        return f"HttpStream({strip_query(self.base_url)!r}, headers={sorted(self._headers)!r}, secret_headers={REDACTED})"

    async def post_json(self, url: httpx.URL, body: Mapping[str, Any], *, timeout: float) -> Any:
        """A small JSON request outside the model's stream (a token count): its JSON answer.

        Raises:
            httpx.HTTPError: the request failed or the status was not 2xx.
            ValueError: the answer was not JSON.
        """
        headers = {
            **self._headers,
            **{k: v.expose_secret() for k, v in self._secret_headers.items()},
        }
        response = await self._ensure_client().post(
            url, json=dict(body), headers=headers, timeout=timeout
        )
        response.raise_for_status()
        return response.json()

    def url_for(self, path: str) -> httpx.URL:
        """``path`` appended to the base URL's path; the base URL's query (``api-version=``...) kept."""
        base = httpx.URL(self.base_url)
        return base.copy_with(path=base.path.rstrip("/") + path)

    @property
    def display_url(self) -> str:
        """The base URL with user info, query and fragment removed: safe to show."""
        return strip_query(self.base_url)

    def _ensure_client(self) -> httpx.AsyncClient:
        if self._client is None:
            verify: ssl.SSLContext | bool = True
            if httpx.URL(self.base_url).scheme == "http":
                # A plain-HTTP endpoint (a local server) needs no certificate store, whose loading
                # costs tens of milliseconds. This context trusts no certificate at all: a TLS
                # connection through this client fails closed.
                verify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            # No redirects: a redirect to another host would carry custom key headers along.
            self._client = httpx.AsyncClient(
                timeout=self.timeouts.to_httpx(), follow_redirects=False, verify=verify
            )
        return self._client

    async def aclose(self) -> None:
        """Close the private client (a client passed in stays open)."""
        if self._client is not None and self._owns_client:
            await self._client.aclose()
            self._client = None

    def transport_error(self, exc: httpx.HTTPError, *, output_started: bool) -> ProviderError:
        """The typed error for an httpx failure; the text names only the host, never the URL."""
        where = self.display_url
        if isinstance(exc, httpx.ConnectTimeout):
            return ProviderError(
                ProviderErrorKind.TIMEOUT, f"timed out connecting to {where}", RETRYABLE
            )
        if isinstance(exc, httpx.ReadTimeout):
            return ProviderError(
                ProviderErrorKind.TIMEOUT,
                f"{self.label} sent no data for {self.timeouts.idle:g}s; the connection may be stale",
                RETRYABLE,
            )
        if isinstance(exc, httpx.TimeoutException):
            return ProviderError(
                ProviderErrorKind.TIMEOUT, f"request to {where} timed out", RETRYABLE
            )
        if isinstance(exc, httpx.ConnectError):
            return ProviderError(
                ProviderErrorKind.UNAVAILABLE,
                f"could not connect to {where} (connection refused, DNS or TLS failure)",
                RETRYABLE,
            )
        if isinstance(
            exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.CloseError)
        ):
            if output_started:
                # a server that dies mid-stream: said as such, not as a failure to connect
                return ProviderError(
                    ProviderErrorKind.INVALID_RESPONSE,
                    f"the connection to {where} was lost mid-reply (the server closed it before the reply was complete)",
                    RETRYABLE,
                )
            return ProviderError(
                ProviderErrorKind.UNAVAILABLE,
                f"connection to {where} closed before the response completed",
                RETRYABLE,
            )
        if isinstance(exc, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
            return ProviderError(ProviderErrorKind.OTHER, f"invalid base URL {where}", PERMANENT)
        if isinstance(exc, httpx.DecodingError):
            return malformed("the response body could not be decoded")
        return ProviderError(ProviderErrorKind.UNAVAILABLE, f"request to {where} failed", RETRYABLE)

    @asynccontextmanager
    async def post_sse(self, path: str, body: Mapping[str, Any]) -> AsyncIterator[EventStream]:
        """POST ``body`` as JSON to ``base_url + path`` and yield the event stream of the reply.

        Raises:
            ProviderError: the request failed or the server answered with an error status.
        """
        client = self._ensure_client()
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            **self._headers,
            **{k: v.expose_secret() for k, v in self._secret_headers.items()},
        }
        failure: ProviderError | None = None
        response: httpx.Response | None = None
        try:
            request = client.build_request(
                "POST", self.url_for(path), content=msgspec.json.encode(body), headers=headers
            )
            response = await client.send(request, stream=True)
        except httpx.HTTPError as exc:
            failure = self.transport_error(exc, output_started=False)
        del headers
        if failure is not None:
            log.debug("POST %s%s failed: %s", self.display_url, path, failure.kind.value)
            raise failure
        assert response is not None
        try:
            log.debug("POST %s%s -> HTTP %d", self.display_url, path, response.status_code)
            if response.status_code >= 400:
                body_bytes = await self._read_bounded(response)
                raise status_error(
                    response.status_code, response.headers, body_bytes, self.scrub, label=self.label
                )
            yield EventStream(self, response)
        finally:
            await response.aclose()

    async def _read_bounded(self, response: httpx.Response) -> bytes:
        """The error body, whole up to :data:`MAX_ERROR_BODY_READ` (a longer one is read no further)."""
        body = bytearray()
        try:
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_ERROR_BODY_READ:
                    break
        except httpx.HTTPError:
            pass  # the status alone types the error; a half-read body only feeds the diagnostic
        return bytes(body)
