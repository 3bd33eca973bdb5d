"""One count of messages and bytes everywhere: the browser, the window and ``rho-desk show``."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt

from rho_desk.qt.ui.text import size_text

from ..cli.helpers_files import rho_desk
from .conftest import until
from .helpers import v4_session


def test_the_list_the_header_and_show_agree(make_window, run, tmp_path) -> None:
    home = tmp_path / "rho"
    path = v4_session(home)  # its active path holds a compaction: a marker row in the list
    context = make_window(home=home)
    window = context.window
    run(until(lambda: window.browser.summary_for(path) is not None))
    summary = window.browser.summary_for(path)
    assert summary is not None
    window.commands.open_path(path)
    run(until(lambda: context.document.path == path and window.conversation.bar.counts.text()))
    rows = window.conversation.model.rowCount()
    shown = window.conversation.bar.counts.text()
    assert shown == f"{summary.message_count:,} messages"
    assert rows > summary.message_count  # the marker is a row, not a message
    assert window.status_path.text().endswith(f"· {size_text(summary.file_size)}")
    out = rho_desk("show", path).stdout
    assert re.search(rf"\b{summary.message_count} display messages\b", out), out


def test_the_detail_pane_the_export_and_the_header_count_alike(make_window, run, tmp_path) -> None:
    """The detail pane says "message N of <the header's count>" (the compaction marker is a row,
    not a message), the Markdown and HTML exports give the same count, the header counts the
    compactions of the active revision as its card does, and the Revisions tab's count says it
    counts the model context."""
    from rho_desk.core.export import read_export_source, render_html, render_markdown
    from rho_desk.qt.conversation.model import RowKind
    from rho_desk.qt.revisions.tree_model import COL_MESSAGES

    home = tmp_path / "rho"
    path = v4_session(home)
    context = make_window(home=home, open_file=path)
    window = context.window
    run(until(lambda: window.browser.summary_for(path) is not None))
    summary = window.browser.summary_for(path)
    view = window.conversation
    kinds = view.model.rows.kinds
    marker = kinds.index(RowKind.MARKER)
    view.select_row(view.model.rowCount() - 1)
    assert view.detail.meta.text().startswith(
        f"message {summary.message_count} of {summary.message_count} ·"
    )
    view.select_row(marker)
    assert view.detail.meta.text().startswith("compaction marker")
    view.select_row(marker + 1)
    assert view.detail.meta.text().startswith(f"message {marker + 1} of {summary.message_count} ·")
    source = read_export_source(path, None, "display")
    counted = f"{summary.message_count} (plus the system instructions and 1 compaction marker)"
    assert (
        f"\n- messages: {counted}\n" in render_markdown(source.snapshot, history="display").decode()
    )
    assert (
        f"<li>messages {counted}</li>" in render_html(source.snapshot, history="display").decode()
    )
    assert summary.compaction_count == 1 and "· 1 compaction" in window.header.facts.text()
    header = window.revisions.model.headerData(COL_MESSAGES, Qt.Orientation.Horizontal)
    assert header == "Model messages"


def test_an_undone_compaction_is_not_counted_in_the_header(make_window, run, tmp_path) -> None:
    home = tmp_path / "rho"
    path = v4_session(home)
    with open(
        path, "ab"
    ) as handle:  # the compaction undone: the revision before it is active again
        handle.write(b'{"type":"set_leaf","timestamp":"1767100010","target_id":"n1"}\n')
    context = make_window(home=home, open_file=path)
    run(until(lambda: context.window.browser.summary_for(path) is not None))
    summary = context.window.browser.summary_for(path)
    assert summary.compaction_count == 0
    assert "compaction" not in context.window.header.facts.text()


def test_a_conversation_published_as_shown_counts_as_its_session(
    make_window, run, tmp_path
) -> None:
    """A display export (what the Team tab opens) holds the compaction marker as a plain message:
    the header still counts the session's messages, as the detail pane does, and the status bar
    gives the document's size, not 0 B."""
    home = tmp_path / "rho"
    path = v4_session(home)
    document = tmp_path / "shown.json"
    rho_desk("export", "--include", "all", "--history", "display", "-o", document, path)
    context = make_window(home=home)
    window = context.window
    run(until(lambda: window.browser.summary_for(path) is not None))
    summary = window.browser.summary_for(path)
    window.commands.open_path(document)
    view = window.conversation
    run(until(lambda: context.document.path == document and view.bar.counts.text()))
    assert context.document.is_snapshot_document
    assert view.bar.counts.text() == f"{summary.message_count:,} messages"
    view.select_row(view.model.rowCount() - 1)
    assert view.detail.meta.text().startswith(
        f"message {summary.message_count} of {summary.message_count} ·"
    )
    assert window.status_path.text().endswith(f"· {size_text(document.stat().st_size)}")


def test_a_document_outside_the_library_is_titled_as_the_list_titles_it(
    make_window, run, tmp_path
) -> None:
    """A session opened from the Team tab or as an export is not in the local list: the header
    names it as the lists would (its own title, else its first prompt), not by its id."""
    home = tmp_path / "rho"
    path = v4_session(home)
    context = make_window(home=home)
    run(until(lambda: context.window.browser.summary_for(path) is not None))
    first = context.window.browser.summary_for(path).first_user_message.strip().splitlines()[0]
    document = tmp_path / "untitled.json"
    assert rho_desk("export", "--exclude", "metadata", "-o", document, path).returncode == 0
    context.window.commands.open_path(document)
    run(until(lambda: context.document.path == document and not context.document.loading))
    assert context.document.is_snapshot_document
    assert context.window.header.title.text() == first
