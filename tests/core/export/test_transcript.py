"""Markdown and HTML transcripts: upstream's shapes, self-contained, escaped, same selection."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from rho_desk.core.export import (
    ContentClass,
    Selection,
    export_snapshot,
    render_html,
    render_markdown,
)
from rho_desk.core.export._transcript import _fence
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message
from rho_desk.core.wire.snapshot import SessionSnapshot

from .builders import IDENTITY, PNG, canary, canary_snapshot

NOW = datetime(2026, 8, 22, 12, 0, tzinfo=UTC)
KEY = b"\x03" * 32


def _snapshot(*messages: Message) -> SessionSnapshot:
    return SessionSnapshot.new("s-1", 2, messages, IDENTITY, metadata={"title": "Fix   the\nbuild"})


def test_fences_are_longer_than_any_backtick_run() -> None:
    assert _fence("plain") == "```\nplain\n```"
    assert _fence("has ```` four", "json").startswith("`````json\n")


def test_markdown_shape() -> None:
    source = _snapshot(
        Message.system_text("be brief"),
        Message.user_text("list the files"),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_text("Running."),
                    ContentBlock.of_tool_call("c1", "bash", {"command": "ls"}),
                ),
                provenance=IDENTITY,
                reasoning_summary="think",
            )
        ),
        Message.result("c1", True, "a.txt\nb.txt"),
        Message.result("zz", False, "orphan"),
    )
    md = render_markdown(source, now=NOW).decode()
    assert md.startswith(
        "# Fix the build\n\n- session: `s-1`\n- revision: 2\n- messages: 5\n- exported: 2026-08-22 12:00:00 UTC by rho-desk v"
    )
    assert "## System\n\n```\nbe brief\n```" in md
    assert "## You\n\nlist the files\n" in md
    assert (
        '### `bash` (ok)\n\n**arguments**\n\n```json\n{\n  "command": "ls"\n}\n```\n\n**output**\n\n```\na.txt\nb.txt\n```'
        in md
    )
    assert "### tool result\n\n- status: error\n\n```\norphan\n```" in md
    assert md.count("a.txt") == 1  # a matched result is shown inside its call only
    assert "**reasoning summary**" in md


def test_html_is_self_contained_and_escaped() -> None:
    source = _snapshot(
        Message.user_text('<script>alert(1)</script> & "quotes"'),
        Message.user_blocks(
            [ContentBlock.of_image(PNG, "image/png"), ContentBlock.of_image("AAAA", "text/html")]
        ),
        Message.assistant_text(
            "**bold** <img src=x onerror=alert(1)> ![pixel](https://tracker.example/p.png) [docs](https://example.com)"
            " [bad](javascript:alert(1))"
        ),
    )
    page = render_html(source, now=NOW).decode()
    assert page.startswith("<!DOCTYPE html>")
    assert "<script" not in page.replace("&lt;script&gt;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;" in page
    assert "<strong>bold</strong>" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    srcs = re.findall(r'src="([^"]*)"', page)
    assert srcs == [
        f"data:image/png;base64,{PNG}"
    ]  # the text/html "image" and the remote one are not loaded
    assert "tracker.example" in page and '<img alt="pixel"' not in page
    assert 'href="https://example.com" rel="noopener noreferrer nofollow"' in page
    assert "javascript:" not in page.split("</style>", 1)[1].replace(
        "[bad](javascript:alert(1))", ""
    )
    assert "default-src 'none'" in page and "<link" not in page and "@import" not in page


def test_tool_cards_open_for_short_output_only() -> None:
    long_output = "\n".join(f"line {i}" for i in range(30))
    source = _snapshot(
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_tool_call("a", "bash", {"command": "short"}),
                    ContentBlock.of_tool_call("b", "bash", {"command": "long " + "x" * 100}),
                )
            )
        ),
        Message.result("a", True, "one"),
        Message.result("b", True, long_output),
    )
    page = render_html(source, now=NOW).decode()
    cards = re.findall(
        r'<details class="tool"( open)?><summary><code>bash</code><span class="preview">([^<]*)</span>',
        page,
    )
    assert cards[0] == (" open", "short") and cards[1][0] == ""
    assert cards[1][1].endswith("…") and len(cards[1][1]) == 80


def test_transcripts_follow_the_selection() -> None:
    source = canary_snapshot()
    for fmt in ("markdown", "html"):
        without = export_snapshot(
            source, Selection.excluding([ContentClass.IMAGES, ContentClass.USER]), key=KEY, fmt=fmt
        )
        text = without.data.decode()
        assert PNG not in text and "<img" not in text and canary("user_text") not in text
        assert "[images excluded: image/png, 1.0 KB]" in text
        everything = export_snapshot(source, Selection.everything(), key=KEY, fmt=fmt).data.decode()
        assert PNG in everything and canary("user_text") in everything
        assert canary("context_enriched") not in everything  # opaque context is never shown
        assert canary("context_fallback") in everything  # its portable text is


def test_a_transcript_made_under_source_date_epoch_says_that_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Reproducible output: with SOURCE_DATE_EPOCH set, the 'exported' line of either transcript
    gives that time (as the receipt's signing time does), so the same choices make the same bytes
    a second later; without it, the time of the export."""
    source = _snapshot(Message.user_text("list the files"))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    assert b"exported: 2026-01-01 00:00:00 UTC" in render_markdown(source)
    assert b"exported 2026-01-01 00:00:00 UTC" in render_html(source)
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert f"exported: {datetime.now(UTC):%Y-%m-%d}".encode() in render_markdown(source)
