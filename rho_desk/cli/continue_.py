"""``rho-desk continue PATH -m TEXT``: continue a Rho session with one more turn.

The reply streams to stdout (``--json``: one event per line). The model may use Rho's coding
tools in the session's recorded folder (``--workspace DIR`` chooses another, ``--grant DIR``
allows one more folder for this turn), under ``--tools MODE``: ``off`` (no tools), ``plan``
(reads only), ``supervised`` (the default: every write, edit and shell command is asked on the
terminal), ``allow_edits`` (git-tracked files of the workspace are free) or ``bypass``. Without a
terminal an approval is refused, and the model is told why.

The model is a provider profile (``--profile NAME``, else the default profile) or an endpoint
given here and saved nowhere: ``--base-url URL --model NAME [--kind openai|anthropic]`` (a local
server needs no key; ``--api-key-env VAR`` reads one from the environment).

Every commit is saved to the session file as the app saves it (a new revision, checked against
concurrent writers). Ctrl+C cancels: the prompt and what the model had produced are kept, as Rho
keeps them; a second Ctrl+C stops at once without saving.

Exit status: 0 the turn was committed; 1 the provider failed (nothing of the turn was kept) or
the file changed meanwhile; 2 bad usage or input; 130 cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any, TextIO

from . import EXIT_BAD_INPUT, EXIT_OK, EXIT_PROBLEMS, fail

EXIT_CANCELLED = 130


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "continue",
        help="continue a session with one more turn (tools under approval)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", type=Path, metavar="PATH", help="a session.jsonl or its folder")
    parser.add_argument("-m", "--message", required=True, metavar="TEXT", help="the prompt ('-' reads it from stdin)")
    parser.add_argument("--profile", metavar="NAME", help="provider profile (default: the default profile)")
    parser.add_argument("--base-url", metavar="URL", help="an endpoint not saved as a profile")
    parser.add_argument("--model", metavar="NAME", help="the model at --base-url")
    parser.add_argument("--kind", choices=("openai", "anthropic"), default="openai", help="wire API of --base-url (default openai)")
    parser.add_argument("--api-key-env", metavar="VAR", help="read the key for --base-url from this environment variable")
    parser.add_argument(
        "--tools",
        choices=("off", "plan", "supervised", "allow_edits", "bypass"),
        help="what the coding tools may do (default: the profile's mode, else supervised)",
    )
    parser.add_argument("--workspace", type=Path, metavar="DIR", help="run tools here instead of the session's folder")
    parser.add_argument("--grant", type=Path, action="append", default=[], metavar="DIR", help="also allow this folder (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON event per line on stdout")
    parser.set_defaults(handler=run)


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
    return asyncio.run(_continue(args, message))


class _Output:
    """Human text or JSON lines."""

    def __init__(self, as_json: bool, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.json = as_json
        self.out = out
        self.err = err
        self._mid_line = False

    def event(self, kind: str, **fields: Any) -> None:
        if self.json:
            self.out.write(json.dumps({"event": kind, **fields}, ensure_ascii=False) + "\n")
            self.out.flush()

    def text(self, text: str) -> None:
        if self.json:
            self.event("text", text=text)
            return
        self.out.write(text)
        self.out.flush()
        self._mid_line = not text.endswith("\n")

    def note(self, line: str) -> None:
        """A line about what happens (stderr in text mode, so stdout stays the reply)."""
        if self.json:
            return
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(line + "\n")
        self.err.flush()

    def finish(self) -> None:
        if not self.json and self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False


class TerminalApprover:
    """Asks on the terminal; the answer is read without blocking the event loop."""

    def __init__(self, output: _Output) -> None:
        self.output = output

    async def request(self, request: Any) -> Any:
        from ..core.tools.permissions import ApprovalDecision

        err = self.output.err
        self.output.finish()
        err.write(f"\n── approval needed: {request.summary}\n")
        if request.diff:
            err.write(request.diff if request.diff.endswith("\n") else request.diff + "\n")
        if request.command is not None:
            err.write(f"   command: {request.command}\n   folder:  {request.folder}\n")
        scope = "this path" if request.capability.value == "write" else f"'{request.tool}'"
        err.write(f"   [y] approve once   [s] approve {scope} for this session   [n] deny (n: reason) > ")
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
        self.output.event("approval", call_id=request.call_id, tool=request.tool, decision=decision.choice.value, reason=decision.reason)
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


def _endpoint_profile(args: argparse.Namespace) -> Any:
    from ..providers.profiles import ProfileKind, ProviderProfile

    kind = ProfileKind.ANTHROPIC if args.kind == "anthropic" else ProfileKind.OPENAI_COMPATIBLE
    return ProviderProfile(
        name="command-line",
        kind=kind,
        base_url=args.base_url,
        model=args.model,
        api_key_env=args.api_key_env,
        requires_key=bool(args.api_key_env),
    )


async def _open_provider(args: argparse.Namespace) -> tuple[Any, Any]:
    """The provider and its profile."""
    from ..core.errors import InputError
    from ..providers.profiles import ProfileStore, build_provider, open_provider
    from ..providers.secret import SecretString

    if args.base_url:
        profile = _endpoint_profile(args)
        if args.api_key_env:
            key = os.environ.get(args.api_key_env)
            if not key:
                raise InputError(f"the environment variable {args.api_key_env} is not set")
            return build_provider(profile, SecretString(key)), profile
        return build_provider(profile, None), profile
    store = ProfileStore()
    profile = await asyncio.to_thread(store.get, args.profile) if args.profile else await asyncio.to_thread(store.default)
    if profile is None:
        raise InputError("no provider profile is configured; add one in the app, or give --base-url and --model")
    provider, _source = await open_provider(profile)
    return provider, profile


def _call_fields(call: Any) -> dict[str, Any]:
    return {"id": call.id, "name": call.name, "arguments": call.arguments}


async def _continue(args: argparse.Namespace, message: str) -> int:
    from ..core.changes import CheckpointRecorder
    from ..core.errors import Cancelled, EngineError, InputError
    from ..core.session import Rho, SessionOptions, events
    from ..core.stores.open import is_session_file
    from ..core.stores.rho_files import SessionWriter, read_session
    from ..core.tools.permissions import DEFAULT_MODE, DenyAll, PermissionMode
    from ..core.tools.setup import tool_setup
    from ..core.tools.workspace import Workspace, WorkspaceMissing

    path: Path = args.path
    if not path.exists():
        raise InputError("no such file or folder", source=str(path))
    if not is_session_file(path):
        raise InputError("not a Rho session file (continue works on a session.jsonl or its folder)", source=str(path))
    session_file = await asyncio.to_thread(read_session, path)
    tree = session_file.tree
    header = tree.header
    if header is None or tree.active_leaf is None:
        raise InputError("the session has no revision to continue", source=str(session_file.path))
    output = _Output(args.json)

    provider, profile = await _open_provider(args)
    try:
        mode_name = args.tools or getattr(profile, "permission_mode", None)
        mode = PermissionMode.parse(mode_name) if mode_name else DEFAULT_MODE
        interactive = sys.stdin.isatty() and sys.stderr.isatty() and args.message != "-"
        approver: Any = (
            TerminalApprover(output)
            if interactive
            else DenyAll("no terminal to ask for approval; rerun in a terminal, or choose --tools allow_edits or bypass")
        )
        try:
            workspace = Workspace(args.workspace.resolve(), args.grant) if args.workspace else None
            recorder = CheckpointRecorder()  # every write and edit is journalled before it is made
            setup = tool_setup(mode, approver, cwd=header.cwd, workspace=workspace, granted=args.grant, observer=recorder)
        except WorkspaceMissing as exc:
            raise InputError(
                f"{exc.message}: --workspace DIR runs its tools in another folder, --tools off continues without tools",
                source=str(session_file.path),
            ) from None

        writer = await asyncio.to_thread(SessionWriter, session_file)
        try:
            state = await asyncio.to_thread(tree.snapshot)
            rho = Rho.builder().provider(provider).tools(setup.tools).build()
            session = rho.session(SessionOptions.from_snapshot(state))
            output.event(
                "started",
                path=str(session_file.path),
                session_id=session.id,
                revision=session.revision,
                tools=mode.value,
                workspace=str(setup.workspace.root) if setup.workspace else None,
            )
            if setup.workspace is not None:
                output.note(f"rho-desk: tools {mode.value} in {setup.workspace.root}")
            base = writer.tree.active_leaf
            recorder.begin_turn(session_file.path, session.id, session.revision)
            status = await _drive(session, message, writer, output, Cancelled, EngineError, events)
            await asyncio.to_thread(_close_recorded_turn, recorder, writer, base, status, output, header.cwd)
            return status
        finally:
            await asyncio.to_thread(writer.close)
    finally:
        with contextlib.suppress(Exception):
            await provider.aclose()


async def _drive(session: Any, message: str, writer: Any, output: _Output, cancelled_error: Any, engine_error: Any, events: Any) -> int:
    loop = asyncio.get_running_loop()
    run = session.start(message)
    main = asyncio.current_task()
    presses = 0

    def on_sigint() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            output.note("rho-desk: cancelling (Ctrl+C again stops without saving)…")
            run.cancel()
        elif main is not None:
            main.cancel()

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, on_sigint)

    async def save(snapshot: Any, outcome: Any = None) -> None:
        node = await asyncio.to_thread(writer.save, snapshot, outcome=outcome)
        output.event("saved", revision=node.revision)

    status = EXIT_OK
    failure = ""
    changing: set[str] = set()
    wrote = False
    import msgspec

    from ..core.tools.words import call_subject, result_text
    from ..core.usage import TurnUsage

    used = TurnUsage()
    try:
        async for event in run:
            used.observe(event)
            if isinstance(event, events.AssistantTextDelta):
                output.text(event.text)
            elif isinstance(event, events.ToolProposed):
                output.event("tool_proposed", **_call_fields(event.call))
            elif isinstance(event, events.ToolStarted):
                if isinstance(event.metadata, dict) and event.metadata.get("operation") in ("write", "execute"):
                    changing.add(event.call_id)
                output.event("tool_started", id=event.call_id, name=event.name, metadata=_jsonable(event.metadata))
                output.note(f"● {event.name} {call_subject(event.metadata, 120)}".rstrip())
            elif isinstance(event, events.ToolUpdated):
                output.event("tool_updated", id=event.call_id, message=event.progress.message)
            elif isinstance(event, events.ToolFinished):
                ok, content = result_text(event.result)
                wrote = wrote or (ok and event.call_id in changing)
                output.event("tool_finished", id=event.call_id, ok=ok, content=content)
                first = content.strip().splitlines()[0] if content.strip() else ""
                output.note(f"  {'✓' if ok else '✗'} {first[:160]}".rstrip())
            elif isinstance(event, events.CompactionStarted):
                output.event("compaction_started", messages=event.message_count)
                output.note(f"rho-desk: compacting the context ({event.message_count} messages)…")
            elif isinstance(event, events.CompactionCompleted):
                await save(event.outcome.committed_snapshot, event.outcome)
            elif isinstance(event, events.Completed):
                await save(session.snapshot())
            elif isinstance(event, events.Cancelled):
                status = EXIT_CANCELLED
                await save(session.snapshot())
            elif isinstance(event, events.Failed):
                status, failure = EXIT_PROBLEMS, event.message
        try:
            await run.outcome()
        except cancelled_error:
            status = EXIT_CANCELLED
        except engine_error as exc:
            status, failure = EXIT_PROBLEMS, exc.text()
    except asyncio.CancelledError:
        run.close()
        output.finish()
        output.event("stopped")
        output.note("rho-desk: stopped; nothing of this turn was saved")
        return EXIT_CANCELLED
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)
    output.finish()
    if status == EXIT_PROBLEMS:
        output.event("failed", message=failure)
        note = " (what the tools did to files stays done)" if wrote else ""
        return fail(f"the model call failed; nothing of this turn was kept{note}: {failure}", EXIT_PROBLEMS)
    usage = used.usage
    reported = None if usage is None else {k: v for k, v in msgspec.structs.asdict(usage).items() if v is not None}
    output.event("usage", reported=reported, estimated_tokens=used.estimated)
    output.note(f"rho-desk: usage: {used.describe()}")
    if status == EXIT_CANCELLED:
        output.event("cancelled", revision=session.revision)
        output.note(f"rho-desk: cancelled; the prompt and partial reply are saved (revision {session.revision})")
        return EXIT_CANCELLED
    output.event("completed", revision=session.revision)
    return EXIT_OK


def _close_recorded_turn(recorder: Any, writer: Any, base: Any, status: int, output: _Output, cwd: str | None) -> None:
    """Finish the turn's checkpoint record; a failed turn says which files it changed."""
    from ..core.changes import CheckpointOutcome
    from ..core.changes.journal import changed_files_text

    leaf = writer.tree.active_leaf
    saved = (leaf.id, leaf.revision) if leaf is not None and leaf is not base else None
    outcome = {EXIT_OK: CheckpointOutcome.COMPLETED, EXIT_CANCELLED: CheckpointOutcome.CANCELLED}.get(status, CheckpointOutcome.FAILED)
    turn = recorder.close_turn(saved, outcome)
    if status == EXIT_PROBLEMS and turn is not None and turn.changed:
        output.event(
            "unsaved_changes",
            files=[{"path": f.path, "action": f.action} for f in turn.changed],
            journal=None if turn.journal is None else str(turn.journal),
        )
        output.note(f"rho-desk: {changed_files_text(turn, cwd)}")


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return str(value)
    return value


__all__ = ["EXIT_BAD_INPUT", "register", "run"]
