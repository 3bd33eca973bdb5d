"""Claude Code's sessions: one JSONL file per session, records chained by ``uuid`` / ``parentUuid``.

Claude Code publishes no schema. The facts here come from the public JSON schemas that
``oneryalcin/agent-schemas`` derives from 102,488 real lines (``claude-code/v2.1.144/
session.schema.json`` and its README, commit ``dfa9f8f1``, 2026-05-19) and Anthropic's Messages
API content blocks:

* ``~/.claude/projects/<cwd with / and . as ->/<session id>.jsonl`` (the folder is
  ``$CLAUDE_CONFIG_DIR`` when set). Subagents (the Task/Agent tool) write their own files:
  ``<session id>/subagents/agent-<id>.jsonl`` since 2.1.2, ``agent-<id>.jsonl`` beside the
  session before; their records carry ``isSidechain: true`` and the parent's ``sessionId``.
* ``user``, ``assistant``, ``system``, ``progress`` and ``attachment`` records carry ``uuid`` and
  ``parentUuid``: a tree, whose last record is where Claude Code continues. ``message`` holds
  Messages API content: ``text``, ``image`` (base64 source), ``document``, ``tool_use``,
  ``tool_result`` (text or blocks, ``is_error``), ``thinking`` (with its ``signature``),
  ``redacted_thinking``, server tools. One API response is written as one record per content
  block, all with the same ``message.id`` (and usage); rho-desk joins them into one reply.
* Compaction: a ``system`` record of subtype ``compact_boundary`` (``parentUuid`` null,
  ``logicalParentUuid`` the message before it, ``compactMetadata.preTokens``), then a ``user``
  record with ``isCompactSummary`` holding the summary the model continues from.
* ``summary`` (``leafUuid``), ``custom-title`` and ``ai-title`` records name the session;
  ``file-history-snapshot``, ``queue-operation``, ``last-prompt`` and the like are not messages.
"""

from __future__ import annotations

import itertools
import os
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
from ._parts import Where, count, image_block, json_text, mapping, string
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
from .build import attachment_message
from .jsonl import JsonLines

__all__ = ["AGENT", "read", "session_files", "subagent_files"]

AGENT: Final = "claude-code"
_ANTHROPIC_KIND: Final = "anthropic_content_block"
_NO_MODEL: Final = ModelIdentity("anthropic", "anthropic-messages", "")
_CHAINED: Final = frozenset({"user", "assistant", "system", "progress", "attachment"})
_TITLES: Final = {"custom-title": "customTitle", "ai-title": "aiTitle", "summary": "summary"}
"""Records that name the session, and the member holding the name (a person's title first)."""
_RECORD = known(
    "type",
    "uuid",
    "parentUuid",
    "sessionId",
    "timestamp",
    "cwd",
    "version",
    "message",
    "isSidechain",
    "isMeta",
    "isCompactSummary",
    "requestId",
    "logicalParentUuid",
    "subtype",
    "compactMetadata",
    "isApiErrorMessage",
    "agentId",
)
_USER_MESSAGE = known("role", "content")
_ASSISTANT_MESSAGE = known("role", "content", "model", "id", "usage", "type")
_USAGE = known(
    "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"
)
_TEXT = known("type", "text")
_IMAGE = known("type", "source")
_USE = known("type", "id", "name", "input")
_RESULT = known("type", "tool_use_id", "content", "is_error")
_THINKING = known("type", "thinking", "signature")
_RECORD_PATHS: Final = {kind: f"{kind}:$" for kind in _CHAINED}
_BLOCK_PATHS: Final[dict[tuple[str, str | None], str]] = {
    (where, kind): f"{where}.content[type={kind}]"
    for where in ("user:$.message", "assistant:$.message")
    for kind in ("text", "image", "document", "tool_use", "tool_result", "thinking")
}
"""The JSON paths the loss report names, made once (not once per record)."""
_SERVER_BLOCKS: Final = frozenset(
    {
        "server_tool_use",
        "web_search_tool_result",
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "redacted_thinking",
        "advisor_tool_result",
    }
)


# -- the common shapes of user and assistant records, decoded in C (JsonLines.mixed) -----------
# Each one takes only what the dict path of _Reader reads the same way: a member it declares
# with a narrower type, an unknown member or another block type sends the line to the dict
# path (strict about structure, with its own errors). The members a Rho session has no place
# for are declared as ``Raw`` (skipped, not decoded) and counted as dropped by their path.


class _Text(msgspec.Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False):
    text: str | None = None


class _ToolUse(
    msgspec.Struct, tag_field="type", tag="tool_use", forbid_unknown_fields=True, gc=False
):
    id: str
    name: str
    input: Any = None


class _Thinking(
    msgspec.Struct, tag_field="type", tag="thinking", forbid_unknown_fields=True, gc=False
):
    thinking: str | UnsetType | None = UNSET
    signature: Any = UNSET


class _ResultText(
    msgspec.Struct, tag_field="type", tag="text", forbid_unknown_fields=True, gc=False
):
    text: str


class _Result(
    msgspec.Struct, tag_field="type", tag="tool_result", forbid_unknown_fields=True, gc=False
):
    tool_use_id: str
    content: str | list[_ResultText] | None = None
    is_error: Any = None


class _Usage(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    input_tokens: Any = None
    output_tokens: Any = None
    cache_creation_input_tokens: Any = None
    cache_read_input_tokens: Any = None
    service_tier: Raw = NOTHING
    cache_creation: Raw = NOTHING
    server_tool_use: Raw = NOTHING
    inference_geo: Raw = NOTHING


class _UserMessage(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    content: str | list[_Text | _Result]
    role: Any = None


class _AssistantMessage(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    role: Any = None
    content: list[_Text | _ToolUse | _Thinking] | None = None
    model: Any = None
    id: Any = None
    usage: _Usage | None = None
    type: Any = None
    stop_reason: Raw = NOTHING
    stop_sequence: Raw = NOTHING
    container: Raw = NOTHING
    context_management: Raw = NOTHING


class _Chained(
    msgspec.Struct, tag_field="type", kw_only=True, forbid_unknown_fields=True, gc=False
):
    uuid: str
    parentUuid: str | None = None
    sessionId: Any = None
    timestamp: Any = None
    cwd: Any = None
    version: Any = None
    isSidechain: Any = None
    isMeta: Any = None
    isCompactSummary: Any = None
    isApiErrorMessage: Any = None
    requestId: Raw = NOTHING
    logicalParentUuid: Raw = NOTHING
    subtype: Raw = NOTHING
    compactMetadata: Raw = NOTHING
    agentId: Raw = NOTHING
    userType: Raw = NOTHING
    gitBranch: Raw = NOTHING
    toolUseResult: Raw = NOTHING
    slug: Raw = NOTHING
    entrypoint: Raw = NOTHING
    permissionMode: Raw = NOTHING
    thinkingMetadata: Raw = NOTHING
    todos: Raw = NOTHING
    promptId: Raw = NOTHING
    isVisibleInTranscriptOnly: Raw = NOTHING
    imagePasteIds: Raw = NOTHING
    sourceToolUseID: Raw = NOTHING
    sourceToolAssistantUUID: Raw = NOTHING


class _User(_Chained, tag="user"):
    message: _UserMessage


class _Assistant(_Chained, tag="assistant"):
    message: _AssistantMessage


_TYPED: Final = msgspec.json.Decoder(_User | _Assistant).decode

_USER_UNUSED: Final = Unused(_User, _RECORD, "user:$")
_MESSAGE_PART: Final = ("message", _AssistantMessage, _ASSISTANT_MESSAGE, "assistant:$.message")
_ASSISTANT_UNUSED: Final = Unused(_Assistant, _RECORD, "assistant:$", _MESSAGE_PART)
_ASSISTANT_USAGE_UNUSED: Final = Unused(
    _Assistant,
    _RECORD,
    "assistant:$",
    _MESSAGE_PART,
    ("message.usage", _Usage, _USAGE, "assistant:$.message.usage"),
)
"""An assistant record's unused members, its message's and (with the second) its usage's."""


class _Reply(msgspec.Struct):
    """The records of one API response (one ``message.id``), joined."""

    entry: Entry
    content: list[ContentBlock] = msgspec.field(default_factory=list)
    thinking: list[str] = msgspec.field(default_factory=list)
    context: list[ProviderContextBlock] = msgspec.field(default_factory=list)
    identity: ModelIdentity = _NO_MODEL
    usage: tuple[object, object, object, object] | None = None
    """Input, output, cache read and cache write tokens as the log has them."""
    time: int = 0
    msg_id: str | None = None


@bulk
def read(path: Path, *, tolerant: bool = False, leaf_only: bool = False) -> AgentLog:
    """Read a Claude Code session file (see the module docstring; ``leaf_only``: see
    :attr:`AgentLog.leaf_only`)."""
    lines = JsonLines(path, tolerant=tolerant)
    source = str(path)
    stem = path.stem
    log = AgentLog(AGENT, path, stem, "", 0, leaf_only=leaf_only)
    reader = _Reader(log, Where(source, 1))
    at = reader.at
    for line, record in lines.mixed(_TYPED):
        at.line = line
        if isinstance(record, dict):
            reader.record(record)
        elif not reader.typed(record):
            reader.record(lines.as_dict())
    reader.finish()
    lines.hand_over(log)
    if not log.entries and not lines.notes:
        raise Where(source, 1).fail("not a Claude Code session: no user or assistant records")
    log.subagents = [
        SubagentRef(
            ref.session_id, ref.path, reader.task_titles.get(ref.call_id or ""), ref.call_id
        )
        for ref in subagent_files(path, log.session_id, reader.agent_calls)
    ]
    return log


class _Reader:
    def __init__(self, log: AgentLog, at: Where) -> None:
        self.log = log
        self.loss = log.loss
        self.at = at
        self.alias: dict[str, str] = {}
        """Record uuid -> the step holding it (the later records of a split response)."""
        self.replies: dict[str, _Reply] = {}
        """Step id -> its reply being joined."""
        self.boundaries: dict[str, Entry] = {}
        self.titles: dict[str, str] = {}
        self.last: str | None = None
        self.agent_calls: dict[str, str] = {}
        """A subagent's id -> the Task call that started it."""
        self.task_titles: dict[str, str] = {}
        """A Task (Agent) call's id -> its description: the subagent's title."""
        self.subagent = log.path.name.startswith("agent-")
        """A subagent's own file (every record a sidechain of the parent session)."""
        self.identities: dict[str, ModelIdentity] = {}
        self.entries = log.entries
        self.settled = False
        """The log's session id, working directory, version and start are known (what
        :meth:`typed` takes from a record only while one of them is not)."""
        self.timed = not log.leaf_only
        """Whether the steps' times are read (a snapshot holds none: read ``leaf_only``, the
        typed records' steps have time 0)."""
        self.spent = 0
        """How many of ``replies`` :meth:`let_go` has seen."""

    def record(self, record: dict[str, Any]) -> None:
        at, loss, log = self.at, self.loss, self.log
        kind = record.get("type")
        if not isinstance(kind, str):
            raise at.fail("a record has no `type`")
        if kind in _TITLES:
            text = record.get(_TITLES[kind])
            if isinstance(text, str) and text.strip():
                self.titles[kind] = text.strip()  # the latest of each kind
            loss.rest(record, known("type", _TITLES[kind], "leafUuid", "sessionId"), f"{kind}:$")
            return
        if kind not in _CHAINED:
            loss.drop(f"{kind}:$")
            return
        uuid = record.get("uuid")
        if type(uuid) is not str:
            uuid = at.text(record, "uuid", f"a `{kind}` record", required=True) or ""
        parent = record.get("parentUuid")
        if parent is not None and not isinstance(parent, str):
            raise at.fail(f"`parentUuid` of a `{kind}` record is not a string")
        sid = record.get("sessionId")
        if self.subagent:
            if log.parent_session is None and isinstance(sid, str) and sid:
                log.parent_session = sid
        elif record.get("isSidechain") is True:
            loss.drop(
                f"{kind}:$[isSidechain]"
            )  # an older build's subagent records inside the session
            return
        elif isinstance(sid, str) and sid and not log.entries:
            log.session_id = sid
        if not log.cwd and isinstance(record.get("cwd"), str):
            log.cwd = record["cwd"]
        if log.version is None and isinstance(record.get("version"), str):
            log.version = record["version"]
        time = iso_seconds(record.get("timestamp"))
        if not log.created and time:
            log.created = time
        parent = self.alias.get(parent, parent) if parent is not None else None
        if kind == "system" and record.get("subtype") == "compact_boundary":
            logical = record.get("logicalParentUuid")
            if parent is None and isinstance(logical, str):
                parent = self.alias.get(logical, logical)
            meta = mapping(record.get("compactMetadata"))
            entry = self.step(uuid, parent, time)
            entry.compaction = Compaction(
                [],
                tokens_before=count(meta.get("preTokens")),
                trigger=meta.get("trigger") if isinstance(meta.get("trigger"), str) else None,
            )
            self.boundaries[uuid] = entry
            self.let_go(log.compacted(entry))
            loss.rest(
                meta, known("preTokens", "trigger"), "system/compact_boundary:$.compactMetadata"
            )
            loss.rest(record, _RECORD, "system/compact_boundary:$")
            return
        if kind == "assistant":
            self.assistant(record, uuid, parent, time)
        elif kind == "user":
            self.user(record, uuid, parent, time)
        else:
            self.step(uuid, parent, time)
            loss.drop(f"{kind}:$" if kind != "system" else f"system/{record.get('subtype')}:$")
            return
        loss.rest(record, _RECORD, _RECORD_PATHS[kind])

    def let_go(self, released: bool) -> None:
        """At a compaction: when ``AgentLog.compacted`` let go of the history before it
        (``released``), the replies since the compaction before it keep only their calls: their
        text, reasoning and signed thinking are what the leaf's snapshot cannot hold (their
        messages are made at the end). Either way, later compactions leave them as they are."""
        replies = self.replies
        if released:
            # the newest ones, from the end (islice from the start would pass all the older)
            for reply in itertools.islice(reversed(replies.values()), len(replies) - self.spent):
                content = reply.content
                if len(content) != 1 or content[0].tool_call is None:  # (one call: the common case)
                    content[:] = [b for b in content if b.tool_call is not None]
                reply.thinking.clear()
                reply.context.clear()
        self.spent = len(replies)

    def typed(self, record: _User | _Assistant) -> bool:
        """A user or assistant record of a common shape, read as :meth:`record` reads it; False
        (and nothing done) for what only :meth:`record` reads: a subagent's file or records, a
        compaction's summary, a subagent's result, Claude Code's own notices."""
        log, loss = self.log, self.loss
        if self.subagent or record.isSidechain is True:
            return False
        if isinstance(record, _User):
            if record.isCompactSummary is True or (
                record.toolUseResult is not NOTHING and b'"agentId"' in bytes(record.toolUseResult)
            ):
                return False
        elif record.isApiErrorMessage is True or record.message.model == "<synthetic>":
            return False
        stamp = record.timestamp
        if not self.settled:
            # the session's facts, from the first records that hold them (once all are known,
            # no later record changes them)
            time = iso_seconds(stamp)
            sid = record.sessionId
            if type(sid) is str and sid and not log.entries:
                log.session_id = sid
            if not log.cwd and type(record.cwd) is str:
                log.cwd = record.cwd
            if log.version is None and type(record.version) is str:
                log.version = record.version
            if not log.created and time:
                log.created = time
            self.settled = bool(log.entries and log.cwd and log.version is not None and log.created)
        parent = record.parentUuid
        if parent is not None:
            parent = self.alias.get(parent, parent)
        if isinstance(record, _User):
            self.typed_user(record, parent, iso_seconds(stamp) if self.timed else 0)
            loss.rest_typed(record, _USER_UNUSED)
            return True
        message = record.message
        usage = message.usage
        reply = self.replies.get(parent) if parent is not None else None
        msg_id = message.id
        if reply is not None and type(msg_id) is str and reply.msg_id == msg_id:
            # the next content block of its parent's reply (:meth:`continued`)
            uuid = record.uuid
            self.alias[uuid] = self.last = reply.entry.id
        else:
            # (the time of a record that goes on with a reply is not read: its reply has one)
            time = iso_seconds(stamp) if self.timed else 0
            reply = self.new_reply(record.uuid, parent, time, message.model, msg_id)
        self.typed_blocks(reply, message.content)
        if usage is not None:
            reply.usage = (
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_input_tokens,
                usage.cache_creation_input_tokens,
            )
            loss.rest_typed(record, _ASSISTANT_USAGE_UNUSED)
        else:
            loss.rest_typed(record, _ASSISTANT_UNUSED)
        return True

    def typed_user(self, record: _User, parent: str | None, time: int) -> None:
        entry = self.step(record.uuid, parent, time)
        meta = record.isMeta is True
        entry.hidden = meta
        content = record.message.content
        messages = entry.messages
        if isinstance(content, str):
            if content:
                messages.append(Message.user_text(content))
                entry.turn = not meta
            return
        blocks: list[ContentBlock] = []
        for block in content:
            if isinstance(block, _Result):
                if blocks:
                    messages.append(Message.user_blocks(blocks))
                    blocks = []
                text = block.content
                if text is None:
                    text = ""
                elif not isinstance(text, str):
                    text = "\n".join([part.text for part in text])
                messages.append(Message.result(block.tool_use_id, block.is_error is not True, text))
            else:
                blocks.append(ContentBlock.of_text(block.text or ""))
        if blocks:
            messages.append(Message.user_blocks(blocks))
            entry.turn = not meta and not any(m.tool_result is not None for m in messages)

    def new_reply(
        self, uuid: str, parent: str | None, time: int, model: object, msg_id: object
    ) -> _Reply:
        """The reply an assistant record of a typed shape starts, in a step of its own."""
        entry = self.step(uuid, parent, time)
        reply = _Reply(
            entry,
            identity=self.identity(model if isinstance(model, str) else ""),
            time=time,
            msg_id=msg_id if type(msg_id) is str else None,
        )
        self.replies[uuid] = reply
        entry.model = reply.identity
        return reply

    def typed_blocks(
        self, reply: _Reply, content: list[_Text | _ToolUse | _Thinking] | None
    ) -> None:
        """The content blocks of an assistant record of a typed shape, into its reply."""
        for block in content or ():
            if isinstance(block, _Text):
                reply.content.append(ContentBlock.of_text(block.text or ""))
            elif isinstance(block, _ToolUse):
                self.tool_use(reply, block.id, block.name, block.input)
            else:
                text = block.thinking
                data: dict[str, Any] = {"type": "thinking"}
                if isinstance(text, str):
                    if text:
                        reply.thinking.append(text)
                    data["thinking"] = text
                elif text is None:
                    data["thinking"] = None
                if block.signature is not UNSET:
                    data["signature"] = block.signature
                self.context(reply, data)

    def identity(self, model: str) -> ModelIdentity:
        """The model of a reply (one object per model, shared by its replies)."""
        identity = self.identities.get(model)
        if identity is None:
            identity = self.identities[model] = ModelIdentity(
                "anthropic", "anthropic-messages", model
            )
        return identity

    def tool_use(self, reply: _Reply, call_id: str, name: str, arguments: Any) -> None:
        reply.content.append(
            ContentBlock.of_tool_call(call_id, name, arguments if arguments is not None else {})
        )
        if (
            name in ("Task", "Agent")
            and isinstance(arguments, dict)
            and string(arguments.get("description"))
        ):
            self.task_titles[call_id] = arguments["description"]

    def context(self, reply: _Reply, data: dict[str, Any]) -> None:
        """A block kept whole for the same model, where it stands among the reply's content."""
        reply.context.append(
            ProviderContextBlock(
                identity=reply.identity,
                kind=_ANTHROPIC_KIND,
                position=len(reply.content),
                data=data,
            )
        )

    def continued(self, uuid: str, parent: str | None, msg_id: str | None) -> _Reply | None:
        """The reply whose next content block this assistant record holds (its parent's, with
        the same ``message.id``), now holding the record too; ``None`` for a record that starts
        a reply."""
        reply = self.replies.get(parent) if parent is not None else None
        if reply is None or msg_id is None or reply.msg_id != msg_id:
            return None
        self.alias[uuid] = reply.entry.id
        self.last = reply.entry.id
        return reply

    def step(self, uuid: str, parent: str | None, time: int) -> Entry:
        entry = Entry(uuid, parent, time, [], line=self.at.line)
        self.entries[uuid] = entry  # AgentLog.add: a repeated id replaces the earlier step
        self.last = uuid
        return entry

    def user(self, record: dict[str, Any], uuid: str, parent: str | None, time: int) -> None:
        at, loss = self.at, self.loss
        message = at.obj(record, "message", "a user record", required=True) or {}
        content = message.get("content")
        where = "user:$.message"
        loss.rest(message, _USER_MESSAGE, where)
        if record.get("isCompactSummary") is True and parent in self.boundaries:
            # the summary the model continues from after a compaction
            text = (
                content
                if isinstance(content, str)
                else "\n".join(
                    b.get("text", "")
                    for b in content
                    if isinstance(b, dict) and isinstance(b.get("text"), str)
                )
                if isinstance(content, list)
                else ""
            )
            boundary = self.boundaries.pop(parent)
            assert boundary.compaction is not None
            boundary.compaction.head.append(Message.user_text(text))
            self.alias[uuid] = boundary.id
            return
        entry = self.step(uuid, parent, time)
        result = record.get("toolUseResult")
        if isinstance(result, dict) and isinstance(result.get("agentId"), str):
            for block in content if isinstance(content, list) else ():
                if isinstance(block, dict) and isinstance(block.get("tool_use_id"), str):
                    self.agent_calls[result["agentId"]] = block["tool_use_id"]
        meta = record.get("isMeta") is True
        entry.hidden = meta
        if isinstance(content, str):
            if content:
                entry.messages.append(Message.user_text(content))
                entry.turn = not meta
            return
        if not isinstance(content, list):
            raise at.fail("`content` of a user message is neither text nor an array")
        blocks: list[ContentBlock] = []
        for block in at.objects(content, "a user message's content"):
            kind = at.text(block, "type", "a content block")
            path = _BLOCK_PATHS.get((where, kind)) or f"{where}.content[type={kind}]"
            if kind == "tool_result":
                if blocks:
                    entry.messages.append(Message.user_blocks(blocks))
                    blocks = []
                call_id = at.text(block, "tool_use_id", "a tool result", required=True) or ""
                text, images = self.result_content(block.get("content"), f"{path}.content")
                entry.messages.append(
                    Message.result(call_id, block.get("is_error") is not True, text)
                )
                if images:
                    entry.messages.append(attachment_message(call_id, images))
                loss.rest(block, _RESULT, path)
            else:
                blocks.extend(self.block(block, path))
        if blocks:
            entry.messages.append(Message.user_blocks(blocks))
            entry.turn = not meta and not any(m.tool_result is not None for m in entry.messages)

    def block(self, block: dict[str, Any], path: str) -> list[ContentBlock]:
        """A text, image or document block of user content."""
        kind = self.at.text(block, "type", "a content block")
        if kind == "text":
            self.loss.rest(block, _TEXT, path)
            return [ContentBlock.of_text(self.at.text(block, "text", "a text block") or "")]
        if kind == "image":
            src = block.get("source")
            if isinstance(src, dict) and src.get("type") == "base64":
                image = image_block(src.get("data"), src.get("media_type"))
                if image is not None:
                    self.loss.rest(block, _IMAGE, path)
                    self.loss.rest(src, known("type", "data", "media_type"), f"{path}.source")
                    return [image]
            self.loss.drop(f"{path}.source")
            return [ContentBlock.of_text("[image not stored in the session]")]
        if kind == "document":
            src = block.get("source")
            mime = src.get("media_type") if isinstance(src, dict) else None
            self.loss.drop(path)
            return [
                ContentBlock.of_text(
                    f"[document{' ' + mime if isinstance(mime, str) else ''} not carried]"
                )
            ]
        self.loss.drop(path)
        return []

    def result_content(self, content: object, path: str) -> tuple[str, list[ContentBlock]]:
        if content is None:
            return "", []
        if isinstance(content, str):
            return content, []
        if not isinstance(content, list):
            raise self.at.fail("`content` of a tool result is neither text nor an array")
        texts: list[str] = []
        images: list[ContentBlock] = []
        for item in content:
            if isinstance(item, str):
                texts.append(item)
            elif (
                isinstance(item, dict)
                and item.get("type") == "text"
                and isinstance(item.get("text"), str)
            ):
                texts.append(item["text"])
            elif isinstance(item, dict) and item.get("type") == "image":
                src = item.get("source")
                image = (
                    image_block(src.get("data"), src.get("media_type"))
                    if isinstance(src, dict)
                    else None
                )
                if image is not None:
                    images.append(image)
                else:
                    self.loss.drop(f"{path}[type=image]")
            else:
                texts.append(json_text(item))
                self.loss.note("tool result items kept as JSON text")
        return "\n".join(texts), images

    def assistant(self, record: dict[str, Any], uuid: str, parent: str | None, time: int) -> None:
        at, loss = self.at, self.loss
        message = at.obj(record, "message", "an assistant record", required=True) or {}
        where = "assistant:$.message"
        msg_id = message.get("id") if isinstance(message.get("id"), str) else None
        model = string(message.get("model"))
        reply = self.continued(uuid, parent, msg_id)
        if reply is None:
            entry = self.step(uuid, parent, time)
            if record.get("isApiErrorMessage") is True or model == "<synthetic>":
                loss.drop(
                    "assistant:$[synthetic notice]"
                )  # Claude Code's own notice, never sent to a model
                return
            reply = _Reply(entry, identity=self.identity(model), time=time, msg_id=msg_id)
            self.replies[uuid] = reply
            entry.model = reply.identity
        content = at.array(message, "content", "an assistant message")
        if content is None and isinstance(message.get("content"), str):
            content = [{"type": "text", "text": message["content"]}]
        for block in at.objects(content or [], "an assistant message's content"):
            kind = at.text(block, "type", "a content block")
            path = _BLOCK_PATHS.get((where, kind)) or f"{where}.content[type={kind}]"
            if kind == "text":
                reply.content.append(
                    ContentBlock.of_text(at.text(block, "text", "a text block") or "")
                )
                loss.rest(block, _TEXT, path)
            elif kind == "tool_use":
                call_id = at.text(block, "id", "a tool use", required=True) or ""
                name = at.text(block, "name", "a tool use", required=True) or ""
                self.tool_use(reply, call_id, name, block.get("input"))
                loss.rest(block, _USE, path)
            elif kind == "thinking":
                text = at.text(block, "thinking", "a thinking block") or ""
                if text:
                    reply.thinking.append(text)
                self.context(
                    reply, {k: block[k] for k in ("type", "thinking", "signature") if k in block}
                )
                loss.rest(block, _THINKING, path)
            elif kind in _SERVER_BLOCKS:
                self.context(reply, block)
            else:
                loss.drop(path)
        usage = message.get("usage")
        if isinstance(usage, dict):
            reply.usage = (
                usage.get("input_tokens"),
                usage.get("output_tokens"),
                usage.get("cache_read_input_tokens"),
                usage.get("cache_creation_input_tokens"),
            )
            loss.rest(usage, _USAGE, f"{where}.usage")
        loss.rest(message, _ASSISTANT_MESSAGE, where)

    def finish(self) -> None:
        log = self.log
        usages: dict[tuple[int | None, ...], tuple[ModelUsage, bool]] = {}
        """Figures -> their usage and whether it is empty (many requests have the same)."""
        counted = not log.leaf_only  # a snapshot holds no requests: none are made for it
        for reply in self.replies.values():
            reply.entry.messages.append(
                Message.enriched(
                    AssistantMessage(
                        tuple(reply.content),
                        reply.identity,
                        "\n\n".join(reply.thinking) or None,
                        tuple(reply.context),
                    )
                )
            )
            raw = reply.usage
            if raw is not None and counted:
                known_usage = None
                a, b, c, d = raw
                if type(a) is int and type(b) is int and type(c) is int and type(d) is int:
                    # integers as the log has them are their own key (a bool, a float or
                    # another value is made a count first: True must not pass for 1)
                    known_usage = usages.get(raw)  # type: ignore[arg-type]
                if known_usage is None:
                    figures = tuple(map(count, raw))
                    known_usage = usages.get(figures)
                if known_usage is None:
                    usage = ModelUsage(
                        input_tokens=figures[0],
                        output_tokens=figures[1],
                        cache_read_tokens=figures[2],
                        cache_write_tokens=figures[3],
                    )
                    known_usage = (usage, usage.is_empty)
                    if len(usages) < 4096:
                        usages[figures] = known_usage
                usage, empty = known_usage
                if not empty:
                    reply.entry.requests = [
                        Request(reply.time * 1000, reply.identity.model, "anthropic", usage)
                    ]
        for boundary in self.boundaries.values():
            if boundary.compaction is not None and not boundary.compaction.head:
                log.loss.note("compactions without a recorded summary")
        log.leaf = self.last
        log.title = (
            self.titles.get("custom-title")
            or self.titles.get("ai-title")
            or self.titles.get("summary")
        )


def session_files(home: Path) -> list[Path]:
    """Every main session file under ``home`` (``projects/<folder>/<id>.jsonl``; subagents' own
    files are listed with their parent, not here)."""
    root = home / "projects"
    out: list[Path] = []
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    for folder in folders:
        try:
            out.extend(
                sorted(
                    p
                    for p in folder.iterdir()
                    if p.suffix == ".jsonl"
                    and not p.name.startswith("agent-")
                    and p.is_file()
                    and not p.is_symlink()
                )
            )
        except OSError:
            continue
    return out


def subagent_files(
    path: Path, session_id: str, calls: dict[str, str] | None = None
) -> list[SubagentRef]:
    """The subagents' files of the session at ``path``: ``<id>/subagents/agent-*.jsonl``, and the
    older ``agent-*.jsonl`` beside it whose records name this session.

    Only regular files inside those folders count: a symbolic link, or a name that leads out of
    the folder, is not followed (a log from elsewhere may plant one).
    """
    calls = calls or {}
    refs: list[SubagentRef] = []
    folder = path.parent / path.stem / "subagents"
    for candidate in _regular_files(folder, "agent-"):
        agent = candidate.stem.removeprefix("agent-")
        refs.append(SubagentRef(f"agent-{agent}", candidate, None, calls.get(agent)))
    for candidate in _regular_files(path.parent, "agent-"):
        if _names_session(candidate, session_id):
            agent = candidate.stem.removeprefix("agent-")
            refs.append(SubagentRef(f"agent-{agent}", candidate, None, calls.get(agent)))
    return refs


def _regular_files(folder: Path, prefix: str) -> list[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return []
    out = []
    for entry in entries:
        name = entry.name
        if (
            not (name.startswith(prefix) and name.endswith(".jsonl"))
            or "/" in name
            or name in (".", "..")
        ):
            continue
        try:
            if entry.is_file(follow_symlinks=False):
                out.append(Path(entry.path))
        except OSError:
            continue
    return out


def _names_session(path: Path, session_id: str) -> bool:
    """Whether the first line of an older ``agent-*.jsonl`` names ``session_id``."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline(1024 * 1024)
    except OSError:
        return False
    return f'"sessionId":"{session_id}"'.encode() in first
