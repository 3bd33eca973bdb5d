"""One continuation: everything a turn of a saved conversation needs, set up once for the window
and for ``rho-desk continue``.

:func:`open_continuation` takes a provider profile and the session's state and returns a
:class:`Continuation`: the engine (``Rho``) and its session restored from the snapshot, the
provider (each turn gets a fresh one), the coding tools with their permission mode
(:meth:`ProviderProfile.permission_mode_for`) in a workspace the user trusts
(:mod:`rho_desk.core.tools.trust`), the replay-safety report of the provider switch
(:class:`~rho_desk.core.provider.handoff.HandoffReport`) and the automatic compaction policy with its
compactor (:class:`~rho_desk.core.compaction.auto.AutoCompaction`). The front ends decide only
what to do with what it reports: the window asks, the command line exits with the words to use.

Steps, in order, so that a refusal costs nothing: the permission mode; the workspace (it must
exist, never be refused, and be trusted, or trusted now on request); only then the provider (its
key is read off the event loop); the engine (reused from the previous turn when the tools did not
change, rebuilt on the same state when they did); the replay-safety report; the compactor.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ..core.compaction.auto import AutoCompaction
from ..core.provider.handoff import HandoffReport
from ..core.session import Rho, Session, SessionOptions
from ..core.session.config import DEFAULT_MAX_STEPS
from ..core.tools.permissions import Approver, PermissionMode
from ..core.tools.setup import ToolSetup, open_workspace, tool_setup
from ..core.tools.trust import TrustStore, WorkspaceRefused, refusal
from ..core.wire import SessionSnapshot

if TYPE_CHECKING:
    from ..core.tools.observed import WorkspaceMutationObserver
    from ..core.usage.writer import UsageRecording
    from .base import HttpProvider
    from .compactors import OpenedCompactor
    from .endpoint import Endpoint
    from .profiles import ProviderProfile

__all__ = ["Continuation", "open_continuation", "open_tools"]


class Continuation(msgspec.Struct, eq=False):
    """One turn's engine, tools and checks (see the module docstring)."""

    profile: ProviderProfile | Endpoint
    provider: HttpProvider
    rho: Rho
    session: Session
    tools: ToolSetup
    mode: PermissionMode
    handoff: HandoffReport
    """Provider-native blocks of the history this provider will not be sent (replay safety)."""
    identity: str
    """The provider's model identity, as text (what the user confirms a handoff for)."""
    compaction: AutoCompaction
    compactor: OpenedCompactor | None = None
    rebuilt: bool = False
    """A new engine session was made for this turn (the previous one, if any, is shut down)."""
    _closed: bool = msgspec.field(default=False)

    async def aclose_turn(self) -> None:
        """Close what belongs to this turn: the provider and the compactor (the engine stays)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            await self.provider.aclose()
        if self.compactor is not None:
            with contextlib.suppress(Exception):
                await self.compactor.aclose()

    def shutdown(self) -> None:
        """Shut the engine down (the conversation is over)."""
        self.rho.shutdown()


def open_tools(
    mode: PermissionMode,
    approver: Approver,
    *,
    cwd: str | None,
    workspace: str | os.PathLike[str] | None = None,
    granted: Sequence[str | os.PathLike[str]] = (),
    trust: TrustStore | None = None,
    trust_workspace: bool = False,
    session_file: str | None = None,
    previous: ToolSetup | None = None,
    observer: WorkspaceMutationObserver | None = None,
) -> ToolSetup:
    """The tools for ``mode`` in the session's folder ``cwd`` (or ``workspace``), once trusted.

    ``previous`` is kept (with the approvals given for this session) when nothing changed.
    ``observer`` (the session's checkpoint recorder) hears of every write and edit before it is
    made.

    Raises:
        WorkspaceMissing: tools are on and the folder is not on this machine.
        WorkspaceRefused: the folder (or a granted one) is one tools never run in.
        WorkspaceUntrusted: the folder has not been trusted for tools (``trust_workspace``
            trusts it now).
    """
    if not mode.tools_enabled:
        if previous is not None and previous.mode is mode:
            return previous
        return tool_setup(mode, approver, observer=observer)
    folder = os.fspath(workspace) if workspace is not None else cwd
    opened = open_workspace(folder, ())
    store = trust if trust is not None else TrustStore()
    if trust_workspace:
        store.trust(opened.root)
    store.check(opened.root, session=session_file)
    for extra in granted:
        why = refusal(extra)
        if why is not None:
            raise WorkspaceRefused(Path(os.path.realpath(extra)), why, session=session_file)
        opened.grant(Path(extra).absolute())
    key = (mode.value, str(opened.root), tuple(str(p) for p in opened.granted))
    if previous is not None and previous.mode is mode and previous.key == key:
        return previous
    return tool_setup(mode, approver, workspace=opened, observer=observer)


async def open_continuation(
    profile: ProviderProfile | Endpoint,
    *,
    cwd: str | None,
    restore: Callable[[], Awaitable[SessionSnapshot]],
    approver: Approver,
    tools: PermissionMode | None = None,
    workspace: str | os.PathLike[str] | None = None,
    granted: Sequence[str | os.PathLike[str]] = (),
    trust: TrustStore | None = None,
    trust_workspace: bool = False,
    compaction: AutoCompaction | None = None,
    previous: Continuation | None = None,
    session_file: str | None = None,
    provider: Callable[[], Awaitable[HttpProvider]] | None = None,
    observer: WorkspaceMutationObserver | None = None,
    max_steps: int | None = None,
    usage: UsageRecording | None = None,
) -> Continuation:
    """Set up one turn of a saved conversation on ``profile``.

    Args:
        cwd: the folder the session records (its header ``cwd``): a claim, checked for trust.
        restore: reads the state to continue from (called only when a new engine is needed).
        approver: asks the user about tool calls the mode does not allow freely.
        tools: the permission mode chosen for this conversation (``None``: the profile's).
        workspace: a folder to run the tools in instead of ``cwd`` (checked the same way).
        granted: further folders the tools may touch in this conversation.
        trust: the trusted folders (default: the user's).
        trust_workspace: trust the folder now (the user asked); refused folders stay refused.
        compaction: the automatic compaction (default: off).
        previous: the last turn's continuation of the same conversation: its engine (and
            session approvals) are reused when the tools did not change.
        session_file: the session's path, for the messages.
        provider: builds the provider (default: ``open_provider(profile)``, key from keyring;
            an :class:`~rho_desk.providers.endpoint.Endpoint` needs one).
        observer: hears of every write and edit before it is made (the session's checkpoint
            recorder: :class:`~rho_desk.core.changes.CheckpointRecorder`).
        max_steps: model steps the turn may take (default: the profile's, else 32); the turn then
            stops with ``MaxSteps``, as a run that repeats itself stops with ``Repetition``.
        usage: where every request of the turn is recorded (Rho's usage ledger of the session's
            home: :func:`~rho_desk.core.usage.writer.recording_for_session`), summary requests
            of automatic compaction included; ``None``: nowhere.

    Raises:
        WorkspaceMissing, WorkspaceRefused, WorkspaceUntrusted: see :func:`open_tools`; nothing
            was opened.
        CredentialsUnavailable: the profile's key cannot be read.
    """
    mode = profile.permission_mode_for(tools)
    setup = open_tools(
        mode,
        approver,
        cwd=cwd,
        workspace=workspace,
        granted=granted,
        trust=trust,
        trust_workspace=trust_workspace,
        session_file=session_file,
        previous=previous.tools if previous is not None else None,
        observer=observer,
    )
    if provider is not None:
        model = await provider()
    else:
        from .profiles import ProviderProfile, open_provider

        if not isinstance(profile, ProviderProfile):
            raise TypeError("an Endpoint is opened by the caller's provider factory")
        model, _source = await open_provider(profile)
    try:
        rebuilt = True
        if previous is not None and previous.tools.key == setup.key:
            rho, session, rebuilt = previous.rho, previous.session, False
        else:
            state = previous.session.snapshot() if previous is not None else await restore()
            if previous is not None:
                previous.shutdown()
            steps = max_steps or profile.max_steps or DEFAULT_MAX_STEPS
            builder = Rho.builder().provider(model).tools(setup.tools).max_steps(steps)
            rho = builder.usage_recorder(usage).workspace_path(cwd).build()
            session = rho.session(SessionOptions.from_snapshot(state))
        session.replace_provider(model)
        handoff = model.handoff_report(session.history)
        chosen = compaction if compaction is not None else AutoCompaction()
        opened: OpenedCompactor | None = None
        if chosen.policy is not None:
            from ..core.compaction.local import RecentBudget
            from .compactors import open_compactor

            opened = await open_compactor(
                chosen.compactor,
                chosen.budget or RecentBudget(),
                recording=rho.config.usage_recording,
            )
            session.set_compaction(opened.compactor, chosen.policy)
        else:
            session.set_compaction(None, None)
    except BaseException:
        with contextlib.suppress(Exception):
            await model.aclose()
        raise
    return Continuation(
        profile,
        model,
        rho,
        session,
        setup,
        mode,
        handoff,
        str(model.identity()),
        chosen,
        opened,
        rebuilt,
    )
