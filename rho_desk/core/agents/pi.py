"""Pi's sessions (``badlogic/pi-mono``, the coding agent): a tree of entries in one JSONL file.

Facts from ``packages/coding-agent/src/core/session-manager.ts`` and ``messages.ts``, and
``packages/ai/src/types.ts``, at commit ``83378aad`` (2026-03-15):

* ``~/.pi/agent/sessions/--<cwd with / \\ : as ->--/<timestamp>_<uuid>.jsonl`` (the folder is
  ``$PI_CODING_AGENT_DIR`` when set). Line 1 is the header ``{"type": "session", "version",
  "id", "timestamp", "cwd", "parentSession"?}`` (version 1 has no ``version``; the current one
  is 3). Every later line is an entry with ``id`` and ``parentId`` (version 1 had neither: each
  hangs from the line before), so one file holds a tree; the last entry is the leaf.
* ``message`` entries hold an agent message by ``role``: ``user`` (text and images),
  ``assistant`` (``text``, ``thinking`` with its signature, ``toolCall`` blocks; ``api``,
  ``provider``, ``model``, ``usage`` with ``cost``, ``stopReason`` of which ``aborted`` and
  ``error`` end a reply early), ``toolResult`` (``toolCallId``, text and images,
  ``isError``), ``bashExecution`` (a ``!`` command the user ran, sent to the model as text
  unless ``excludeFromContext``), ``custom``. ``compaction`` entries carry the summary, the
  first entry kept and the tokens before; ``branch_summary`` and ``custom_message`` entries
  are sent to the model as user text; ``model_change``, ``thinking_level_change``, ``label``,
  ``custom`` and ``session_info`` (the session's name) are not.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Final

from ..wire.model import (
    AbortedAssistant,
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
)
from ._parts import Where, count, dollars_to_micros, image_block, json_text, string
from .base import AgentLog, Compaction, Entry, Request, bulk, iso_seconds, known
from .build import attachment_message
from .jsonl import JsonLines

__all__ = ["AGENT", "read"]

AGENT: Final = "pi"
COMPACTION_PREFIX: Final = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
COMPACTION_SUFFIX: Final = "\n</summary>"
BRANCH_PREFIX: Final = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)
BRANCH_SUFFIX: Final = "</summary>"
_ANTHROPIC_KIND: Final = "anthropic_content_block"

_HEADER = known("type", "version", "id", "timestamp", "cwd", "parentSession")
_ENTRY = known("type", "id", "parentId", "timestamp")
_USER = known("role", "content", "timestamp")
_ASSISTANT = known(
    "role", "content", "api", "provider", "model", "usage", "stopReason", "timestamp"
)
_RESULT = known("role", "toolCallId", "toolName", "content", "isError", "timestamp")
_BASH = known(
    "role",
    "command",
    "output",
    "exitCode",
    "cancelled",
    "truncated",
    "fullOutputPath",
    "timestamp",
    "excludeFromContext",
)
_CUSTOM = known("role", "customType", "content", "timestamp")
_USAGE = known("input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost")
_TEXT = known("type", "text")
_THINKING = known("type", "thinking", "thinkingSignature", "redacted")
_CALL = known("type", "id", "name", "arguments")
_IMAGE = known("type", "data", "mimeType")


@bulk
def read(path: Path, *, tolerant: bool = False) -> AgentLog:
    """Read a Pi session file (see the module docstring)."""
    lines = JsonLines(path, tolerant=tolerant)
    header, at, records = lines.first("Pi session")
    if header.get("type") != "session" or not isinstance(header.get("id"), str) or not header["id"]:
        raise at.fail("not a Pi session: line 1 is not a session header")
    version: int = header["version"] if isinstance(header.get("version"), int) else 1
    log = AgentLog(
        AGENT,
        path,
        header["id"],
        at.text(header, "cwd", "the session header") or "",
        iso_seconds(header.get("timestamp")),
    )
    log.version = str(version)
    log.loss.rest(header, _HEADER, "session:$")
    if isinstance(header.get("parentSession"), str):
        log.parent_session = header["parentSession"]
    reader = _Reader(log, at.source)
    previous: str | None = None
    numbered: dict[int, str] = {}
    for index, (line, record) in enumerate(records, 1):
        reader.at.line = line
        kind = record.get("type")
        if not isinstance(kind, str):
            raise reader.at.fail("an entry has no `type`")
        if version < 2:
            # version 1: no ids; each entry hangs from the one before
            entry_id, parent = f"line-{line}", previous
            numbered[index] = entry_id
        else:
            entry_id = string(record.get("id"))
            parent = record.get("parentId")
            if not entry_id:
                raise reader.at.fail(f"`{kind}` entry has no `id`")
            if parent is not None and not isinstance(parent, str):
                raise reader.at.fail(f"`parentId` of `{kind}` entry is not a string")
        entry = Entry(entry_id, parent, iso_seconds(record.get("timestamp")), [], line=line)
        reader.entry(kind, record, entry, numbered)
        log.add(entry)
        previous = entry_id
    lines.hand_over(log)
    return log


class _Reader:
    def __init__(self, log: AgentLog, source: str) -> None:
        self.log = log
        self.loss = log.loss
        self.at = Where(source, 1)

    def entry(
        self, kind: str, record: dict[str, Any], entry: Entry, numbered: dict[int, str]
    ) -> None:
        loss, at = self.loss, self.at
        where = f"{kind}:$"
        if kind == "message":
            message = at.obj(record, "message", "a message entry", required=True)
            assert message is not None
            loss.rest(record, _ENTRY | {"message"}, where)
            self.message(message, entry)
        elif kind == "compaction":
            summary = at.text(record, "summary", "a compaction entry") or ""
            keep = record.get("firstKeptEntryId")
            if keep is None and isinstance(record.get("firstKeptEntryIndex"), int):
                keep = numbered.get(record["firstKeptEntryIndex"])  # version 1 counted entries
            entry.compaction = Compaction(
                [Message.user_text(COMPACTION_PREFIX + summary + COMPACTION_SUFFIX)],
                keep if isinstance(keep, str) else None,
                count(record.get("tokensBefore")),
            )
            loss.rest(
                record,
                _ENTRY | {"summary", "firstKeptEntryId", "firstKeptEntryIndex", "tokensBefore"},
                where,
            )
        elif kind == "branch_summary":
            summary = at.text(record, "summary", "a branch summary entry") or ""
            if summary:
                entry.messages.append(Message.user_text(BRANCH_PREFIX + summary + BRANCH_SUFFIX))
            loss.rest(record, _ENTRY | {"summary"}, where)
        elif kind == "custom_message":
            blocks = self.user_blocks(record.get("content"), f"{where}.content")
            if blocks:
                entry.messages.append(Message.user_blocks(blocks))
            loss.rest(record, _ENTRY | {"content"}, where)
        elif kind == "session_info":
            name = record.get("name")
            if isinstance(name, str) and name.strip():
                self.log.title = name.strip()
            loss.rest(record, _ENTRY | {"name"}, where)
        else:
            # model_change, thinking_level_change, label, custom and kinds a newer Pi writes:
            # a step of the tree that sends nothing to the model
            loss.rest(record, _ENTRY, where)

    def message(self, message: dict[str, Any], entry: Entry) -> None:
        loss, at = self.loss, self.at
        role = at.text(message, "role", "a message", required=True)
        where = f"message/{role}:$.message"
        if role == "user":
            blocks = self.user_blocks(message.get("content"), f"{where}.content")
            if blocks:
                entry.messages.append(Message.user_blocks(blocks))
                entry.turn = True
            loss.rest(message, _USER, where)
        elif role == "assistant":
            self.assistant(message, entry, where)
        elif role == "toolResult":
            call_id = at.text(message, "toolCallId", "a tool result", required=True) or ""
            texts: list[str] = []
            images: list[ContentBlock] = []
            for block in self.blocks(message.get("content"), f"{where}.content"):
                if block.text is not None:
                    texts.append(block.text)
                elif block.image is not None:
                    images.append(block)
            entry.messages.append(
                Message.result(call_id, message.get("isError") is not True, "\n".join(texts))
            )
            if images:
                entry.messages.append(attachment_message(call_id, images))
            loss.rest(message, _RESULT, where)
        elif role == "bashExecution":
            if message.get("excludeFromContext") is not True:
                entry.messages.append(Message.user_text(_bash_text(message)))
                entry.turn = True
            loss.rest(message, _BASH, where)
        elif role == "custom":
            blocks = self.user_blocks(message.get("content"), f"{where}.content")
            if blocks:
                entry.messages.append(Message.user_blocks(blocks))
            loss.rest(message, _CUSTOM, where)
        else:
            loss.drop(f"message:$.message[role={role}]")

    def assistant(self, message: dict[str, Any], entry: Entry, where: str) -> None:
        loss, at = self.loss, self.at
        provider = at.text(message, "provider", "an assistant message") or ""
        api = at.text(message, "api", "an assistant message") or ""
        model = at.text(message, "model", "an assistant message") or ""
        identity = ModelIdentity(provider, api, model)
        content: list[ContentBlock] = []
        thinking: list[str] = []
        context: list[ProviderContextBlock] = []
        content_list = at.array(message, "content", "an assistant message") or []
        for position, block in enumerate(
            at.objects(content_list, "an assistant message's content")
        ):
            kind = at.text(block, "type", "a content block")
            path = f"{where}.content[type={kind}]"
            if kind == "text":
                text = at.text(block, "text", "a text block") or ""
                content.append(ContentBlock.of_text(text))
                loss.rest(block, _TEXT, path)
            elif kind == "thinking":
                text = at.text(block, "thinking", "a thinking block") or ""
                if text:
                    thinking.append(text)
                signature = block.get("thinkingSignature")
                if isinstance(signature, str) and signature and api == "anthropic-messages":
                    data = (
                        {"type": "redacted_thinking", "data": signature}
                        if block.get("redacted") is True
                        else {"type": "thinking", "thinking": text, "signature": signature}
                    )
                    context.append(
                        ProviderContextBlock(
                            identity=identity, kind=_ANTHROPIC_KIND, position=position, data=data
                        )
                    )
                    loss.rest(block, _THINKING, path)
                else:
                    loss.rest(block, _THINKING - {"thinkingSignature", "redacted"}, path)
            elif kind == "toolCall":
                call_id = at.text(block, "id", "a tool call", required=True) or ""
                name = at.text(block, "name", "a tool call", required=True) or ""
                arguments = block.get("arguments")
                content.append(
                    ContentBlock.of_tool_call(
                        call_id, name, arguments if arguments is not None else {}
                    )
                )
                loss.rest(block, _CALL, path)
            else:
                loss.drop(path)
        usage = self.usage(message, where)
        stop = message.get("stopReason")
        summary = "\n\n".join(thinking) or None
        if stop == "aborted":
            calls = [b.tool_call for b in content if b.tool_call is not None]
            entry.messages.append(
                Message.aborted(
                    AbortedAssistant(
                        content=tuple(content),
                        reasoning="",
                        reasoning_summary=summary,
                        provider_context=tuple(context),
                        tool_calls=tuple(
                            PartialToolCall(id=c.id, name=c.name, arguments=json_text(c.arguments))
                            for c in calls
                        ),
                        usage=usage,
                    )
                )
            )
        else:
            entry.messages.append(
                Message.enriched(
                    AssistantMessage(tuple(content), identity, summary, tuple(context))
                )
            )
        loss.rest(message, _ASSISTANT, where)
        entry.model = identity
        if not usage.is_empty:
            time_ms = message.get("timestamp")
            entry.requests = [
                Request(
                    time_ms if isinstance(time_ms, int) else entry.time * 1000,
                    model,
                    provider,
                    usage,
                    "cancelled"
                    if stop == "aborted"
                    else "failed"
                    if stop == "error"
                    else "completed",
                )
            ]

    def usage(self, message: dict[str, Any], where: str) -> ModelUsage:
        usage = message.get("usage")
        if not isinstance(usage, dict):
            return ModelUsage()
        self.loss.rest(usage, _USAGE, f"{where}.usage")
        cost = usage.get("cost")
        micros = None
        if isinstance(cost, dict):
            micros = dollars_to_micros(cost.get("total"))
            self.loss.rest(cost, known("total"), f"{where}.usage.cost")
        return ModelUsage(
            input_tokens=count(usage.get("input")),
            output_tokens=count(usage.get("output")),
            cache_read_tokens=count(usage.get("cacheRead")),
            cache_write_tokens=count(usage.get("cacheWrite")),
            total_tokens=count(usage.get("totalTokens")),
            cost_usd_micros=micros,
        )

    def user_blocks(self, content: object, where: str) -> list[ContentBlock]:
        if isinstance(content, str):
            return [ContentBlock.of_text(content)] if content else []
        return self.blocks(content, where)

    def blocks(self, content: object, where: str) -> list[ContentBlock]:
        """Text and image blocks (the content of user messages and tool results)."""
        if content is None:
            return []
        if not isinstance(content, list):
            raise self.at.fail("message `content` is neither text nor an array")
        out: list[ContentBlock] = []
        for block in self.at.objects(content, "a message's content"):
            kind = self.at.text(block, "type", "a content block")
            path = f"{where}[type={kind}]"
            if kind == "text":
                out.append(ContentBlock.of_text(self.at.text(block, "text", "a text block") or ""))
                self.loss.rest(block, _TEXT, path)
            elif kind == "image":
                image = image_block(block.get("data"), block.get("mimeType"))
                if image is None:
                    self.loss.drop(path)
                else:
                    out.append(image)
                    self.loss.rest(block, _IMAGE, path)
            else:
                self.loss.drop(path)
        return out


def _bash_text(message: dict[str, Any]) -> str:
    """What Pi sends the model for a ``!`` command (``bashExecutionToText``)."""
    command = message.get("command") if isinstance(message.get("command"), str) else ""
    output = message.get("output") if isinstance(message.get("output"), str) else ""
    text = f"Ran `{command}`\n" + (f"```\n{output}\n```" if output else "(no output)")
    code = message.get("exitCode")
    if message.get("cancelled") is True:
        text += "\n\n(command cancelled)"
    elif isinstance(code, int) and code != 0:
        text += f"\n\nCommand exited with code {code}"
    if message.get("truncated") is True and isinstance(message.get("fullOutputPath"), str):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


def sessions_root(home: Path) -> Path:
    """Where Pi keeps sessions under its agent folder."""
    return home / "sessions"


def session_files(home: Path) -> list[Path]:
    """Every session file under ``home`` (``sessions/<cwd folder>/*.jsonl``)."""
    root = sessions_root(home)
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    out: list[Path] = []
    for folder in folders:
        try:
            out.extend(
                sorted(
                    p
                    for p in folder.iterdir()
                    if p.suffix == ".jsonl" and p.is_file() and not p.is_symlink()
                )
            )
        except OSError:
            continue
    return list(itertools.chain(out))
