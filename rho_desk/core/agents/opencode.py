"""opencode's sessions (``sst/opencode``, now ``anomalyco/opencode``): rows of one SQLite database.

Facts from ``packages/opencode/src/session/session.sql.ts`` (commit ``063e8306``) and
``packages/opencode/src/session/message-v2.ts`` (commit ``007a9409``):

* ``$XDG_DATA_HOME/opencode/opencode.db`` (``~/.local/share/opencode``). Tables ``session``
  (``id``, ``parent_id`` (a subagent's parent), ``directory``, ``title``, ``version``,
  ``time_created``/``time_updated`` in ms, ``revert``), ``message`` (``id``, ``session_id``,
  ``time_created``, ``data``: JSON) and ``part`` (``id``, ``message_id``, ``session_id``,
  ``data``: JSON). Messages are read in ``time_created, id`` order and parts in ``id`` order, as
  opencode reads them.
* A message's ``data`` has its ``role``; an assistant one its ``providerID``, ``modelID``,
  ``tokens`` (``input``, ``output``, ``reasoning``, ``cache.read``/``write``), ``cost``,
  ``error`` (an aborted turn) and ``summary`` (the compaction summary). Parts: ``text``
  (``synthetic``, ``ignored``), ``reasoning``, ``file`` (``mime``, a ``data:`` URL), ``tool``
  (``callID``, ``tool``, ``state`` with ``status``, ``input``, ``output`` or ``error``,
  ``attachments``), ``step-start``/``step-finish`` (one model request each, with its tokens and
  cost), ``compaction`` (on the user message that asked for it; ``tail_start_id`` names the first
  message kept), ``subtask``, ``patch``, ``snapshot``, ``agent``, ``retry``.
* A session's ``revert`` names the message from which the conversation was undone: rho-desk
  keeps those messages as a branch the session no longer continues from.

A session is named by ``<database>#<session id>``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any, Final

import msgspec

from ..errors import InputError, StorageError
from ..wire.model import AssistantMessage, ContentBlock, Message, ModelIdentity, ModelUsage
from ._parts import (
    Where,
    count,
    data_url_image,
    dollars_to_micros,
    json_text,
    mapping,
    split,
    string,
)
from .base import (
    AgentLog,
    AgentLogError,
    Compaction,
    Entry,
    Request,
    SubagentRef,
    bulk,
    known,
)
from .build import attachment_message

__all__ = [
    "AGENT",
    "DATABASE",
    "connect",
    "read",
    "session_bytes",
    "session_ids",
    "split",
    "top_sessions",
]

AGENT: Final = "opencode"
DATABASE: Final = "opencode.db"
COMPACTION_PROMPT: Final = "What did we do so far?"
SUBTASK_PROMPT: Final = "The following tool was executed by the user"
INTERRUPTED: Final = "[Tool execution was interrupted]"
_APIS: Final = {"anthropic": "anthropic-messages", "openai": "responses", "google": "gemini"}
_USER = known("role", "time", "agent", "model")
_ASSISTANT = known(
    "role",
    "time",
    "providerID",
    "modelID",
    "tokens",
    "cost",
    "summary",
    "parentID",
    "error",
    "finish",
)
_TOOL = known("type", "callID", "tool", "state")
_DECODE: Final = msgspec.json.Decoder().decode


def connect(database: Path) -> sqlite3.Connection:
    """The database opened read-only (opencode may be writing it).

    Raises:
        StorageError: it cannot be opened.
    """
    try:
        connection = sqlite3.connect(f"{database.absolute().as_uri()}?mode=ro", uri=True, timeout=5)
        connection.execute("select 1 from session limit 1")
    except sqlite3.DatabaseError as exc:
        raise InputError(f"not an opencode database: {exc}", source=str(database)) from None
    except sqlite3.Error as exc:
        raise StorageError(f"{database}: cannot read: {exc}") from None
    return connection


def session_ids(database: Path) -> list[tuple[str, int]]:
    """Every session of the database with its last update (ms), newest first."""
    with closing(connect(database)) as db:
        try:
            return [
                (str(r[0]), int(r[1] or 0))
                for r in db.execute(
                    "select id, time_updated from session order by time_updated desc"
                )
            ]
        except sqlite3.Error as exc:
            raise StorageError(f"{database}: cannot read: {exc}") from None


def top_sessions(database: Path) -> list[tuple[str, int]]:
    """The sessions a person started (no subagents'), with their last update (ms), newest first."""
    with closing(connect(database)) as db:
        try:
            rows = db.execute(
                "select id, time_updated from session where parent_id is null order by time_updated desc"
            )
            return [(str(r[0]), int(r[1] or 0)) for r in rows]
        except sqlite3.Error as exc:
            raise StorageError(f"{database}: cannot read: {exc}") from None


def session_bytes(path: Path) -> bytes:
    """One session's rows as JSON lines (each message's ``data``, then its parts'), in opencode's
    order: what an audit of the session reads, byte for byte as the database holds them.

    Raises:
        InputError: no session named, or no such session.
        StorageError: the database cannot be read.
    """
    database, session_id = split(path)
    if session_id is None:
        raise InputError(f"name one session: {database}#<id>", source=str(database))
    with closing(connect(database)) as db:
        try:
            if db.execute("select 1 from session where id = ?", (session_id,)).fetchone() is None:
                raise InputError("no such session in the opencode database", source=str(path))
            lines: list[bytes] = []
            for message_id, data in db.execute(
                "select id, data from message where session_id = ? order by time_created, id",
                (session_id,),
            ).fetchall():
                lines.append(_row_bytes(data))
                for (part,) in db.execute(
                    "select data from part where message_id = ? order by id", (message_id,)
                ):
                    lines.append(_row_bytes(part))
        except sqlite3.Error as exc:
            raise StorageError(f"{path}: cannot read: {exc}") from None
    return b"".join(line.rstrip(b"\n").replace(b"\n", b" ") + b"\n" for line in lines)


def _row_bytes(data: object) -> bytes:
    if isinstance(data, bytes | bytearray):
        return bytes(data)
    return str(data).encode("utf-8", "surrogatepass")


@bulk
def read(path: Path, *, tolerant: bool = False) -> AgentLog:
    """Read one opencode session, ``<database>#<session id>`` (see the module docstring)."""
    database, session_id = split(path)
    source = f"{database}#{session_id}"
    if session_id is None:
        ids = session_ids(database)
        shown = ", ".join(i for i, _ in ids[:3])
        raise InputError(
            f"an opencode database holds {len(ids)} sessions; name one as {database}#<id>"
            + (f" (newest: {shown})" if shown else ""),
            source=str(database),
        )
    with closing(connect(database)) as db:
        try:
            row = db.execute("select * from session where id = ?", (session_id,)).fetchone()
            if row is None:
                raise InputError("no such session in the opencode database", source=source)
            columns = [d[0] for d in db.execute("select * from session limit 0").description]
            session = dict(zip(columns, row, strict=True))
            messages = db.execute(
                "select id, time_created, data from message where session_id = ? order by time_created, id",
                (session_id,),
            ).fetchall()
            parts = db.execute(
                "select id, message_id, data from part where session_id = ? order by message_id, id",
                (session_id,),
            ).fetchall()
            children = db.execute(
                "select id, title from session where parent_id = ? order by time_created",
                (session_id,),
            ).fetchall()
        except sqlite3.Error as exc:
            raise StorageError(f"{source}: cannot read: {exc}") from None
    log = AgentLog(
        AGENT,
        Path(source),
        session_id,
        str(session.get("directory") or ""),
        int(session.get("time_created") or 0) // 1000,
    )
    log.title = session.get("title") or None
    log.version = session.get("version") or None
    log.parent_session = session.get("parent_id") or None
    log.subagents = [
        SubagentRef(str(cid), Path(f"{database}#{cid}"), title or None) for cid, title in children
    ]
    for name in ("share_url", "summary_diffs", "permission", "revert"):
        if session.get(name):
            log.loss.drop(f"session:$.{name}")
    by_message: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    reader = _Reader(log, source)
    for index, (part_id, message_id, data) in enumerate(parts, 1):
        by_message.setdefault(message_id, []).append(
            (index, reader.decode(data, f"part {part_id}", index))
        )
    previous: str | None = None
    for row_number, (message_id, created, data) in enumerate(messages, 1):
        reader.at.line = row_number
        info = reader.decode(data, f"message {message_id}", row_number)
        log.size += len(data)
        entry = reader.message(
            str(message_id),
            previous,
            int(created or 0) // 1000,
            info,
            [p for _, p in by_message.get(message_id, [])],
        )
        if entry is not None:
            previous = entry.id
    log.size += sum(len(p[2]) for p in parts)
    log.lines = len(messages)
    revert = _revert_point(session.get("revert"))
    if revert is not None and revert in log.entries:
        log.leaf = log.entries[revert].parent
        log.loss.note("undone messages kept as a branch")
    else:
        log.leaf = previous
    return log


def _revert_point(value: object) -> str | None:
    if isinstance(value, str):
        try:
            value = _DECODE(value)
        except (msgspec.DecodeError, RecursionError, ValueError):
            return None
    return string(value.get("messageID")) or None if isinstance(value, dict) else None


class _Reader:
    def __init__(self, log: AgentLog, source: str) -> None:
        self.log = log
        self.loss = log.loss
        self.source = source
        self.at = Where(source, 0)

    def decode(self, data: object, what: str, row: int) -> dict[str, Any]:
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        if not isinstance(raw, bytes | bytearray):
            raise AgentLogError(f"{what}: `data` is not JSON text", source=self.source, line=row)
        try:
            value = _DECODE(raw)
        except RecursionError:
            raise AgentLogError(
                f"{what}: JSON nesting is too deep", source=self.source, line=row
            ) from None
        except (msgspec.DecodeError, ValueError) as exc:
            raise AgentLogError(f"{what}: not JSON: {exc}", source=self.source, line=row) from None
        if not isinstance(value, dict):
            raise AgentLogError(
                f"{what}: `data` is not a JSON object", source=self.source, line=row
            )
        return value

    def message(
        self,
        message_id: str,
        parent: str | None,
        time: int,
        info: dict[str, Any],
        parts: list[dict[str, Any]],
    ) -> Entry | None:
        role = info.get("role")
        entry = Entry(message_id, parent, time, [], line=self.at.line)
        if role == "user":
            self.user(entry, info, parts)
        elif role == "assistant":
            self.assistant(entry, info, parts)
        else:
            self.loss.drop(f"message[role={role}]:$")
            return None
        self.log.add(entry)
        return entry

    def user(self, entry: Entry, info: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        loss = self.loss
        self.loss.rest(info, _USER, "user:$")
        blocks: list[ContentBlock] = []
        prompt = False
        for part in parts:
            kind = self.at.text(part, "type", "a part")
            where = f"user:$.parts[type={kind}]"
            if kind == "text":
                if part.get("ignored") is True:
                    loss.drop(where + "(ignored)")
                    continue
                text = part.get("text")
                if isinstance(text, str):
                    blocks.append(ContentBlock.of_text(text))
                    prompt = prompt or part.get("synthetic") is not True
                loss.rest(
                    part,
                    known("type", "text", "synthetic", "id", "sessionID", "messageID", "time"),
                    where,
                )
            elif kind == "file":
                mime = part.get("mime")
                if mime in ("text/plain", "application/x-directory"):
                    continue  # opencode gives the model its text as a synthetic text part
                image = (
                    data_url_image(part.get("url"))
                    if isinstance(mime, str) and mime.startswith("image/")
                    else None
                )
                if image is not None:
                    blocks.append(image)
                else:
                    loss.drop(where)
                    blocks.append(
                        ContentBlock.of_text(f"[file {part.get('filename') or mime} not carried]")
                    )
            elif kind == "compaction":
                tail = part.get("tail_start_id")
                entry.compaction = Compaction(
                    [Message.user_text(COMPACTION_PROMPT)],
                    tail if isinstance(tail, str) else None,
                    trigger="auto" if part.get("auto") is True else "manual",
                )
                loss.rest(
                    part,
                    known(
                        "type", "auto", "tail_start_id", "overflow", "id", "sessionID", "messageID"
                    ),
                    where,
                )
            elif kind == "subtask":
                blocks.append(ContentBlock.of_text(SUBTASK_PROMPT))
                loss.drop(where)
            else:
                loss.drop(where)
        if blocks and entry.compaction is None:
            entry.messages.append(Message.user_blocks(blocks))
            entry.turn = prompt

    def assistant(self, entry: Entry, info: dict[str, Any], parts: list[dict[str, Any]]) -> None:
        loss = self.loss
        provider, model = string(info.get("providerID")), string(info.get("modelID"))
        identity = ModelIdentity(provider, _APIS.get(provider, ""), model)
        entry.model = identity
        loss.rest(info, _ASSISTANT | {"mode", "agent", "path"}, "assistant:$")
        for name in ("mode", "agent", "path"):
            if info.get(name) is not None:
                loss.drop(f"assistant:$.{name}")
        if info.get("error") is not None:
            loss.drop("assistant:$.error")
        requests: list[Request] = []
        for step in _steps(parts):
            content: list[ContentBlock] = []
            thinking: list[str] = []
            results: list[Message] = []
            for part in step:
                kind = self.at.text(part, "type", "a part")
                where = f"assistant:$.parts[type={kind}]"
                if kind == "text":
                    if isinstance(part.get("text"), str) and part["text"]:
                        content.append(ContentBlock.of_text(part["text"]))
                    loss.rest(
                        part,
                        known("type", "text", "id", "sessionID", "messageID", "time", "synthetic"),
                        where,
                    )
                elif kind == "reasoning":
                    if isinstance(part.get("text"), str) and part["text"]:
                        thinking.append(part["text"])
                    loss.rest(
                        part, known("type", "text", "id", "sessionID", "messageID", "time"), where
                    )
                elif kind == "tool":
                    self.tool(part, content, results, where)
                elif kind == "step-finish":
                    request = self.request(part, identity, entry.time)
                    if request is not None:
                        requests.append(request)
                    loss.rest(
                        part,
                        known("type", "tokens", "cost", "reason", "id", "sessionID", "messageID"),
                        where,
                    )
                elif kind == "step-start":
                    loss.rest(part, known("type", "id", "sessionID", "messageID"), where)
                else:
                    loss.drop(where)
            if content or thinking:
                entry.messages.append(
                    Message.enriched(
                        AssistantMessage(tuple(content), identity, "\n\n".join(thinking) or None)
                    )
                )
            entry.messages.extend(results)
        if not requests:
            request = self.request(info, identity, entry.time)
            if request is not None:
                requests.append(request)
        entry.requests = requests or None

    def tool(
        self, part: dict[str, Any], content: list[ContentBlock], results: list[Message], where: str
    ) -> None:
        at = Where(self.source, self.at.line)
        call_id = at.text(part, "callID", "a tool part", required=True) or ""
        name = at.text(part, "tool", "a tool part", required=True) or ""
        state = at.obj(part, "state", "a tool part", required=True) or {}
        status = state.get("status")
        arguments = state.get("input")
        content.append(
            ContentBlock.of_tool_call(
                call_id, name, arguments if isinstance(arguments, dict) else {}
            )
        )
        images: list[ContentBlock] = []
        if status == "completed":
            output = state.get("output")
            results.append(
                Message.result(
                    call_id, True, output if isinstance(output, str) else json_text(output)
                )
            )
            for attachment in state.get("attachments") or ():
                image = (
                    data_url_image(attachment.get("url")) if isinstance(attachment, dict) else None
                )
                if image is not None:
                    images.append(image)
                else:
                    self.loss.drop(f"{where}.state.attachments[]")
        elif status == "error":
            error = state.get("error")
            results.append(
                Message.result(
                    call_id, False, error if isinstance(error, str) else json_text(error)
                )
            )
        else:
            # pending or running when the session ended: what opencode itself sends the model
            results.append(Message.result(call_id, False, INTERRUPTED))
            self.loss.note(
                "tool calls still running when the session stopped, given opencode's interrupted result"
            )
        if images:
            results.append(attachment_message(call_id, images))
        self.loss.rest(part, _TOOL | {"id", "sessionID", "messageID"}, where)
        self.loss.rest(
            state,
            known("status", "input", "output", "error", "attachments", "raw"),
            f"{where}.state",
        )

    def request(self, holder: dict[str, Any], identity: ModelIdentity, time: int) -> Request | None:
        tokens = holder.get("tokens")
        if not isinstance(tokens, dict):
            return None
        cache = mapping(tokens.get("cache"))
        output = count(tokens.get("output"))
        reasoning = count(tokens.get("reasoning"))
        if output is not None and reasoning:
            output += reasoning
        usage = ModelUsage(
            input_tokens=count(tokens.get("input")),
            output_tokens=output,
            cache_read_tokens=count(cache.get("read")),
            cache_write_tokens=count(cache.get("write")),
            total_tokens=count(tokens.get("total")),
            cost_usd_micros=dollars_to_micros(holder.get("cost")),
        )
        if usage.is_empty:
            return None
        return Request(time * 1000, identity.model, identity.provider, usage)


def _steps(parts: list[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """The parts of an assistant message by model request (each ``step-start`` opens one)."""
    step: list[dict[str, Any]] = []
    for part in parts:
        if part.get("type") == "step-start" and step:
            yield step
            step = []
        step.append(part)
    if step:
        yield step


def database_of(home: Path) -> Path:
    """The database file in an opencode data folder."""
    return home / DATABASE
