"""What the HTTP adapters share: identity, the key, cancellation, the handoff report, lowering.

An adapter lowers canonical history into its wire request (replaying provider-native blocks
only to their exact identity, spec/engine.md §4), opens one streamed request through
``HttpStream``, maps the stream to ``ModelEvent``s, and returns the final content blocks. It
never retries (that is the engine's job, §8.4) and never mutates history.

AbortedAssistant replay (§9.4, upstream's adapters): the message is replayed as a plain
assistant message: its text, its completed tool calls and partial tool calls rendered as text
(never as executable calls), then an ``[Operation aborted]`` marker.
"""

from __future__ import annotations

import abc
import json
import logging
from collections.abc import Callable, Sequence
from typing import Any

from ..core.provider import CancellationMode, EventSink, ModelProvider, ModelRequest
from ..core.provider.handoff import HandoffReport, report_message_omissions
from ..core.secrets.scrub import REDACTED, SecretString
from ..core.wire.model import (
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    PartialToolCall,
    ToolCall,
)
from .transport import HttpStream, guard_cancellation
from .usage import Pricing

__all__ = [
    "ABORTED_MARKER",
    "HttpProvider",
    "aborted_as_assistant",
    "json_object",
    "json_string",
    "render_partial_tool_call",
    "render_tool_call",
]

log = logging.getLogger("rho_desk.providers")

ABORTED_MARKER = "[Operation aborted]"
ASSISTANT_IMAGE_PLACEHOLDER = "[image omitted: assistant history cannot carry image content]"


def json_object(container: dict[str, Any], key: str) -> dict[str, Any]:
    """``container[key]`` if it is a JSON object, else ``{}`` (streamed chunks are untrusted)."""
    value = container.get(key)
    return value if isinstance(value, dict) else {}


def json_string(container: dict[str, Any], key: str) -> str:
    """``container[key]`` if it is a string, else ``""``."""
    value = container.get(key)
    return value if isinstance(value, str) else ""


def parse_tool_arguments(raw: str) -> Any:
    """Streamed tool-call argument text as JSON; ``{}`` when empty.

    Text that is not valid JSON is returned as the raw string: the engine's protocol validation
    then sees non-object arguments and asks the model again (spec/engine.md §8.4) rather than
    failing the run.
    """
    text = raw.strip()
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return raw


def render_tool_call(call: ToolCall) -> str:
    """A tool call as plain text (upstream's form: name, then the pretty-printed arguments)."""
    try:
        arguments = json.dumps(call.arguments, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        arguments = str(call.arguments)
    return f"Tool call: {call.name}\n{arguments}"


def render_partial_tool_call(call: PartialToolCall) -> str:
    return (
        "[Partial tool call (not executed)]\n"
        f"ID: {call.id or '[unknown]'}\n"
        f"Name: {call.name or '[unknown]'}\n"
        f"Arguments:\n{call.arguments}"
    )


def aborted_as_assistant(message: AbortedAssistant) -> AssistantMessage:
    """An AbortedAssistant as a non-executable assistant message ending in the abort marker.

    Completed tool calls become text; partial tool calls not already shown become text; the
    provider context, summary and provenance carry over so handoff filtering still applies.
    """
    blocks: list[ContentBlock] = []
    seen: set[str] = set()
    for block in message.content:
        if block.tool_call is not None:
            seen.add(block.tool_call.id)
            blocks.append(ContentBlock(text=render_tool_call(block.tool_call)))
        else:
            blocks.append(block)
    for partial in message.tool_calls:
        if partial.id and partial.id in seen:
            continue
        blocks.append(ContentBlock(text=render_partial_tool_call(partial)))
    blocks.append(ContentBlock(text=ABORTED_MARKER))
    return AssistantMessage(
        content=tuple(blocks),
        provenance=message.provenance,
        reasoning_summary=message.reasoning_summary,
        provider_context=message.provider_context,
    )


class HttpProvider(ModelProvider, abc.ABC):
    """Base of the HTTP adapters.

    External cancellation mode: the engine may drop the call at once. The token is watched as
    well, so a host that only cancels the token still gets the HTTP stream closed immediately
    and a ``ProviderError`` of kind Interrupted (``provider request cancelled``).

    Args:
        model: the model id sent to the API.
        api_key: the key, or ``None`` for servers that need none (local Ollama).
        http: the transport (base URL, headers, timeouts).
        context_window: the model's context window, reported with usage when known.
        pricing: prices used to compute cost when the server reports none.
    """

    cancellation_mode = CancellationMode.EXTERNAL
    api_name: str = ""

    def __init__(
        self,
        *,
        provider_name: str,
        model: str,
        http: HttpStream,
        api_key: SecretString | None = None,
        context_window: int | None = None,
        pricing: Pricing | None = None,
    ) -> None:
        self._identity = ModelIdentity(provider_name, self.api_name, model)
        self._http = http
        self._api_key = api_key
        self.context_window = context_window
        self.pricing = pricing
        self.on_handoff: Callable[[HandoffReport], None] | None = None
        """Called before a request whose history holds provider-native blocks that are not
        replayable to this identity (and are therefore left out of the wire request)."""

    @property
    def model(self) -> str:
        return self._identity.model

    def identity(self) -> ModelIdentity:
        return self._identity

    def handoff_report(self, messages: Sequence[Message]) -> HandoffReport:
        """Provider-native blocks in ``messages`` this provider will not be sent (spec §4.2).

        Hosts call it before sending (and on provider switch) to tell the user what is omitted.
        """
        return report_message_omissions(messages, self._identity)

    def __repr__(self) -> str:
        key = REDACTED if self._api_key else "none"
        return f"{type(self).__name__}({self._identity}, base_url={self._http.display_url!r}, api_key={key})"

    async def aclose(self) -> None:
        """Close the provider's private HTTP client."""
        await self._http.aclose()

    async def __aenter__(self) -> HttpProvider:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def send_turn(self, request: ModelRequest) -> tuple[ContentBlock, ...]:
        """Non-streaming use: stream and discard the events."""

        class _Discard:
            async def send(self, event: object) -> None:
                return None

        return await self.send_turn_stream(request, _Discard())

    async def send_turn_stream(
        self, request: ModelRequest, events: EventSink
    ) -> tuple[ContentBlock, ...]:
        report = self.handoff_report(request.messages)
        if report.has_omissions():
            log.debug(
                "omitting %d provider-context block(s) (%s) not replayable to %s",
                report.omitted_provider_context,
                ", ".join(report.omitted_kinds),
                self._identity,
            )
            if self.on_handoff is not None:
                self.on_handoff(report)
        return await guard_cancellation(request.cancellation, lambda: self._stream(request, events))

    @abc.abstractmethod
    async def _stream(self, request: ModelRequest, events: EventSink) -> tuple[ContentBlock, ...]:
        """Lower ``request``, stream the reply into ``events``, return the final content."""
