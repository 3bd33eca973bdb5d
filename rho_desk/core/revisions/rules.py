"""The rules of editing a session's messages, shared by the app's edit dialog and any host.

* :func:`pair_closure`: a tool call and its results stay together: deleting either deletes the
  other, and, through it, everything paired with it;
* :func:`replace_text`: a message with new text. Editing an assistant message drops that
  message's provider-native replay blocks (they were produced for the original text); portable
  fallbacks stay;
* :func:`apply_edits`: a history without some messages and with others replaced;
* :func:`provider_block_counts`: the provider-native blocks a history holds, by identity and kind.

The edits themselves are written as new revisions by :mod:`rho_desk.core.revisions.edits`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import msgspec

from ..errors import InputError
from ..wire import ContentBlock, Message

__all__ = ["apply_edits", "pair_closure", "provider_block_counts", "replace_text"]


def pair_closure(history: Sequence[Message], chosen: Iterable[int]) -> set[int]:
    """``chosen`` plus every message paired with one in it through a tool call id, transitively.

    A message holding tool calls is paired with the results of those calls; a result with the
    message holding its call.
    """
    calls: dict[str, int] = {}
    results: dict[str, list[int]] = {}
    for index, message in enumerate(history):
        for call in message.tool_calls():
            calls.setdefault(call.id, index)
        if message.tool_result is not None:
            results.setdefault(message.tool_result.id, []).append(index)
    out = set(chosen)
    work = list(out)
    while work:
        index = work.pop()
        message = history[index]
        linked: list[int] = []
        for call in message.tool_calls():
            linked.extend(results.get(call.id, ()))
        if message.tool_result is not None and message.tool_result.id in calls:
            linked.append(calls[message.tool_result.id])
        for other in linked:
            if other not in out:
                out.add(other)
                work.append(other)
    return out


def _with_text(blocks: Sequence[ContentBlock], text: str) -> tuple[ContentBlock, ...]:
    """The first text block replaced by ``text``, other text blocks dropped, the rest kept."""
    out: list[ContentBlock] = []
    placed = False
    for block in blocks:
        if block.text is None:
            out.append(block)
        elif not placed:
            out.append(ContentBlock.of_text(text))
            placed = True
    if not placed:
        out.insert(0, ContentBlock.of_text(text))
    return tuple(out)


def replace_text(message: Message, text: str) -> Message:
    """``message`` with its text replaced (assistant messages lose their provider-native blocks).

    Raises:
        InputError: the new text is empty (delete the message instead).
    """
    if not text.strip():
        raise InputError("the new text is empty; delete the message instead")
    if message.system is not None:
        return Message.system_text(text)
    if message.tool_result is not None:
        return Message.result(message.tool_result.id, message.tool_result.ok, text)
    if message.user is not None:
        return Message.user_blocks(_with_text(message.user, text))
    if message.assistant is not None:
        return Message.assistant_blocks(_with_text(message.assistant, text))
    if message.enriched_assistant is not None:
        edited = message.enriched_assistant.retain_portable_context()
        return Message.enriched(
            msgspec.structs.replace(edited, content=_with_text(edited.content, text))
        )
    aborted = message.aborted_assistant
    assert aborted is not None
    kept = tuple(b for b in aborted.provider_context if b.is_portable_fallback)
    return Message.aborted(
        msgspec.structs.replace(
            aborted, content=_with_text(aborted.content, text), provider_context=kept
        )
    )


def apply_edits(
    history: Sequence[Message], deleted: Iterable[int], edited: dict[int, Message]
) -> tuple[Message, ...]:
    """The history without ``deleted`` and with ``edited`` replacing messages, by index."""
    gone = set(deleted)
    return tuple(edited.get(i, m) for i, m in enumerate(history) if i not in gone)


def provider_block_counts(history: Iterable[Message]) -> Counter[tuple[str, str]]:
    """``(identity, kind) -> count`` of the provider-native blocks (fallbacks not counted)."""
    counts: Counter[tuple[str, str]] = Counter()
    for message in history:
        for block in message.provider_context():
            if not block.is_portable_fallback:
                counts[(str(block.identity), block.kind)] += 1
    return counts
