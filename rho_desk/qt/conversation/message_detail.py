"""The detail pane: one message rendered in full, safely, with its tool calls and results.

Text is Markdown rendered by :mod:`rho_desk.qt.ui.markdown` (no raw HTML, no remote resources,
links only on click). An assistant message shows each tool call with its arguments and the
paired result underneath (each section collapsible); a tool result links back to its call;
images show as thumbnails that open full size in a non-modal viewer; an aborted turn lists
its partial tool calls and usage; provider blocks show their identity, kind, size and whether
they would replay to the current provider. *Raw JSON* shows the message exactly as stored.
Very long content is cut (with a note and a *show all* link) to keep the pane responsive.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Final

import msgspec
from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QImage,
    QKeySequence,
    QPixmap,
    QShortcut,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core.compaction import message_tokens
from ...core.tools.hashline import edit_paths
from ...core.wire import Message, ModelIdentity, ProviderContextBlock, encode_pretty
from ..ui.labels import message_text
from ..ui.markdown import (
    IMAGE_SCHEME,
    SafeTextBrowser,
    decode_data_image,
    escape,
    markdown_css,
    render_markdown,
)
from ..ui.resources import Icon, icon
from ..ui.text import message_time, plural
from ..ui.theme import Theme
from .model import ConversationModel, RowKind, decode_image

__all__ = ["ImageViewer", "MessageDetailView"]

MAX_RENDER_CHARS: Final = 120_000
"""Characters rendered before the pane offers "show all"."""
MAX_RAW_CHARS: Final = 400_000
COLLAPSE_LINES: Final = 24
"""Sections longer than this start collapsed."""

_KIND_TITLES: Final = {
    RowKind.SYSTEM: "System prompt",
    RowKind.USER: "User message",
    RowKind.ASSISTANT: "Assistant message",
    RowKind.ABORTED: "Aborted assistant turn",
    RowKind.TOOL_RESULT: "Tool result",
    RowKind.MARKER: "Compacted context",
}


def _json(value: Any) -> str:
    return msgspec.json.format(msgspec.json.encode(value), indent=2).decode("utf-8", "replace")


def _call_body(arguments: Any) -> tuple[str, str]:
    """``(html, text)`` of a tool call's arguments: Rho's edit as the hashline document it is,
    lines and all, under the files it edits; any other call as indented JSON."""
    document = (
        arguments.get("input") if isinstance(arguments, dict) and len(arguments) == 1 else None
    )
    paths = edit_paths(document) if isinstance(document, str) else []
    if isinstance(document, str) and paths:
        head = f'<p class="muted">Edits {escape(", ".join(paths))} (a hashline document: PUT replaces, CUT deletes lines)</p>'
        return head + f"<pre>{escape(document)}</pre>", document
    text = _json(arguments)
    return f"<pre>{escape(text)}</pre>", text


class ImageViewer(QDialog):
    """A session image at full size (non-modal; Esc closes, Ctrl +/-/0 zoom)."""

    def __init__(self, image: QImage, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setModal(False)
        self.image = image
        self.zoom = 1.0
        self.label = QLabel()
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        area = QScrollArea()
        area.setWidget(self.label)
        area.setWidgetResizable(True)
        caption = QLabel(
            f"{image.width()} × {image.height()} px · Ctrl + / Ctrl − to zoom, Ctrl 0 to reset"
        )
        caption.setProperty("muted", True)
        layout = QVBoxLayout(self)
        layout.addWidget(area, 1)
        layout.addWidget(caption)
        for keys, factor in (("Ctrl++", 1.25), ("Ctrl+=", 1.25), ("Ctrl+-", 0.8), ("Ctrl+0", 0.0)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.activated.connect(functools.partial(self.set_zoom, factor))
        self.set_zoom(0.0)
        self.resize(min(1000, image.width() + 60), min(760, image.height() + 90))

    def set_zoom(self, factor: float) -> None:
        self.zoom = 1.0 if factor == 0.0 else max(0.05, min(16.0, self.zoom * factor))
        size = self.image.size() * self.zoom
        self.label.setPixmap(
            QPixmap.fromImage(self.image).scaled(
                size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
            )
        )


class MessageDetailView(QWidget):
    """Shows one row of a :class:`ConversationModel` in full.

    Signals:
        sig_row_requested(int): the user followed a link to another row (a call, a result).
        sig_link_refused(str): a link with a refused scheme was clicked.
    """

    sig_row_requested = Signal(int)
    """Jump to this row (a tool call's result, or a result's call)."""
    sig_link_refused = Signal(str)
    """A link was clicked whose scheme is not opened (``javascript:``...)."""

    def __init__(
        self,
        theme: Theme,
        parent: QWidget | None = None,
        *,
        open_url: Callable[[QUrl], object] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("MessageDetail")
        self.theme = theme
        self.model: ConversationModel | None = None
        self.row = -1
        self.raw = False
        self.target: ModelIdentity | None = None
        self.find_text = ""
        self._collapsed: dict[str, bool] = {}
        """Sections the user opened or closed (key -> collapsed)."""
        self._rendered: dict[str, bool] = {}
        """How each section of the current rendering looks (key -> collapsed)."""
        self._show_all = False
        self._md_images: list[str] = []

        header = QFrame()
        header.setObjectName("DetailHeader")
        self.title = QLabel("No message selected")
        self.title.setObjectName("PanelTitle")
        self.title.setWordWrap(
            True
        )  # a narrow pane ("Assistant message" beside Raw JSON): two lines, not cut
        self.meta = QLabel("")
        self.meta.setProperty("muted", True)
        self.meta.setWordWrap(True)
        self.meta.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.raw_button = QToolButton()
        self.raw_button.setText("Raw JSON")
        self.raw_button.setCheckable(True)
        self.raw_button.setToolTip("Show the message exactly as stored (Ctrl+J)")
        self.raw_button.toggled.connect(self.set_raw)
        self.copy_button = QToolButton()
        self.copy_button.setIcon(icon(Icon.COPY, theme.text))
        self.copy_button.setToolTip("Copy the message text (Ctrl+Shift+C)")
        self.copy_button.setAccessibleName("Copy the message text")
        self.copy_button.clicked.connect(self.copy_text)
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title, 1)
        top.addWidget(self.raw_button)
        top.addWidget(self.copy_button)
        head = QVBoxLayout(header)
        head.setContentsMargins(12, 8, 12, 8)
        head.setSpacing(2)
        head.addLayout(top)
        head.addWidget(self.meta)

        self.browser = SafeTextBrowser(open_url=open_url)
        self.browser.setObjectName("DetailBrowser")
        self.browser.setAccessibleName("Message details")
        self.browser.setFrameShape(QFrame.Shape.NoFrame)
        self.browser.setMinimumWidth(200)
        self.browser.sig_internal_link.connect(self._on_browser_internal_link)
        self.browser.sig_link_refused.connect(self.sig_link_refused)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(header)
        layout.addWidget(self.browser, 1)
        self._apply_css()

    # -- public API ---------------------------------------------------------------------------------

    def set_model(self, model: ConversationModel) -> None:
        self.model = model
        self.show_row(-1)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.copy_button.setIcon(icon(Icon.COPY, theme.text))
        self._apply_css()
        self.refresh()

    def set_raw(self, on: bool) -> None:
        if self.raw == on:
            return
        self.raw = on
        self.raw_button.setChecked(on)
        self.refresh()

    def set_find_text(self, text: str) -> None:
        self.find_text = text
        self._highlight()

    def show_row(self, row: int) -> None:
        """Render ``row`` of the model (``-1``: nothing)."""
        if row != self.row:
            self._collapsed = {}
            self._show_all = False
        self.row = row
        self.refresh()

    def refresh(self) -> None:
        model = self.model
        if model is None or not 0 <= self.row < model.rowCount():
            self.title.setText("No message selected")
            self.meta.setText("Select a message (J / K move through them).")
            self.browser.images = {}
            self.browser.setHtml("")
            return
        message = model.message(self.row)
        kind = RowKind(model.rows.kinds[self.row])
        self.title.setText(_KIND_TITLES[kind])
        self.meta.setText(self._meta(message, kind))
        scroll = self.browser.verticalScrollBar().value()
        self.browser.images = {}
        self._md_images = []
        body = self._raw_html(message) if self.raw else self._html(message, kind)
        self.browser.setHtml(body)
        self.browser.verticalScrollBar().setValue(scroll)
        self._highlight()

    def copy_text(self) -> None:
        if self.model is not None and 0 <= self.row < self.model.rowCount():
            message = self.model.message(self.row)
            text = encode_pretty(message).decode("utf-8") if self.raw else message_text(message)
            QGuiApplication.clipboard().setText(text)

    def html(self) -> str:
        """The rendered HTML (tests)."""
        return self.browser.toHtml()

    # -- rendering ----------------------------------------------------------------------------------

    def _apply_css(self) -> None:
        self.browser.document().setDefaultStyleSheet(markdown_css(self.theme))

    def _meta(self, message: Message, kind: RowKind) -> str:
        assert self.model is not None
        parts = [self._position(kind)]
        when = message_time(self.model.timestamp(self.row), "%Y-%m-%d %H:%M:%S")
        if when:
            parts.append(when)
        parts.append(f"≈{message_tokens(message):,} tokens")
        detail = message.enriched_assistant or message.aborted_assistant
        if detail is not None and detail.provenance is not None:
            parts.append(str(detail.provenance))
        if self.row >= self.model.rows.resume_cut:
            parts.append("not resumed (after an incomplete tool turn)")
        return " · ".join(parts)

    def _position(self, kind: RowKind) -> str:
        """ "message 7 of 30": counted as the header, the session list and ``rho-desk show``
        count (a compaction marker is a row, not a message; nor is an unfinished tool turn,
        which is not resumed, in the display history)."""
        assert self.model is not None
        rows = self.model.rows
        kinds = rows.kinds
        marker = RowKind.MARKER.value
        if kind is RowKind.MARKER:
            return "compaction marker"
        end = rows.resume_cut if rows.timestamps is not None else len(kinds)
        total = end - kinds.count(marker, 0, end)
        ordinal = self.row + 1 - kinds.count(marker, 0, self.row)
        return f"message {ordinal:,} of {total:,}" if self.row < end else f"message {ordinal:,}"

    def _section(self, key: str, title: str, body: str, lines: int) -> str:
        collapsed = self._collapsed.get(key, lines > COLLAPSE_LINES)
        self._rendered[key] = collapsed
        arrow = "▸" if collapsed else "▾"
        head = f'<p class="section"><a href="rho:toggle/{key}">{arrow} {title}</a></p>'
        return head if collapsed else head + body

    def _text_html(self, text: str) -> str:
        cut = not self._show_all and len(text) > MAX_RENDER_CHARS
        shown = text[:MAX_RENDER_CHARS] if cut else text
        env: dict[str, Any] = {}
        out = render_markdown(shown, env)
        for i, url in enumerate(env.get("images", [])):
            image = decode_data_image(url)
            if image is not None:
                self.browser.images[f"{IMAGE_SCHEME}:md/{i}"] = image
        self._md_images = list(env.get("images", []))
        if cut:
            out += (
                f'<p class="warn">Showing the first {MAX_RENDER_CHARS:,} of {len(text):,} characters. '
                '<a href="rho:all">Show all</a></p>'
            )
        return out

    def _pre(self, text: str) -> str:
        cut = not self._show_all and len(text) > MAX_RENDER_CHARS
        shown = text[:MAX_RENDER_CHARS] if cut else text
        out = f"<pre>{escape(shown)}</pre>"
        if cut:
            out += (
                f'<p class="warn">Showing the first {MAX_RENDER_CHARS:,} of {len(text):,} characters. '
                '<a href="rho:all">Show all</a></p>'
            )
        return out

    def _html(self, message: Message, kind: RowKind) -> str:
        assert self.model is not None
        rows = self.model.rows
        out: list[str] = []
        if self.row >= rows.resume_cut:
            out.append(
                '<p class="warn">Rho would not resume this message: the history is cut before '
                "an assistant turn whose tool calls were not all answered.</p>"
            )
        if kind is RowKind.TOOL_RESULT:
            result = message.tool_result
            assert result is not None
            link = rows.link_of_result(self.row)
            status = '<span class="ok">ok</span>' if result.ok else '<span class="err">error</span>'
            if link is not None:
                out.append(
                    f"<p>{status} · result of <b>{escape(link.name)}</b> "
                    f'(<code>{escape(result.id)}</code>) · <a href="rho:row/{link.call_row}">go to the call</a></p>'
                )
            else:
                out.append(
                    f"<p>{status} · call id <code>{escape(result.id)}</code> · "
                    '<span class="warn">no earlier tool call has this id</span></p>'
                )
            out.append(self._pre(result.content))
            return "".join(out)
        if kind is RowKind.SYSTEM:
            out.append(self._text_html(message.system or ""))
            return "".join(out)
        text_parts = []
        images = 0
        for block in message.content:
            if block.text is not None:
                text_parts.append(block.text)
            elif block.image is not None:
                if text_parts:
                    out.append(self._text_html("\n\n".join(text_parts)))
                    text_parts = []
                key = f"{IMAGE_SCHEME}:msg/{images}"
                image = decode_image(block.image.data)
                if image is not None:
                    self.browser.images[key] = image.scaledToWidth(
                        min(360, image.width()), Qt.TransformationMode.SmoothTransformation
                    )
                    out.append(
                        f'<p><a href="rho:image/{images}"><img src="{key}"></a><br>'
                        f'<span class="muted">{escape(block.image.mime_type)} · {image.width()}×{image.height()} · '
                        f"{len(block.image.data) * 3 // 4:,} bytes · click to enlarge</span></p>"
                    )
                else:
                    out.append(
                        f'<p class="warn">[an image that does not decode: {escape(block.image.mime_type)}]</p>'
                    )
                images += 1
        if text_parts:
            out.append(self._text_html("\n\n".join(text_parts)))
        detail = message.enriched_assistant or message.aborted_assistant
        if detail is not None and detail.reasoning_summary:
            out.append(
                self._section(
                    "reasoning",
                    "Reasoning summary",
                    f"<blockquote>{self._text_html(detail.reasoning_summary)}</blockquote>",
                    detail.reasoning_summary.count("\n") + 1,
                )
            )
        for link in rows.links(self.row):
            call = [b.tool_call for b in message.content if b.tool_call is not None][link.index]
            body, args = _call_body(call.arguments)
            out.append(
                self._section(
                    f"call{link.index}",
                    f"Tool call · {escape(link.name)} · <code>{escape(link.call_id)}</code>",
                    body,
                    args.count("\n") + 1,
                )
            )
            if link.result_row is None:
                out.append('<p class="warn">No result was recorded for this call.</p>')
            else:
                res = rows.messages[link.result_row].tool_result
                assert res is not None
                status = (
                    '<span class="ok">ok</span>' if res.ok else '<span class="err">error</span>'
                )
                head = f'Result · {status} · {plural(res.content.count(chr(10)) + 1, "line")} · <a href="rho:row/{link.result_row}">row {link.result_row + 1}</a>'
                out.append(
                    self._section(
                        f"result{link.index}",
                        head,
                        self._pre(res.content),
                        res.content.count("\n") + 1,
                    )
                )
        aborted = message.aborted_assistant
        if aborted is not None:
            done = {c.id for c in message.tool_calls()}
            rows_html = "".join(
                f"<tr><td>{escape(pc.name or '—')}</td><td><code>{escape(pc.id or '—')}</code></td>"
                f"<td>{'complete' if pc.id in done else '<span class=warn>partial</span>'}</td>"
                f"<td><code>{escape(pc.arguments[:400])}</code></td></tr>"
                for pc in aborted.tool_calls
            )
            table = (
                f'<table class="grid"><tr><th>tool</th><th>id</th><th>state</th><th>arguments as streamed</th></tr>{rows_html}</table>'
                if aborted.tool_calls
                else '<p class="muted">No tool call had started.</p>'
            )
            out.append(
                self._section(
                    "partial",
                    f"Interrupted: {len(aborted.tool_calls)} streamed tool calls",
                    table,
                    0,
                )
            )
            usage = {
                k: v for k, v in msgspec.structs.asdict(aborted.usage).items() if v is not None
            }
            if usage:
                kv = "".join(
                    f"<tr><td class=muted>{escape(k)}</td><td>{v:,}</td></tr>"
                    for k, v in usage.items()
                )
                out.append(
                    self._section(
                        "usage",
                        "Usage of the interrupted attempt",
                        f'<table class="kv">{kv}</table>',
                        0,
                    )
                )
        if detail is not None and detail.provider_context:
            out.append(self._provider_html(detail.provider_context))
        return "".join(out) or '<p class="muted">(empty message)</p>'

    def _provider_html(self, blocks: Sequence[ProviderContextBlock]) -> str:
        rows = []
        fallback = None
        for block in blocks:
            if block.is_portable_fallback:
                fallback = block.data
                continue
            size = len(msgspec.json.encode(block.data))
            if self.target is None:
                replay = '<span class="muted">no provider chosen</span>'
            elif block.is_replayable_to(self.target):
                replay = '<span class="ok">yes</span>'
            else:
                replay = '<span class="err">no</span> (omitted on handoff)'
            rows.append(
                f"<tr><td>{escape(str(block.identity))}</td><td><code>{escape(block.kind)}</code></td>"
                f"<td>{'' if block.position is None else block.position}</td><td>{size:,}</td><td>{replay}</td></tr>"
            )
        target = escape(str(self.target)) if self.target is not None else "the current provider"
        body = (
            f'<p class="muted">Opaque provider context: replayed only to the exact identity that produced it. '
            f"Checked against {target}.</p>"
        )
        if rows:
            body += (
                '<table class="grid"><tr><th>identity</th><th>kind</th><th>position</th><th>bytes</th>'
                f"<th>replays</th></tr>{''.join(rows)}</table>"
            )
        if fallback is not None:
            body += f'<p class="muted">Portable fallback text:</p>{self._text_html(str(fallback))}'
        return self._section("provider", f"Provider blocks ({len(rows)})", body, 0)

    def _raw_html(self, message: Message) -> str:
        data = encode_pretty(message).decode("utf-8", "replace")
        if len(data) > MAX_RAW_CHARS and not self._show_all:
            return (
                f"<pre>{escape(data[:MAX_RAW_CHARS])}</pre><p class='warn'>Showing the first "
                f"{MAX_RAW_CHARS:,} of {len(data):,} characters. <a href='rho:all'>Show all</a></p>"
            )
        return f"<pre>{escape(data)}</pre>"

    # -- links and find --------------------------------------------------------------------------

    def _on_browser_internal_link(self, path: str) -> None:
        what, _, arg = path.partition("/")
        if what == "toggle":
            self._collapsed[arg] = not self._rendered.get(arg, False)
            self.refresh()
        elif what == "row" and arg.isdigit():
            self.sig_row_requested.emit(int(arg))
        elif what == "all":
            self._show_all = True
            self.refresh()
        elif what == "image" and arg.isdigit():
            self._open_image(int(arg))
        elif what == "mdimage" and arg.isdigit():
            n = int(arg)
            if n < len(self._md_images):
                image = decode_data_image(self._md_images[n])
                if image is not None:
                    ImageViewer(image, "Image in the message", self.window()).show()

    def _open_image(self, number: int) -> None:
        if self.model is None:
            return
        blocks = [b.image for b in self.model.message(self.row).content if b.image is not None]
        if number < len(blocks):
            image = decode_image(blocks[number].data)
            if image is not None:
                ImageViewer(
                    image, f"Image {number + 1} · {blocks[number].mime_type}", self.window()
                ).show()

    def _highlight(self) -> None:
        selections: list[QTextEdit.ExtraSelection] = []
        needle = self.find_text
        if needle:
            doc = self.browser.document()
            fmt = QTextCharFormat()
            fmt.setBackground(QColor(self.theme.find))
            cursor = QTextCursor(doc)
            while len(selections) < 500:
                cursor = doc.find(needle, cursor, QTextDocument.FindFlag(0))
                if cursor.isNull():
                    break
                sel = QTextEdit.ExtraSelection()
                sel.cursor = cursor
                sel.format = fmt
                selections.append(sel)
            if selections:
                self.browser.setTextCursor(QTextCursor(selections[0].cursor))
                self.browser.ensureCursorVisible()
        self.browser.setExtraSelections(selections)
