"""Human transcripts of a (redacted) snapshot: Markdown, and one self-contained HTML file.

They are rendered from the snapshot *after* class selection and secret redaction, so they carry
the same selection and the same redaction by construction (and are audited like JSON exports).
Shapes follow upstream's transcript export (spec/export.md §2.3), adapted to a snapshot (model
history, no timestamps, no workspace):

* Markdown: ``# title``, a metadata list, ``## System`` / ``## You`` / ``## Rho`` sections, text
  verbatim, images as data-URI images, tool calls as ``### `name` (ok|error|no result)`` with
  fenced pretty JSON arguments and fenced output; fences are one backtick longer than the
  longest backtick run of their body (at least three);
* HTML: no script, no external resource (a Content-Security-Policy forbids them too), inline
  CSS with light and dark themes, everything escaped; the page title is the session's title;
  user text verbatim, assistant text from Markdown (tables render as tables) with raw HTML shown
  as text and Markdown images shown as text (they would load remote resources); images as
  ``data:`` URIs (present only when ``images`` were included); tool calls as collapsible cards,
  expanded when the output has at most 24 lines.

The title is the snapshot's ``title`` metadata; the export puts the title Rho's index gives the
session there first (``with_title``), so it is selected and redacted like the other metadata.

Reasoning summaries are shown (collapsed in HTML) when present; opaque provider context is only
counted, never shown, as upstream does; its portable text stand-in is shown.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Final

from ... import __version__
from ..stores.rho_files.views import MARKER_PREFIX, user_text
from ..wire.model import ContentBlock, Message, ProviderContextBlock, ToolCall, ToolResult
from ..wire.snapshot import SessionSnapshot

__all__ = ["render_html", "render_markdown"]

_IMAGE_MIME: Final = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_B64: Final = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_PREVIEW_KEYS: Final = (
    "command",
    "file_path",
    "path",
    "pattern",
    "query",
    "url",
    "description",
    "prompt",
)
_BACKTICKS: Final = re.compile(r"`+")


def _fence(body: str, lang: str = "") -> str:
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{lang}\n{body}\n{ticks}"


def _inline_code(text: str) -> str:
    longest = max((len(m.group()) for m in _BACKTICKS.finditer(text)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _title(snapshot: SessionSnapshot) -> str:
    """The heading: the session's title when the export keeps it (it goes with the metadata
    class), else the first line of the first prompt it keeps (already in the export), else
    "rho session"."""
    from ..compaction.local import DIGEST_MARKER, SUMMARY_MARKER
    from ._classify import is_placeholder

    title = " ".join(snapshot.metadata.get("title", "").split())
    if title and not is_placeholder(title):
        return title
    for message in snapshot.history:
        text = user_text(message)
        if text is None or is_placeholder(text) or text.startswith((DIGEST_MARKER, SUMMARY_MARKER)):
            continue  # excluded, or a compaction's summary standing in for older prompts
        first = " ".join(text.splitlines()[0].split())
        if first:
            return first if len(first) <= 80 else first[:79].rstrip() + "…"
    return "rho session"


def _counted(snapshot: SessionSnapshot, history: str) -> str:
    """How many messages the export holds, counted as the window counts that history: the model
    context's every message; the conversation as shown without its system instructions and
    compaction markers (the header, the session list and ``rho-desk show`` give that count)."""
    if history != "display":
        return f"{len(snapshot.history)}"
    system = sum(1 for m in snapshot.history if m.system is not None)
    markers = sum(1 for m in snapshot.history if _is_marker(m))
    extras = (["the system instructions"] if system else []) + (
        [f"{markers} compaction marker{'s' if markers != 1 else ''}"] if markers else []
    )
    count = len(snapshot.history) - system - markers
    return f"{count} (plus {' and '.join(extras)})" if extras else f"{count}"


def _is_marker(message: Message) -> bool:
    blocks = message.assistant
    return (
        blocks is not None and len(blocks) == 1 and (blocks[0].text or "").startswith(MARKER_PREFIX)
    )


def source_date() -> datetime | None:
    """``SOURCE_DATE_EPOCH``'s time, if set (the reproducible-builds convention), else ``None``
    (now): the time a transcript says it was exported and a receipt says it was signed, so that
    two exports of the same choices are the same bytes."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    return datetime.fromtimestamp(int(epoch), UTC) if epoch.isdigit() else None


def _stamp(now: datetime | None) -> str:
    return (now or source_date() or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M:%S UTC")


def _pretty(arguments: Any) -> str:
    return json.dumps(arguments, indent=2, ensure_ascii=False)


def _image_ok(block: ContentBlock) -> bool:
    image = block.image
    return (
        image is not None
        and image.mime_type in _IMAGE_MIME
        and _B64.fullmatch(image.data) is not None
    )


def _results(history: tuple[Message, ...]) -> tuple[dict[str, ToolResult], set[str]]:
    """The first result per call id, and the ids answered by a completed assistant's calls."""
    first: dict[str, ToolResult] = {}
    for message in history:
        if message.tool_result is not None:
            first.setdefault(message.tool_result.id, message.tool_result)
    completed: set[str] = set()
    for message in history:
        content = message.completed_assistant_content()
        if content:
            completed.update(b.tool_call.id for b in content if b.tool_call is not None)
    return first, completed


def _status(result: ToolResult | None) -> str:
    if result is None:
        return "no result"
    return "ok" if result.ok else "error"


def _speaker(message: Message) -> str | None:
    if message.system is not None:
        return "System"
    if message.user is not None:
        return "You"
    if message.tool_result is not None:
        return None
    return "Rho"


def _summary_and_context(message: Message) -> tuple[str | None, tuple[ProviderContextBlock, ...]]:
    if message.enriched_assistant is not None:
        return (
            message.enriched_assistant.reasoning_summary,
            message.enriched_assistant.provider_context,
        )
    if message.aborted_assistant is not None:
        return (
            message.aborted_assistant.reasoning_summary,
            message.aborted_assistant.provider_context,
        )
    return None, ()


def _context_note(blocks: tuple[ProviderContextBlock, ...]) -> tuple[str | None, list[str]]:
    """A line counting opaque blocks, and the portable fallback texts."""
    opaque = [b for b in blocks if not b.is_portable_fallback]
    texts = [b.data for b in blocks if b.is_portable_fallback]
    note = None
    if opaque:
        kinds = ", ".join(sorted({b.kind for b in opaque}))
        note = f"provider context: {len(opaque)} opaque block{'s' if len(opaque) != 1 else ''} ({kinds}), not shown"
    return note, texts


# --- Markdown --------------------------------------------------------------------------------


def render_markdown(
    snapshot: SessionSnapshot, *, now: datetime | None = None, history: str = "model"
) -> bytes:
    """The snapshot as a Markdown transcript (UTF-8, trailing newline); ``history`` says what
    ``snapshot`` carries (``model`` or ``display``), for the count of its messages."""
    first, completed = _results(snapshot.history)
    out: list[str] = [f"# {_title(snapshot)}", ""]
    out.append(f"- session: {_inline_code(snapshot.session_id)}")
    out.append(f"- revision: {snapshot.revision}")
    out.append(f"- messages: {_counted(snapshot, history)}")
    out.append(f"- exported: {_stamp(now)} by rho-desk v{__version__}")
    excluded = snapshot.metadata.get("rho_desk.export.excluded")
    if excluded:
        out.append(f"- excluded: {excluded.replace(',', ', ')}")
    out.append("")
    for message in snapshot.history:
        out.extend(_md_message(message, first, completed))
    return ("\n".join(out).rstrip("\n") + "\n").encode("utf-8", "surrogatepass")


def _md_call(call: ToolCall, result: ToolResult | None) -> Iterator[str]:
    yield f"### {_inline_code(call.name)} ({_status(result)})"
    yield ""
    yield "**arguments**"
    yield ""
    yield _fence(_pretty(call.arguments), "json")
    yield ""
    if result is not None and result.content:
        yield "**output**"
        yield ""
        yield _fence(result.content)
    else:
        yield "_(no output)_"
    yield ""


def _md_message(
    message: Message, first: dict[str, ToolResult], completed: set[str]
) -> Iterator[str]:
    if message.system is not None:
        yield "## System"
        yield ""
        yield _fence(message.system)
        yield ""
        return
    if message.tool_result is not None:
        result = message.tool_result
        if result.id in completed:
            return  # shown inside its call
        yield "### tool result"
        yield ""
        yield f"- status: {'ok' if result.ok else 'error'}"
        yield ""
        yield _fence(result.content) if result.content else "_(no output)_"
        yield ""
        return
    yield f"## {_speaker(message)}"
    yield ""
    in_user = message.user is not None
    for block in message.content:
        if block.text is not None:
            yield block.text
            yield ""
        elif block.image is not None:
            if _image_ok(block):
                yield f"![attached image](data:{block.image.mime_type};base64,{block.image.data})"
            else:
                yield "_(image of an unsupported type, not shown)_"
            yield ""
        elif block.tool_call is not None:
            answer = None if in_user else first.get(block.tool_call.id)
            yield from _md_call(block.tool_call, answer)
    summary, context = _summary_and_context(message)
    if summary:
        yield "**reasoning summary**"
        yield ""
        yield _fence(summary)
        yield ""
    note, texts = _context_note(context)
    if note:
        yield f"_{note}_"
        yield ""
    for text in texts:
        yield "**provider context (portable text)**"
        yield ""
        yield _fence(text)
        yield ""
    if message.aborted_assistant is not None:
        yield "_Operation aborted_"
        yield ""


# --- HTML ------------------------------------------------------------------------------------

_CSS: Final = """
:root{color-scheme:light dark;--bg:#fbfbfa;--fg:#1d1d1f;--muted:#6b6b70;--card:#fff;--line:#dedee3;
--you:#2459a8;--rho:#2d7a4b;--err:#b3261e;--code:#f2f2f5}
@media (prefers-color-scheme:dark){:root{--bg:#161618;--fg:#e8e8ea;--muted:#9a9aa1;--card:#1f1f23;
--line:#34343a;--you:#7aa7ea;--rho:#6fc792;--err:#f2867c;--code:#26262b}}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
main{max-width:56rem;margin:0 auto;padding:2rem 1.25rem 4rem}
h1{font-size:1.5rem;margin:0 0 .75rem}
ul.meta{list-style:none;padding:0;margin:0 0 2rem;color:var(--muted);font-size:.9rem}
h2{font-size:1rem;margin:1.75rem 0 .5rem;text-transform:lowercase}
h2.you{color:var(--you)}h2.rho{color:var(--rho)}
.entry{margin:.5rem 0}
.plain{white-space:pre-wrap;overflow-wrap:anywhere}
pre{background:var(--code);padding:.6rem .8rem;border-radius:6px;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere}
code{font:13px/1.45 ui-monospace,"SF Mono",Menlo,Consolas,monospace}
details{background:var(--card);border:1px solid var(--line);border-radius:8px;margin:.6rem 0;padding:.2rem .8rem}
summary{cursor:pointer;padding:.35rem 0}
.status{font-size:.8rem;padding:0 .4rem;border-radius:4px;border:1px solid var(--line);margin-left:.4rem}
.status.error{color:var(--err)}.preview{color:var(--muted);margin-left:.4rem}
.note{color:var(--muted);font-style:italic}
img{max-width:100%;border:1px solid var(--line);border-radius:6px}
table{border-collapse:collapse;margin:.6rem 0;display:block;overflow-x:auto}
th,td{border:1px solid var(--line);padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:var(--code)}
"""

_CSP: Final = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"


_STATUS_CLASS: Final = {"ok": "ok", "error": "error", "no result": "none"}


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _preview(arguments: Any) -> str:
    text: str | None = None
    if isinstance(arguments, dict):
        for key in _PREVIEW_KEYS:
            if isinstance(arguments.get(key), str):
                text = arguments[key]
                break
        if text is None and len(arguments) == 1:
            only = next(iter(arguments.values()))
            if isinstance(only, str):
                text = only
    if text is None:
        text = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:79] + "…"


class _Markdown:
    """Assistant Markdown to HTML: raw HTML escaped, images as text, links inert until clicked."""

    def __init__(self) -> None:
        from markdown_it import MarkdownIt

        md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        md.enable("table")  # GitHub-style tables, as models write them
        md.disable("image")  # an <img> would fetch a remote resource on open

        def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
            tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
            return renderer.renderToken(tokens, idx, options, env)  # type: ignore[no-any-return]

        md.add_render_rule("link_open", link_open)
        self._md = md

    def render(self, text: str) -> str:
        return self._md.render(text)  # type: ignore[no-any-return]


def render_html(
    snapshot: SessionSnapshot, *, now: datetime | None = None, history: str = "model"
) -> bytes:
    """The snapshot as one self-contained HTML file (``history`` as for :func:`render_markdown`)."""
    markdown = _Markdown()
    first, completed = _results(snapshot.history)
    title = _esc(_title(snapshot))
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title><style>{_CSS}</style></head>",
        "<body><main>",
        f"<h1>{title}</h1>",
        '<ul class="meta">',
        f"<li>session <code>{_esc(snapshot.session_id)}</code></li>",
        f"<li>revision {snapshot.revision}</li>",
        f"<li>messages {_esc(_counted(snapshot, history))}</li>",
        f"<li>exported {_esc(_stamp(now))} by rho-desk v{_esc(__version__)}</li>",
    ]
    excluded = snapshot.metadata.get("rho_desk.export.excluded")
    if excluded:
        out.append(f"<li>excluded {_esc(excluded.replace(',', ', '))}</li>")
    out.append("</ul>")
    previous: str | None = None
    for message in snapshot.history:
        speaker = _speaker(message)
        if speaker is not None and speaker != "System" and speaker != previous:
            css = "you" if speaker == "You" else "rho"
            out.append(f'<h2 class="{css}">{"you" if speaker == "You" else "rho"}</h2>')
        if speaker is not None:
            previous = speaker
        out.extend(_html_message(message, first, completed, markdown))
    out.append("</main></body></html>")
    return ("\n".join(out) + "\n").encode("utf-8", "surrogatepass")


def _html_call(call: ToolCall, result: ToolResult | None) -> str:
    status = _status(result)
    output = result.content if result is not None else ""
    lines = output.count("\n") + 1 if output else 0
    opened = " open" if lines <= 24 else ""
    body = (
        f"<pre><code>{_esc(output)}</code></pre>" if output else '<p class="note">(no output)</p>'
    )
    return (
        f'<details class="tool"{opened}><summary><code>{_esc(call.name)}</code>'
        f'<span class="preview">{_esc(_preview(call.arguments))}</span>'
        f'<span class="status {_STATUS_CLASS[status]}">{status}</span></summary>'
        f"<pre><code>{_esc(_pretty(call.arguments))}</code></pre>{body}</details>"
    )


def _html_message(
    message: Message, first: dict[str, ToolResult], completed: set[str], markdown: _Markdown
) -> Iterator[str]:
    if message.system is not None:
        yield f'<details class="system"><summary>System prompt</summary><pre>{_esc(message.system)}</pre></details>'
        return
    if message.tool_result is not None:
        result = message.tool_result
        if result.id in completed:
            return
        status = "ok" if result.ok else "error"
        body = (
            f"<pre><code>{_esc(result.content)}</code></pre>"
            if result.content
            else '<p class="note">(no output)</p>'
        )
        yield f'<details class="tool" open><summary>tool result<span class="status {status}">{status}</span></summary>{body}</details>'
        return
    in_user = message.user is not None
    for block in message.content:
        if block.text is not None:
            if in_user:
                yield f'<div class="entry plain">{_esc(block.text)}</div>'
            else:
                yield f'<div class="entry">{markdown.render(block.text)}</div>'
        elif block.image is not None:
            if _image_ok(block):
                image = block.image
                yield f'<div class="entry"><img alt="attached image" src="data:{_esc(image.mime_type)};base64,{image.data}"></div>'
            else:
                yield '<p class="note">(image of an unsupported type, not shown)</p>'
        elif block.tool_call is not None:
            yield _html_call(block.tool_call, None if in_user else first.get(block.tool_call.id))
    summary, context = _summary_and_context(message)
    if summary:
        yield f'<details><summary>reasoning summary</summary><div class="plain">{_esc(summary)}</div></details>'
    note, texts = _context_note(context)
    if note:
        yield f'<p class="note">{_esc(note)}</p>'
    for text in texts:
        yield f'<details><summary>provider context (portable text)</summary><div class="plain">{_esc(text)}</div></details>'
    if message.aborted_assistant is not None:
        yield '<p class="note">Operation aborted</p>'
