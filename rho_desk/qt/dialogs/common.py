"""Shared pieces of the action dialogs: engine glue without Qt, and small presentation helpers.

* :class:`IdentityOnlyProvider`: the provider a manual compaction runs under. The engine needs
  one, and the compacted snapshot must keep the session's own provider identity; it refuses to
  be called.
* :class:`ThreadedCompactor`: runs the local compactor's (CPU-bound) work in a worker thread
  and races it against the cancellation token, so the GUI thread never stalls and Cancel is
  immediate even for a 100k-message history.
* :func:`open_compactor`: the compactor a setting names (local, or a provider profile whose
  model writes the summary; its key is read off the GUI thread).
* :func:`describe`, :func:`human_bytes`, :func:`human_count`: one-line texts for tables.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...core.cancellation import race
from ...core.compaction.api import CompactionOutput, CompactionRequest, Compactor
from ...core.compaction.local import CompactionPreview, LocalCompactor, RecentBudget
from ...core.errors import BugError
from ...core.provider import CancellationMode, ModelProvider, ModelRequest
from ...core.wire import ContentBlock, Message, MessageKind, ModelIdentity
from ..bridge import in_thread

__all__ = [
    "KIND_LABELS",
    "IdentityOnlyProvider",
    "OpenedCompactor",
    "ThreadedCompactor",
    "describe",
    "human_bytes",
    "human_count",
    "open_compactor",
]

KIND_LABELS = {
    MessageKind.SYSTEM: "System",
    MessageKind.USER: "User",
    MessageKind.ASSISTANT: "Assistant",
    MessageKind.ENRICHED_ASSISTANT: "Assistant",
    MessageKind.ABORTED_ASSISTANT: "Aborted",
    MessageKind.TOOL_RESULT: "Tool result",
}


class IdentityOnlyProvider(ModelProvider):
    """A provider that reports ``identity`` and is never called.

    A manual compaction builds a throw-away runtime around the open snapshot; the snapshot it
    produces carries the runtime provider's identity, which must stay the session's own.
    """

    def __init__(self, identity: ModelIdentity) -> None:
        self._identity = identity

    def identity(self) -> ModelIdentity:
        return self._identity

    async def send_turn(self, request: ModelRequest) -> tuple[ContentBlock, ...]:
        raise BugError("the identity-only provider of a manual compaction was asked to send a turn")

    def __repr__(self) -> str:
        return f"IdentityOnlyProvider({self._identity})"


class ThreadedCompactor(Compactor):
    """The local compactor, computed in a worker thread and cancellable at once.

    Args:
        budget: how much recent history is kept verbatim.
    """

    cancellation_mode = CancellationMode.COOPERATIVE

    def __init__(self, budget: RecentBudget | None = None) -> None:
        self.local = LocalCompactor(budget)

    def __repr__(self) -> str:
        return f"ThreadedCompactor({self.local.budget!r})"

    def preview(self, history: Sequence[Message]) -> CompactionPreview:
        return self.local.preview(history)

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        request.cancellation.raise_if_cancelled()
        preview = await race(in_thread(self.local.preview, request.messages), request.cancellation)
        return CompactionOutput(preview.replacement)


@dataclass
class OpenedCompactor:
    """A compactor and what must be closed with it."""

    compactor: Compactor
    label: str
    """"local compactor" or "profile NAME (provider/model)"."""
    provider: Any = None
    """The provider that writes summaries (closed by :meth:`aclose`), or ``None``."""

    async def aclose(self) -> None:
        provider, self.provider = self.provider, None
        if provider is not None:
            await provider.aclose()


async def open_compactor(profile_name: str, budget: RecentBudget, *, profiles: Any = None) -> OpenedCompactor:
    """The compactor ``profile_name`` names (``""``: the local one), ready to use.

    Args:
        profiles: a ``ProfileStore`` (default: the user's), read in a worker thread.

    Raises:
        ProfileError: no such profile.
        CredentialsUnavailable: its key cannot be read (MissingApiKey, NoKeyringBackend...).
    """
    if not profile_name:
        return OpenedCompactor(ThreadedCompactor(budget), "local compactor")
    from ...providers.compactors import SummarizingCompactor
    from ...providers.profiles import ProfileStore, open_provider

    store = profiles or ProfileStore()
    profile = await in_thread(store.get, profile_name)
    provider, _ = await open_provider(profile)
    label = f"profile {profile.name} ({profile.identity_provider}/{profile.model})"
    return OpenedCompactor(SummarizingCompactor(provider, budget), label, provider)


def describe(message: Message, limit: int = 120) -> str:
    """One line saying what ``message`` is (its text, or its tool calls, or its images)."""
    text = message.text().strip()
    if message.tool_result is not None:
        status = "ok" if message.tool_result.ok else "error"
        text = f"[{status}] {text}"
    if not text:
        calls = [c.name for c in message.tool_calls()]
        images = sum(1 for b in message.content if b.image is not None)
        parts = []
        if calls:
            parts.append("calls " + ", ".join(calls))
        if images:
            parts.append(f"{images} image{'s' if images != 1 else ''}")
        if message.aborted_assistant is not None and message.aborted_assistant.tool_calls:
            parts.append(f"{len(message.aborted_assistant.tool_calls)} partial tool call(s)")
        text = "; ".join(parts) or "(empty)"
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def human_bytes(size: int) -> str:
    """``512 B``, ``12.3 KB``, ``4.0 MB``."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / 1024 / 1024:.1f} MB"


def human_count(value: int | None) -> str:
    """Thousands separated; an em dash for unknown."""
    return "—" if value is None else f"{value:,}"
