"""The local compactor: keeps the system prompt and a recent budget, digests the rest, offline.

Partitioning (shared with the summarizing compactor in ``rho_desk.providers.compactors``):

* the **system prompt** (the leading ``System`` messages) is kept;
* the **recent** part is the longest run of whole groups at the end of the history that fits the
  ``RecentBudget`` (message tokens by the spec §3 estimate, and/or a message count), where a
  group is one message or a tool call with its results (never split). The last group is
  always kept, even when it alone exceeds the budget, as Rho's ``compaction.rs`` partitions;
* everything between is **older**, and is replaced by one ``User`` message.

The local compactor's replacement is a *digest*: the user requests, the most recent request
verbatim when the kept part has none, files and URLs touched, tools used with call and failure
counts, decisions, open questions, and interrupted turns. URL query strings are dropped
everywhere in the digest (they may hold signed secrets). Every list is capped (newest kept),
and an earlier digest found among the older messages is parsed and folded into the new one, so
repeated compaction stays bounded: the history never exceeds system prompt + 1 + the recent
budget, and the digest never exceeds its caps.

``preview`` computes all of it without changing anything: the compaction dialog and
``rho-desk compact --dry-run`` show what would be removed and kept, the draft digest, and the
token estimates before and after (spec §10.3 figures: no request overhead).
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..provider import CancellationMode
from ..wire.model import ContentBlock, Message
from .api import CompactionOutput, CompactionRequest, Compactor
from .tokens import estimate_messages_tokens

__all__ = [
    "DIGEST_MARKER",
    "SUMMARY_MARKER",
    "CompactionPreview",
    "Digest",
    "LocalCompactor",
    "Partition",
    "RecentBudget",
    "is_compaction_message",
    "partition",
]

DIGEST_MARKER: Final = "[rho-desk digest v1]"
"""First characters of a local digest message."""
SUMMARY_MARKER: Final = "[rho-desk summary v1]"
"""First characters of a summary written by the summarizing compactor."""

# caps: (items kept, characters per item)
REQUESTS: Final = (12, 400)
FILES: Final = (40, 200)
URLS: Final = (20, 200)
TOOLS: Final = 40
DECISIONS: Final = (12, 300)
QUESTIONS: Final = (8, 300)
INTERRUPTIONS: Final = (4, 300)
NOTES: Final = (3, 1500)
LATEST_REQUEST_CHARS: Final = 2000

_PATH_KEYS: Final = frozenset(
    {
        "path",
        "paths",
        "file",
        "files",
        "file_path",
        "filepath",
        "filename",
        "target",
        "source",
        "destination",
        "dir",
        "directory",
        "notebook_path",
    }
)
_PATCH_FILE = re.compile(
    r"^(?:\*\*\* (?:Add|Update|Delete) File: |\+\+\+ b/|--- a/)(\S.*?)\s*$", re.MULTILINE
)
_URL = re.compile(r"https?://[^\s<>\"'`)\]]+", re.IGNORECASE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_DECISION = re.compile(
    r"\b(I(?:'ll| will)|we(?:'ll| will)|let's|decided|decision|chose|choose|going to|plan(?:ned)? to|"
    r"instead|switch(?:ed)? to|use[sd]? |will use|settled on|conclud)",
    re.IGNORECASE,
)
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class RecentBudget:
    """How much recent history a compaction keeps verbatim.

    Args:
        max_tokens: largest message-token estimate (spec §3) of the kept tail; ``None`` for no
            token limit.
        max_messages: largest number of kept messages; ``None`` for no count limit.
    """

    max_tokens: int | None = 8000
    max_messages: int | None = 24

    def __post_init__(self) -> None:
        if self.max_tokens is None and self.max_messages is None:
            raise ValueError("a recent budget needs a token limit, a message limit, or both")
        for value in (self.max_tokens, self.max_messages):
            if value is not None and (isinstance(value, bool) or value < 0):
                raise ValueError("recent budget limits must be non-negative")


@dataclass(frozen=True, slots=True)
class Partition:
    """A history split for compaction; ``system + older + recent`` is the whole history."""

    system: tuple[Message, ...]
    older: tuple[Message, ...]
    recent: tuple[Message, ...]


def _group_end(history: Sequence[Message], index: int) -> int:
    """End (exclusive) of the group that starts at ``index``.

    An assistant message with tool calls and the results that answer them, in order, right
    after it, form one group. When those results are incomplete or out of order the group runs
    to the end of the history, so that nothing separates a call from its results.
    """
    content = history[index].completed_assistant_content()
    calls = (
        [b.tool_call.id for b in content if b.tool_call is not None] if content is not None else []
    )
    if not calls:
        return index + 1
    end = index + 1 + len(calls)
    if end > len(history):
        return len(history)
    for offset, call_id in enumerate(calls):
        result = history[index + 1 + offset].tool_result
        if result is None or result.id != call_id:
            return len(history)
    return end


def partition(history: Sequence[Message], budget: RecentBudget) -> Partition:
    """Split ``history`` into the kept system prompt, the older part, and the kept recent part.

    The part after the system prompt is cut into groups (a message, or a tool call with its
    results). The recent part is the longest run of whole groups at the end that fits the
    budget, and always holds at least the last group, even when that group alone exceeds the
    budget (as Rho partitions: a compaction never digests the newest exchange). Nothing is
    older, so nothing is compacted, when the history has at most one group.
    """
    start = 0
    while start < len(history) and history[start].system is not None:
        start += 1
    groups: list[tuple[int, int]] = []
    index = start
    while index < len(history):
        end = _group_end(history, index)
        groups.append((index, end))
        index = end
    cut = len(history)
    tokens = 0
    for first, end in reversed(groups):
        cost = estimate_messages_tokens(history[first:end])
        if cut < len(history):  # the last group is always kept
            if budget.max_tokens is not None and tokens + cost > budget.max_tokens:
                break
            if budget.max_messages is not None and len(history) - first > budget.max_messages:
                break
        tokens += cost
        cut = first
    if len(groups) <= 1:
        cut = start
    return Partition(tuple(history[:start]), tuple(history[start:cut]), tuple(history[cut:]))


def is_compaction_message(message: Message) -> bool:
    """True for a digest or summary written by a rho-desk compactor."""
    text = _first_text(message)
    return text is not None and (text.startswith(DIGEST_MARKER) or text.startswith(SUMMARY_MARKER))


def _first_text(message: Message) -> str | None:
    if message.user is not None and message.user and message.user[0].text is not None:
        return message.user[0].text
    return None


# --- the digest ----------------------------------------------------------------------------


def _without_url_queries(text: str) -> str:
    # A URL's query may be a signed credential: the digest keeps scheme, host and path only.
    return _URL.sub(
        lambda m: _clean_url(m.group(0)) + m.group(0)[len(m.group(0).rstrip(".,;:!?")) :], text
    )


def _one_line(text: str, limit: int) -> str:
    text = _SPACE.sub(" ", _without_url_queries(text)).strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _clean_url(url: str) -> str:
    url = url.rstrip(".,;:!?")
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return ""
    return urllib.parse.urlunsplit((parts.scheme, host + port, parts.path, "", ""))


def _push(items: list[str], value: str, cap: int, *, unique: bool = False) -> None:
    """Append ``value`` (moved to the end when already present and ``unique``), newest kept."""
    if not value:
        return
    if unique and value in items:
        items.remove(value)
    items.append(value)
    if len(items) > cap:
        del items[: len(items) - cap]


@dataclass
class Digest:
    """What the digest message says, as data (parsed back when folding an earlier digest)."""

    replaced_messages: int = 0
    requests: list[str] = field(default_factory=list)
    latest_request: str | None = None
    files: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    tools: dict[str, list[int]] = field(default_factory=dict)
    """name -> [calls, failures]"""
    decisions: list[str] = field(default_factory=list)
    questions: list[str] = field(default_factory=list)
    interruptions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Earlier provider-written summaries and mid-history instructions."""

    # -- building ---------------------------------------------------------------------------

    def add_request(self, text: str) -> None:
        _push(self.requests, _one_line(text, REQUESTS[1]), REQUESTS[0])

    def add_file(self, path: str) -> None:
        path = path.strip()
        if path and len(path) <= 4096 and "\n" not in path:
            _push(self.files, _one_line(path, FILES[1]), FILES[0], unique=True)

    def add_urls(self, text: str) -> None:
        for match in _URL.finditer(text):
            url = _clean_url(match.group(0))
            if url:
                _push(self.urls, _one_line(url, URLS[1]), URLS[0], unique=True)

    def add_tool(self, name: str, *, calls: int = 0, failures: int = 0) -> None:
        entry = self.tools.setdefault(_one_line(name or "[unnamed]", 80), [0, 0])
        entry[0] += calls
        entry[1] += failures
        if len(self.tools) > TOOLS:
            # keep the most used tools
            ranked = sorted(self.tools.items(), key=lambda kv: kv[1][0], reverse=True)[:TOOLS]
            self.tools = dict(ranked)

    def add_assistant_text(self, text: str) -> None:
        for sentence in _SENTENCE.split(text):
            sentence = sentence.strip(" -*#>\t")
            if len(sentence) < 8:
                continue
            if sentence.endswith("?"):
                _push(self.questions, _one_line(sentence, QUESTIONS[1]), QUESTIONS[0], unique=True)
            elif _DECISION.search(sentence):
                _push(self.decisions, _one_line(sentence, DECISIONS[1]), DECISIONS[0], unique=True)

    def add_note(self, text: str) -> None:
        _push(self.notes, _without_url_queries(text).strip()[: NOTES[1]], NOTES[0])

    def merge(self, later: Digest) -> Digest:
        """This digest followed by ``later`` (later items win when caps are reached)."""
        merged = Digest(replaced_messages=self.replaced_messages + later.replaced_messages)
        for value in (*self.requests, *later.requests):
            _push(merged.requests, value, REQUESTS[0])
        merged.latest_request = later.latest_request or self.latest_request
        for value in (*self.files, *later.files):
            _push(merged.files, value, FILES[0], unique=True)
        for value in (*self.urls, *later.urls):
            _push(merged.urls, value, URLS[0], unique=True)
        for source in (self.tools, later.tools):
            for name, (calls, failures) in source.items():
                merged.add_tool(name, calls=calls, failures=failures)
        for value in (*self.decisions, *later.decisions):
            _push(merged.decisions, value, DECISIONS[0], unique=True)
        for value in (*self.questions, *later.questions):
            _push(merged.questions, value, QUESTIONS[0], unique=True)
        for value in (*self.interruptions, *later.interruptions):
            _push(merged.interruptions, value, INTERRUPTIONS[0])
        for value in (*self.notes, *later.notes):
            _push(merged.notes, value, NOTES[0])
        return merged

    # -- text form --------------------------------------------------------------------------

    def render(self) -> str:
        count = self.replaced_messages
        lines = [
            f"{DIGEST_MARKER} Earlier conversation ({count} message{'s' if count != 1 else ''}) was "
            "compacted into this digest by rho-desk's local compactor. It lists what was extracted "
            "from the removed messages; anything not listed here was dropped."
        ]

        def section(title: str, items: Iterable[str]) -> None:
            items = list(items)
            if items:
                lines.append("")
                lines.append(f"## {title}")
                lines.extend(f"- {item}" for item in items)

        section("User requests", self.requests)
        if self.latest_request:
            lines += ["", "## Most recent request"]
            lines += [f"> {line}" for line in self.latest_request.splitlines() or [""]]
        section("Files touched", self.files)
        section("URLs", self.urls)
        section(
            "Tools used",
            (
                f"{name} ×{calls}" + (f" ({failures} failed)" if failures else "")
                for name, (calls, failures) in self.tools.items()
            ),
        )
        section("Decisions", self.decisions)
        section("Open questions", self.questions)
        section("Interrupted turns", self.interruptions)
        section("Earlier summaries", (_one_line(n, NOTES[1]) for n in self.notes))
        return "\n".join(lines)

    @classmethod
    def parse(cls, text: str) -> Digest | None:
        """The digest a ``render()`` produced, or ``None`` if ``text`` is not one."""
        if not text.startswith(DIGEST_MARKER):
            return None
        digest = cls()
        header, _, rest = text.partition("\n")
        count = re.search(r"\((\d+) messages?\)", header)
        digest.replaced_messages = int(count.group(1)) if count else 0
        current = ""
        quoted: list[str] = []
        for line in rest.splitlines():
            if line.startswith("## "):
                current = line[3:].strip()
                continue
            if current == "Most recent request" and line.startswith(">"):
                quoted.append(line[2:] if line.startswith("> ") else line[1:])
                continue
            if not line.startswith("- "):
                continue
            item = line[2:]
            if current == "User requests":
                digest.requests.append(item)
            elif current == "Files touched":
                digest.files.append(item)
            elif current == "URLs":
                digest.urls.append(item)
            elif current == "Tools used":
                match = re.match(r"^(.*) ×(\d+)(?: \((\d+) failed\))?$", item)
                if match:
                    digest.tools[match.group(1)] = [int(match.group(2)), int(match.group(3) or 0)]
            elif current == "Decisions":
                digest.decisions.append(item)
            elif current == "Open questions":
                digest.questions.append(item)
            elif current == "Interrupted turns":
                digest.interruptions.append(item)
            elif current == "Earlier summaries":
                digest.notes.append(item)
        digest.latest_request = "\n".join(quoted) if quoted else None
        return digest

    def message(self) -> Message:
        return Message.user_text(self.render())


def _files_in(value: Any, key: str | None = None, depth: int = 0) -> Iterable[str]:
    """Path-like values of tool arguments: path keys, and files named in patches."""
    if depth > 6:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _files_in(v, k.lower() if isinstance(k, str) else None, depth + 1)
    elif isinstance(value, list):
        for item in value[:100]:
            yield from _files_in(item, key, depth + 1)
    elif isinstance(value, str):
        if key in _PATH_KEYS and "\n" not in value and 0 < len(value) <= 4096:
            yield value
        elif "\n" in value and ("*** " in value or "+++ " in value):
            yield from (
                m.group(1) for m in _PATCH_FILE.finditer(value) if m.group(1) != "/dev/null"
            )


def _strings_in(value: Any, depth: int = 0) -> Iterable[str]:
    if depth > 6:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings_in(v, depth + 1)
    elif isinstance(value, list):
        for v in value[:100]:
            yield from _strings_in(v, depth + 1)


def _text_of(blocks: Iterable[ContentBlock]) -> str:
    return "\n".join(b.text for b in blocks if b.text is not None)


def build_digest(older: Sequence[Message], recent: Sequence[Message] = ()) -> Digest:
    """The digest of ``older``, with every earlier digest among them folded in (in order)."""
    digest = Digest()
    names: dict[str, str] = {}
    fresh = 0
    last_request: str | None = None
    for message in older:
        if message.user is not None:
            text = _text_of(message.user)
            earlier = Digest.parse(text) if text.startswith(DIGEST_MARKER) else None
            if earlier is not None:
                digest = digest.merge(earlier)
                continue
            fresh += 1
            if text.startswith(SUMMARY_MARKER):
                digest.add_note(text)
                continue
            images = sum(1 for b in message.user if b.image is not None)
            request = text + (f" (+{images} image{'s' if images != 1 else ''})" if images else "")
            if request.strip():
                digest.add_request(request)
                last_request = text
            digest.add_urls(text)
            continue
        fresh += 1
        if message.system is not None:
            digest.add_note(f"Instruction: {message.system}")
        elif message.tool_result is not None:
            result = message.tool_result
            if not result.ok:
                digest.add_tool(names.get(result.id, "[unknown tool]"), failures=1)
        else:
            blocks = message.content
            aborted = message.aborted_assistant
            for block in blocks:
                call = block.tool_call
                if call is None or aborted is not None:
                    continue  # an interrupted reply's calls were streamed, never run: nothing touched
                names[call.id] = call.name
                digest.add_tool(call.name, calls=1)
                for path in _files_in(call.arguments):
                    digest.add_file(path)
                for text in _strings_in(call.arguments):
                    digest.add_urls(text)
            text = _text_of(blocks)
            digest.add_assistant_text(text)
            digest.add_urls(text)
            if aborted is not None:
                partial = [b.tool_call.name for b in blocks if b.tool_call is not None]
                partial += [c.name or "[unnamed]" for c in aborted.tool_calls]
                what = _one_line(text, 200) if text.strip() else "no text"
                extra = f"; partial tool calls: {', '.join(partial)}" if partial else ""
                _push(
                    digest.interruptions,
                    f"interrupted assistant turn ({what}{extra})",
                    INTERRUPTIONS[0],
                )
    digest.replaced_messages += fresh
    # The kept part may have lost the request it answers: quote the newest one in full.
    recent_has_request = any(
        m.user is not None and not is_compaction_message(m) and _text_of(m.user).strip()
        for m in recent
    )
    if recent_has_request:
        digest.latest_request = None
    elif last_request is not None:
        quoted = _without_url_queries(last_request).strip()
        digest.latest_request = (
            quoted
            if len(quoted) <= LATEST_REQUEST_CHARS
            else quoted[: LATEST_REQUEST_CHARS - 1] + "…"
        )
    return digest


# --- the compactor -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompactionPreview:
    """What a compaction would do; nothing is changed by computing it."""

    partition: Partition
    replacement_message: Message | None
    """The digest or summary that replaces ``partition.older`` (``None``: nothing to compact)."""
    previous_messages: int
    current_messages: int
    previous_tokens: int
    current_tokens: int

    @property
    def removed(self) -> tuple[Message, ...]:
        return self.partition.older

    @property
    def kept(self) -> tuple[Message, ...]:
        return (*self.partition.system, *self.partition.recent)

    @property
    def replacement(self) -> tuple[Message, ...]:
        """The complete replacement history."""
        if self.replacement_message is None:
            return (*self.partition.system, *self.partition.older, *self.partition.recent)
        return (*self.partition.system, self.replacement_message, *self.partition.recent)

    @property
    def nothing_to_compact(self) -> bool:
        return self.replacement_message is None

    @property
    def removed_tokens(self) -> int:
        return max(self.previous_tokens - self.current_tokens, 0)

    @property
    def shrinks(self) -> bool:
        """Whether the replacement is smaller than what it replaces (a compaction worth writing)."""
        return not self.nothing_to_compact and self.current_tokens < self.previous_tokens

    def refusal(self, what: str = "the digest") -> str | None:
        """Why this compaction would be refused, or ``None`` when it would be written."""
        if self.nothing_to_compact:
            return (
                "Nothing to compact: every message fits the recent budget (the newest exchange is "
                "always kept), so there is no older part to replace."
            )
        if not self.shrinks:
            return (
                f"This compaction would not shrink the context: {what} is not smaller than the "
                f"{len(self.removed):,} message(s) it replaces ({self.previous_tokens:,} → "
                f"{self.current_tokens:,} estimated tokens). Keep fewer recent messages or tokens."
            )
        return None


def make_preview(
    history: Sequence[Message], parts: Partition, message: Message | None
) -> CompactionPreview:
    """A preview of replacing ``parts.older`` with ``message`` (token figures per spec §10.3)."""
    preview = CompactionPreview(
        parts, message, len(history), 0, estimate_messages_tokens(history), 0
    )
    replacement = preview.replacement
    return CompactionPreview(
        parts,
        message,
        len(history),
        len(replacement),
        preview.previous_tokens,
        estimate_messages_tokens(replacement),
    )


class LocalCompactor(Compactor):
    """Compacts without any network: system prompt + digest of the older part + recent budget.

    Cooperative: it checks the token before and after its (short, synchronous) work.

    Args:
        budget: how much recent history is kept verbatim.
    """

    cancellation_mode = CancellationMode.COOPERATIVE

    def __init__(self, budget: RecentBudget | None = None) -> None:
        self.budget = budget or RecentBudget()

    def __repr__(self) -> str:
        return f"LocalCompactor({self.budget!r})"

    def preview(self, history: Sequence[Message]) -> CompactionPreview:
        """What ``compact`` would remove and keep, the draft digest, and token estimates."""
        parts = partition(history, self.budget)
        if not parts.older:
            return make_preview(history, parts, None)
        return make_preview(history, parts, build_digest(parts.older, parts.recent).message())

    async def compact(self, request: CompactionRequest) -> CompactionOutput:
        request.cancellation.raise_if_cancelled()
        preview = self.preview(request.messages)
        request.cancellation.raise_if_cancelled()
        return CompactionOutput(preview.replacement)
