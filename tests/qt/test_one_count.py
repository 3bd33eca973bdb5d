"""One count of messages and bytes everywhere: the browser, the window and ``rho-desk show``."""

from __future__ import annotations

import re

from rho_desk.qt.views.text import size_text

from ..cli.helpers_files import rho_desk
from .conftest import settle
from .helpers import v4_session


def test_the_list_the_header_and_show_agree(make_window, run, tmp_path) -> None:
    home = tmp_path / "rho"
    path = v4_session(home)  # its active path holds a compaction: a marker row in the list
    context = make_window(home=home)
    window = context.window
    run(settle(context.bridge))
    summary = window.browser.summary_for(path)
    assert summary is not None
    window.commands.open_path(path)
    run(settle(context.bridge))
    rows = window.conversation.model.rowCount()
    shown = window.conversation.bar.counts.text()
    assert shown == f"{summary.message_count:,} messages"
    assert rows > summary.message_count  # the marker is a row, not a message
    assert window.status_path.text().endswith(f"· {size_text(summary.file_size)}")
    out = rho_desk("show", path).stdout
    assert re.search(rf"\b{summary.message_count} display messages\b", out), out
