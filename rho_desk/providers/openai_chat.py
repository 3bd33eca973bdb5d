"""The OpenAI-compatible Chat Completions adapter (OpenAI, OpenRouter, Ollama, vLLM, llama.cpp,
LM Studio): request lowering, stream mapping, usage.

Identity: ``ModelIdentity(<profile provider name>, "openai-chat-completions", <model>)``.

Stream mapping (``chat.completion.chunk`` events, ``data: [DONE]`` at the end):

* ``delta.content`` → ``OutputDelta``;
* ``delta.reasoning_content`` / ``delta.reasoning`` (DeepSeek, Qwen, vLLM, OpenRouter) →
  ``ReasoningDelta`` (raw, never persisted by the engine); the whole reasoning text is then kept
  as provider context of kind ``openai_chat_reasoning_content``, replayed only to this exact
  identity (DeepSeek-style servers want it back), as upstream Rho does;
* OpenRouter ``delta.reasoning_details`` items of type ``reasoning.summary`` →
  ``ReasoningSummaryDelta``;
* ``delta.tool_calls[]`` fragments → ``ToolCallDelta`` keyed by their ``index``;
* the ``usage`` chunk (requested with ``stream_options.include_usage``) → one ``Usage`` at the
  end, with the inclusive prompt split by ``ModelUsage.from_inclusive_prompt`` and cost from
  ``usage.cost`` (OpenRouter) or the profile's prices;
* an ``error`` object inside the stream → a typed ``ProviderError``.

The final content is the text (if any) followed by the tool calls in index order. Tool-call
arguments that are not valid JSON are returned as the raw string: the engine's protocol
validation then asks the model again (spec/engine.md §8.4) instead of failing the run.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

import httpx
import msgspec

from ..core.errors import ProviderError, ProviderErrorKind, Retryability
from ..core.provider import (
    EventSink,
    ModelEvent,
    ModelRequest,
    OutputDelta,
    OutputLimited,
    ProviderContext,
    ReasoningDelta,
    ReasoningLevel,
    ReasoningSummaryDelta,
    ServedModel,
    ToolCallDelta,
    Usage,
)
from ..core.provider.handoff import PreparedAssistant, prepare_assistant
from ..core.secrets.scrub import SecretString
from ..core.wire.model import ContentBlock, Message, ModelIdentity, ToolSpec
from .base import (
    ASSISTANT_IMAGE_PLACEHOLDER,
    HttpProvider,
    aborted_as_assistant,
    json_object,
    json_string,
    parse_tool_arguments,
    render_tool_call,
)
from .transport import EventStream, HttpStream, Timeouts, malformed, stream_error
from .usage import ChatUsage, Pricing, with_cost

__all__ = [
    "DEFAULT_MAX_OUTPUT_TOKENS",
    "OPENAI_CHAT_API",
    "OPENAI_CHAT_REASONING_CONTENT_KIND",
    "OpenAIChatProvider",
    "build_chat_body",
    "lower_chat_messages",
]

OPENAI_CHAT_API: Final = "openai-chat-completions"
OPENAI_CHAT_REASONING_CONTENT_KIND: Final = "openai_chat_reasoning_content"
MAX_TOOL_INDEX: Final = 4096
DEFAULT_MAX_OUTPUT_TOKENS: Final = 8192
"""The output cap sent with every request when the profile sets none: a model that runs away (a
tool call that degenerates into thousands of repeated tokens) is stopped by the server at it, not
at the end of its context minutes later."""
TOKENIZE_TIMEOUT: Final = 2.0
"""Seconds a token count may take in all (a server that answers byte by byte included); slower,
the engine keeps its own estimate."""

_EFFORT: Final = {
    ReasoningLevel.MINIMAL: "minimal",
    ReasoningLevel.LOW: "low",
    ReasoningLevel.MEDIUM: "medium",
    ReasoningLevel.HIGH: "high",
    ReasoningLevel.XHIGH: "high",
    ReasoningLevel.MAX: "high",
}


# --- request lowering ----------------------------------------------------------------------


def _user_content(blocks: Sequence[ContentBlock]) -> str | list[dict[str, Any]]:
    # A single text block goes as a plain string: some local servers accept nothing else.
    if len(blocks) == 1 and blocks[0].text is not None:
        return blocks[0].text
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if block.text is not None:
            parts.append({"type": "text", "text": block.text})
        elif block.image is not None:
            url = f"data:{block.image.mime_type};base64,{block.image.data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
        elif block.tool_call is not None:
            parts.append({"type": "text", "text": render_tool_call(block.tool_call)})
    return parts


def _assistant(prepared: PreparedAssistant) -> dict[str, Any]:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in prepared.content:
        if block.text is not None:
            texts.append(block.text)
        elif block.image is not None:
            texts.append(ASSISTANT_IMAGE_PLACEHOLDER)
        elif block.tool_call is not None:
            call = block.tool_call
            calls.append(
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(call.arguments, ensure_ascii=False),
                    },
                }
            )
    text = "\n".join(texts)
    # Always a string, "" for a turn made only of tool calls: OpenAI, vLLM and Ollama accept ""
    # as they accept null, but llama-cpp-python's server rejects null (HTTP 500, a validation
    # error) and llama.cpp's own server takes either.
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = calls
    for context_block in prepared.replay_context:
        # Only this kind can be encoded on the chat wire; the identity already matched exactly.
        data = context_block.data
        if (
            context_block.kind == OPENAI_CHAT_REASONING_CONTENT_KIND
            and isinstance(data, str)
            and data
        ):
            message["reasoning_content"] = data
            break
    return message


def lower_chat_messages(messages: Sequence[Message], target: ModelIdentity) -> list[dict[str, Any]]:
    """Canonical history as Chat Completions messages for ``target`` (exact-identity replay)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.system is not None:
            out.append({"role": "system", "content": message.system})
        elif message.user is not None:
            out.append({"role": "user", "content": _user_content(message.user)})
        elif message.assistant is not None:
            out.append(_assistant(PreparedAssistant(message.assistant, ())))
        elif message.enriched_assistant is not None:
            out.append(_assistant(prepare_assistant(message.enriched_assistant, target)))
        elif message.aborted_assistant is not None:
            aborted = aborted_as_assistant(message.aborted_assistant)
            out.append(_assistant(prepare_assistant(aborted, target)))
        elif message.tool_result is not None:
            result = message.tool_result
            out.append({"role": "tool", "tool_call_id": result.id, "content": result.content})
    return out


def _tool(spec: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.input_schema,
        },
    }


def build_chat_body(
    request: ModelRequest,
    target: ModelIdentity,
    *,
    send_reasoning_effort: bool = False,
    send_prompt_cache_key: bool = False,
    max_output_tokens: int | None = None,
    max_tokens_field: str = "max_tokens",
) -> dict[str, Any]:
    """The JSON body of one streamed Chat Completions request.

    Args:
        max_tokens_field: ``max_tokens`` (llama.cpp, vLLM, Ollama, most servers) or
            ``max_completion_tokens`` (OpenAI's own API, whose reasoning models refuse the other).
    """
    body: dict[str, Any] = {
        "model": target.model,
        "messages": lower_chat_messages(request.messages, target),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        body["tools"] = [_tool(t) for t in request.tools]
    if max_output_tokens is not None:
        body[max_tokens_field] = max_output_tokens
    if send_reasoning_effort and request.reasoning_level in _EFFORT:
        body["reasoning_effort"] = _EFFORT[request.reasoning_level]
    if send_prompt_cache_key and request.prompt_cache_key:
        body["prompt_cache_key"] = request.prompt_cache_key
    return body


# --- stream mapping ------------------------------------------------------------------------


class _Call(msgspec.Struct):
    id: str | None = None
    name: str | None = None
    arguments: str = ""


class _ChatTurn(msgspec.Struct):
    text: list[str] = msgspec.field(default_factory=list)
    reasoning: list[str] = msgspec.field(default_factory=list)
    calls: dict[int, _Call] = msgspec.field(default_factory=dict)
    usage: ChatUsage = msgspec.field(default_factory=ChatUsage)
    finished: bool = False
    finish_reason: str | None = None
    requested: str = ""
    """The model the request named."""
    served: str | None = None
    """The model the chunks name, once seen."""

    def feed(self, chunk: dict[str, Any]) -> list[ModelEvent]:
        self.usage.merge(chunk.get("usage"))
        early: list[ModelEvent] = []
        model = chunk.get("model")
        if self.served is None and isinstance(model, str) and model:
            self.served = model
            if model != self.requested:
                early.append(ServedModel(model))
        choices = chunk.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return early
        choice = choices[0]
        if choice.get("finish_reason"):
            self.finished = True
            self.finish_reason = str(choice["finish_reason"])
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            delta = json_object(choice, "message")
        events: list[ModelEvent] = early
        reasoning = delta.get("reasoning_content")
        if not isinstance(reasoning, str):
            reasoning = delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            self.reasoning.append(reasoning)
            events.append(ReasoningDelta(reasoning))
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for item in details:
                if not isinstance(item, dict):
                    continue
                if (
                    item.get("type") == "reasoning.summary"
                    and isinstance(item.get("summary"), str)
                    and item["summary"]
                ):
                    events.append(ReasoningSummaryDelta(item["summary"]))
                elif (
                    item.get("type") == "reasoning.text"
                    and not isinstance(reasoning, str)
                    and isinstance(item.get("text"), str)
                    and item["text"]
                ):
                    self.reasoning.append(item["text"])
                    events.append(ReasoningDelta(item["text"]))
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text.append(content)
            events.append(OutputDelta(content))
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for position, fragment in enumerate(tool_calls):
                if isinstance(fragment, dict):
                    event = self._tool_fragment(position, fragment)
                    if event is not None:
                        events.append(event)
        return events

    def _tool_fragment(self, position: int, fragment: dict[str, Any]) -> ToolCallDelta | None:
        index = fragment.get("index", position)
        if (
            isinstance(index, bool)
            or not isinstance(index, int)
            or not 0 <= index <= MAX_TOOL_INDEX
        ):
            raise malformed("a tool-call index was out of range")
        call = self.calls.setdefault(index, _Call())
        function = json_object(fragment, "function")
        call_id = json_string(fragment, "id") or None
        name = json_string(function, "name") or None
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            piece = arguments
        elif arguments is None:
            piece = ""
        else:  # some servers send the arguments object itself
            piece = json.dumps(arguments, ensure_ascii=False)
        if call_id is not None:
            call.id = call_id
        if name is not None:
            call.name = name
        call.arguments += piece
        if call_id is None and name is None and not piece:
            return None
        return ToolCallDelta(index=index, id=call_id, name=name, arguments=piece)

    def content(self) -> tuple[ContentBlock, ...]:
        blocks: list[ContentBlock] = []
        text = "".join(self.text)
        if text:
            blocks.append(ContentBlock(text=text))
        for index in sorted(self.calls):
            call = self.calls[index]
            arguments = parse_tool_arguments(call.arguments)
            # Some local servers omit call ids; the engine needs one to pair the result.
            call_id = call.id or f"call_{uuid.uuid4().hex[:24]}"
            blocks.append(ContentBlock.of_tool_call(call_id, call.name or "", arguments))
        return tuple(blocks)


class OpenAIChatProvider(HttpProvider):
    """Streams Chat Completions from any OpenAI-compatible server.

    Args:
        base_url: the API root ending in ``/v1`` (``https://api.openai.com/v1``,
            ``https://openrouter.ai/api/v1``, ``http://127.0.0.1:11434/v1``...).
        model: the model id.
        api_key: sent as ``Authorization: Bearer``; ``None`` for servers that need no key.
        provider_name: the identity's provider part (``openai``, ``openrouter``, ``ollama``...).
        extra_headers: non-secret headers (``HTTP-Referer``, ``X-Title``...).
        send_reasoning_effort: send ``reasoning_effort`` (OpenAI reasoning models; some local
            servers reject unknown fields, so it is opt-in).
        send_prompt_cache_key: forward the session's prompt-cache key (OpenAI).
        max_output_tokens: the output cap to request (default :data:`DEFAULT_MAX_OUTPUT_TOKENS`).
        timeouts, client, context_window, pricing: see ``HttpStream`` and ``HttpProvider``.
    """

    api_name = OPENAI_CHAT_API

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: SecretString | None = None,
        provider_name: str = "openai",
        extra_headers: Mapping[str, str] | None = None,
        send_reasoning_effort: bool = False,
        send_prompt_cache_key: bool = False,
        max_output_tokens: int | None = None,
        context_window: int | None = None,
        pricing: Pricing | None = None,
        timeouts: Timeouts | None = None,
        client: httpx.AsyncClient | None = None,
    ) -> None:
        secret_headers = {}
        if api_key:
            secret_headers["authorization"] = SecretString(f"Bearer {api_key.expose_secret()}")
        http = HttpStream(
            base_url,
            label="OpenAI-compatible server",
            headers=extra_headers,
            secret_headers=secret_headers,
            timeouts=timeouts,
            client=client,
            secrets=[api_key] if api_key else (),
        )
        super().__init__(
            provider_name=provider_name,
            model=model,
            http=http,
            api_key=api_key,
            context_window=context_window,
            pricing=pricing,
        )
        self.send_reasoning_effort = send_reasoning_effort
        self.send_prompt_cache_key = send_prompt_cache_key
        self.max_output_tokens = (
            DEFAULT_MAX_OUTPUT_TOKENS if max_output_tokens is None else max_output_tokens
        )
        self._max_tokens_field = (
            "max_completion_tokens"
            if urlsplit(base_url).hostname == "api.openai.com"
            else "max_tokens"
        )
        self._counts_tokens: bool | None = None
        """Whether the server answers ``/tokenize`` (unknown until asked once)."""

    async def count_tokens(self, text: str) -> int | None:
        """llama.cpp's ``POST /tokenize`` (``{"content": text}`` → ``{"tokens": [...]}``), beside
        the ``/v1`` root; ``None`` when the server has no such endpoint (asked once) or is slow."""
        if self._counts_tokens is False:
            return None
        http = self._http
        root = httpx.URL(http.base_url)
        path = root.path.rstrip("/")
        url = root.copy_with(
            path=(path[: -len("/v1")] if path.endswith("/v1") else path) + "/tokenize"
        )
        try:
            # httpx's timeout bounds each read, not the whole answer
            async with asyncio.timeout(TOKENIZE_TIMEOUT):
                answer = await http.post_json(url, {"content": text}, timeout=TOKENIZE_TIMEOUT)
        except (httpx.HTTPError, ValueError, TimeoutError):
            self._counts_tokens = False
            return None
        tokens = answer.get("tokens") if isinstance(answer, dict) else None
        if not isinstance(tokens, list):
            self._counts_tokens = False
            return None
        self._counts_tokens = True
        return len(tokens)

    def build_body(self, request: ModelRequest) -> dict[str, Any]:
        return build_chat_body(
            request,
            self._identity,
            send_reasoning_effort=self.send_reasoning_effort,
            send_prompt_cache_key=self.send_prompt_cache_key,
            max_output_tokens=self.max_output_tokens,
            max_tokens_field=self._max_tokens_field,
        )

    async def _stream(self, request: ModelRequest, events: EventSink) -> tuple[ContentBlock, ...]:
        body = self.build_body(request)
        turn = _ChatTurn(requested=self.identity().model)
        async with self._http.post_sse("/chat/completions", body) as stream:
            if stream.is_event_stream:
                await self._consume_stream(stream, turn, events)
            else:
                await self._consume_completion(stream, turn, events)
        if turn.finish_reason == "length" and turn.calls:
            # A tool call cut short is not a malformed reply to send again: the same request would
            # be cut the same way (a text reply cut short is kept: it is what the model wrote).
            raise ProviderError(
                ProviderErrorKind.OTHER,
                f"the server cut the reply at its output limit ({self._max_tokens_field} {self.max_output_tokens}; "
                "finish_reason: length) while the model was writing a tool call",
                Retryability.PERMANENT,
            )
        if turn.finish_reason == "length":  # a text reply cut short: kept, and said
            await events.send(
                OutputLimited(
                    f"the server cut the reply at its output limit ({self._max_tokens_field} {self.max_output_tokens}; "
                    "finish_reason: length)"
                )
            )
        if turn.usage.seen:
            usage = with_cost(turn.usage.to_model_usage(self.context_window), self.pricing)
            await events.send(Usage(usage))
        reasoning = "".join(turn.reasoning)
        if reasoning:
            await events.send(ProviderContext(OPENAI_CHAT_REASONING_CONTENT_KIND, 0, reasoning))
        return turn.content()

    async def _consume_stream(
        self, stream: EventStream, turn: _ChatTurn, events: EventSink
    ) -> None:
        http = self._http
        async for sse in stream:
            data = sse.data.strip()
            if data == "[DONE]":
                return
            if not data:
                continue
            try:
                chunk = json.loads(data)
            except ValueError:
                chunk = None
            if not isinstance(chunk, dict):
                raise malformed("a chunk was not a JSON object")
            if chunk.get("error") is not None:
                raise stream_error(chunk, http.scrub, label=http.label)
            for event in turn.feed(chunk):
                await events.send(event)
                # which model answers is not output: a disconnect after it is before the reply
                stream.output_started = stream.output_started or not isinstance(event, ServedModel)
        # Some servers end after the finish_reason chunk without [DONE]; anything less is torn.
        if not turn.finished or stream.has_partial_event:
            raise stream.ended_early()

    async def _consume_completion(
        self, stream: EventStream, turn: _ChatTurn, events: EventSink
    ) -> None:
        """Some servers and proxies ignore ``stream: true`` and send one ``chat.completion``."""
        completion = await stream.read_json()
        if not isinstance(completion, dict):
            raise malformed("the completion was not a JSON object")
        if completion.get("error") is not None:
            raise stream_error(completion, self._http.scrub, label=self._http.label)
        mapped = turn.feed(completion)
        if not isinstance(completion.get("choices"), list) or not completion["choices"]:
            raise malformed("the completion had no choices")
        for event in mapped:
            await events.send(event)
