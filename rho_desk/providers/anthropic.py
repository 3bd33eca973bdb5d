"""The Anthropic Messages adapter, extended thinking included: request lowering, stream mapping.

Identity: ``ModelIdentity("anthropic", "anthropic-messages", <model>)``.

Stream mapping (``message_start`` / ``content_block_start`` / ``content_block_delta`` /
``content_block_stop`` / ``message_delta`` / ``message_stop``, ``ping``, ``error``):

* ``text_delta`` → ``OutputDelta``; ``thinking_delta`` → ``ReasoningDelta`` (raw, never
  persisted); ``input_json_delta`` → ``ToolCallDelta`` (the ``tool_use`` start carries id/name);
* at ``content_block_stop`` a ``thinking`` block (with its ``signature``) or a
  ``redacted_thinking`` block becomes provider context of kind ``anthropic_content_block`` at
  the stream index, replayed verbatim and in place to this exact identity only (the API
  requires the signed blocks back during tool use);
* usage: ``message_start`` gives the disjoint input buckets (input, cache read, cache write);
  ``message_delta`` gives the cumulative output count, forwarded as increments (the engine sums
  usage events); cost from a gateway-reported ``cost`` or the profile's prices;
* an ``error`` event → a typed ``ProviderError`` (``overloaded_error`` → Unavailable, retryable...).

The final content is the text and ``tool_use`` blocks in stream order. Thinking blocks are not
content; they travel as provider context.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import httpx

from ..core.provider import (
    EventSink,
    ModelEvent,
    ModelRequest,
    OutputDelta,
    OutputLimited,
    ProviderContext,
    ReasoningDelta,
    ReasoningLevel,
    ServedModel,
    ToolCallDelta,
    Usage,
)
from ..core.provider.handoff import PreparedAssistant, prepare_assistant
from ..core.secrets.scrub import SecretString
from ..core.wire.model import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    ToolSpec,
)
from .base import (
    ASSISTANT_IMAGE_PLACEHOLDER,
    HttpProvider,
    aborted_as_assistant,
    json_object,
    json_string,
    parse_tool_arguments,
    render_tool_call,
)
from .transport import HttpStream, Timeouts, malformed, stream_error
from .usage import Pricing, parse_usd_micros, with_cost

__all__ = [
    "ANTHROPIC_API",
    "ANTHROPIC_CONTENT_BLOCK_KIND",
    "ANTHROPIC_VERSION",
    "AnthropicProvider",
    "build_messages_body",
    "lower_anthropic_messages",
    "thinking_budget",
]

ANTHROPIC_API: Final = "anthropic-messages"
ANTHROPIC_CONTENT_BLOCK_KIND: Final = "anthropic_content_block"
ANTHROPIC_VERSION: Final = "2023-06-01"
DEFAULT_MAX_OUTPUT_TOKENS: Final = 16_384
MIN_THINKING_BUDGET: Final = 1024
MAX_BLOCK_INDEX: Final = 4096

_BUDGETS: Final = {
    ReasoningLevel.MINIMAL: 1024,
    ReasoningLevel.LOW: 2048,
    ReasoningLevel.MEDIUM: 4096,
    ReasoningLevel.HIGH: 8192,
    ReasoningLevel.XHIGH: 16_384,
    ReasoningLevel.MAX: 32_000,
}


def thinking_budget(level: ReasoningLevel, max_tokens: int) -> int | None:
    """The ``budget_tokens`` for ``level``, or ``None`` when thinking is off or does not fit.

    The API needs 1024 <= budget < max_tokens.
    """
    wanted = _BUDGETS.get(level)
    if wanted is None:
        return None
    budget = min(wanted, max_tokens - MIN_THINKING_BUDGET)
    return budget if budget >= MIN_THINKING_BUDGET else None


# --- request lowering ----------------------------------------------------------------------


def _text(text: str) -> dict[str, Any] | None:
    # The API rejects empty text blocks.
    return {"type": "text", "text": text} if text else None


def _user_block(block: ContentBlock) -> dict[str, Any] | None:
    if block.text is not None:
        return _text(block.text)
    if block.image is not None:
        return {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": block.image.mime_type,
                "data": block.image.data,
            },
        }
    assert block.tool_call is not None
    return _text(render_tool_call(block.tool_call))


def _assistant_block(block: ContentBlock) -> dict[str, Any] | None:
    if block.text is not None:
        return _text(block.text)
    if block.image is not None:
        return _text(ASSISTANT_IMAGE_PLACEHOLDER)
    assert block.tool_call is not None
    call = block.tool_call
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}


def _assistant(prepared: PreparedAssistant, replay: bool) -> list[dict[str, Any]]:
    content = [b for b in (_assistant_block(x) for x in prepared.content) if b is not None]
    if replay:
        for block in prepared.replay_context:
            if block.kind != ANTHROPIC_CONTENT_BLOCK_KIND or not isinstance(block.data, dict):
                continue
            at = len(content) if block.position is None else min(block.position, len(content))
            content.insert(at, block.data)
    return content


def _prepare(message: AssistantMessage, target: ModelIdentity, replay: bool) -> PreparedAssistant:
    if not replay:
        # Thinking is off for this request: signed blocks may not be sent, so the message is
        # lowered as if it had none (the summary or fallback stands in, spec §4.1).
        message = message.retain_portable_context()
    return prepare_assistant(message, target)


def lower_anthropic_messages(
    messages: Sequence[Message], target: ModelIdentity, *, replay_thinking: bool = True
) -> tuple[str | None, list[dict[str, Any]]]:
    """Canonical history as (system prompt, Messages API messages) for ``target``.

    System messages are joined with a blank line; consecutive messages of one role are merged
    (the API wants strict alternation); tool results go as ``tool_result`` blocks of a user turn.
    """
    system: list[str] = []
    out: list[dict[str, Any]] = []

    def push(role: str, content: list[dict[str, Any]]) -> None:
        if not content:
            return
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(content)
        else:
            out.append({"role": role, "content": content})

    for message in messages:
        if message.system is not None:
            system.append(message.system)
        elif message.user is not None:
            push("user", [b for b in (_user_block(x) for x in message.user) if b is not None])
        elif message.assistant is not None:
            push("assistant", _assistant(PreparedAssistant(message.assistant, ()), False))
        elif message.enriched_assistant is not None:
            prepared = _prepare(message.enriched_assistant, target, replay_thinking)
            push("assistant", _assistant(prepared, replay_thinking))
        elif message.aborted_assistant is not None:
            prepared = _prepare(
                aborted_as_assistant(message.aborted_assistant), target, replay_thinking
            )
            push("assistant", _assistant(prepared, replay_thinking))
        elif message.tool_result is not None:
            result = message.tool_result
            block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.id}
            if result.content:
                block["content"] = result.content
            if not result.ok:
                block["is_error"] = True
            push("user", [block])
    return ("\n\n".join(system) if system else None), out


def _tool(spec: ToolSpec) -> dict[str, Any]:
    schema = spec.input_schema
    if isinstance(schema, dict):
        # The API wants an object schema at the root and rejects root-level composition.
        schema = {k: v for k, v in schema.items() if k not in ("oneOf", "anyOf", "allOf")}
        schema["type"] = "object"
    else:
        schema = {"type": "object", "properties": {}}
    return {"name": spec.name, "description": spec.description, "input_schema": schema}


def build_messages_body(
    request: ModelRequest,
    target: ModelIdentity,
    *,
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
    thinking: bool = True,
) -> dict[str, Any]:
    """The JSON body of one streamed Messages request.

    Args:
        thinking: whether this model supports extended thinking; the request's reasoning level
            then picks the budget (``off`` sends none).
    """
    budget = thinking_budget(request.reasoning_level, max_output_tokens) if thinking else None
    system, messages = lower_anthropic_messages(
        request.messages, target, replay_thinking=budget is not None
    )
    body: dict[str, Any] = {
        "model": target.model,
        "max_tokens": max_output_tokens,
        "messages": messages,
    }
    if system is not None:
        body["system"] = system
    if request.tools:
        body["tools"] = [_tool(t) for t in request.tools]
    if budget is not None:
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    body["stream"] = True
    return body


# --- stream mapping ------------------------------------------------------------------------


def _u64(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


@dataclass(slots=True)
class _Block:
    kind: str = ""
    text: str = ""
    thinking: str = ""
    signature: str = ""
    redacted: str | None = None
    tool_id: str | None = None
    tool_name: str | None = None
    tool_input: str = ""


@dataclass(slots=True)
class _MessagesTurn:
    context_window: int | None
    pricing: Pricing | None
    blocks: dict[int, _Block] = field(default_factory=dict)
    output_seen: int = 0
    cost_seen: int = 0
    stopped: bool = False
    cut: bool = False
    """``stop_reason: max_tokens``: the server cut the reply at its output limit."""
    requested: str = ""
    """The model the request named; ``message_start`` names the one that answers (an alias such
    as ``claude-sonnet-4-5`` answers as its dated version), recorded as the reply's provenance."""

    def _index(self, event: dict[str, Any]) -> int:
        index = event.get("index")
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            or not 0 <= index <= MAX_BLOCK_INDEX
        ):
            raise malformed("a content block index was missing or out of range")
        return index

    def _usage(self, usage: ModelUsage) -> Usage:
        return Usage(with_cost(usage, self.pricing))

    def feed(self, event: dict[str, Any]) -> list[ModelEvent]:
        kind = event.get("type")
        if kind == "message_start":
            message = json_object(event, "message")
            started: list[ModelEvent] = []
            model = message.get("model")
            if isinstance(model, str) and model and model != self.requested:
                started.append(ServedModel(model))
            usage = message.get("usage")
            if isinstance(usage, dict):
                started.append(self._start_usage(usage))
            return started
        if kind == "content_block_start":
            return self._block_start(self._index(event), event.get("content_block"))
        if kind == "content_block_delta":
            return self._block_delta(self._index(event), event.get("delta"))
        if kind == "content_block_stop":
            return self._block_stop(self._index(event))
        if kind == "message_delta":
            return self._message_delta(event)
        if kind == "message_stop":
            self.stopped = True
        return []  # ping and event types added later are ignored

    def _start_usage(self, usage: dict[str, Any]) -> Usage:
        input_tokens = _u64(usage.get("input_tokens"))
        cache_read = _u64(usage.get("cache_read_input_tokens"))
        cache_write = _u64(usage.get("cache_creation_input_tokens"))
        nested = usage.get("cache_creation")
        if cache_write is None and isinstance(nested, dict):
            one_hour = _u64(nested.get("ephemeral_1h_input_tokens"))
            five_min = _u64(nested.get("ephemeral_5m_input_tokens"))
            if one_hour is not None or five_min is not None:
                cache_write = (one_hour or 0) + (five_min or 0)
        parts = (input_tokens, cache_read, cache_write)
        total = sum(p or 0 for p in parts) if any(p is not None for p in parts) else None
        # message_start's output count is a seed that message_delta restates: not counted here.
        return self._usage(
            ModelUsage(
                input_tokens=input_tokens,
                cache_read_tokens=cache_read,
                cache_write_tokens=cache_write,
                total_tokens=total,
                context_window=self.context_window,
            )
        )

    def _block_start(self, index: int, start: Any) -> list[ModelEvent]:
        if not isinstance(start, dict):
            raise malformed("a content_block_start had no content block")
        block = self.blocks.setdefault(index, _Block())
        block.kind = json_string(start, "type")
        if block.kind == "text":
            text = start.get("text")
            if isinstance(text, str) and text:
                block.text += text
                return [OutputDelta(text)]
        elif block.kind == "thinking":
            block.thinking = json_string(start, "thinking")
            block.signature = json_string(start, "signature")
        elif block.kind == "redacted_thinking":
            block.redacted = start.get("data") if isinstance(start.get("data"), str) else ""
        elif block.kind == "tool_use":
            block.tool_id = start.get("id") if isinstance(start.get("id"), str) else None
            block.tool_name = start.get("name") if isinstance(start.get("name"), str) else None
            initial = start.get("input")
            seed = ""
            if initial is not None and initial != {}:
                seed = json.dumps(initial, ensure_ascii=False)
                block.tool_input += seed
            return [
                ToolCallDelta(index=index, id=block.tool_id, name=block.tool_name, arguments=seed)
            ]
        return []

    def _block_delta(self, index: int, delta: Any) -> list[ModelEvent]:
        if not isinstance(delta, dict):
            raise malformed("a content_block_delta had no delta")
        block = self.blocks.setdefault(index, _Block())
        kind = delta.get("type")
        if kind == "text_delta" and isinstance(delta.get("text"), str):
            block.text += delta["text"]
            return [OutputDelta(delta["text"])] if delta["text"] else []
        if kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
            block.tool_input += delta["partial_json"]
            return [ToolCallDelta(index=index, id=None, name=None, arguments=delta["partial_json"])]
        if kind == "thinking_delta" and isinstance(delta.get("thinking"), str):
            block.thinking += delta["thinking"]
            return [ReasoningDelta(delta["thinking"])] if delta["thinking"] else []
        if kind == "signature_delta" and isinstance(delta.get("signature"), str):
            block.signature += delta["signature"]
        return []

    def _block_stop(self, index: int) -> list[ModelEvent]:
        block = self.blocks.get(index)
        if block is None:
            return []
        if block.kind == "thinking" or block.thinking or block.signature:
            data = {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
            return [ProviderContext(ANTHROPIC_CONTENT_BLOCK_KIND, index, data)]
        if block.redacted is not None:
            data = {"type": "redacted_thinking", "data": block.redacted}
            return [ProviderContext(ANTHROPIC_CONTENT_BLOCK_KIND, index, data)]
        return []

    def _message_delta(self, event: dict[str, Any]) -> list[ModelEvent]:
        if json_string(json_object(event, "delta"), "stop_reason") == "max_tokens":
            self.cut = True
        usage = json_object(event, "usage")
        cumulative = _u64(usage.get("output_tokens"))
        output = None
        if cumulative is not None:
            output = max(cumulative - self.output_seen, 0)
            self.output_seen = max(self.output_seen, cumulative)
        cost = None
        metadata = event.get("provider_metadata")
        if isinstance(metadata, dict) and isinstance(metadata.get("gateway"), dict):
            reported = parse_usd_micros(metadata["gateway"].get("cost"))
            if reported is not None:
                cost = max(reported - self.cost_seen, 0)
                self.cost_seen = max(self.cost_seen, reported)
        if output is None and cost is None:
            return []
        return [
            self._usage(ModelUsage(output_tokens=output, total_tokens=output, cost_usd_micros=cost))
        ]

    def content(self) -> tuple[ContentBlock, ...]:
        out: list[ContentBlock] = []
        for index in sorted(self.blocks):
            block = self.blocks[index]
            if block.text:
                out.append(ContentBlock(text=block.text))
            if block.kind == "tool_use" or block.tool_id is not None:
                arguments = parse_tool_arguments(block.tool_input)
                out.append(
                    ContentBlock.of_tool_call(block.tool_id or "", block.tool_name or "", arguments)
                )
        return tuple(out)


class AnthropicProvider(HttpProvider):
    """Streams the Anthropic Messages API.

    Args:
        model: the model id (``claude-sonnet-4-5``...).
        api_key: sent as ``x-api-key``.
        base_url: the API root, ``https://api.anthropic.com/v1`` by default.
        max_output_tokens: ``max_tokens`` (required by the API).
        thinking: whether the model supports extended thinking; the request's reasoning level
            then sets the budget.
        extra_headers: non-secret headers (``anthropic-beta``...).
        timeouts, client, context_window, pricing: see ``HttpStream`` and ``HttpProvider``.
    """

    api_name = ANTHROPIC_API

    def __init__(
        self,
        *,
        model: str,
        api_key: SecretString | None,
        base_url: str = "https://api.anthropic.com/v1",
        max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS,
        thinking: bool = True,
        extra_headers: Mapping[str, str] | None = None,
        context_window: int | None = None,
        pricing: Pricing | None = None,
        timeouts: Timeouts | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        headers = {"anthropic-version": ANTHROPIC_VERSION, **(extra_headers or {})}
        http = HttpStream(
            base_url,
            label="Anthropic",
            headers=headers,
            secret_headers={"x-api-key": api_key} if api_key else {},
            timeouts=timeouts,
            client=client,
        )
        super().__init__(
            provider_name="anthropic",
            model=model,
            http=http,
            api_key=api_key,
            context_window=context_window,
            pricing=pricing,
        )
        self.max_output_tokens = max_output_tokens
        self.thinking = thinking

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        return build_messages_body(
            request,
            self._identity,
            max_output_tokens=self.max_output_tokens,
            thinking=self.thinking,
        )

    async def _stream(self, request: ModelRequest, events: EventSink) -> tuple[ContentBlock, ...]:
        body = self.build_body(request)
        turn = _MessagesTurn(self.context_window, self.pricing, requested=self.identity().model)
        http = self._http
        async with http.post_sse("/messages", body) as stream:
            if not stream.is_event_stream:
                raise malformed(
                    f"expected an event stream, got {stream.content_type or 'no content type'}"
                )
            async for sse in stream:
                try:
                    event = json.loads(sse.data)
                except ValueError:
                    event = None
                if not isinstance(event, dict):
                    raise malformed("an event was not a JSON object")
                if event.get("type") == "error" or sse.event == "error":
                    raise stream_error(event, http.scrub, label=http.label)
                for mapped in turn.feed(event):
                    await events.send(mapped)
                    if not isinstance(mapped, (Usage, ServedModel)):
                        stream.output_started = True
                if turn.stopped:
                    break
            if not turn.stopped:
                raise stream.ended_early()
        if turn.cut:  # stop_reason max_tokens: the reply is what the model wrote before the cut
            await events.send(
                OutputLimited(
                    f"the server cut the reply at its output limit (max_tokens "
                    f"{self.max_output_tokens}; stop_reason: max_tokens)"
                )
            )
        return turn.content()
