"""The six tools of ``rho-desk mcp``, as plain synchronous calls (no protocol here).

:class:`Memory` answers each tool with a JSON-ready dict, and every answer passes the gate
(:meth:`Gate.answer`) last: whatever a tool put together, its strings are redacted and audited
as one document before anything is returned, or the answer is refused with a reason. Each call
(answered, refused or failed) is written to the served log: the tool, the session, the classes,
the redaction counts.

Arguments come from a client, which is to say from a model: every one is validated here
(:mod:`._args`), and a wrong one gets one clear sentence. Session content is data: no tool
follows anything a session says, and nothing here reads a file other than transcripts, their
checkpoint journals, the usage ledger and, for a change whose journal records only a digest of
the result, the workspace file with exactly that digest (as ``rho-desk changes`` does).
"""

from __future__ import annotations

import datetime as dt
import os
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import msgspec

from ..core.agents.library import RHO, AllSessions
from ..core.errors import KnownError
from ..core.stores.library import SessionLibrary
from ..core.wire.model import MessageKind
from ._args import Args
from ._gate import Gate, Redacted, Refused
from ._index import Entry, IndexedSession, MemoryIndex, stamp_of
from ._log import ServedLog
from ._read import SessionView, first_line, read_view, turns_of
from ._scope import Scope
from ._tools import TOOL_NAMES

__all__ = ["Memory", "Scope", "ToolError"]

REFRESH_SECONDS: Final = 30.0
"""How old the index may be before a call starts bringing it in step (in the background). A
no-op pass over 10,000 sessions (a stat of each transcript, Rho's index reconciled) costs a
second or two of a core on a busy machine: every 30 s of use, not every call."""
MAX_PAGE: Final = 1000
MAX_PAGE_BYTES: Final = 4_000_000
"""A ``get_messages`` page ends before the message that would take it past 4 MB of JSON (a page
always holds at least one message); ``next_start`` names the next one."""
MAX_DIFF_CHARS: Final = 400_000
"""A ``get_changes`` answer's diff is cut here (with a note): a model reads no more."""
_VIEWS: Final = 8
TRANSCRIPT: Final = "messages"
_BATCH: Final = 200
_BATCH_SECONDS: Final = 1.0
"""Sessions are stored in the index by transactions of at most 200, or of one second's work: a
server stopped while it indexes keeps what it read."""


class ToolError(KnownError):
    """A call that cannot be answered: bad arguments, an unknown session, an unreadable file."""


def _iso(seconds: int | None) -> str | None:
    if not seconds:
        return None
    return (
        dt.datetime.fromtimestamp(seconds, dt.UTC)
        .isoformat(timespec="seconds")
        .replace("+00:00", "Z")
    )


class Memory:
    """The library of one Rho home and of the other agents in scope (one listing:
    :class:`~rho_desk.core.agents.library.AllSessions`), answering the six tools. Another agent's
    session is read, redacted and audited as ``rho-desk export`` reads it.

    Args:
        scope: the home and the workspaces the server may see.
        gate: redaction and audit.
        gate_id: names the gate's rules and keys (the index is rebuilt when it changes).
        log: where served answers are recorded (``None``: nowhere, for tests and benchmarks).
        cache_dir: rho-desk's cache folder (the library's cache, the memory index).
    """

    def __init__(
        self,
        scope: Scope,
        gate: Gate,
        *,
        gate_id: str,
        log: ServedLog | None = None,
        cache_dir: Path | None = None,
    ) -> None:
        from ..core.system.dirs import cache_dir as default_cache_dir

        self.scope = scope
        self.gate = gate
        self.log = log
        folder = cache_dir or default_cache_dir()
        rho = SessionLibrary(scope.home, cache_dir=folder) if scope.rho else None
        self.library = AllSessions(rho, dict(scope.agents), cache_dir=folder)
        self.keys: tuple[str, ...] | None = (
            None
            if scope.workspaces is None
            else tuple(dict.fromkeys(self.library.workspace_key(w) for w in scope.workspaces))
        )
        self._agents: dict[str, str] = {}
        """Path -> the agent whose session it is, as the library last listed it."""
        import hashlib

        root = rho.sessions_root if rho is not None else scope.home / "sessions"
        digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:16]
        try:
            self.index = MemoryIndex.open(folder / f"memory-{digest}.sqlite3", gate_id)
        except KnownError:
            self.index = MemoryIndex.in_memory(gate_id)
        self._sync_lock = threading.Lock()
        self._synced_at: float | None = None
        self._progress: tuple[int, int] | None = None
        """While the first sync runs: sessions read so far, and how many it has to read."""
        self._syncing: threading.Thread | None = None
        self._views: OrderedDict[tuple[str, str], SessionView] = OrderedDict()
        self._views_lock = threading.Lock()
        self._handlers: dict[
            str, Callable[[Args, Redacted], tuple[dict[str, Any], str | None, list[str] | None]]
        ] = {
            "search_sessions": self._search_sessions,
            "get_session": self._get_session,
            "get_messages": self._get_messages,
            "sessions_touching_file": self._sessions_touching_file,
            "get_changes": self._get_changes,
            "get_usage": self._get_usage,
        }

    def close(self) -> None:
        thread = self._syncing
        if thread is not None:
            thread.join()
        self.index.close()
        self.library.close()

    # --- keeping the index in step -------------------------------------------------------------

    def sync(self) -> int:
        """Bring the library and the memory index in step with the files in scope (blocking).
        Returns how many sessions were (re)read."""
        with self._sync_lock:
            first = self._synced_at is None
            if first:
                self._progress = (0, 0)  # calls from now on answer from what is indexed
            entries: list[Entry] = []
            for key in self.keys if self.keys is not None else (None,):
                self.library.refresh(key)
                listed = self.library.list(key).sessions
                self._agents.update((s.path, s.agent) for s in listed)
                entries += [
                    Entry(
                        s.path,
                        s.workspace_key,
                        s.cwd,
                        s.id,
                        s.title or None,
                        s.created_at,
                        s.updated_at,
                        s.message_count,
                    )
                    for s in listed
                ]
            changed, gone = self.index.stale(entries, self.keys)
            self.index.forget(gone)
            batch: list[tuple[Entry, str, SessionView | None, str | None]] = []
            stored = time.monotonic()
            for done, (entry, stamp) in enumerate(
                changed
            ):  # newest first: the library lists them so
                if first:
                    self._progress = (done, len(changed))
                try:
                    view = read_view(entry.path, self.gate, cwd=entry.cwd, title=entry.title)
                except KnownError as exc:
                    batch.append((entry, stamp, None, exc.text()))
                except (RecursionError, MemoryError, ValueError, OSError) as exc:
                    batch.append(
                        (entry, stamp, None, f"{entry.path}: cannot be read: {type(exc).__name__}")
                    )
                else:
                    batch.append((entry, stamp, view, None))
                    self._remember(view, stamp)
                if len(batch) >= _BATCH or time.monotonic() - stored > _BATCH_SECONDS:
                    self.index.put(batch)
                    batch, stored = [], time.monotonic()
            self.index.put(batch)
            self._synced_at = time.monotonic()
            self._progress = None
            return len(changed)

    def warm(self) -> None:
        """Load the scanner (its pattern databases take a second or two to compile) before the
        first call needs it."""
        self.gate.answer({"warm": "rho-desk"})

    def ensure_fresh(self) -> None:
        """Sync now if never synced (unless the first sync is running: then answer from what it
        has indexed so far); start a background sync when the last one is old."""
        if self._synced_at is None:
            if self._progress is None:
                self.sync()
            return
        if time.monotonic() - self._synced_at < REFRESH_SECONDS:
            return
        with self._sync_lock:
            running = self._syncing is not None and self._syncing.is_alive()
            if running or time.monotonic() - (self._synced_at or 0) < REFRESH_SECONDS:
                return
            self._syncing = threading.Thread(
                target=self._background_sync, name="rho-desk-mcp-sync", daemon=True
            )
            self._syncing.start()

    def _background_sync(self) -> None:
        try:
            self.sync()
        except KnownError:
            self._synced_at = time.monotonic()  # retried after the interval; calls keep answering

    # --- calling -------------------------------------------------------------------------------

    def call(self, tool: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """Answer one tool call: the gated answer, or :class:`ToolError` / :class:`Refused`.

        Every outcome is logged (tool, session, classes, redactions; the reason of a refusal).
        """
        handler = self._handlers.get(tool)
        if handler is None:
            raise ToolError(f"unknown tool {tool!r}; the tools are: {', '.join(TOOL_NAMES)}")
        tally = Redacted()
        session: str | None = None
        classes: list[str] | None = None
        try:
            args = Args(tool, arguments)
            session = args.peek_str("session_id")
            self.ensure_fresh()
            answer, session, classes = handler(args, tally)
            args.done()
            # A transcript page is a slice of an export whose exact bytes were audited; every
            # other string of the answer passes the gate here.
            page = answer.pop(TRANSCRIPT, None)
            progress = self._progress
            if progress is not None:
                read = (
                    f"{progress[0]:,} of {progress[1]:,} sessions read, newest first"
                    if progress[1]
                    else "listing it"
                )
                answer["note"] = (
                    f"the library is still being indexed ({read}): ask again later for a complete answer"
                )
            gated = self.gate.answer(answer, tally)
            if page is not None:
                gated["messages"] = page
        except Refused as exc:
            self._log(tool, session, classes, tally, refused=exc.text())
            raise
        except KnownError as exc:
            self._log(tool, session, classes, tally, failed=exc.text())
            raise ToolError(exc.text()) from None
        self._log(tool, session, classes, tally)
        return gated

    def _log(
        self,
        tool: str,
        session: str | None,
        classes: list[str] | None,
        tally: Redacted,
        *,
        refused: str | None = None,
        failed: str | None = None,
    ) -> None:
        if self.log is not None:
            self.log.record(
                tool,
                session=session,
                classes=classes,
                redactions=tally.redactions,
                refused=refused,
                failed=failed,
            )

    # --- scope and sessions ----------------------------------------------------------------------

    def _workspace_keys(self, workspace: str | None) -> tuple[str, ...] | None:
        """The scope of one call: the server's, narrowed to ``workspace`` when given."""
        if workspace is None:
            return self.keys
        if not os.path.isabs(workspace):
            raise ToolError(f"workspace must be an absolute path, not {workspace!r}")
        key = self.library.workspace_key(os.path.normpath(workspace))
        if self.keys is not None and key not in self.keys:
            raise ToolError(f"workspace {workspace!r} is outside what this server may read")
        return (key,)

    def _session(self, session_id: str) -> IndexedSession:
        found = self.index.sessions(session_id, self.keys)
        if not found and self._progress is not None:
            found = self._listed(session_id)
        if not found:
            raise ToolError(
                f"no session {session_id!r} in this server's scope (ids come from search_sessions)"
            )
        exact = [s for s in found if s.id == session_id]
        if len(exact) == 1:
            found = exact
        if len(found) > 1:
            raise ToolError(f"several sessions match {session_id!r}; use the whole id")
        session = found[0]
        if session.failure is not None:
            raise ToolError(f"session {session.id} cannot be read: {session.failure}")
        return session

    def _listed(self, session_id: str) -> list[IndexedSession]:
        """Sessions in scope the library lists but the first sync has not indexed yet."""
        out = []
        for key in self.keys if self.keys is not None else (None,):
            for s in self.library.list(key).sessions:
                self._agents.setdefault(s.path, s.agent)
                if s.id == session_id or (len(session_id) >= 8 and s.id.startswith(session_id)):
                    out.append(
                        IndexedSession(
                            -1,
                            s.path,
                            s.workspace_key,
                            s.cwd,
                            s.id,
                            s.title or None,
                            s.created_at,
                            s.updated_at,
                            s.message_count,
                            None,
                        )
                    )
        return out

    def _remember(self, view: SessionView, stamp: str) -> None:
        with self._views_lock:
            self._views[(view.path, stamp)] = view
            self._views.move_to_end((view.path, stamp))
            while len(self._views) > _VIEWS:
                self._views.popitem(last=False)

    def _view(self, session: IndexedSession) -> SessionView:
        stamp = stamp_of(session.path)
        with self._views_lock:
            view = self._views.get((session.path, stamp))
            if view is not None:
                self._views.move_to_end((session.path, stamp))
                return view
        view = read_view(session.path, self.gate, cwd=session.cwd, title=session.title)
        self._remember(view, stamp)
        return view

    def _about(self, session: IndexedSession) -> dict[str, Any]:
        return {
            "session_id": session.id,
            "agent": self._agents.get(session.path, RHO),
            "title": session.title,
            "workspace": session.cwd,
            "created_at": _iso(session.created_at),
            "updated_at": _iso(session.updated_at),
            "messages": session.messages,
        }

    # --- the tools -------------------------------------------------------------------------------

    def _search_sessions(
        self, args: Args, tally: Redacted
    ) -> tuple[dict[str, Any], str | None, list[str] | None]:
        query = args.text("query", required=True, limit=1000)
        keys = self._workspace_keys(args.path("workspace"))
        since = args.date("since")
        limit = args.integer("limit", default=10, low=1, high=50)
        hits = self.index.search(query, keys, since=since, limit=limit)
        results = [
            {**self._about(h.session), "score": round(h.score, 3), "snippet": h.snippet}
            for h in hits
        ]
        return {"results": results}, None, None

    def _get_session(
        self, args: Args, tally: Redacted
    ) -> tuple[dict[str, Any], str | None, list[str] | None]:
        session = self._session(args.text("session_id", required=True, limit=200))
        revision = args.integer("revision", default=None, low=0, high=2**63 - 1)
        view = self._view(session)
        if revision is not None:
            view = read_view(
                session.path, self.gate, cwd=session.cwd, title=session.title, revision=revision
            )
        messages = view.messages
        touches = (
            self.index.touches_of(session.rowid)
            if revision is None and session.rowid >= 0
            else view.touches
        )
        outline = _outline(view, touches)
        files: dict[str, dict[str, list[int]]] = {}
        for t in touches:
            entry = files.setdefault(t.shown, {"changed_in": [], "read_in": []})
            bucket = entry["changed_in" if t.kind == "changed" else "read_in"]
            if t.turn is not None and t.turn not in bucket:
                bucket.append(t.turn)
        snapshot = view.redacted
        answer = {
            **self._about(session),
            "revision": snapshot.revision,
            "revisions": _revisions(session.path),
            "compactions": snapshot.compaction.completed_compactions,
            "model": str(snapshot.provider),
            "messages": len(messages),
            "turns": outline,
            "files": [{"path": path, **turns} for path, turns in sorted(files.items())],
            "usage": self._session_usage(session.id),
        }
        tally.redactions.update(view.tally.redactions)
        return answer, session.id, None

    def _get_messages(
        self, args: Args, tally: Redacted
    ) -> tuple[dict[str, Any], str | None, list[str] | None]:
        session = self._session(args.text("session_id", required=True, limit=200))
        start = args.integer("start", default=0, low=0, high=2**31)
        limit = args.integer("limit", default=100, low=1, high=MAX_PAGE)
        selection = args.classes("include")
        view = self._view(session)
        history = view.source.snapshot.history
        total = len(history)
        end = min(total, start + limit)
        transcript = view.transcript(selection, self.gate)
        turns = turns_of(history)
        entries: list[dict[str, Any]] = []
        size = 0
        for index in range(start, min(end, len(transcript.entries))):
            item = transcript.entries[index]
            message = item.get("message", {}) if isinstance(item, dict) else {}
            size += len(msgspec.json.encode(message))
            if entries and size > MAX_PAGE_BYTES:
                end = index  # the rest of the page on the next call (next_start says where)
                break
            entries.append(
                {
                    "index": index,
                    "turn": turns[index],
                    "timestamp": item.get("timestamp"),
                    "role": _role(next(iter(message), "")),
                    "message": message,
                }
            )
        tally.redactions.update(transcript.rules(start, end))
        answer = {
            "session_id": session.id,
            "title": session.title,
            "start": start,
            "count": len(entries),
            "total": total,
            "next_start": end if end < total else None,
            "classes": {
                "included": selection.included_names(),
                "excluded": selection.excluded_names(),
            },
            TRANSCRIPT: entries,
        }
        return answer, session.id, selection.included_names()

    def _sessions_touching_file(
        self, args: Args, tally: Redacted
    ) -> tuple[dict[str, Any], str | None, list[str] | None]:
        path = args.text("path", required=True, limit=4096)
        if "\n" in path or "\x00" in path:
            raise ToolError("path must be one line")
        keys = self._workspace_keys(args.path("workspace"))
        rows = self.index.touching(path, keys)
        sessions: dict[int, dict[str, Any]] = {}
        for row in rows:
            entry = sessions.setdefault(
                row.session.rowid,
                {**self._about(row.session), "files": [], "changed_in": [], "read_in": []},
            )
            if row.shown not in entry["files"]:
                entry["files"].append(row.shown)
            bucket = entry["changed_in" if row.kind == "changed" else "read_in"]
            if row.turn is not None and row.turn not in bucket:
                bucket.append(row.turn)
        return {"sessions": list(sessions.values())}, None, None

    def _get_changes(
        self, args: Args, tally: Redacted
    ) -> tuple[dict[str, Any], str | None, list[str] | None]:
        from ..core.changes import session_changes

        session = self._session(args.text("session_id", required=True, limit=200))
        turn = args.integer("turn", default=None, low=1, high=2**31)
        try:
            changes = session_changes(session.path)
        except (KnownError, ValueError, OSError) as exc:
            text = exc.text() if isinstance(exc, KnownError) else type(exc).__name__
            raise ToolError(f"the changes of session {session.id} cannot be read: {text}") from None
        turns = [
            t
            for t in changes.turns
            if t.on_path and t.committed and (turn is None or t.turn == turn)
        ]
        if turn is not None and not turns:
            raise ToolError(
                f"turn {turn} of session {session.id} changed no file (it has {changes.turn_count} turns)"
            )
        listed, diffs, size, cut = [], [], 0, False
        for t in turns:
            files = []
            for change in t.files:
                diff = change.patch() if not change.binary else ""
                added, removed = change.line_counts() if diff else (0, 0)
                files.append(
                    {
                        "path": change.path,
                        "action": change.action.value,
                        "source": change.source.value,
                        "added": added,
                        "removed": removed,
                        "note": change.note or None,
                    }
                )
                if diff and not cut:
                    if size + len(diff) > MAX_DIFF_CHARS:
                        cut = True
                    else:
                        diffs.append(diff)
                        size += len(diff)
            listed.append(
                {
                    "turn": t.turn,
                    "prompt": t.prompt,
                    "files": files,
                    "commands": [h.command for h in t.hidden],
                }
            )
        answer = {
            "session_id": session.id,
            "title": session.title,
            "turns": listed,
            "diff": "".join(diffs),
            "diff_truncated": cut,
        }
        return answer, session.id, None

    def _get_usage(
        self, args: Args, tally: Redacted
    ) -> tuple[dict[str, Any], str | None, list[str] | None]:
        from ..core.usage.report import GROUPINGS, UsageReport

        by = args.choice("by", GROUPINGS, required=True)
        since, until = args.day("since"), args.day("until")
        if since and until and since > until:
            raise ToolError(f"since {since} is after until {until}")
        ledger = self._ledger()
        if ledger is None:
            return {"by": by, "groups": [], "note": "no usage ledger in this Rho home"}, None, None
        from ..core.usage.report import UsageFilter

        with ledger:
            filt = UsageFilter(since=since, until=until, workspaces=self._scope_cwds())
            report = UsageReport(ledger)
            groups = [g.to_json() for g in report.groups(by, filt)]
            total = report.total(filt).to_json()
        return (
            {
                "by": by,
                "since": since and since.isoformat(),
                "until": until and until.isoformat(),
                "groups": groups,
                "total": total,
            },
            None,
            None,
        )

    # --- usage helpers -------------------------------------------------------------------------

    def _ledger(self) -> Any:
        from ..core.usage.ledger import UsageLedger, ledger_path

        path = ledger_path(self.scope.home)
        if not path.is_file():
            return None
        return UsageLedger(path)

    def _scope_cwds(self) -> tuple[str, ...]:
        return () if self.scope.workspaces is None else tuple(self.scope.workspaces)

    def _session_usage(self, session_id: str) -> dict[str, Any] | None:
        from ..core.usage.report import UsageFilter, UsageReport

        try:
            ledger = self._ledger()
            if ledger is None:
                return None
            with ledger:
                return UsageReport(ledger).total(UsageFilter(sessions=(session_id,))).to_json()
        except KnownError:
            return None


_ROLES: Final = {
    MessageKind.SYSTEM.value: "instructions",
    MessageKind.USER.value: "user",
    MessageKind.ASSISTANT.value: "assistant",
    MessageKind.ENRICHED_ASSISTANT.value: "assistant",
    MessageKind.ABORTED_ASSISTANT.value: "assistant (cancelled)",
    MessageKind.TOOL_RESULT.value: "tool result",
}


def _role(variant: str) -> str:
    return _ROLES.get(variant, "unknown")


def _outline(view: SessionView, touches: Sequence[Any]) -> list[dict[str, Any]]:
    messages = view.messages
    turns: list[dict[str, Any]] = []
    changed: dict[int, list[str]] = {}
    for t in touches:
        if (
            t.kind == "changed"
            and t.turn is not None
            and t.shown not in changed.setdefault(t.turn, [])
        ):
            changed[t.turn].append(t.shown)
    for message, turn in zip(messages, turns_of(messages), strict=True):
        if not turns or turns[-1]["turn"] != turn:
            turns.append(
                {
                    "turn": turn,
                    "prompt": "",
                    "messages": 0,
                    "tools": Counter(),
                    "files_changed": changed.get(turn, []),
                }
            )
        current = turns[-1]
        current["messages"] += 1
        if message.kind is MessageKind.USER and not current["prompt"]:
            current["prompt"] = first_line(message)
        for call in message.tool_calls():
            current["tools"][call.name] += 1
    for current in turns:
        current["tools"] = dict(current["tools"])
    return turns


def _revisions(path: str) -> dict[str, Any] | None:
    """The revisions on the active path of a transcript, Rho's or another agent's (``None`` for
    one that cannot be read)."""
    from ..core.agents import detect, open_session
    from ..core.stores.rho_files.reader import read_session

    try:
        tree = (
            read_session(Path(path), share=False) if detect(path) is None else open_session(path)
        ).tree
        numbers = [node.revision for node in tree.path()]
    except (KnownError, ValueError, OSError, RecursionError):
        return None
    return {
        "count": len(numbers),
        "first": numbers[0] if numbers else None,
        "latest": numbers[-1] if numbers else None,
    }
