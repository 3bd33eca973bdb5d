"""``rho-desk continue PATH -m TEXT``: continue a Rho session with one more turn.

The reply streams to stdout (``--json``: one event per line). The turn is set up by the same
code as the app's (``open_continuation``): the same tools, replay-safety check and automatic
compaction. The model may use Rho's coding tools in the session's recorded folder
(``--workspace DIR`` chooses another, ``--grant DIR`` allows one more folder for this turn, and
``--grant FILE`` a file of the workspace with several hard links, which otherwise counts as
outside it), under
``--tools MODE``: ``off`` (no tools), ``plan`` (reads only), ``supervised`` (the default: every
write, edit and shell command is asked on the terminal), ``allow_edits`` (git-tracked files of the
workspace are free) or ``bypass``. Without a terminal an approval is refused, and the model is
told why.

Tools run only in a folder trusted on this machine: a session file names its folder, it does not
grant it. The first time, nothing is sent and the command exits 2 naming the folder:
``--trust-workspace`` trusts it from now on (the app's Settings > Folders lists and revokes it),
``--workspace DIR`` runs the tools elsewhere (trusted too), ``--tools off`` never asks. ``/``, the
home folder itself, system folders, rho-desk's and Rho's own folders (and any folder containing
one) are never trusted.

Before a provider switch, provider-native blocks of the history the model cannot be sent stop
the turn (exit 2, nothing sent); ``--send-anyway`` sends without them, as the app's Send Anyway.
``--auto-compact messages:N|tokens:N`` compacts the context automatically during the turn, as the
app's automatic compaction setting (off by default), each compaction saved as it happens.

The model is a provider profile (``--profile NAME``, else the default profile) or an endpoint
given here and saved nowhere: ``--base-url URL --model NAME [--kind openai|anthropic]`` (a local
server needs no key; ``--api-key-env VAR`` reads one from the environment).

Every commit is saved to the session file as the app saves it (a new revision, checked against
concurrent writers). Ctrl+C cancels: the prompt and what the model had produced are kept, as Rho
keeps them; a second Ctrl+C stops at once without saving.

Exit status: 0 the turn was committed; 1 the provider failed (nothing of the turn was kept) or
the file changed meanwhile; 2 bad usage or input, a folder not trusted for tools, or a replay-safety
refusal (nothing was sent); 130 cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..core.system.collector import end_start_up, pause_start_up
from .status import EXIT_BAD_INPUT, EXIT_OK, EXIT_PROBLEMS, fail
from .terminal import before_prompt, control, shown

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from ..core.changes.journal import CheckpointRecorder
    from ..core.revisions.edits import FileSession
    from ..core.session import Session
    from ..core.tools.permissions import ApprovalDecision, ApprovalRequest, Approver
    from ..core.tools.words import CallWritten
    from ..core.wire import SessionSnapshot, ToolCall
    from ..providers.base import HttpProvider
    from ..providers.endpoint import Endpoint
    from ..providers.profiles import ProviderProfile

EXIT_CANCELLED = 130


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "continue",
        help="continue a session with one more turn (tools under approval)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, metavar="PATH", help="a session.jsonl or its folder")
    parser.add_argument(
        "-m",
        "--message",
        required=True,
        metavar="TEXT",
        help="the prompt ('-' reads it from stdin)",
    )
    parser.add_argument(
        "--profile", metavar="NAME", help="provider profile (default: the default profile)"
    )
    parser.add_argument("--base-url", metavar="URL", help="an endpoint not saved as a profile")
    parser.add_argument("--model", metavar="NAME", help="the model at --base-url")
    parser.add_argument(
        "--kind",
        choices=("openai", "anthropic"),
        default="openai",
        help="wire API of --base-url (default openai)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="read the key for --base-url from this environment variable",
    )
    parser.add_argument(
        "--tools",
        choices=("off", "plan", "supervised", "allow_edits", "bypass"),
        help="what the coding tools may do (default: the profile's mode, else supervised)",
    )
    parser.add_argument(
        "--workspace",
        type=Path,
        metavar="DIR",
        help="run tools here instead of the session's folder (it must be trusted too)",
    )
    parser.add_argument(
        "--trust-workspace",
        action="store_true",
        help="trust the tools' folder on this machine from now on (never /, your home, system folders)",
    )
    parser.add_argument(
        "--grant",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also allow this folder, or a file with several hard links (repeatable)",
    )
    parser.add_argument(
        "--send-anyway",
        action="store_true",
        help="send even when the replay-safety check finds provider-native blocks the model cannot be sent",
    )
    parser.add_argument(
        "--auto-compact",
        default="off",
        metavar="off|messages:N|tokens:N",
        help="compact the context automatically during the turn, as the app's setting does (default off)",
    )
    parser.add_argument(
        "--compactor",
        default="local",
        metavar="local|PROFILE",
        help="what writes an automatic compaction's summary (default: the local compactor)",
    )
    parser.add_argument(
        "--keep-messages",
        type=int,
        metavar="N",
        default=24,
        help="most recent messages a compaction keeps verbatim (default 24; 0 for no limit)",
    )
    parser.add_argument(
        "--keep-tokens",
        type=int,
        metavar="N",
        default=8000,
        help="largest estimate of the kept recent part (default 8000; 0 for no limit)",
    )
    parser.add_argument(
        "--max-steps",
        type=_positive,
        metavar="N",
        help="model steps the turn may take (default: the profile's, else 32); the turn then stops and "
        "says so, as it does when the model repeats the same call 5 times with the same result",
    )
    parser.add_argument(
        "--max-tokens",
        type=_positive,
        metavar="N",
        help="the reply's output cap sent with every request (default: the profile's, else 8192 for "
        "OpenAI-compatible servers and 16384 for Anthropic)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON event per line on stdout")
    parser.set_defaults(handler=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value


def run(args: argparse.Namespace) -> int:
    if args.base_url and args.profile:
        return fail("use either --profile or --base-url, not both")
    if bool(args.base_url) != bool(args.model):
        return fail("--base-url and --model go together")
    if args.api_key_env and not args.base_url:
        return fail("--api-key-env applies to --base-url")
    message = args.message
    if message == "-":
        message = sys.stdin.read()
    if not message.strip():
        return fail("the prompt is empty")
    # Setting up the turn imports most of rho-desk and its HTTP stack: the cycle collector would
    # walk those new objects again and again (a tenth of the time to the request) and find next
    # to nothing to free. It waits until the request is out (``_drive``), then runs as usual
    # (``rho-desk continue`` pauses it from the start: ``cli.main``).
    pause_start_up()
    try:
        return asyncio.run(_continue(args, message))
    finally:
        end_start_up()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _rows(text: str, columns: int) -> int:
    """The terminal rows ``text`` took, written from the start of a row."""
    rows = 0
    for line in text.split("\n"):
        width = sum(
            2 if unicodedata.east_asian_width(ch) in "WF" else 0 if unicodedata.combining(ch) else 1
            for ch in line
        )
        rows += max(1, -(-width // columns))
    return rows


class _Output:
    """Human text or JSON lines.

    Everything written goes through the terminal writer (``cli.terminal``: the streams are
    ``main``'s, the reply's control, bidi and invisible characters shown as text, as a model may
    send escape sequences); only this class's own sequences (the live line, erasing a broken
    reply) are written as they are, with :func:`~rho_desk.cli.terminal.control`. A reply that
    breaks off and is asked for again is erased from the screen first, so it is never shown
    twice. While a model writes a tool call's arguments, one live line on stderr says which call
    and how much (``--json``: ``progress`` events).
    """

    def __init__(self, as_json: bool, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.json = as_json
        self.out = sys.stdout if out is None else out
        self.err = sys.stderr if err is None else err
        self._mid_line = False
        self._tty_out = _is_terminal(self.out)
        self._tty_err = _is_terminal(self.err)
        self._attempt = ""
        """The reply text shown since the model call began (what a reset erases)."""
        self._live = False

    def event(self, kind: str, **fields: object) -> None:
        if self.json:
            self.out.write(json.dumps({"event": kind, **fields}, ensure_ascii=False) + "\n")
            self.out.flush()

    def text(self, text: str) -> None:
        if self.json:
            self.event("text", text=text)
            return
        self._clear_live()
        if self._tty_out:
            text = shown(text)  # what the screen shows: the rows a reset erases are counted on it
        self.out.write(text)
        self.out.flush()
        self._attempt += text
        self._mid_line = not text.endswith("\n")

    def step(self) -> None:
        """A model call begins: what it shows is its own."""
        self._attempt = ""

    def progress(self, due: CallWritten) -> None:
        """How far the model has written a tool call's arguments (the driver says when)."""
        if self.json:
            self.event("progress", index=due.index, id=due.call_id, name=due.name, bytes=due.bytes)
        elif self._tty_err:
            if self._mid_line:
                self.out.write("\n")
                self.out.flush()
                self._mid_line = False
                self._attempt += "\n"
            control(self.err, "\r\x1b[2K")
            self.err.write(due.words())
            self.err.flush()
            self._live = True

    def call_done(self) -> None:
        """The streamed tool calls are complete (proposed, or the reply ended)."""
        self._clear_live()

    def _clear_live(self) -> None:
        if self._live:
            control(self.err, "\r\x1b[2K")
            self.err.flush()
            self._live = False

    def reset(self, detail: str) -> None:
        """The request failed or the reply broke off, and it is sent again: say so, and take back
        what the broken reply showed."""
        self.call_done()
        shown, self._attempt = self._attempt, ""
        if self.json:
            return
        reason = detail.strip().splitlines()[0] if detail.strip() else "the request failed"
        if shown and self._tty_out:
            columns = max(shutil.get_terminal_size().columns, 1)
            up = _rows(shown, columns) - 1
            control(self.out, "\r" + (f"\x1b[{up}A" if up > 0 else "") + "\x1b[J")
            self.out.flush()
            self._mid_line = False
            self.note(f"rho-desk: the reply broke off; it is asked for again ({reason})")
        elif shown:
            self.note(
                f"rho-desk: the reply broke off; it is asked for again (the text above is replaced; {reason})"
            )
        else:
            self.note(f"rho-desk: {reason}")

    def note(self, line: str) -> None:
        """A line about what happens (stderr in text mode, so stdout stays the reply)."""
        if self.json:
            return
        self._clear_live()
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
            self._attempt += "\n"
        self.err.write(line + "\n")
        self.err.flush()

    def finish(self) -> None:
        self._clear_live()
        if not self.json and self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False


class TerminalApprover:
    """Asks on the terminal; the answer is read without blocking the event loop."""

    def __init__(self, output: _Output) -> None:
        self.output = output

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        from ..core.text.visible import numbered, one_line, visible
        from ..core.tools.permissions import ApprovalDecision

        err = self.output.err
        self.output.finish()
        # every string the model or the session file chose is shown with its controls visible,
        # and a multi-line command numbered in full: what is approved is what runs; the terminal
        # is reset before the block and before the question
        before_prompt(err)
        err.write(f"\n── approval needed: {one_line(request.summary)}\n")
        if request.diff:
            diff = visible(request.diff)
            err.write(diff if diff.endswith("\n") else diff + "\n")
        if request.command is not None:
            command = numbered(request.command)
            shown = f"\n{command}" if "\n" in command else command
            err.write(f"   command: {shown}\n   folder:  {one_line(str(request.folder))}\n")
        scope = (
            "this path" if request.capability.value == "write" else f"'{one_line(request.tool)}'"
        )
        before_prompt(err)
        err.write(
            f"   [y] approve once   [s] approve {scope} for this session   [n] deny (n: reason) > "
        )
        err.flush()
        line = await _read_line()
        answer = line.strip()
        if answer.lower() in ("y", "yes"):
            decision = ApprovalDecision.allow_once()
        elif answer.lower() in ("s", "session"):
            decision = ApprovalDecision.allow_for_session()
        else:
            reason = answer.split(":", 1)[1].strip() if ":" in answer else ""
            decision = ApprovalDecision.deny(reason)
        self.output.event(
            "approval",
            call_id=request.call_id,
            tool=request.tool,
            decision=decision.choice.value,
            reason=decision.reason,
        )
        return decision


async def _read_line() -> str:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[str] = loop.create_future()
    fd = sys.stdin.fileno()

    def readable() -> None:
        if not done.done():
            data = os.read(fd, 4096)
            done.set_result(data.decode("utf-8", errors="replace") if data else "")

    loop.add_reader(fd, readable)
    try:
        return await done
    finally:
        loop.remove_reader(fd)


def _endpoint_profile(args: argparse.Namespace) -> Endpoint:
    from ..providers.endpoint import Endpoint, ProfileKind

    kind = ProfileKind.ANTHROPIC if args.kind == "anthropic" else ProfileKind.OPENAI_COMPATIBLE
    return Endpoint(
        kind,
        args.base_url,
        args.model,
        requires_key=bool(args.api_key_env),
        max_output_tokens=args.max_tokens,
    )


async def _profile(
    args: argparse.Namespace,
) -> tuple[ProviderProfile | Endpoint, Callable[[], Awaitable[HttpProvider]] | None]:
    """The profile, and how to build its provider (``None``: from the profile's stored key)."""
    from ..core.errors import InputError

    if args.base_url:
        profile = _endpoint_profile(args)

        async def endpoint() -> HttpProvider:
            from ..core.secrets.scrub import SecretString
            from ..providers.endpoint import build_provider

            if not args.api_key_env:
                return build_provider(profile, None)
            key = os.environ.get(args.api_key_env)
            if not key:
                raise InputError(f"the environment variable {args.api_key_env} is not set")
            return build_provider(profile, SecretString(key))

        return profile, endpoint
    from ..providers.profiles import ProfileStore

    store = ProfileStore()
    stored = (
        await asyncio.to_thread(store.get, args.profile)
        if args.profile
        else await asyncio.to_thread(store.default)
    )
    if stored is None:
        raise InputError(
            "no provider profile is configured; add one in the app, or give --base-url and --model"
        )
    if args.max_tokens is not None:
        stored = stored.model_copy(update={"max_output_tokens": args.max_tokens})
    return stored, None


def _call_fields(call: ToolCall) -> dict[str, object]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


def _workspace_words(exc: Exception, session_file: Path) -> str:
    """One line for a folder the tools may not use, with the words that go on."""
    from ..core.tools.trust import WorkspaceRefused

    if isinstance(exc, WorkspaceRefused):
        return (
            f"{session_file}: tools never run in {exc.folder} ({exc.why}); --workspace DIR runs them in "
            "another folder, --tools off continues without tools"
        )
    folder = getattr(exc, "folder", "")
    return (
        f"{session_file}: the tools' folder {folder} is not trusted on this machine (a session file records "
        "its folder, it does not grant it); --trust-workspace trusts it, --workspace DIR runs the tools in "
        "another folder, --tools off continues without tools"
    )


async def _continue(args: argparse.Namespace, message: str) -> int:
    from ..core.changes import CheckpointRecorder
    from ..core.compaction.auto import AutoCompaction
    from ..core.errors import InputError
    from ..core.revisions.edits import FileSession
    from ..core.stores.open import is_session_file
    from ..core.stores.rho_files import read_session
    from ..core.tools.permissions import DenyAll, PermissionMode
    from ..core.tools.trust import WorkspaceRefused, WorkspaceUntrusted
    from ..core.tools.workspace import WorkspaceMissing
    from ..providers.continuation import open_continuation

    path: Path = args.path
    if not path.exists():
        raise InputError("no such file or folder", source=str(path))
    if not is_session_file(path):
        raise InputError(
            "not a Rho session file (continue works on a session.jsonl or its folder)",
            source=str(path),
        )
    if args.keep_messages < 0 or args.keep_tokens < 0:
        raise InputError("--keep-messages and --keep-tokens take 0 (no limit) or a positive number")
    compaction = AutoCompaction.parse(
        args.auto_compact, "" if args.compactor == "local" else args.compactor
    )
    if compaction.policy is not None:
        compaction = AutoCompaction(
            compaction.policy,
            compaction.compactor,
            AutoCompaction.budget_of(args.keep_tokens, args.keep_messages),
        )
    # Until the request is sent nothing else runs on the event loop: the session is read, and
    # later restored and opened for writing, on it (a worker thread would only add its start and
    # the hand-offs to the time to the request). The saves during the turn go to a thread.
    session_file = read_session(path)
    tree = session_file.tree
    header = tree.header
    if header is None or tree.active_leaf is None:
        raise InputError("the session has no revision to continue", source=str(session_file.path))
    output = _Output(args.json)

    profile, endpoint = await _profile(args)
    interactive = sys.stdin.isatty() and sys.stderr.isatty() and args.message != "-"
    approver: Approver = (
        TerminalApprover(output)
        if interactive
        else DenyAll(
            "no terminal to ask for approval; rerun in a terminal, or choose --tools allow_edits or bypass"
        )
    )
    recorder = CheckpointRecorder()  # every write and edit is journalled before it is made
    from ..core.usage.writer import recording_for_session

    usage = recording_for_session(
        session_file.path, workspace=header.cwd
    )  # every request, in Rho's ledger

    async def restore() -> SessionSnapshot:
        return tree.snapshot()

    try:
        continuation = await open_continuation(
            profile,
            cwd=header.cwd,
            restore=restore,
            approver=approver,
            tools=PermissionMode.parse(args.tools) if args.tools else None,
            workspace=args.workspace.absolute() if args.workspace else None,
            granted=args.grant,
            trust_workspace=args.trust_workspace,
            compaction=compaction,
            session_file=str(session_file.path),
            provider=endpoint,
            observer=recorder,
            max_steps=args.max_steps,
            usage=usage,
        )
    except WorkspaceMissing as exc:
        raise InputError(
            f"{exc.message}: --workspace DIR runs its tools in another folder, --tools off continues without tools",
            source=str(session_file.path),
        ) from None
    except (WorkspaceRefused, WorkspaceUntrusted) as exc:
        return fail(_workspace_words(exc, session_file.path))
    try:
        session, setup, mode = continuation.session, continuation.tools, continuation.mode
        if continuation.handoff.has_omissions() and not args.send_anyway:
            return fail(
                f"{session_file.path}: replay safety: {continuation.handoff.describe(continuation.identity)} "
                "--send-anyway sends without them; nothing was sent"
            )
        target = FileSession(session_file.path, read=session_file)
        try:
            output.event(
                "started",
                path=str(session_file.path),
                session_id=session.id,
                revision=session.revision,
                tools=mode.value,
                workspace=str(setup.workspace.root) if setup.workspace else None,
                auto_compact=compaction.describe(),
            )
            if setup.workspace is not None:
                output.note(f"rho-desk: tools {mode.value} in {setup.workspace.root}")
            status = await _drive(session, message, target, recorder, output, header.cwd)
            if usage is not None and usage.diagnostics:
                problem = usage.diagnostics[-1]
                output.event("usage_not_recorded", reason=problem)
                output.note(
                    f"rho-desk: the usage ledger was not written, this turn's spend is not in it: {problem}"
                )
            return status
        finally:
            await asyncio.to_thread(target.close)
    finally:
        await continuation.aclose_turn()
        continuation.shutdown()


async def _drive(
    session: Session,
    message: str,
    target: FileSession,
    recorder: CheckpointRecorder,
    output: _Output,
    cwd: str | None,
) -> int:
    """Present the turn the driver runs: the reply, the tools, what was saved, how it ended."""
    import msgspec

    from ..core.changes.checkpoint import CheckpointOutcome
    from ..core.changes.journal import changed_files_text
    from ..core.session import turn
    from ..core.text.visible import one_line
    from ..core.tools.words import call_subject

    loop = asyncio.get_running_loop()
    leaf = target.tree.active_leaf
    # a second Ctrl+C stops without an end: the journal records the turn as cancelled
    driver = turn.TurnDriver(
        target,
        leaf.id if leaf is not None else None,
        recorder=recorder,
        interrupted=CheckpointOutcome.CANCELLED,
    )
    main = asyncio.current_task()
    presses = 0

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            output.note("rho-desk: cancelling (Ctrl+C again stops without saving)…")
            driver.cancel()
        elif main is not None:
            main.cancel()

    # SIGTERM and SIGHUP (a closed terminal, a service stop) cancel as the first Ctrl+C does:
    # the prompt and the partial reply are committed
    stops = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    for stop in stops:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(stop, on_sigint)
    ended: turn.TurnEnded | None = None
    try:
        async with contextlib.aclosing(
            driver.drive(session, message, session_file=target.path)
        ) as shown:
            async for event in shown:
                if not isinstance(event, (turn.TurnStarted, turn.StepStarted)):
                    end_start_up()  # the request is out: what the set-up made is frozen
                if isinstance(event, turn.TextDelta):
                    output.text(event.text)
                elif isinstance(event, turn.CallsProgress):
                    output.progress(event.due)
                elif isinstance(event, turn.CallsEnded):
                    output.call_done()
                elif isinstance(event, turn.StepStarted):
                    output.step()
                elif isinstance(event, turn.Retrying) and not event.reset:
                    output.event("retry")
                    output.note("rho-desk: the request failed before any reply; it is sent again")
                elif isinstance(event, turn.Retrying):
                    # on a terminal the broken reply is erased; piped, a line says it is sent again
                    output.event("reset", reason=event.reason, detail=event.detail)
                    output.reset(event.detail)
                elif isinstance(event, turn.ToolProposed):
                    output.call_done()
                    output.event("tool_proposed", **_call_fields(event.call))
                elif isinstance(event, turn.ToolStarted):
                    output.event(
                        "tool_started",
                        id=event.call_id,
                        name=event.name,
                        metadata=_jsonable(event.metadata),
                    )
                    output.note(
                        f"● {one_line(event.name)} {one_line(call_subject(event.metadata, 120))}".rstrip()
                    )
                elif isinstance(event, turn.ToolOutput):
                    output.event("tool_updated", id=event.call_id, message=event.message)
                elif isinstance(event, turn.ToolFinished):
                    output.event(
                        "tool_finished", id=event.call_id, ok=event.ok, content=event.content
                    )
                    first = event.content.strip().splitlines()[0] if event.content.strip() else ""
                    output.note(f"  {'✓' if event.ok else '✗'} {one_line(first[:160])}".rstrip())
                elif isinstance(event, turn.CompactionStarted):
                    output.event("compaction_started", messages=event.message_count)
                    output.note(
                        f"rho-desk: compacting the context ({event.message_count} messages)…"
                    )
                elif isinstance(event, turn.Saved):
                    output.event("saved", revision=event.node.revision)
                elif isinstance(event, turn.SaveConflict):
                    raise event.error  # nothing is overwritten: exit 1 with the file's words
                elif isinstance(event, turn.Stopped):
                    output.note(f"rho-desk: stopped ({event.reason}): {event.detail}")
                elif isinstance(event, turn.TurnEnded):
                    ended = event
    except asyncio.CancelledError:
        output.finish()
        output.event("stopped")
        output.note("rho-desk: stopped; nothing of this turn was saved")
        return EXIT_CANCELLED
    finally:
        for stop in stops:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(stop)
    output.finish()
    assert ended is not None  # the driver's last event
    if ended.outcome == "failed":
        output.event("failed", message=ended.detail)
        note = " (what the tools did to files stays done)" if ended.changed_files else ""
        status = fail(
            f"the model call failed; nothing of this turn was kept{note}: {ended.detail}",
            EXIT_PROBLEMS,
        )
        recorded = ended.recorded
        if recorded is not None and recorded.changed:
            output.event(
                "unsaved_changes",
                files=[{"path": f.path, "action": f.action} for f in recorded.changed],
                journal=None if recorded.journal is None else str(recorded.journal),
            )
            output.note(f"rho-desk: {changed_files_text(recorded, cwd)}")
        return status
    used = ended.usage
    assert used is not None  # the run started
    usage = used.usage
    reported = (
        None
        if usage is None
        else {k: v for k, v in msgspec.structs.asdict(usage).items() if v is not None}
    )
    output.event(
        "usage",
        reported=reported,
        estimated_tokens=used.estimated,
        estimate_calibrated=used.calibrated,
    )
    output.note(f"rho-desk: usage: {used.describe()}")
    if ended.outcome == "cancelled":
        output.event("cancelled", revision=session.revision)
        output.note(
            f"rho-desk: cancelled; the prompt and partial reply are saved (revision {session.revision})"
        )
        return EXIT_CANCELLED
    output.event(
        "completed", revision=session.revision, stop_reason=ended.stop_reason, detail=ended.detail
    )
    return EXIT_OK


def _jsonable(value: object) -> object:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


__all__ = ["EXIT_BAD_INPUT", "register", "run"]
