"""Building a session's changes: Rho's checkpoint journal first, the tool calls otherwise.

:func:`session_changes` reads the transcript (the active path's display history, which
compaction never shortens) and, for a folder session, its checkpoint journal:

* A turn with a journal record gets its files from the record: the exact bytes before the turn,
  the digest after. The after content is found by that digest among what is known: a later
  record's original, the content the tool calls reconstruct, the file on disk.
* A turn without one is reconstructed from its tool calls: ``write`` gives the whole content;
  ``edit`` applies Rho's hashline operations to the content known before it (an earlier write,
  or a complete ``read_file`` result whose tag matches); when none is known the change is listed
  with its content unknown. ``bash`` calls are listed as changes not visible, with the command.
* A record whose node is not in the session is a turn that failed before it was saved: it is
  listed last, marked as such.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from ..agents.build import SOURCE_AGENT_KEY
from ..agents.tools import translator
from ..stores.open import read_transcript
from ..stores.rho_files import NodeKind, SessionTree
from ..tools import hashline
from ..tools.text import TRUNCATION_MARKER, file_hash
from ..wire.codec import gc_paused
from ..wire.model import Message, ToolCall
from .checkpoint import (
    Absent,
    CapturedRegularFile,
    FileCheckpoint,
    ObservedRegular,
    Unsupported,
    WorkspaceCheckpoint,
    journal_path,
    read_journal,
    sha256_hex,
)
from .model import (
    ChangeAction,
    ChangeSource,
    Content,
    FileChange,
    HiddenChange,
    SessionChanges,
    TurnChanges,
)

__all__ = [
    "changes_of_session",
    "changes_of_tree",
    "display_path",
    "session_changes",
    "turn_of_row",
]

_WRITE_TOOLS = frozenset({"write", "write_file"})
_EDIT_TOOLS = frozenset({"edit"})
_REPLACE_TOOLS = frozenset({"edit_file", "str_replace", "replace"})
"""Older Rho builds' ``edit_file``: ``path`` plus an ``old`` text replaced by a ``new`` one."""
_SHELL_TOOLS = frozenset({"bash", "shell", "powershell", "process"})
_REFUSED = "capability denied"
"""How the result of a call the permission policy refused begins ("process capability denied: …")."""
_HEX = frozenset("0123456789abcdefABCDEF")


def _section_paths(document: str) -> list[str]:
    """The paths of a hashline document's ``[path#TAG]`` headers, in order, once each."""
    paths: dict[str, None] = {}
    for line in document.split("\n"):
        text = line.strip()
        if (
            len(text) > 7
            and text[0] == "["
            and text[-1] == "]"
            and text[-6] == "#"
            and _HEX.issuperset(text[-5:-1])
        ):
            path = text[1:-6].strip()
            if path:
                paths[path] = None
    return list(paths)


_ROW = re.compile(r"(\d+):(.*)\Z", re.DOTALL)
_HEADER = re.compile(r"\[(.+)#([0-9A-Fa-f]{4})\]\Z")


def display_path(abs_path: str, workspace: str | None) -> str:
    """``abs_path`` relative to ``workspace`` with ``/`` separators when inside it, else as is."""
    if workspace:
        try:
            rel = os.path.relpath(abs_path, workspace)
        except ValueError:
            return abs_path
        if rel != os.curdir and not rel.startswith(os.pardir + os.sep) and rel != os.pardir:
            return rel.replace(os.sep, "/")
    return abs_path


def _absolute(path: str, workspace: str | None) -> str:
    if os.path.isabs(path) or not workspace:
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(workspace, path))


def _full_text_of_read(result: str) -> str | None:
    """The whole file a complete hashline ``read_file`` result shows, verified by its tag."""
    head, _, body = result.partition("\n")
    match = _HEADER.match(head.strip())
    if match is None:
        # Older builds returned the file's text as it is; a cut one says so.
        return None if TRUNCATION_MARKER in result or result.startswith("[") else result
    tag = match.group(2).upper()
    lines = []
    expected = 1
    for row in body.split("\n") if body else []:
        m = _ROW.match(row)
        if m is None or int(m.group(1)) != expected:
            return None  # a window, an elision or a footer: not the whole file
        lines.append(m.group(2))
        expected += 1
    joined = "\n".join(lines)
    for candidate in (joined + "\n", joined) if lines else ("",):
        if file_hash(candidate) == tag:
            return candidate
    return None


def _prompt(message: Message) -> str:
    for block in message.user or ():
        if block.text is not None and block.text.strip():
            return block.text.strip().splitlines()[0][:200]
    return ""


_UNKNOWN: Final = object()
"""Content not known at that point (``None`` is a known absence)."""


class _Chain:
    """Every step the tool calls took on one path, in order; content worked out on demand.

    A step is ``("read", text)``, ``("write", bytes, created)``, ``("edit", document, path)`` or
    ``("replace", old, new)``. ``after(k)`` is the content after step ``k`` (memoised), or
    ``_UNKNOWN``.
    """

    __slots__ = ("cache", "steps")

    def __init__(self) -> None:
        self.steps: list[tuple[Any, ...]] = []
        self.cache: dict[int, object] = {-1: _UNKNOWN}

    def replay(self, base: bytes | None, first: int, last: int) -> object:
        """The content steps ``first..last`` make of ``base`` (a journal's exact original)."""
        content: object = base
        for i in range(first, last + 1):
            content = self._step(self.steps[i], content)
        return content

    def after(self, k: int) -> object:
        start = k
        while start not in self.cache:
            start -= 1
        content = self.cache[start]
        for i in range(start + 1, k + 1):
            content = self._step(self.steps[i], content)
            self.cache[i] = content
        return content

    @staticmethod
    def _step(step: tuple[Any, ...], content: object) -> object:
        kind = step[0]
        if kind == "read":
            if content is not _UNKNOWN:
                return content
            text = _full_text_of_read(step[1])
            return _UNKNOWN if text is None else text.encode("utf-8")
        if kind == "write":
            return step[1]
        if not isinstance(content, bytes):
            return _UNKNOWN
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            return _UNKNOWN
        if kind == "edit":
            try:
                section = next(s for s in hashline.parse_hashline(step[1]) if s.path == step[2])
                return hashline.apply_ops(text, section.tag, section.ops)[0].encode("utf-8")
            except (hashline.ApplyError, StopIteration):
                return _UNKNOWN
        old, new = step[1], step[2]
        every = len(step) > 3 and step[3]
        found = text.count(old)
        return (
            text.replace(old, new).encode("utf-8") if found == 1 or (every and found) else _UNKNOWN
        )


def _derived_content(chain: _Chain, first: int, last: int, tool: str) -> Content:
    before = chain.after(first - 1)
    step = chain.steps[first]
    if before is _UNKNOWN and step[0] == "write" and step[2]:
        before = None  # "created <path>": it did not exist
    after = chain.after(last)
    before_known, after_known = before is not _UNKNOWN, after is not _UNKNOWN
    b = before if isinstance(before, bytes) else None
    a = after if isinstance(after, bytes) else None
    note = ""
    if not before_known:
        note = f"the content before this {tool} is not in the session"
    elif not after_known:
        note = f"the {tool} does not apply to the content known before it"
    return Content(_action(before_known, b, after_known, a), b, a, before_known, after_known, note)


class _Builder:
    def __init__(
        self, workspace: str | None, prompt_of: Callable[[int], tuple[str, int | None]]
    ) -> None:
        self.workspace = workspace
        self.prompt_of = prompt_of
        """Turn number -> its prompt's text and message index (asked only of turns that change something)."""
        self.prefix = None if not workspace else os.path.normpath(workspace).rstrip(os.sep) + os.sep
        self.chains: dict[str, _Chain] = {}
        self.turns: dict[int, TurnChanges] = {}
        self._absolutes: dict[str, str] = {}
        self._open: dict[tuple[int, str], list[Any]] = {}
        """(turn, path) -> [FileChange, first step, last step, tool]: the turn's change of the path."""

    def turn(self, number: int) -> TurnChanges:
        turn = self.turns.get(number)
        if turn is None:
            turn = self.turns[number] = TurnChanges(number, *self.prompt_of(number))
        return turn

    def absolute(self, path: str) -> str:
        out = self._absolutes.get(path)
        if out is None:
            out = self._absolutes[path] = _absolute(path, self.workspace)
        return out

    def display(self, abs_path: str) -> str:
        if self.prefix is not None and abs_path.startswith(self.prefix):
            return abs_path[len(self.prefix) :].replace(os.sep, "/")
        return abs_path

    def _chain(self, abs_path: str) -> _Chain:
        chain = self.chains.get(abs_path)
        if chain is None:
            chain = self.chains[abs_path] = _Chain()
        return chain

    def _step(
        self, number: int, abs_path: str, step: tuple[Any, ...], call_id: str, tool: str
    ) -> None:
        turn = self.turn(number)
        chain = self._chain(abs_path)
        chain.steps.append(step)
        index = len(chain.steps) - 1
        key = (turn.turn or 0, abs_path)
        entry = self._open.get(key)
        if entry is not None:
            entry[2] = index
            change = entry[0]
            change.call_ids = (*change.call_ids, call_id)
            return
        entry = [None, index, index, tool]

        def resolve() -> Content:
            return _derived_content(chain, entry[1], entry[2], entry[3])

        def replay(base: bytes | None) -> object:
            return chain.replay(base, entry[1], entry[2])

        change = FileChange(
            self.display(abs_path),
            abs_path,
            turn.turn,
            ChangeSource.TOOL_CALLS,
            resolve,
            call_ids=(call_id,),
        )
        change.replay = replay
        entry[0] = change
        self._open[key] = entry
        turn.files.append(change)

    def call(self, turn: int, call: ToolCall, result: tuple[bool, str] | None) -> None:
        """Add what ``call`` of turn number ``turn`` changed (``result``: its success and text)."""
        args = call.arguments if isinstance(call.arguments, dict) else {}
        name = call.name
        if name in _SHELL_TOOLS:
            if (
                result is not None
                and not result[0]
                and result[1].partition(":")[0].endswith(_REFUSED)
            ):
                return  # refused at its approval (or by the tools' mode): the command never ran
            command = args.get("command")
            self.turn(turn).hidden.append(
                HiddenChange(name, command if isinstance(command, str) else str(args), call.id)
            )
            return
        if result is None or not result[0]:
            return  # failed, refused or never answered: the tool wrote nothing
        if name == "read_file":
            path = args.get("path")
            if (
                isinstance(path, str)
                and args.get("offset") in (None, 1)
                and args.get("limit") is None
            ):
                self._chain(self.absolute(path)).steps.append(("read", result[1]))
            return
        if name in _WRITE_TOOLS:
            path, content = args.get("path"), args.get("content")
            if isinstance(path, str) and isinstance(content, str):
                # another agent's write says whether it created the file (core.agents.tools)
                created = (
                    args["created"]
                    if isinstance(args.get("created"), bool)
                    else result[1].startswith("created ")
                )
                self._step(
                    turn,
                    self.absolute(path),
                    ("write", content.encode("utf-8"), created),
                    call.id,
                    "write",
                )
        elif name in _REPLACE_TOOLS:
            path = args.get("path")
            old = next(
                (
                    args[k]
                    for k in ("old", "old_string", "old_text")
                    if isinstance(args.get(k), str)
                ),
                None,
            )
            new = next(
                (
                    args[k]
                    for k in ("new", "new_string", "new_text")
                    if isinstance(args.get(k), str)
                ),
                None,
            )
            if isinstance(path, str) and old is not None and new is not None:
                self._step(
                    turn,
                    self.absolute(path),
                    ("replace", old, new, args.get("all") is True),
                    call.id,
                    name,
                )
        elif name == "delete":  # another agent's patch deleting a file (core.agents.tools)
            path = args.get("path")
            if isinstance(path, str):
                self._step(turn, self.absolute(path), ("write", None, False), call.id, "delete")
        elif name in _EDIT_TOOLS:
            document = args.get("input")
            if not isinstance(document, str):
                return
            # the section paths only; the operations are parsed when the content is wanted
            for path in _section_paths(document):
                self._step(turn, self.absolute(path), ("edit", document, path), call.id, "edit")


def _action(
    before_known: bool, before: bytes | None, after_known: bool, after: bytes | None
) -> ChangeAction:
    if not before_known or not after_known:
        return ChangeAction.UNKNOWN
    if before is None and after is not None:
        return ChangeAction.CREATED
    if after is None and before is not None:
        return ChangeAction.DELETED
    return ChangeAction.UNCHANGED if before == after else ChangeAction.MODIFIED


def _checkpoint_change(
    file: FileCheckpoint,
    turn: int | None,
    builder: _Builder,
    lookup: dict[str, bytes],
    derived: FileChange | None,
) -> FileChange:
    original, after = file.original, file.expected_after
    mode = None
    if isinstance(original, CapturedRegularFile):
        mode = original.metadata.unix_mode
    digest = None
    if isinstance(after, ObservedRegular):
        digest = after.digest
        mode = after.metadata.unix_mode if after.metadata.unix_mode is not None else mode

    def resolve() -> Content:
        before: bytes | None = original.bytes if isinstance(original, CapturedRegularFile) else None
        before_known = not isinstance(original, Unsupported)
        after_bytes: bytes | None = None
        after_known = True
        if isinstance(after, ObservedRegular):
            after_bytes = lookup.get(after.digest)
            if after_bytes is None and derived is not None:
                # the turn's tool calls on the recorded original, verified by the recorded digest
                for candidate in (
                    derived.after,
                    derived.replay(before) if derived.replay is not None and before_known else None,
                ):
                    if (
                        isinstance(candidate, bytes)
                        and len(candidate) == after.size
                        and sha256_hex(candidate) == after.digest
                    ):
                        after_bytes = candidate
                        break
            if after_bytes is None:
                after_bytes = _disk_content(file.path, after)
            after_known = after_bytes is not None
        elif isinstance(after, Unsupported):
            after_known = False
        if isinstance(original, Unsupported) or isinstance(after, Unsupported):
            reason = original.reason if isinstance(original, Unsupported) else after.reason  # type: ignore[union-attr]
            return Content(
                ChangeAction.UNSUPPORTED,
                before,
                after_bytes,
                before_known,
                after_known,
                f"Rho could not capture it: {reason.describe()}",
            )
        if isinstance(original, Absent):
            action = ChangeAction.UNCHANGED if isinstance(after, Absent) else ChangeAction.CREATED
        elif isinstance(after, Absent):
            action = ChangeAction.DELETED
        else:
            assert isinstance(original, CapturedRegularFile) and isinstance(after, ObservedRegular)
            same = original.digest == after.digest and len(original.bytes) == after.size
            action = ChangeAction.UNCHANGED if same else ChangeAction.MODIFIED
        note = (
            ""
            if after_known
            else "the content after this turn is no longer anywhere (only its digest is recorded)"
        )
        return Content(action, before, after_bytes, before_known, after_known, note)

    return FileChange(
        builder.display(file.path),
        file.path,
        turn,
        ChangeSource.CHECKPOINT,
        resolve,
        after_digest=digest,
        mode=mode,
        call_ids=derived.call_ids if derived is not None else (),
        checkpoint=file,
    )


def _disk_content(path: str, expected: ObservedRegular) -> bytes | None:
    try:
        st = os.lstat(path)
        if st.st_size != expected.size:
            return None
        with open(path, "rb") as handle:
            data = handle.read(expected.size + 1)
    except OSError:
        return None
    return data if sha256_hex(data) == expected.digest else None


def _agent_of(tree: SessionTree, path: list[Any]) -> str | None:
    """The agent whose session this is (or was, before it was imported), from its metadata."""
    first = path[0] if path else None
    meta = first.meta if first is not None else None
    return meta.metadata.get(SOURCE_AGENT_KEY) if meta is not None else None


def changes_of_tree(
    tree: SessionTree,
    session_path: Path,
    checkpoints: tuple[WorkspaceCheckpoint, ...] = (),
    journal: Path | None = None,
) -> SessionChanges:
    """The changes of an already read session (see the module docstring)."""
    header = tree.header
    workspace = header.cwd if header is not None else None
    path = tree.path() if tree.active_leaf is not None else []
    node_turn: dict[str, int] = {}
    number = 0
    prompt_index: dict[int, tuple[Message, int]] = {}
    """Turn -> its user message and index (the prompt's text is made only for turns listed)."""

    def prompt_of(turn: int) -> tuple[str, int | None]:
        found = prompt_index.get(turn)
        return ("", None) if found is None else (_prompt(found[0]), found[1])

    builder = _Builder(workspace, prompt_of)

    pending: list[tuple[int, ToolCall]] = []
    awaiting: dict[str, list[int]] = {}
    """Call id -> positions in ``pending`` still waiting for their result (ids can repeat)."""
    answers: dict[int, tuple[bool, str]] = {}
    index = 0
    compaction = NodeKind.COMPACTION
    for node in path:
        for entry in node.display:
            message = entry.message
            if message.user is not None:
                number += 1
                prompt_index[number] = (message, index)
            elif message.tool_result is not None:
                result = message.tool_result
                waiting = awaiting.get(result.id)
                if waiting:
                    answers[waiting.pop()] = (
                        result.ok,
                        result.content,
                    )  # the latest call with that id
            else:
                enriched = message.enriched_assistant
                if enriched is not None:
                    blocks: Any = enriched.content
                elif message.assistant is not None:
                    blocks = message.assistant
                elif message.aborted_assistant is not None:
                    blocks = message.aborted_assistant.content
                else:
                    blocks = ()
                for block in blocks:
                    call = block.tool_call
                    if call is None:
                        continue
                    turn_number = number if number > 0 else 1
                    awaiting.setdefault(call.id, []).append(len(pending))
                    pending.append((turn_number, call))
            index += 1
        if node.kind is compaction:
            index += 1  # the "Compacted context" marker of the projected display
        node_turn[node.id] = number
    # Results follow their calls; resolve every call once all results are known. Another agent's
    # calls (the session, or the Rho session imported from it, names the agent) are read as
    # the Rho tool calls that do the same (core.agents.tools).
    translate = translator(_agent_of(tree, path))
    for position, (turn_number, call) in enumerate(pending):
        answer = answers.get(position)
        for step in (
            translate(call, answer[1] if answer else "") if translate is not None else (call,)
        ):
            builder.call(turn_number, step, answer)
    turns = {n: t for n, t in builder.turns.items() if t.files or t.hidden}

    on_path = {n.id for n in path}
    lookup: dict[str, bytes] = {}
    for checkpoint in checkpoints:
        for file in checkpoint.files:
            if isinstance(file.original, CapturedRegularFile):
                lookup.setdefault(file.original.digest, file.original.bytes)
    extra: list[TurnChanges] = []
    for checkpoint in checkpoints:
        target = tree.nodes.get(checkpoint.node_id)
        if target is not None and target.id in on_path:
            owner = max(node_turn.get(target.id, 0), 1)
            prompt, at = prompt_of(owner)
            turn = turns.get(owner)
            if turn is None:
                turn = turns[owner] = TurnChanges(owner, prompt, at)
        else:
            turn = TurnChanges(None, "", None)
            turn.committed = target is not None
            turn.on_path = False
            extra.append(turn)
        turn.node_id, turn.revision, turn.outcome = (
            checkpoint.node_id,
            checkpoint.revision,
            checkpoint.outcome,
        )
        turn.limitations = checkpoint.limitations
        derived = {c.abs_path: c for c in turn.files if c.source is ChangeSource.TOOL_CALLS}
        recorded = [
            _checkpoint_change(
                f, turn.turn, builder, lookup, derived.pop(os.path.normpath(f.path), None)
            )
            for f in checkpoint.files
        ]
        turn.files = (
            [c for c in turn.files if c.source is ChangeSource.CHECKPOINT]
            + recorded
            + list(derived.values())
        )
    ordered = [turns[n] for n in sorted(turns)]
    ordered.extend(t for t in extra if t.committed)
    ordered.extend(t for t in extra if not t.committed)
    return SessionChanges(
        session_path,
        tree.session_id,
        workspace,
        journal,
        ordered,
        number,
    )


def session_changes(path: str | os.PathLike[str]) -> SessionChanges:
    """The changes of the session at ``path`` (its ``session.jsonl``, its folder, or a flat file).

    Raises:
        InputError: the transcript or the journal is malformed (file, line and reason).
        StorageError: a file cannot be read.
    """
    with (
        gc_paused()
    ):  # a bulk build of short-lived objects: the cyclic GC would be most of the cost
        session = read_transcript(Path(path), share=False)  # read once, dropped after (any agent's)
        changes = changes_of_session(session.tree, session.path)
        # Drop the tree while the collector is still off: back on, its first pass would scan
        # every object made while it was off, the whole tree included.
        del session
    return changes


def changes_of_session(tree: SessionTree, transcript: Path) -> SessionChanges:
    """The changes of an already read session whose transcript is ``transcript`` (its journal,
    for a folder session, is read here).

    Raises:
        InputError: the journal is malformed.
        StorageError: it cannot be read.
    """
    journal: Path | None = None
    checkpoints: tuple[WorkspaceCheckpoint, ...] = ()
    if transcript.name == "session.jsonl":
        candidate = journal_path(transcript.parent)
        if os.path.lexists(candidate):
            journal = candidate
            checkpoints = read_journal(candidate).checkpoints
    return changes_of_tree(tree, transcript, checkpoints, journal)


def turn_of_row(messages: list[Message | None] | tuple[Message | None, ...], row: int) -> int:
    """The turn (1-based) a row of the projected display belongs to: user messages up to it."""
    turn = 0
    for message in messages[: row + 1]:
        if message is not None and message.user is not None:
            turn += 1
    return max(turn, 1)
