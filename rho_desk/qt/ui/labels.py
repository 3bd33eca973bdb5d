"""Words for messages and figures, shared by the tables and views: a message's kind
(:data:`KIND_LABELS`), the one line saying what it is (:func:`describe`), its shown text
(:func:`message_text`), and sizes and counts (:func:`human_bytes`, :func:`human_count`).
"""

from __future__ import annotations

from ...core.wire import Message, MessageKind

__all__ = ["KIND_LABELS", "describe", "human_bytes", "human_count", "message_text"]

KIND_LABELS = {
    MessageKind.SYSTEM: "System",
    MessageKind.USER: "User",
    MessageKind.ASSISTANT: "Assistant",
    MessageKind.ENRICHED_ASSISTANT: "Assistant",
    MessageKind.ABORTED_ASSISTANT: "Aborted",
    MessageKind.TOOL_RESULT: "Tool result",
}


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


def message_text(message: Message) -> str:
    """The text a row shows for ``message`` (text blocks joined, tool output, system text)."""
    if message.system is not None:
        return message.system
    if message.tool_result is not None:
        return message.tool_result.content
    return "\n\n".join(b.text for b in message.content if b.text is not None)
