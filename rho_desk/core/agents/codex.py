"""Codex CLI's rollouts (``openai/codex``): one JSONL file per thread, a line of response items.

Facts from ``codex-rs/protocol/src/protocol.rs`` (``RolloutItem``, ``RolloutLine``,
``SessionMeta``, ``CompactedItem``, ``TokenUsage``), ``codex-rs/protocol/src/models.rs``
(``ResponseItem``, ``ContentItem``, ``FunctionCallOutputPayload``) and
``codex-rs/rollout/src/policy.rs`` (what is persisted), read at commits ``001cb8e2`` and
``0136a731``:

* ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<timestamp>-<thread id>.jsonl`` (``$CODEX_HOME``
  defaults to ``~/.codex``; ``archived_sessions/`` holds archived ones). Builds with rollout
  compression (``codex-rs/rollout/src/compression.rs``, read at ``3846901e``) rewrite a rollout
  idle for seven days as ``rollout-*.jsonl.zst`` (zstd frames of the same lines) and decompress
  it back before appending; when both exist, the plain file is the one to read.
* Every line is ``{"timestamp": ISO, "type": ..., "payload": {...}}``: ``session_meta`` (line 1:
  ``id``, ``cwd``, ``cli_version``, ``source`` (a ``subagent`` source names its parent thread),
  ``forked_from_id``, ``base_instructions``, ``git``...), ``turn_context`` (the model of the
  turn), ``response_item`` (``message`` with ``input_text``/``output_text``/``input_image``,
  ``reasoning`` with ``summary`` texts and ``encrypted_content``, ``function_call`` with its
  arguments as JSON text, ``function_call_output``, ``custom_tool_call`` (``apply_patch``) and
  its output, ``local_shell_call``, ``web_search_call``...), ``event_msg`` (``token_count`` per
  request, ``turn_aborted``, ``thread_rolled_back`` (the last N user turns taken back: rho-desk
  keeps them as an abandoned branch), and UI copies of messages) and ``compacted`` (the summary,
  and since 2025 the ``replacement_history``).
* The oldest rollouts had no envelope: line 1 is the session meta itself and the response items
  follow bare, with ``{"record_type": "state"}`` lines between.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import msgspec
from msgspec import UNSET, Raw, UnsetType

from ..wire.model import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    ProviderContextBlock,
)
from ._parts import Where, count, data_url_image, json_text, string
from .base import (
    NOTHING,
    AgentLog,
    Compaction,
    Entry,
    Request,
    SubagentRef,
    Unused,
    bulk,
    iso_seconds,
    known,
)
from .build import INTERRUPTED_RESULT, attachment_message
from .jsonl import COMPRESSED_SUFFIX, JsonLines, first_line

__all__ = ["AGENT", "is_subagent", "read", "session_files", "subagent_files"]

AGENT: Final = "codex"
_OPENAI_KIND: Final = "openai_response_output_item"
_CONTEXT_PREFIXES: Final = (
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<user_shell_command>",
    "<turn_aborted>",
)
"""User items Codex injects as context (not a person's prompt)."""
_ASSISTANT_ITEMS: Final = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "image_generation_call",
        "tool_search_call",
    }
)
_PROVIDER_ITEMS: Final = frozenset(
    {
        "web_search_call",
        "image_generation_call",
        "tool_search_call",
        "compaction",
        "compaction_summary",
        "context_compaction",
    }
)
"""Items the provider ran or produced itself: kept whole as provider context."""
_LINE = known("timestamp", "type", "payload")
_META = known("id", "timestamp", "cwd", "cli_version", "source", "forked_from_id", "model_provider")
_MESSAGE = known("type", "role", "content")
_REASONING = known("type", "summary", "encrypted_content")
_CALL = known("type", "name", "arguments", "call_id")
_CUSTOM = known("type", "name", "input", "call_id")
_SHELL = known("type", "call_id", "action")
_OUTPUT = known("type", "call_id", "output")
_USAGE = known("input_tokens", "cached_input_tokens", "output_tokens", "total_tokens")
_LAST_USAGE = _USAGE | {"reasoning_output_tokens"}
_TEXT_PART = known("type", "text")
_TURN_CONTEXT = known("model")
_DECODE: Final = msgspec.json.Decoder().decode
_EVENT_PATHS: dict[str, str] = {}
"""An event's kind -> the JSON path its dropped payload is counted at (made once per kind)."""
_PATHS_KEPT: Final = 256


# -- the common shapes of rollout lines, decoded in C (JsonLines.mixed) ------------------------
# Each one takes only what the dict path of _Reader reads the same way: a narrower type, an
# unknown member or another item type sends the line to the dict path (strict about structure,
# with its own errors). Members a Rho session has no place for are declared as ``Raw`` (skipped,
# not decoded) and counted as dropped by their path.


class _InputText(
    msgspec.Struct, tag_field="type", tag="input_text", forbid_unknown_fields=True, gc=False
):
    text: str | None = None


class _OutputText(
    msgspec.Struct, tag_field="type", tag="output_text", forbid_unknown_fields=True, gc=False
):
    text: str | None = None


class _PlainText(
    msgspec.Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False
):
    text: str | None = None


class _Message(
    msgspec.Struct, tag_field="type", tag="message", forbid_unknown_fields=True, gc=False
):
    role: str
    content: list[_InputText | _OutputText | _PlainText]
    id: Raw = NOTHING
    end_turn: Raw = NOTHING
    phase: Raw = NOTHING


class _Reasoning(
    msgspec.Struct, tag_field="type", tag="reasoning", forbid_unknown_fields=True, gc=False
):
    summary: list[dict[str, Any]] | UnsetType | None = UNSET
    encrypted_content: Any = UNSET
    content: Raw = NOTHING
    id: Raw = NOTHING


class _FunctionCall(
    msgspec.Struct, tag_field="type", tag="function_call", forbid_unknown_fields=True, gc=False
):
    name: str
    call_id: str
    arguments: Any = None
    id: Raw = NOTHING


class _Output(
    msgspec.Struct,
    tag_field="type",
    tag="function_call_output",
    forbid_unknown_fields=True,
    gc=False,
):
    output: str
    call_id: str | None = None
    id: Raw = NOTHING


class _LastUsage(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A token count's figures of its request: every member the reader takes (any other member
    sends the line to the dict path, which counts it as dropped)."""

    input_tokens: Any = None
    cached_input_tokens: Any = None
    output_tokens: Any = None
    reasoning_output_tokens: Any = None
    total_tokens: Any = None


class _TotalUsage(msgspec.Struct, gc=False):
    """A token count's running totals: only the grand total is read (as the dict path does)."""

    total_tokens: Any = None


class _TokenInfo(msgspec.Struct, gc=False):
    """A token count's ``info``: only what the dict path reads."""

    last_token_usage: _LastUsage | None = None
    total_token_usage: _TotalUsage | None = None
    model_context_window: Any = None


class _Event(msgspec.Struct, gc=False):
    """An event: only its type and a token count's figures are read (as the dict path does)."""

    type: str
    info: _TokenInfo | None = None


class _TurnContext(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    model: Any = None
    cwd: Raw = NOTHING
    approval_policy: Raw = NOTHING
    sandbox_policy: Raw = NOTHING
    summary: Raw = NOTHING
    effort: Raw = NOTHING
    user_instructions: Raw = NOTHING
    developer_instructions: Raw = NOTHING
    base_instructions: Raw = NOTHING
    final_output_json_schema: Raw = NOTHING
    truncation_policy: Raw = NOTHING
    personality: Raw = NOTHING
    collaboration_mode: Raw = NOTHING
    turn_id: Raw = NOTHING
    current_date: Raw = NOTHING
    timezone: Raw = NOTHING


class _ResponseLine(
    msgspec.Struct, tag_field="type", tag="response_item", forbid_unknown_fields=True, gc=False
):
    payload: _Message | _Reasoning | _FunctionCall | _Output
    timestamp: Any = None


class _EventLine(
    msgspec.Struct, tag_field="type", tag="event_msg", forbid_unknown_fields=True, gc=False
):
    payload: _Event
    timestamp: Any = None


class _TurnContextLine(
    msgspec.Struct, tag_field="type", tag="turn_context", forbid_unknown_fields=True, gc=False
):
    payload: _TurnContext
    timestamp: Any = None


_USAGES_KEPT: Final = 4096
_TYPED: Final = msgspec.json.Decoder(_ResponseLine | _EventLine | _TurnContextLine).decode
_UNUSED: Final = {
    shape: Unused(shape, used, f"response_item/{tag}:$.payload")
    for shape, used, tag in (
        (_Message, _MESSAGE, "message"),
        (_Reasoning, _REASONING, "reasoning"),
        (_FunctionCall, _CALL, "function_call"),
        (_Output, _OUTPUT, "function_call_output"),
    )
}
_TURN_CONTEXT_UNUSED: Final = Unused(_TurnContext, _TURN_CONTEXT, "turn_context:$.payload")


@bulk
def read(path: Path, *, tolerant: bool = False, leaf_only: bool = False) -> AgentLog:
    """Read a Codex rollout (see the module docstring; ``leaf_only``: see
    :attr:`AgentLog.leaf_only`)."""
    lines = JsonLines(path, tolerant=tolerant)
    head, at, records = lines.first("Codex rollout", _TYPED)
    legacy = "payload" not in head and head.get("type") != "session_meta"
    meta = head if legacy else head.get("payload")
    if (not legacy and head.get("type") != "session_meta") or not isinstance(meta, dict):
        raise at.fail("not a Codex rollout: line 1 is not the session meta")
    thread = at.text(meta, "id", "the session meta", required=True) or ""
    created = iso_seconds(meta.get("timestamp")) or iso_seconds(head.get("timestamp"))
    log = AgentLog(
        AGENT,
        path,
        thread,
        at.text(meta, "cwd", "the session meta") or "",
        created,
        leaf_only=leaf_only,
    )
    log.version = meta.get("cli_version") if isinstance(meta.get("cli_version"), str) else None
    log.parent_session = _parent(meta.get("source")) or (
        meta["forked_from_id"] if isinstance(meta.get("forked_from_id"), str) else None
    )
    log.loss.rest(meta, _META, "session_meta:$.payload")
    if not legacy:
        log.loss.rest(head, _LINE, "session_meta:$")
    reader = _Reader(log, at, string(meta.get("model_provider"), "openai"))
    for line, record in records:
        at.line = line
        if not isinstance(record, dict):
            if not legacy and reader.typed(record):
                continue
            record = lines.as_dict()
        if legacy:
            if "record_type" in record:
                log.loss.drop("state:$")
                continue
            reader.item(record, created, "$")
            continue
        kind = record.get("type")
        payload = record.get("payload")
        if not isinstance(kind, str) or not isinstance(payload, dict):
            raise at.fail("a rollout line needs a string `type` and an object `payload`")
        time = iso_seconds(record.get("timestamp"))
        log.loss.rest(record, _LINE, f"{kind}:$")
        if kind == "response_item":
            reader.item(payload, time, "$.payload")
        elif kind == "event_msg":
            reader.event(payload, time)
        elif kind == "turn_context":
            reader.turn_context(payload)
        elif kind == "compacted":
            reader.compacted(payload, time)
        else:
            log.loss.drop(f"{kind}:$.payload")
    reader.close()
    log.subagents = subagent_files(path, thread)
    log.leaf = reader.current
    lines.hand_over(log)
    return log


def _parent(source: object) -> str | None:
    """The parent thread of a subagent's rollout (``{"subagent": {"thread_spawn": {...}}}``)."""
    if not isinstance(source, dict):
        return None
    sub = source.get("subagent")
    if isinstance(sub, dict):
        for value in sub.values():
            parent = string(value.get("parent_thread_id")) if isinstance(value, dict) else ""
            if parent:
                return parent
    return None


class _Reply:
    """The output items of one model response, gathered into one assistant message."""

    __slots__ = ("content", "context", "identity", "summary")

    def __init__(self, identity: ModelIdentity) -> None:
        self.identity = identity
        self.content: list[ContentBlock] = []
        self.summary: list[str] = []
        self.context: list[ProviderContextBlock] = []

    def message(self, identity: ModelIdentity) -> Message:
        return Message.enriched(
            AssistantMessage(
                tuple(self.content),
                identity,
                "\n\n".join(self.summary) or None,
                tuple(self.context),
            )
        )


class _Reader:
    def __init__(self, log: AgentLog, at: Where, provider: str) -> None:
        self.log = log
        self.loss = log.loss
        self.at = at
        self.provider = provider
        self.model = ""
        self._identity: ModelIdentity | None = None
        self.current: str | None = None
        """The step the next one hangs from."""
        self.turns: list[str] = []
        """The user-turn steps on the current path, oldest first (what a rollback counts)."""
        self.reply: _Reply | None = None
        self.entry: Entry | None = None
        """The step items join: a turn's items are one step (a rollback or a compaction starts
        the next)."""
        self.last_total: int | None = None
        self.context_tokens: int | None = None
        """The tokens of the last recorded request (prompt and reply): what a compaction replaced."""
        self.unanswered: list[str] = []
        """Calls of the current turn without an output yet."""
        self.timed = not log.leaf_only
        """Whether the steps' times are read (a snapshot holds none: read ``leaf_only``, the
        typed records' steps and requests have time 0)."""
        self.usages: dict[tuple[object, ...], ModelUsage] = {}
        """A typed token count's figures, all integers, -> their usage (many requests have the
        same)."""

    @property
    def identity(self) -> ModelIdentity:
        """The model of the current turn (one object while the model stays the same)."""
        identity = self._identity
        if identity is None or identity.model != self.model:
            identity = self._identity = ModelIdentity(self.provider, "responses", self.model)
        return identity

    def step(self, time: int, *, turn: bool = False) -> Entry:
        """A new step after the current one."""
        self.close()
        line = self.at.line
        entries = self.log.entries
        entry = Entry(f"L{line}", self.current, time, [], turn=turn, line=line)
        if entry.id in entries:
            entry.id = f"L{line}.{len(entries)}"
        entries[entry.id] = entry  # AgentLog.add
        self.current = entry.id
        self.entry = entry
        return entry

    def open_step(self, time: int) -> Entry:
        """The step the next item joins (a new one after a compaction or a rollback)."""
        entry = self.entry
        if entry is None or entry.compaction is not None:
            return self.step(time)
        return entry

    def close(self) -> None:
        """Finish the open reply: its items become one assistant message, in its step."""
        reply = self.reply
        if reply is not None:
            self.reply = None
            self.open_step(0).messages.append(reply.message(reply.identity))

    def item(self, item: dict[str, Any], time: int, where: str) -> None:
        at, loss = self.at, self.loss
        kind = item.get("type")
        if not isinstance(kind, str):
            raise at.fail("a response item has no `type`")
        path = f"response_item/{kind}:{where}"
        if kind == "message":
            role = at.text(item, "role", "a message", required=True)
            if role == "assistant":
                self.reply_part(time).content.extend(self.texts(item, f"{path}.content"))
                loss.rest(item, _MESSAGE, path)
                return
            if role != "user":
                loss.drop(f"response_item/message[role={role}]:{where}")
                return
            if self.prompt(self.texts(item, f"{path}.content"), time):
                loss.rest(item, _MESSAGE, path)
        elif kind == "reasoning":
            self.reasoning(
                at.objects(
                    at.array(item, "summary", "a reasoning item") or [], "a reasoning summary"
                ),
                item.get("encrypted_content"),
                {k: item[k] for k in ("type", "summary", "encrypted_content") if k in item},
                time,
            )
            loss.rest(item, _REASONING, path)
        elif kind == "function_call":
            name = at.text(item, "name", "a function call", required=True) or ""
            call_id = (
                at.text(item, "call_id", "a function call")
                or at.text(item, "id", "a function call")
                or ""
            )
            self.call(
                time,
                ContentBlock.of_tool_call(call_id, name, self.arguments(item.get("arguments"))),
            )
            loss.rest(item, _CALL, path)
        elif kind == "custom_tool_call":
            name = at.text(item, "name", "a custom tool call", required=True) or ""
            call_id = at.text(item, "call_id", "a custom tool call", required=True) or ""
            self.call(
                time, ContentBlock.of_tool_call(call_id, name, {"input": item.get("input", "")})
            )
            loss.rest(item, _CUSTOM, path)
        elif kind == "local_shell_call":
            call_id = (
                at.text(item, "call_id", "a shell call")
                or at.text(item, "id", "a shell call")
                or ""
            )
            action = at.obj(item, "action", "a shell call") or {}
            self.call(time, ContentBlock.of_tool_call(call_id, "local_shell", action))
            loss.rest(item, _SHELL, path)
        elif kind in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
            call_id = at.text(item, "call_id", "a tool output") or ""
            self.result(call_id, *self.output(item.get("output")), time)
            loss.rest(item, _OUTPUT, path)
        elif kind in _PROVIDER_ITEMS:
            reply = self.reply_part(time)
            reply.context.append(self.context(item, len(reply.content)))
        else:
            loss.drop(path)

    def typed(self, line: _ResponseLine | _EventLine | _TurnContextLine) -> bool:
        """A line of a common shape, read as the dict path reads it; False (and nothing done)
        for what only the dict path reads (a message of another role, a rollback, an abort)."""
        if isinstance(line, _ResponseLine):
            item = line.payload
            stamp = line.timestamp
            time = iso_seconds(stamp) if self.timed else 0
            if isinstance(item, _Message):
                role = item.role
                texts = [ContentBlock.of_text(part.text or "") for part in item.content]
                if role == "assistant":
                    self.reply_part(time).content.extend(texts)
                elif role != "user":
                    return False
                elif not self.prompt(texts, time):
                    return True
            elif isinstance(item, _Reasoning):
                summary = item.summary
                data: dict[str, Any] = {"type": "reasoning"}
                if summary is not UNSET:
                    data["summary"] = summary
                if item.encrypted_content is not UNSET:
                    data["encrypted_content"] = item.encrypted_content
                self.reasoning(summary or [], item.encrypted_content, data, time)
            elif isinstance(item, _FunctionCall):
                if not item.call_id:
                    return False
                arguments = self.arguments(item.arguments)
                self.call(time, ContentBlock.of_tool_call(item.call_id, item.name, arguments))
            else:
                self.result(item.call_id or "", True, item.output, [], time)
            self.loss.rest_typed(item, _UNUSED[type(item)])
        elif isinstance(line, _EventLine):
            event = line.payload
            kind = event.type
            if kind == "token_count":
                info = event.info
                if info is not None and info.last_token_usage is not None:
                    time = iso_seconds(line.timestamp) if self.timed else 0
                    self.typed_token_count(info, info.last_token_usage, time)
            elif kind in ("thread_rolled_back", "turn_aborted"):
                return False
            else:
                path = _EVENT_PATHS.get(kind)
                if path is None:
                    path = f"event_msg/{kind}:$.payload"
                    if len(_EVENT_PATHS) < _PATHS_KEPT:
                        _EVENT_PATHS[kind] = path
                self.loss.drop(path)
        else:
            context = line.payload
            if isinstance(context.model, str) and context.model:
                self.model = context.model
            self.loss.rest_typed(context, _TURN_CONTEXT_UNUSED)
        return True

    def prompt(self, blocks: list[ContentBlock], time: int) -> bool:
        """A user message item: a prompt, or context Codex injects (a step of its own, not
        shown); False when it holds nothing."""
        if not blocks:
            return False
        text = blocks[0].text or ""
        turn = not text.lstrip().startswith(_CONTEXT_PREFIXES)
        entry = self.step(time, turn=turn)
        entry.hidden = not turn
        entry.messages.append(Message.user_blocks(blocks))
        if turn:
            self.turns.append(entry.id)
        return True

    def reasoning(
        self, summary: list[dict[str, Any]], encrypted: object, data: dict[str, Any], time: int
    ) -> None:
        """A reasoning item: its summary texts, and the item kept for the same model when it is
        encrypted."""
        reply = self.reply_part(time)
        for part in summary:
            text = string(part.get("text"))
            if text:
                reply.summary.append(text)
        if isinstance(encrypted, str):
            reply.context.append(self.context(data, len(reply.content)))

    def result(
        self, call_id: str, ok: bool, text: str, images: list[ContentBlock], time: int
    ) -> None:
        """A tool's output, in a step after the reply that called it."""
        entry = self.result_step(time)
        entry.messages.append(Message.result(call_id, ok, text))
        if call_id in self.unanswered:
            self.unanswered.remove(call_id)
        if images:
            entry.messages.append(attachment_message(call_id, images))

    def call(self, time: int, call: ContentBlock) -> None:
        self.reply_part(time).content.append(call)
        assert call.tool_call is not None
        self.unanswered.append(call.tool_call.id)

    def reply_part(self, time: int) -> _Reply:
        reply = self.reply
        if reply is None:
            entry = self.open_step(time)
            reply = self.reply = _Reply(self.identity)
            entry.model = reply.identity
        return reply

    def result_step(self, time: int) -> Entry:
        self.close()
        return self.open_step(time)

    def context(self, data: dict[str, Any], position: int) -> ProviderContextBlock:
        return ProviderContextBlock(
            identity=self.identity, kind=_OPENAI_KIND, position=position, data=data
        )

    def texts(self, item: dict[str, Any], where: str) -> list[ContentBlock]:
        content = self.at.array(item, "content", "a message", required=True) or []
        out: list[ContentBlock] = []
        for part in self.at.objects(content, "a message's content"):
            kind = self.at.text(part, "type", "a content part")
            if kind in ("input_text", "output_text", "text"):
                out.append(ContentBlock.of_text(self.at.text(part, "text", "a text part") or ""))
                self.loss.rest(part, _TEXT_PART, f"{where}[type={kind}]")
            elif kind == "input_image":
                image = data_url_image(part.get("image_url"))
                if image is not None:
                    out.append(image)
                    self.loss.rest(part, known("type", "image_url"), f"{where}[type={kind}]")
                else:
                    self.loss.drop(f"{where}[type=input_image].image_url(not inline)")
            else:
                self.loss.drop(f"{where}[type={kind}]")
        return out

    def arguments(self, raw: object) -> Any:
        """A function call's arguments: Codex keeps them as JSON text; Rho as a JSON value."""
        if not isinstance(raw, str):
            return raw if isinstance(raw, dict) else {}
        try:
            value = _DECODE(raw)
        except (msgspec.DecodeError, RecursionError, ValueError):
            self.loss.note("arguments that are not JSON, kept as text under `arguments`")
            return {"arguments": raw}
        return value if isinstance(value, dict) else {"arguments": value}

    def output(self, output: object) -> tuple[bool, str, list[ContentBlock]]:
        """Success, text and images of a tool output (text, content items, or the older object
        with ``content`` and ``success``)."""
        if isinstance(output, str):
            return True, output, []
        if isinstance(output, dict):
            success = output.get("success")
            inner = output.get("content")
            ok, text, images = self.output(inner) if inner is not None else (True, "", [])
            return success is not False and ok, text, images
        if isinstance(output, list):
            texts: list[str] = []
            images = []
            for part in output:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif isinstance(part, dict) and part.get("type") == "input_image":
                    image = data_url_image(part.get("image_url"))
                    if image is not None:
                        images.append(image)
                else:
                    self.loss.drop("response_item/output:$.payload.output[]")
            return True, "\n".join(texts), images
        return True, json_text(output) if output is not None else "", []

    def event(self, payload: dict[str, Any], time: int) -> None:
        kind = self.at.text(payload, "type", "an event")
        if kind == "token_count":
            self.token_count(payload.get("info"), time)
        elif kind == "thread_rolled_back":
            self.rollback(payload.get("num_turns"))
        elif kind == "turn_aborted":
            self.close()
            self.loss.note("aborted turns")
            if self.unanswered:
                # the turn ended: its calls will never be answered
                entry = self.result_step(time)
                for call_id in self.unanswered:
                    entry.messages.append(Message.result(call_id, False, INTERRUPTED_RESULT))
                self.loss.note(
                    "results made for calls that never got one (interrupted)", len(self.unanswered)
                )
                self.unanswered = []
        else:
            # user_message, agent_message, agent_reasoning...: the UI's copies of response items
            self.loss.drop(f"event_msg/{kind}:$.payload")

    def token_count(self, info: object, time: int) -> None:
        """A token count event's figures (``info``): one model request."""
        if not isinstance(info, dict):
            return
        last, total = info.get("last_token_usage"), info.get("total_token_usage")
        if not isinstance(last, dict):
            return
        self.context_tokens = count(last.get("total_tokens"))
        grand = count(total.get("total_tokens")) if isinstance(total, dict) else None
        if grand is not None and grand == self.last_total:
            return  # the same figures again (Codex repeats them with rate-limit updates)
        self.last_total = grand
        self.loss.rest(last, _LAST_USAGE, "event_msg/token_count:$.payload.info.last_token_usage")
        prompt = count(last.get("input_tokens"))
        cached = count(last.get("cached_input_tokens"))
        usage = ModelUsage.from_inclusive_prompt(
            prompt,
            count(last.get("output_tokens")),
            cached,
            None,
            count(last.get("total_tokens")),
            count(info.get("model_context_window")),
        )
        self.request(time, usage)

    def typed_token_count(self, info: _TokenInfo, last: _LastUsage, time: int) -> None:
        """:meth:`token_count` of a typed event (its ``last`` usage holds only known members)."""
        context_tokens = self.context_tokens = count(last.total_tokens)
        total = info.total_token_usage
        grand = count(total.total_tokens) if total is not None else None
        if grand is not None and grand == self.last_total:
            return  # the same figures again (Codex repeats them with rate-limit updates)
        self.last_total = grand
        figures = (
            last.input_tokens,
            last.output_tokens,
            last.cached_input_tokens,
            last.total_tokens,
            info.model_context_window,
        )
        a, b, c, d, e = figures
        # integers as the log has them are their own key (a bool or a float is made a count
        # first, every time: True must not pass for 1)
        same = type(a) is int and type(b) is int and type(c) is int and type(d) is int
        same = same and type(e) is int
        usage = self.usages.get(figures) if same else None
        if usage is None:
            usage = ModelUsage.from_inclusive_prompt(
                count(a), count(b), count(c), None, context_tokens, count(e)
            )
            if same and len(self.usages) < _USAGES_KEPT:
                self.usages[figures] = usage
        self.request(time, usage)

    def request(self, time: int, usage: ModelUsage) -> None:
        target = self.open_step(time)
        request = Request(time * 1000, self.model, self.provider, usage)
        requests = target.requests
        if requests is None:
            target.requests = [request]
        else:
            target.requests = [*requests, request]

    def rollback(self, turns: object) -> None:
        n = count(turns)
        if not n:
            return
        self.close()
        if n > len(self.turns):
            n = len(self.turns)
        if not n:
            return
        first = self.turns[-n]
        del self.turns[-n:]
        self.unanswered = []
        self.current = self.log.entries[first].parent
        self.entry = None
        self.loss.note("rolled-back turns kept as an abandoned branch", n)

    def turn_context(self, payload: dict[str, Any]) -> None:
        model = payload.get("model")
        if isinstance(model, str) and model:
            self.model = model
        self.loss.rest(payload, _TURN_CONTEXT, "turn_context:$.payload")

    def compacted(self, payload: dict[str, Any], time: int) -> None:
        summary = payload.get("message") if isinstance(payload.get("message"), str) else ""
        replacement = payload.get("replacement_history")
        if isinstance(replacement, list):
            head = self.convert(self.at.objects(replacement, "a replacement history"))
        else:
            head = [Message.user_text(summary)] if summary else []
        entry = self.step(time)
        # what the context held: the last request's tokens, as Codex recorded them (else estimated)
        entry.compaction = Compaction(head, tokens_before=self.context_tokens, trigger="auto")
        self.log.compacted(entry)
        self.context_tokens = None
        self.entry = None
        self.loss.rest(payload, known("message", "replacement_history"), "compacted:$.payload")

    def convert(self, items: list[dict[str, Any]]) -> list[Message]:
        """A list of response items (a replacement history) as messages, without new steps."""
        probe = _Reader(AgentLog(AGENT, self.log.path, "probe", "", 0), self.at, self.provider)
        probe.model = self.model
        for item in items:
            probe.item(item, 0, "$.payload.replacement_history[]")
        probe.close()
        self.loss.merge(probe.log.loss)
        return [m for e in probe.log.entries.values() for m in e.messages]


def session_files(home: Path) -> list[Path]:
    """Every rollout under ``home`` (``sessions/`` and ``archived_sessions/``), plain or
    compressed (a compressed one hidden by its plain sibling is left out, as Codex does)."""
    out: list[Path] = []
    for folder in (home / "sessions", home / "archived_sessions"):
        try:
            found = [
                p
                for p in folder.rglob("rollout-*.jsonl*")
                if _rollout_name(p.name) and p.is_file() and not p.is_symlink()
            ]
        except OSError:
            continue
        plain = {p for p in found if p.suffix == ".jsonl"}
        out.extend(
            sorted(p for p in found if p.suffix == ".jsonl" or p.with_suffix("") not in plain)
        )
    return out


def _rollout_name(name: str) -> bool:
    """``rollout-*.jsonl``, or its compressed form ``rollout-*.jsonl.zst``."""
    return name.startswith("rollout-") and name.endswith((".jsonl", ".jsonl" + COMPRESSED_SUFFIX))


def is_subagent(path: Path) -> bool:
    """Whether the rollout at ``path`` is a subagent's (its session meta names a parent thread)."""
    first = first_line(path)
    if b'"subagent"' not in first:
        return False
    try:
        record = _DECODE(first)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return False
    meta = record.get("payload") if isinstance(record, dict) else None
    return isinstance(meta, dict) and _parent(meta.get("source")) is not None


def subagent_files(path: Path, thread: str) -> list[SubagentRef]:
    """The rollouts beside ``path`` whose session meta names ``thread`` as their parent (a
    subagent's rollout is written to the day folder it starts in). Only regular files, only
    their first line (at most 1 MiB) is read."""
    refs: list[SubagentRef] = []
    try:
        siblings = sorted(p for p in path.parent.iterdir() if _rollout_name(p.name))
    except OSError:
        return refs
    marker = f'"parent_thread_id":"{thread}"'.encode()
    for sibling in siblings:
        if sibling == path or sibling.is_symlink() or not sibling.is_file():
            continue
        if sibling.suffix != ".jsonl" and sibling.with_suffix("") in siblings:
            continue  # compressed, and hidden by its plain sibling
        first = first_line(sibling)
        if marker not in first:
            continue
        try:
            meta = _DECODE(first).get("payload", {})
        except (msgspec.DecodeError, RecursionError, ValueError, AttributeError):
            continue
        if (
            isinstance(meta, dict)
            and _parent(meta.get("source")) == thread
            and isinstance(meta.get("id"), str)
        ):
            refs.append(
                SubagentRef(meta["id"], sibling, string(meta.get("agent_nickname")) or None)
            )
    return refs
