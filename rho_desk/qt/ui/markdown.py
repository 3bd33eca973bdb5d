"""Safe rendering of untrusted transcript text: Markdown to a QTextBrowser HTML subset.

A transcript is untrusted input (architecture.md): whatever a model or a tool wrote must not
load anything remote, run anything, or follow a link without the user's click. So:

* ``markdown-it-py`` renders CommonMark (plus tables and strikethrough) with **raw HTML
  disabled**: ``<script>``, ``<img>``, ``<iframe>`` in the text come out as escaped text;
* links keep only ``http``, ``https`` and ``mailto`` targets (markdown-it already refuses
  ``javascript:``, ``vbscript:``, ``file:`` and non-image ``data:`` URLs); everything else is
  rendered as plain text;
* Markdown images render only when they are ``data:`` images embedded in the session (PNG,
  JPEG, GIF, WebP); any other image becomes a visible "[image not loaded: …]" note;
* :class:`SafeTextBrowser` never opens links by itself (``setOpenLinks(False)``): a click on an
  ``http(s)``/``mailto`` link goes to ``QDesktopServices`` (the explicit user action), and
  ``loadResource`` serves only the session's own images, never a file or a URL.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Final

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices, QImage, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from .theme import Theme

__all__ = [
    "ALLOWED_LINK_SCHEMES",
    "SafeTextBrowser",
    "escape",
    "markdown_css",
    "plain_text",
    "render_markdown",
]

ALLOWED_LINK_SCHEMES: Final = frozenset({"http", "https", "mailto"})
INTERNAL_SCHEME: Final = "rho"
"""``rho:`` links are the app's own (toggle a section, open an image, jump to a row)."""
IMAGE_SCHEME: Final = "rho-image"
_DATA_IMAGE: Final = re.compile(
    r"^data:(image/(?:png|jpeg|gif|webp));base64,([A-Za-z0-9+/=\s]+)$", re.IGNORECASE
)
MAX_DATA_IMAGE_BYTES: Final = 16 * 1024 * 1024


def escape(text: str) -> str:
    return html.escape(text, quote=True)


def _scheme(url: str) -> str:
    head, sep, _ = url.partition(":")
    return (
        head.strip().lower()
        if sep and re.fullmatch(r"[A-Za-z][A-Za-z0-9+.-]*", head.strip())
        else ""
    )


class _SafeRenderer(RendererHTML):
    """markdown-it's HTML renderer with our rules for links, images and code."""

    def link_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        if _scheme(href) not in ALLOWED_LINK_SCHEMES:
            token.meta["blocked"] = True
            return '<span class="blocked-link">'
        return f'<a href="{escape(href)}" title="{escape(href)}">'

    def link_close(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        # find the matching opener (same nesting level, searching backwards)
        level = tokens[idx].level
        for j in range(idx - 1, -1, -1):
            if tokens[j].type == "link_open" and tokens[j].level == level:
                return "</span>" if tokens[j].meta.get("blocked") else "</a>"
        return "</a>"

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = self.renderInlineAsText(token.children or [], options, env)
        if _DATA_IMAGE.match(src) and len(src) <= MAX_DATA_IMAGE_BYTES * 4 // 3 + 64:
            images: list[str] = env.setdefault("images", [])
            images.append(src)
            key = f"{IMAGE_SCHEME}:md/{len(images) - 1}"
            return f'<a href="rho:mdimage/{len(images) - 1}"><img src="{key}" alt="{escape(alt)}" width="240"></a>'
        shown = src if len(src) <= 120 else src[:117] + "…"
        return f'<span class="blocked">[image not loaded: {escape(alt or "untitled")} — {escape(shown)}]</span>'

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        token = tokens[idx]
        info = token.info.strip().split()[0] if token.info.strip() else ""
        label = f'<div class="code-label">{escape(info)}</div>' if info else ""
        return f'{label}<pre class="code">{escape(token.content.rstrip(chr(10)))}</pre>\n'

    def code_block(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
    ) -> str:
        return f'<pre class="code">{escape(tokens[idx].content.rstrip(chr(10)))}</pre>\n'


def _validate_link(url: str) -> bool:
    # Accept what markdown-it accepts, then our renderer narrows links to http(s)/mailto.
    lowered = url.strip().lower()
    if lowered.startswith(("javascript:", "vbscript:", "file:")):
        return False
    if lowered.startswith("data:"):
        return bool(_DATA_IMAGE.match(url.strip()))
    return True


_MD: Final = MarkdownIt(
    "commonmark",
    {"html": False, "linkify": False, "typographer": False, "breaks": True},
    renderer_cls=_SafeRenderer,
).enable(["table", "strikethrough"])
_MD.validateLink = _validate_link  # type: ignore[method-assign]


def render_markdown(text: str, env: dict[str, Any] | None = None) -> str:
    """``text`` as safe HTML (raw HTML escaped, links and images filtered, see the module doc).

    Args:
        env: collects ``images`` (the data URLs of embedded Markdown images, by number).
    """
    html: str = _MD.render(text, env if env is not None else {})
    return html


_PLAIN_MD: Final = MarkdownIt(
    "commonmark", {"html": False, "linkify": False, "typographer": False}
).enable(["table", "strikethrough"])
_SPAN_START: Final = "\ue000"
_SPAN_END: Final = "\ue001"
"""Private-use characters that carry the highlight spans through the Markdown parse."""
_SPACES: Final = re.compile(r"\s+")


def _inline_text(tokens: Sequence[Token], out: list[str]) -> None:
    for token in tokens:
        if token.type in ("text", "code_inline"):
            out.append(token.content)
        elif token.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif token.type == "image":
            _inline_text(token.children or [], out)
        # emphasis, strikethrough and link openers/closers carry no words of their own


_CUT_CLOSER = re.compile(r"(?<=\S)`(?=[\s.,;:!?)\]]|$)")


def _close_cut_code_span(text: str) -> str:
    """A fragment (a snippet, an excerpt) may begin inside a code span: its first backtick then
    closes a span opened before the cut and would pair with the next one, turning the words
    between into code. With an odd number of backticks and the first one shaped like a closer
    (after a word, before a space or punctuation), it becomes a space (offsets stay put)."""
    if text.count("`") % 2 == 0:
        return text
    first = text.find("`")
    match = _CUT_CLOSER.match(text, first)
    return text[:first] + " " + text[first + 1 :] if match else text


@lru_cache(maxsize=512)
def plain_text(
    text: str, spans: tuple[tuple[int, int], ...] = ()
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``text`` with its Markdown syntax removed, on one line, and ``spans`` moved along with it.

    Emphasis, strikethrough and code markers, heading and list markers, quotes, fences and link
    targets go; the words stay (a link keeps its text, an image its description). ``spans`` are
    ``(start, end)`` offsets into ``text`` (search highlights); the result gives them as offsets
    into the plain text. A piece the parser cannot keep a span through (a match inside a link
    target, say) comes back as it was, whitespace folded, with its spans unchanged.
    """
    clean = _close_cut_code_span(text.replace(_SPAN_START, "\ufffd").replace(_SPAN_END, "\ufffd"))
    events = sorted([(s, 1, _SPAN_START) for s, _ in spans] + [(e, 0, _SPAN_END) for _, e in spans])
    pieces: list[str] = []
    at = 0
    for position, _order, mark in events:
        pieces += [clean[at:position], mark]
        at = position
    marked = "".join(pieces) + clean[at:]
    out: list[str] = []
    for token in _PLAIN_MD.parse(marked):
        if token.type == "inline":
            _inline_text(token.children or [], out)
        elif token.type in ("fence", "code_block"):
            out.append(token.content)
        elif token.nesting == -1 or token.type == "hr":
            out.append(" ")  # the end of a block: a paragraph, a heading, a list item
    flat = _SPACES.sub(" ", "".join(out)).strip()
    plain: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    width = 0
    for ch in flat:
        if ch == _SPAN_START:
            starts.append(width)
        elif ch == _SPAN_END:
            ends.append(width)
        else:
            plain.append(ch)
            width += 1
    if len(starts) != len(spans) or len(ends) != len(spans):
        return text.replace("\n", " "), spans
    return "".join(plain), tuple(zip(starts, ends, strict=True))


def markdown_css(theme: Theme) -> str:
    """The style sheet of rendered Markdown (a ``QTextDocument``'s default style sheet)."""
    return f"""
    body {{ color: {theme.text}; }}
    h1, h2, h3 {{ margin-top: 10px; margin-bottom: 4px; }}
    p {{ margin-top: 4px; margin-bottom: 6px; }}
    pre {{ font-family: 'DejaVu Sans Mono'; font-size: 8.8pt; background: {theme.code}; padding: 6px; }}
    code {{ font-family: 'DejaVu Sans Mono'; background: {theme.code}; }}
    a {{ color: {theme.accent}; text-decoration: none; }}
    .muted {{ color: {theme.muted}; }}
    .blocked, .blocked-link {{ color: {theme.warning}; }}
    .code-label {{ color: {theme.muted}; font-size: 8pt; margin-top: 6px; }}
    .section {{ color: {theme.muted}; font-weight: 600; margin-top: 12px; }}
    .ok {{ color: {theme.success}; font-weight: 600; }}
    .err {{ color: {theme.danger}; font-weight: 600; }}
    .warn {{ color: {theme.warning}; font-weight: 600; }}
    table.kv td {{ padding: 1px 10px 1px 0; }}
    table.grid {{ border-collapse: collapse; }}
    table.grid td, table.grid th {{ border: 1px solid {theme.border}; padding: 3px 6px; }}
    blockquote {{ color: {theme.muted}; margin-left: 10px; }}
    """


def decode_data_image(url: str) -> QImage | None:
    """A ``data:image/...;base64,...`` URL as an image (``None`` if not one, or invalid)."""
    match = _DATA_IMAGE.match(url.strip())
    if match is None:
        return None
    try:
        raw = base64.b64decode("".join(match[2].split()), validate=True)
    except (binascii.Error, ValueError):
        return None
    if len(raw) > MAX_DATA_IMAGE_BYTES:
        return None
    image = QImage()
    return image if image.loadFromData(raw) else None


class SafeTextBrowser(QTextBrowser):
    """A ``QTextBrowser`` that loads nothing it was not given and opens links only on click.

    Signals:
        sig_internal_link(str): an app link (``rho:...``) was clicked; carries its path.
        sig_link_refused(str): a link with another scheme was clicked (and not opened).

    Args:
        open_url: what opens an allowed link (default ``QDesktopServices.openUrl``; tests
            pass a recorder).
    """

    sig_internal_link = Signal(str)
    """An app link (``rho:<path>``) was clicked; carries ``<path>``."""
    sig_link_refused = Signal(str)
    """A link whose scheme is not allowed was clicked; carries the URL."""

    def __init__(
        self, parent: QWidget | None = None, *, open_url: Callable[[QUrl], object] | None = None
    ) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setReadOnly(True)
        self.setSearchPaths([])
        self._open_url = open_url or QDesktopServices.openUrl
        self.images: dict[str, QImage] = {}
        """Images the current HTML may show, by ``rho-image:`` key."""
        self.anchorClicked.connect(self._on_anchor_clicked)

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        """Only the session's own images; never a file, never the network."""
        if kind != QTextDocument.ResourceType.ImageResource:
            return None
        url = QUrl(name) if isinstance(name, str) else name
        text = url.toString()
        if url.scheme() == IMAGE_SCHEME:
            return self.images.get(text)
        if url.scheme() == "data":
            return decode_data_image(text)
        return None

    def _on_anchor_clicked(self, url: QUrl) -> None:
        scheme = url.scheme().lower()
        if scheme == INTERNAL_SCHEME:
            self.sig_internal_link.emit(url.path())
            return
        if scheme in ALLOWED_LINK_SCHEMES:
            self._open_url(url)
            return
        self.sig_link_refused.emit(url.toString())
