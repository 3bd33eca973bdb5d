"""Gemini CLI's chats (``google-gemini/gemini-cli``): message records, rewinds and checkpoints.

Facts from ``packages/core/src/services/chatRecordingService.ts`` and ``chatRecordingTypes.ts``,
``packages/core/src/core/geminiChat.ts``, ``packages/core/src/context/chatCompressionService.ts``
and ``packages/core/src/config/{storage,projectRegistry}.ts`` at commit ``5411f113``
(2026-08-21):

* ``~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`` (``$GEMINI_CLI_HOME``
  replaces the home folder). ``<project>`` is a short name whose ``.project_root`` file holds the
  project's path (older builds used a SHA-256 of the path; ``~/.gemini/projects.json`` maps
  paths to names). A subagent's chat is ``chats/<parent session id>/<session id>.jsonl`` with
  ``kind: "subagent"``. Older builds wrote one JSON object per session (``.json``).
* Line 1 is the metadata (``sessionId``, ``projectHash``, ``startTime``, ``lastUpdated``,
  ``kind``). Each message is a record with ``id``, ``timestamp``, ``type`` (``user``,
  ``gemini``, ``info``, ``error``, ``warning``) and ``content`` (Gemini API parts: ``text``
  (``thought`` for reasoning), ``inlineData``, ``functionCall``, ``functionResponse``...); a
  ``gemini`` message adds ``toolCalls`` (each with ``args``, ``result`` parts and ``status``),
  ``thoughts`` (subject and description), ``tokens`` and ``model``. A record whose ``id`` was
  seen replaces that message where it stands.
* ``{"$rewindTo": id}`` removes that message and everything after it (rho-desk keeps what was
  removed as an abandoned branch); ``{"$set": {...}}`` updates metadata (``summary`` is the
  title), and ``$set.messages`` replaces the whole list: after a compression (the
  ``<state_snapshot>`` summary turns first) it is a new complete history, which rho-desk reads
  as a compaction; a list that only drops the last messages (an aborted prompt rolled back) is
  a rewind; one that only masks contents updates them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Final

import msgspec

from ..errors import InputError
from ..stores.rho_files.errors import read_failure
from ..wire.limits import check_depth
from ..wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity, ModelUsage
from ._parts import Where, count, image_block, json_text, string
from .base import (
    MAX_FILE_BYTES,
    AgentLog,
    AgentLogError,
    Compaction,
    Entry,
    Request,
    SubagentRef,
    bulk,
    iso_seconds,
    known,
)
from .jsonl import JsonLines

__all__ = ["AGENT", "project_root", "read", "session_files", "subagent_files"]

AGENT: Final = "gemini"
_META = known(
    "sessionId",
    "projectHash",
    "startTime",
    "lastUpdated",
    "kind",
    "summary",
    "messages",
    "directories",
)
_MESSAGE = known("id", "timestamp", "type", "content", "toolCalls", "thoughts", "tokens", "model")
_CALL = known("id", "name", "args", "result", "status", "timestamp")
_TOKENS = known("input", "output", "cached", "thoughts", "total")
_NOTICES: Final = frozenset({"info", "error", "warning"})


@bulk
def read(path: Path, *, tolerant: bool = False) -> AgentLog:
    """Read a Gemini CLI chat, JSONL or the older single JSON document (see the module docstring)."""
    source = str(path)
    log = AgentLog(AGENT, path, path.stem, "", 0)
    reader = _Reader(log, Where(source, 1))
    if path.suffix == ".json":
        document = _whole(path)
        log.size, log.lines = path.stat().st_size, 1
        reader.record(document)
    else:
        lines = JsonLines(path, tolerant=tolerant)
        for line, record in lines:
            reader.at.line = line
            reader.record(record)
        lines.hand_over(log)
    if not reader.seen_meta:
        raise Where(source, 1).fail(
            "not a Gemini CLI chat: no session metadata (sessionId, projectHash)"
        )
    log.leaf = reader.path[-1] if reader.path else None
    log.cwd = log.cwd or project_root(path) or ""
    log.subagents = subagent_files(path, log.session_id)
    return log


def _whole(path: Path) -> dict[str, Any]:
    source = str(path)
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(
                f"file is more than the {MAX_FILE_BYTES} bytes a session may have", source=source
            )
        data = path.read_bytes()
    except OSError as exc:
        raise read_failure(exc, source) from None
    try:
        check_depth(data, source=source)
        value = msgspec.json.decode(data)
    except InputError as exc:
        raise AgentLogError(exc.reason, source=source, line=1) from None
    except (msgspec.DecodeError, RecursionError, ValueError) as exc:
        raise AgentLogError(f"not JSON: {exc}", source=source, line=1) from None
    if not isinstance(value, dict):
        raise AgentLogError("a chat document must be a JSON object", source=source, line=1)
    return value


class _Reader:
    def __init__(self, log: AgentLog, at: Where) -> None:
        self.log = log
        self.loss = log.loss
        self.at = at
        self.path: list[str] = []
        """The steps of the current conversation, oldest first (the agent's message list)."""
        self.seen_meta = False
        self.heads: dict[str, tuple[Entry, int]] = {}
        """Message id -> the compaction holding it in its new history, and where."""
        self.answered: set[str] = set()

    def record(self, record: dict[str, Any]) -> None:
        at, loss = self.at, self.loss
        if "$rewindTo" in record:
            target = record["$rewindTo"]
            if not isinstance(target, str):
                raise at.fail("`$rewindTo` is not a message id")
            self.rewind(target)
            loss.rest(record, known("$rewindTo"), "$rewindTo:$")
            return
        if "$set" in record:
            update = at.obj(record, "$set", "a metadata update", required=True) or {}
            self.meta(update, "$set:$.$set")
            loss.rest(record, known("$set"), "$set:$")
            return
        if isinstance(record.get("id"), str):
            self.message(record)
            return
        if isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
            self.meta(record, "metadata:$")
            return
        raise at.fail("a record is neither a message, a rewind, an update nor the session metadata")

    def meta(self, record: dict[str, Any], where: str) -> None:
        log = self.log
        if isinstance(record.get("sessionId"), str) and record["sessionId"]:
            if not self.seen_meta:
                log.session_id = record["sessionId"]
            self.seen_meta = True
        started = iso_seconds(record.get("startTime"))
        if started and not log.created:
            log.created = started
        summary = record.get("summary")
        if isinstance(summary, str) and summary.strip():
            log.title = summary.strip()
        if record.get("kind") == "subagent":
            parent = log.path.parent.name
            if parent != "chats":
                log.parent_session = parent
        messages = record.get("messages")
        if isinstance(messages, list):
            self.checkpoint(self.at.objects(messages, "a message list"))
        self.loss.rest(record, _META, where)

    # -- messages ------------------------------------------------------------------------------

    def message(self, record: dict[str, Any]) -> None:
        msg_id = record["id"]
        entries = self.log.entries
        kind = self.at.text(record, "type", "a message")
        messages, turn, requests, model = self.convert(record)
        time = iso_seconds(record.get("timestamp"))
        if not self.log.created and time:
            self.log.created = time
        if msg_id in entries:
            entry = entries[msg_id]
            entry.messages, entry.requests, entry.model = messages, requests, model
            return
        if msg_id in self.heads:
            holder, index = self.heads[msg_id]
            assert holder.compaction is not None
            if messages and index < len(holder.compaction.head):
                holder.compaction.head[index] = messages[0]
            return
        if kind in _NOTICES:
            self.loss.drop(f"{kind}:$")
            return
        parent = self.path[-1] if self.path else None
        entry = Entry(
            msg_id,
            parent,
            time,
            messages,
            turn=turn,
            requests=requests,
            model=model,
            line=self.at.line,
        )
        self.log.add(entry)
        self.path.append(msg_id)

    def convert(
        self, record: dict[str, Any]
    ) -> tuple[list[Message], bool, list[Request] | None, ModelIdentity | None]:
        """A message record as wire messages, whether it is a prompt, its requests and model."""
        at, loss = self.at, self.loss
        kind = record.get("type")
        where = f"{kind}:$"
        loss.rest(record, _MESSAGE, where)
        if kind == "user":
            blocks, results, _ = self.parts(record.get("content"), f"{where}.content")
            out: list[Message] = list(results)
            if blocks:
                out.append(Message.user_blocks(blocks))
            return out, bool(blocks) and not results, None, None
        if kind != "gemini":
            return [], False, None, None
        model = string(record.get("model"))
        identity = ModelIdentity("google", "gemini", model)
        content, _, thinking = self.parts(record.get("content"), f"{where}.content")
        for thought in at.objects(
            at.array(record, "thoughts", "a gemini message") or [], "the thoughts"
        ):
            subject, description = thought.get("subject"), thought.get("description")
            text = "\n".join(
                t
                for t in (
                    f"**{subject}**" if isinstance(subject, str) and subject else "",
                    description if isinstance(description, str) else "",
                )
                if t
            )
            if text:
                thinking.append(text)
            loss.rest(thought, known("subject", "description", "timestamp"), f"{where}.thoughts[]")
        results = []
        known_calls = {b.tool_call.id for b in content if b.tool_call is not None}
        for call in at.objects(
            at.array(record, "toolCalls", "a gemini message") or [], "the tool calls"
        ):
            call_id = (
                at.text(call, "id", "a tool call") or f"call-{self.at.line}-{len(known_calls)}"
            )
            name = at.text(call, "name", "a tool call", required=True) or ""
            if call_id not in known_calls:
                args = call.get("args")
                content.append(
                    ContentBlock.of_tool_call(call_id, name, args if isinstance(args, dict) else {})
                )
                known_calls.add(call_id)
            result = call.get("result")
            status = call.get("status")
            if result is not None:
                _, answers, _ = self.parts(result, f"{where}.toolCalls[].result", call_id=call_id)
                results.extend(answers)
            elif status in ("error", "cancelled"):
                results.append(Message.result(call_id, False, str(status)))
            if results:
                self.answered.add(call_id)
            loss.rest(call, _CALL, f"{where}.toolCalls[]")
        message = Message.enriched(
            AssistantMessage(tuple(content), identity, "\n\n".join(thinking) or None)
        )
        requests = None
        tokens = record.get("tokens")
        if isinstance(tokens, dict):
            loss.rest(tokens, _TOKENS, f"{where}.tokens")
            output = count(tokens.get("output"))
            thoughts = count(tokens.get("thoughts"))
            if output is not None and thoughts:
                output += thoughts
            usage = ModelUsage.from_inclusive_prompt(
                count(tokens.get("input")),
                output,
                count(tokens.get("cached")),
                None,
                count(tokens.get("total")),
            )
            requests = [
                Request(iso_seconds(record.get("timestamp")) * 1000, model, "google", usage)
            ]
        return [message, *results], False, requests, identity

    def parts(
        self, content: object, where: str, *, call_id: str | None = None
    ) -> tuple[list[ContentBlock], list[Message], list[str]]:
        """Parts as content blocks, tool results (``functionResponse`` parts) and thought texts."""
        if content is None:
            return [], [], []
        if isinstance(content, str):
            return ([ContentBlock.of_text(content)] if content else []), [], []
        items = content if isinstance(content, list) else [content]
        blocks: list[ContentBlock] = []
        results: list[Message] = []
        thoughts: list[str] = []
        for part in items:
            if isinstance(part, str):
                blocks.append(ContentBlock.of_text(part))
                continue
            if not isinstance(part, dict):
                raise self.at.fail("a content part is neither text nor an object")
            if isinstance(part.get("text"), str):
                if part.get("thought") is True:
                    thoughts.append(part["text"])
                else:
                    blocks.append(ContentBlock.of_text(part["text"]))
                self.loss.rest(part, known("text", "thought"), f"{where}[text]")
            elif isinstance(part.get("inlineData"), dict):
                data = part["inlineData"]
                image = image_block(data.get("data"), data.get("mimeType"))
                if image is not None and str(data.get("mimeType", "")).startswith("image/"):
                    blocks.append(image)
                else:
                    self.loss.drop(f"{where}[inlineData]")
                    blocks.append(
                        ContentBlock.of_text(f"[inline data {data.get('mimeType')} not carried]")
                    )
            elif isinstance(part.get("functionCall"), dict):
                call = part["functionCall"]
                name = call.get("name") if isinstance(call.get("name"), str) else ""
                cid = (
                    call.get("id")
                    if isinstance(call.get("id"), str)
                    else f"{name}-{self.at.line}-{len(blocks)}"
                )
                args = call.get("args")
                blocks.append(
                    ContentBlock.of_tool_call(cid, name, args if isinstance(args, dict) else {})
                )
            elif isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"]
                rid = response.get("id") if isinstance(response.get("id"), str) else call_id or ""
                if call_id is None and rid in self.answered:
                    self.loss.drop(f"{where}[functionResponse](the tool call's own result)")
                    continue
                body = response.get("response")
                ok = not (isinstance(body, dict) and "error" in body)
                if (
                    isinstance(body, dict)
                    and len(body) == 1
                    and isinstance(next(iter(body.values())), str)
                ):
                    text = next(iter(body.values()))
                else:
                    text = json_text(body) if body is not None else ""
                results.append(Message.result(rid, ok, text))
                self.answered.add(rid)
            else:
                self.loss.drop(f"{where}[{'/'.join(sorted(part))}]")
        return blocks, results, thoughts

    # -- rewinds and checkpoints ----------------------------------------------------------------

    def rewind(self, target: str) -> None:
        """Remove ``target`` and every later message from the conversation (kept as a branch)."""
        if target in self.path:
            del self.path[self.path.index(target) :]
            self.loss.note("rewinds kept as branches")
        elif target in self.heads:
            holder, index = self.heads[target]
            assert holder.compaction is not None
            entry = Entry(
                f"{holder.id}@{self.at.line}",
                holder.parent,
                holder.time,
                [],
                compaction=Compaction(holder.compaction.head[:index]),
                line=self.at.line,
            )
            self.log.add(entry)
            self.path = (
                [*self.path[: self.path.index(holder.id)], entry.id]
                if holder.id in self.path
                else [entry.id]
            )
            self.loss.note("rewinds kept as branches")
        else:
            self.path = []  # as Gemini CLI does: an unknown id clears the conversation

    def checkpoint(self, messages: list[dict[str, Any]]) -> None:
        """``$set.messages``: the whole list again (see the module docstring)."""
        ids = [m.get("id") for m in messages]
        if not all(isinstance(i, str) for i in ids):
            raise self.at.fail("a message in `$set.messages` has no id")
        path = self.path
        common = 0
        while common < min(len(path), len(ids)) and path[common] == ids[common]:
            common += 1
        if common == len(path):
            for record in messages[common:]:  # new messages at the end (an initial sync)
                self.message(record)
            for record in messages[:common]:
                self.message(record)  # contents synced (masking): the latest wins
            return
        if common == len(ids):
            for record in messages:
                self.message(record)
            del path[common:]  # the last messages taken back (a rolled-back prompt): a branch
            self.loss.note("rolled-back prompts kept as branches")
            return
        # A new history: a compression. Its summary turns were recorded just before it, so they
        # also close the old line, where they are shown (the compaction holds them again, as
        # the start of the new history).
        head: list[Message] = []
        entry = Entry(f"$set@{self.at.line}", path[-1] if path else None, 0, [], line=self.at.line)
        for record in messages:
            converted, _, _, _ = self.convert(record)
            for message in converted:
                self.heads[record["id"]] = (entry, len(head))
                head.append(message)
            time = iso_seconds(record.get("timestamp"))
            entry.time = max(entry.time, time)
        entry.compaction = Compaction(head, trigger="compression")
        self.log.add(entry)
        self.path = [*path, entry.id]


def project_root(chat: Path) -> str | None:
    """The project a chat belongs to: ``<project>/.project_root``, else the registry's path whose
    name (or SHA-256, for older folders) is the project folder's."""
    project = chat.parent.parent if chat.parent.name == "chats" else chat.parent.parent.parent
    try:
        with open(project / ".project_root", "rb") as handle:
            text = handle.read(4096).decode("utf-8").strip()
        if text:
            return text
    except (OSError, UnicodeDecodeError):
        pass
    registry = project.parent.parent / "projects.json"
    try:
        data = msgspec.json.decode(registry.read_bytes()[: 4 * 1024 * 1024])
    except (OSError, msgspec.DecodeError, RecursionError, ValueError):
        return None
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return None
    name = project.name
    for root, slug in projects.items():
        if isinstance(root, str) and (
            slug == name or hashlib.sha256(root.encode("utf-8")).hexdigest() == name
        ):
            return root
    return None


def session_files(home: Path) -> list[Path]:
    """Every main chat under ``home`` (``tmp/<project>/chats/session-*.jsonl`` or ``.json``; a
    subagent's chat is listed with its parent)."""
    out: list[Path] = []
    try:
        projects = sorted(p for p in (home / "tmp").iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    for project in projects:
        chats = project / "chats"
        try:
            names = sorted(chats.iterdir())
        except OSError:
            continue
        plain = {p.stem for p in names if p.suffix == ".jsonl"}
        for candidate in names:
            if (
                not candidate.name.startswith("session-")
                or candidate.is_symlink()
                or not candidate.is_file()
            ):
                continue
            if candidate.suffix == ".jsonl" or (
                candidate.suffix == ".json" and candidate.stem not in plain
            ):
                out.append(candidate)
    return out


def subagent_files(chat: Path, session_id: str) -> list[SubagentRef]:
    """The subagents' chats of a session: ``chats/<session id>/*.jsonl`` (regular files only)."""
    folder = chat.parent / session_id
    if (
        chat.parent.name != "chats"
        or not session_id
        or "/" in session_id
        or session_id in (".", "..")
    ):
        return []
    try:
        found = sorted(
            p
            for p in folder.iterdir()
            if p.suffix == ".jsonl" and not p.is_symlink() and p.is_file()
        )
    except OSError:
        return []
    return [SubagentRef(p.stem, p) for p in found]
