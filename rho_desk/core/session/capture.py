"""Stream capture: what one provider call has produced so far, for an ``AbortedAssistant``.

Upstream keeps a capture per provider call (spec/engine.md §8.5) so that a cancelled or failed
call can leave its partial output in history (§9.3). The rules reproduced here, exactly:

* Text merge: two flags, ``merge`` and ``seal``. An ``OutputDelta`` extends the last Text block
  when ``merge`` is set and the last block is Text; otherwise it starts a new block and sets
  ``merge = not seal; seal = False``. Reasoning, summary and tool-call deltas clear both flags;
  a stored provider-context block clears ``merge`` and sets ``seal`` (so the first text after
  it forms a one-delta block: open question #12, replicated).
* Partial tool calls, keyed by stream index: id/name overwrite (even with ``""``), argument
  fragments append. A brace-depth detector reports completion once, when the first ``{`` is
  balanced again (strings and escapes respected); the whole argument text is then parsed and
  kept if it is a JSON object. A call with non-empty id and name and parsed arguments is
  materialized as a ToolCall block in stream order; later id/name changes update it.
* Raw reasoning is never kept: it does not even reach the capture.

Text is accumulated in lists of fragments and joined only when an ``AbortedAssistant`` is built,
so capturing N deltas costs O(N) (a 256 KiB argument streamed in 256-byte deltas stays linear).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from ..wire.model import (
    AbortedAssistant,
    ContentBlock,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
    ToolCall,
)

__all__ = ["StreamCapture"]

_EMPTY_USAGE = ModelUsage()
# The only characters the completion detector cares about; everything else is skipped in C.
_STRUCTURAL = re.compile(r'[{}\[\]"\\]')


class _PartialCall:
    """One streamed tool call: raw argument fragments plus the completion detector's state."""

    __slots__ = (
        "depth",
        "done",
        "escape_at",
        "fragments",
        "id",
        "in_string",
        "length",
        "name",
        "parsed",
        "position",
        "started",
    )

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: str | None = None
        self.fragments: list[str] = []
        self.length = 0
        """Characters appended so far (global offset of the next fragment)."""
        self.started = False
        self.done = False
        self.depth = 0
        self.in_string = False
        self.escape_at = -1
        """Global offset of a character escaped by a backslash inside a string."""
        self.parsed: dict[str, Any] | None = None
        self.position: int | None = None
        """Index of the materialized ToolCall in the capture's content, once materialized."""

    def append(self, text: str) -> None:
        base = self.length
        self.fragments.append(text)
        self.length += len(text)
        if self.done or not text:
            return
        if self._scan(text, base):
            self.done = True
            try:
                value = msgspec.json.decode("".join(self.fragments))
            except (msgspec.DecodeError, RecursionError):
                return
            if isinstance(value, dict):
                self.parsed = value

    def _scan(self, text: str, base: int) -> bool:
        """Feed ``text`` to the detector; True when depth returned to zero (once)."""
        for match in _STRUCTURAL.finditer(text):
            char = match.group()
            offset = base + match.start()
            if not self.started:
                if char == "{":
                    self.started = True
                    self.depth = 1
                continue
            if self.in_string:
                if offset == self.escape_at:
                    continue
                if char == "\\":
                    self.escape_at = offset + 1
                elif char == '"':
                    self.in_string = False
                continue
            if char == '"':
                self.in_string = True
            elif char in "{[":
                self.depth += 1
            elif char in "}]":
                self.depth -= 1
                if self.depth == 0:
                    return True
        return False

    def partial(self) -> PartialToolCall:
        return PartialToolCall(id=self.id, name=self.name, arguments="".join(self.fragments))


_MODEL_FILES = (".gguf", ".ggml", ".bin", ".safetensors", ".pt", ".onnx")


def model_file_name(name: str) -> str:
    """``name``, or only its file name when it is a path (``/models/qwen.gguf``, ``~/m/qwen.gguf``,
    ``C:\\models\\qwen.gguf``, ``models/qwen.gguf``): what a server's model name may be. A name
    like ``Qwen/Qwen2.5-Coder-1.5B`` (an organisation and a model) is kept."""
    rooted = name.startswith(("/", "~", "./", "../", "\\")) or (
        len(name) > 2 and name[1] == ":" and name[2] in "/\\"
    )
    if rooted or (("/" in name or "\\" in name) and name.lower().endswith(_MODEL_FILES)):
        return name.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    return name


class StreamCapture:
    """The partial output of one provider call (content, summary, context, tool calls, usage)."""

    __slots__ = (
        "_content",
        "_merge",
        "_seal",
        "context",
        "identity",
        "limited",
        "partials",
        "provenance",
        "summary",
        "usage",
    )

    def __init__(self, identity: ModelIdentity) -> None:
        self.identity = identity
        """The identity the request was made for; provider-native blocks are tagged with it, so
        that the next request to the same target replays them."""
        self.provenance = identity
        """Who wrote the reply: the identity, with the model the server names when it names one."""
        # Each entry is either a list of text fragments (one Text block) or a ContentBlock.
        self._content: list[list[str] | ContentBlock] = []
        self._merge = False
        self._seal = False
        self.summary: list[str] = []
        self.context: list[ProviderContextBlock] = []
        self.partials: dict[int, _PartialCall] = {}
        self.usage = _EMPTY_USAGE
        self.limited: str | None = None
        """Where the server cut the reply at its output limit, in words (``OutputLimited``)."""

    # -- updates, one per ModelEvent kind -------------------------------------------------

    def served(self, model: str) -> None:
        """The server names the model that answered: the reply's provenance records it. A name
        that is a path on the server's machine (llama-server names a model by the GGUF file it
        loaded) is recorded by its file name: a session may leave the machine, its paths not."""
        model = model_file_name(model)
        if model and model != self.identity.model:
            self.provenance = ModelIdentity(self.identity.provider, self.identity.api, model)

    def text(self, text: str) -> None:
        content = self._content
        if self._merge and content and type(content[-1]) is list:
            content[-1].append(text)
        else:
            content.append([text])
            self._merge = not self._seal
            self._seal = False

    def reasoning(self) -> None:
        """Raw reasoning arrived: it is not kept, but it still breaks text merging."""
        self._merge = self._seal = False

    def reasoning_summary(self, text: str) -> None:
        self.summary.append(text)
        self._merge = self._seal = False

    def tool_call(
        self, index: int, id: str | None, name: str | None, arguments: str
    ) -> tuple[str | None, str | None]:
        """Record a fragment; returns the (id, name) known for this index so far."""
        self._merge = self._seal = False
        slot = self.partials.get(index)
        if slot is None:
            slot = self.partials[index] = _PartialCall()
        if id is not None:
            slot.id = id
        if name is not None:
            slot.name = name
        slot.append(arguments)
        if slot.id and slot.name:
            if slot.position is not None:
                old = self._content[slot.position]
                assert isinstance(old, ContentBlock) and old.tool_call is not None
                if old.tool_call.id != slot.id or old.tool_call.name != slot.name:
                    call = ToolCall(slot.id, slot.name, old.tool_call.arguments)
                    self._content[slot.position] = ContentBlock(tool_call=call)
            elif slot.parsed is not None:
                slot.position = len(self._content)
                self._content.append(
                    ContentBlock(tool_call=ToolCall(slot.id, slot.name, slot.parsed))
                )
        return slot.id, slot.name

    def provider_context(self, kind: str, position: int | None, data: Any) -> None:
        self.context.append(
            ProviderContextBlock(identity=self.identity, kind=kind, position=position, data=data)
        )
        self._merge = False
        self._seal = True

    def add_usage(self, usage: ModelUsage) -> None:
        self.usage = self.usage.saturating_add(usage)

    def reset_usage(self) -> None:
        """A provider-internal request failed: its usage belongs to that failed attempt."""
        self.usage = _EMPTY_USAGE

    # -- results --------------------------------------------------------------------------

    def summary_text(self) -> str | None:
        text = "".join(self.summary)
        return text or None

    def content(self) -> tuple[ContentBlock, ...]:
        return tuple(
            ContentBlock(text="".join(entry)) if type(entry) is list else entry  # type: ignore[misc]
            for entry in self._content
        )

    def is_empty(self) -> bool:
        """Nothing worth an AbortedAssistant (raw reasoning alone does not count)."""
        return (
            not self._content
            and not self.summary_text()
            and not self.context
            and not self.partials
            and self.usage.is_empty
        )

    def aborted_assistant(self) -> AbortedAssistant | None:
        """The message a cancellation commit appends, or ``None`` when nothing was captured."""
        if self.is_empty():
            return None
        return AbortedAssistant(
            content=self.content(),
            reasoning="",
            reasoning_summary=self.summary_text(),
            provider_context=tuple(self.context),
            tool_calls=tuple(self.partials[i].partial() for i in sorted(self.partials)),
            usage=self.usage,
        )
