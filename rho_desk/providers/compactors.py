"""The summarizing compactor: asks the configured model provider to summarize older history.

It partitions like the local compactor (``rho_desk.core.compaction.local.partition``): the
system prompt and a recent budget are kept verbatim, a tool call is never split from its
results, and the older part is replaced by one ``User`` message that starts with
``[rho-desk summary v1]`` and records what it replaced (message count and token estimate).

The request to the provider carries a bounded transcript of the older part (long tool output
and arguments are clipped; when still too long, the oldest entries are dropped and counted),
an earlier summary or digest found there (so it is folded in and repeated compaction stays
bounded: the summary is capped at ``max_summary_chars``), and the local digest of the same
messages as mechanically extracted facts the summary must not contradict.

Usage of the summary request (tokens, and cost when the provider or the profile's prices give
it) is returned with the replacement, so the engine accounts it (spec/engine.md §10). The
compactor is cooperative: when the token fires it cancels the provider call (which closes the
HTTP stream) and raises ``Cancelled``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ..core.cancellation import CancellationToken, race
from ..core.compaction.api import CompactionOutput, CompactionRequest, Compactor
from ..core.compaction.local import (
    DIGEST_MARKER,
    SUMMARY_MARKER,
    CompactionPreview,
    RecentBudget,
    build_digest,
    is_compaction_message,
    make_preview,
    partition,
)
from ..core.compaction.tokens import estimate_messages_tokens
from ..core.errors import ProviderError, ProviderErrorKind, Retryability
from ..core.provider import (
    CancellationMode,
    ModelEvent,
    ModelProvider,
    ModelRequest,
    OutputDelta,
    ReasoningLevel,
    RequestAttemptFailed,
    Usage,
)
from ..core.wire.model import Message, ModelUsage

if TYPE_CHECKING:
    from ..core.usage.writer import RequestOutcome, UsageRecording
    from .base import HttpProvider
    from .profiles import ProfileStore, ProviderProfile

__all__ = [
    "SUMMARY_SYSTEM_PROMPT",
    "OpenedCompactor",
    "SummarizingCompactor",
    "open_compactor",
    "render_transcript",
]

SUMMARY_SYSTEM_PROMPT: Final = """\
You compact the history of a conversation between a user and a coding agent. The older part of
the conversation will be deleted and replaced by your summary; the agent will continue from your
summary plus the most recent messages, which are kept verbatim. Write a faithful, dense summary
that lets the agent continue without asking again. Keep:
- every user request and constraint, in the user's own words when short;
- files, URLs, commands and tools touched, and what was learned from them;
- decisions made and why; work done and its outcome (including failures);
- open questions and unfinished work.
Fold any earlier summary into yours. Do not invent anything. Do not address the user.
Write plain text or Markdown only."""

TOOL_RESULT_CLIP: Final = 2000
ARGUMENT_CLIP: Final = 1000
TEXT_CLIP: Final = 6000


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters clipped]"


def _render_one(message: Message, names: dict[str, str]) -> str:
    if message.system is not None:
        return f"[system]\n{_clip(message.system, TEXT_CLIP)}"
    if message.user is not None:
        text = "\n".join(b.text for b in message.user if b.text is not None)
        if text.startswith((SUMMARY_MARKER, DIGEST_MARKER)):
            return f"[earlier summary — fold it into yours]\n{text}"
        images = sum(1 for b in message.user if b.image is not None)
        suffix = f"\n[{images} image(s) attached]" if images else ""
        return f"[user]\n{_clip(text, TEXT_CLIP)}{suffix}"
    if message.tool_result is not None:
        result = message.tool_result
        status = "ok" if result.ok else "error"
        name = names.get(result.id, "unknown tool")
        return f"[tool result: {name}, {status}]\n{_clip(result.content, TOOL_RESULT_CLIP)}"
    label = "assistant (interrupted)" if message.aborted_assistant is not None else "assistant"
    parts = []
    for block in message.content:
        if block.text is not None:
            parts.append(_clip(block.text, TEXT_CLIP))
        elif block.tool_call is not None:
            call = block.tool_call
            names[call.id] = call.name
            try:
                arguments = json.dumps(call.arguments, ensure_ascii=False)
            except (TypeError, ValueError):
                arguments = str(call.arguments)
            parts.append(f"[tool call: {call.name}] {_clip(arguments, ARGUMENT_CLIP)}")
        elif block.image is not None:
            parts.append("[image]")
    summary = message.enriched_assistant.reasoning_summary if message.enriched_assistant else None
    if summary:
        parts.append(f"[reasoning summary] {_clip(summary, TEXT_CLIP)}")
    return f"[{label}]\n" + "\n".join(parts)


def render_transcript(messages: Sequence[Message], max_chars: int) -> str:
    """The older messages as a readable transcript of at most about ``max_chars`` characters.

    Earlier summaries are always kept; when the rest does not fit, the oldest entries go first
    and a line says how many were dropped.
    """
    names: dict[str, str] = {}
    entries = [(_render_one(m, names), is_compaction_message(m)) for m in messages]
    total = sum(len(text) + 2 for text, _ in entries)
    dropped = 0
    kept: list[tuple[str, bool]] = []
    for text, is_summary in entries:
        if total > max_chars and not is_summary:
            total -= len(text) + 2
            dropped += 1
            continue
        kept.append((text, is_summary))
    lines = [text for text, _ in kept]
    if dropped:
        lines.insert(
            next((i for i, (_, s) in enumerate(kept) if not s), len(kept)),
            f"[... {dropped} older message(s) omitted to fit; see the extracted facts ...]",
        )
    return "\n\n".join(lines)


class _Collector:
    """The summary call's event sink: text and usage only (raw reasoning is dropped). A failed
    physical request the provider retried by itself keeps its usage apart, for the ledger."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.usage = ModelUsage()
        self.failed: list[ModelUsage] = []

    async def send(self, event: ModelEvent) -> None:
        if isinstance(event, OutputDelta):
            self.text.append(event.text)
        elif isinstance(event, Usage):
            self.usage = self.usage + event.usage
        elif isinstance(event, RequestAttemptFailed):
            self.failed.append(self.usage.saturating_add(event.usage))
            self.usage = ModelUsage()


class SummarizingCompactor(Compactor):
    """Replaces older history with a summary written by ``provider``.

    Args:
        provider: the model provider that writes the summary (usually the session's own).
        budget: how much recent history is kept verbatim.
        max_summary_chars: the summary is cut to this length (keeps repeated compaction bounded).
        max_transcript_chars: the most transcript sent to the provider.
        reasoning_level: the reasoning level of the summary request (off by default: cheap).
        recording: where the summary request is recorded (purpose ``compaction``), with the
            session, run and step of the compaction request.
    """

    cancellation_mode = CancellationMode.COOPERATIVE

    def __init__(
        self,
        provider: ModelProvider,
        budget: RecentBudget | None = None,
        *,
        max_summary_chars: int = 12_000,
        max_transcript_chars: int = 200_000,
        reasoning_level: ReasoningLevel = ReasoningLevel.OFF,
        recording: UsageRecording | None = None,
    ) -> None:
        self.provider = provider
        self.recording = recording
        self.budget = budget or RecentBudget()
        self.max_summary_chars = max_summary_chars
        self.max_transcript_chars = max_transcript_chars
        self.reasoning_level = reasoning_level

    def __repr__(self) -> str:
        return f"SummarizingCompactor({self.provider!r}, {self.budget!r})"

    def preview(self, history: Sequence[Message]) -> CompactionPreview:
        """What would be removed and kept. The provider has not written anything yet, so the
        draft replacement is the local digest of the same messages (its token figure is an
        estimate of the final one)."""
        parts = partition(history, self.budget)
        if not parts.older:
            return make_preview(history, parts, None)
        return make_preview(history, parts, build_digest(parts.older, parts.recent).message())

    def summary_request(
        self, older: Sequence[Message], recent: Sequence[Message], token: CancellationToken
    ) -> ModelRequest:
        """The provider request that asks for the summary of ``older``."""
        facts = build_digest(older, recent).render()
        transcript = render_transcript(older, self.max_transcript_chars)
        prompt = (
            f"Summarize the following {len(older)} older message(s) of the conversation, in at most "
            f"{self.max_summary_chars // 5} words.\n\n"
            f"<transcript>\n{transcript}\n</transcript>\n\n"
            "Facts extracted mechanically from the same messages (reliable; keep what matters):\n"
            f"<facts>\n{facts}\n</facts>"
        )
        return ModelRequest(
            messages=(Message.system_text(SUMMARY_SYSTEM_PROMPT), Message.user_text(prompt)),
            tools=(),
            cancellation=token,
            reasoning_level=self.reasoning_level,
        )

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        token = request.cancellation
        token.raise_if_cancelled()
        parts = partition(request.messages, self.budget)
        if not parts.older:
            return CompactionOutput(request.messages)
        collector = _Collector()
        summary_request = self.summary_request(parts.older, parts.recent, token)
        outcome: RequestOutcome = "failed"
        try:
            content = await race(self.provider.send_turn_stream(summary_request, collector), token)
            outcome = "completed"
        except BaseException:
            if token.cancelled:
                outcome = "cancelled"
            raise
        finally:
            await self._record(request, collector, outcome)
        calls = [b.tool_call.name for b in content if b.tool_call is not None]
        if calls:  # asked for no tools: a reply that calls one is a plan, not a summary
            raise ProviderError(
                ProviderErrorKind.INVALID_RESPONSE,
                f"the provider answered with a tool call ({', '.join(calls)}) instead of a summary",
                Retryability.PERMANENT,
            )
        summary = (
            "".join(b.text for b in content if b.text is not None).strip()
            or "".join(collector.text).strip()
        )
        if not summary:
            raise ProviderError(
                ProviderErrorKind.INVALID_RESPONSE,
                "the provider returned an empty summary",
                Retryability.RETRYABLE,
            )
        if len(summary) > self.max_summary_chars:
            summary = (
                summary[: self.max_summary_chars].rstrip() + "\n[summary cut to its length limit]"
            )
        replaced_tokens = estimate_messages_tokens(parts.older)
        identity = self.provider.identity()
        header = (
            f"{SUMMARY_MARKER} Summary of {len(parts.older)} earlier message(s) (about {replaced_tokens} tokens), "
            f"written by {identity.provider}/{identity.model} when rho-desk compacted this conversation."
        )
        message = Message.user_text(f"{header}\n\n{summary}")
        return CompactionOutput((*parts.system, message, *parts.recent), usage=collector.usage)

    async def _record(
        self, request: CompactionRequest, collector: _Collector, outcome: RequestOutcome
    ) -> None:
        """The summary request's physical requests, in the ledger (a failure is a diagnostic)."""
        recording = self.recording
        if recording is None:
            return
        from ..core.usage.writer import RequestUsage

        identity = self.provider.identity()
        failed: RequestOutcome = "failed"
        attempts = [(usage, failed) for usage in collector.failed] + [(collector.usage, outcome)]
        for index, (usage, result) in enumerate(attempts, 1):
            event = RequestUsage(
                identity.provider,
                identity.model,
                "compaction",
                result,
                usage,
                session_id=request.session_id,
                parent_session_id=request.parent_session_id,
                run_id=request.run_id,
                step_index=request.step_index,
                attempt_index=index,
                workspace_path=request.workspace_path,
            )
            await asyncio.shield(asyncio.to_thread(recording.record, event))


@dataclass
class OpenedCompactor:
    """A compactor and what must be closed with it."""

    compactor: Compactor
    label: str
    """"local compactor" or "profile NAME (provider/model)"."""
    provider: HttpProvider | None = None
    """The provider that writes summaries (closed by :meth:`aclose`), or ``None``."""

    @property
    def summarizes(self) -> bool:
        """Whether a provider's model writes the summary (else the local digest is used)."""
        return self.provider is not None

    async def aclose(self) -> None:
        provider, self.provider = self.provider, None
        if provider is not None:
            await provider.aclose()


async def open_compactor(
    profile: str | ProviderProfile | None,
    budget: RecentBudget,
    *,
    profiles: ProfileStore | None = None,
    recording: UsageRecording | None = None,
) -> OpenedCompactor:
    """The compactor ``profile`` names, ready to use: ``""`` or ``None`` is the local one.

    The app and ``rho-desk compact`` open their compactor here.

    Args:
        profile: a provider profile, or its name (read from ``profiles`` in a worker thread).
        profiles: a ``ProfileStore`` (default: the user's).
        recording: where a summarizing compactor records its requests (the usage ledger).

    Raises:
        ProfileError: no such profile.
        CredentialsUnavailable: its key cannot be read (MissingApiKey, NoKeyringBackend...).
    """
    from ..core.compaction.manual import ThreadedCompactor
    from .profiles import ProfileStore, open_provider

    if not profile:
        return OpenedCompactor(ThreadedCompactor(budget), "local compactor")
    if isinstance(profile, str):
        store = profiles or ProfileStore()
        profile = await asyncio.to_thread(store.get, profile)
    provider, _ = await open_provider(profile)
    label = f"profile {profile.name} ({profile.identity_provider}/{profile.model})"
    return OpenedCompactor(
        SummarizingCompactor(provider, budget, recording=recording), label, provider
    )
