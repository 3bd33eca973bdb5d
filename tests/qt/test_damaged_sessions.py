"""Damaged, torn, truncated and foreign files, an empty folder, and the trash: what the app says.

A damaged session opens read-only up to its last good revision, under a notice naming the line,
and Repair writes a copy, opens it and shows the report; a torn tail gets a notice; an empty
transcript or a file that is not a session never leaves "Loading…" up; an empty folder says
where rho-desk looked; deleted sessions come back from the trash into Rho's index.

``RHO_DESK_SCREENSHOTS=docs/screenshots`` saves the damaged-session notice and the repair report.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from rho_desk.core.stores.index import RhoIndex
from rho_desk.core.stores.rho_files import read_session
from rho_desk.qt.recovery.view import RepairReportDialog, TrashDialog

from ..cli.helpers_files import rho_desk
from .conftest import idle, until
from .helpers import v3_session


def _shot(widget: object, name: str) -> None:
    folder = os.environ.get("RHO_DESK_SCREENSHOTS")
    if folder:
        widget.grab().save(str(Path(folder) / f"{name}.png"))  # type: ignore[attr-defined]


def damaged(home: Path) -> Path:
    """A version-3 session of six lines (header, snapshot, four deltas) whose line 4 is garbage."""
    path = v3_session(home, turns=5, cwd="/home/maya/src/payments-api")
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = (
        b'{"type":"snapshot_delta","timestamp":"1767000003","delta":{"base_revision":\x01}}\n'
    )
    path.write_bytes(b"".join(lines))
    return path


def test_a_damaged_session_opens_read_only_and_repair_opens_the_result(
    make_window, run, tmp_path
) -> None:
    home = tmp_path / "rho"
    path = damaged(home)
    context = make_window(home=home)
    window = context.window
    window.commands.open_path(path)
    # the conversation's rows are built off the GUI thread after the load: wait for them too
    run(
        until(
            lambda: (
                context.document.path == path
                and not context.document.loading
                and window.conversation.model.rowCount() > 0
            )
        )
    )
    document = context.document
    assert document.is_open and document.path == path
    assert document.damage is not None and document.damage.line == 4
    assert document.tree.active_leaf.revision == 2  # the last good revision
    assert window.conversation.model.rowCount() > 0
    notice = window.notice
    assert notice.isVisible() and notice.level == "error"
    assert "damaged at line 4" in notice.text.text() and "read-only" in notice.text.text()
    assert notice.repair_button.isVisible()
    assert not window.app_actions["session.compact"].isEnabled()  # nothing may be written
    assert not window.app_actions["session.edit"].isEnabled()
    _shot(window, "damaged-session-notice")
    notice.repair_button.click()
    repaired = path.with_name("session.repaired.jsonl")
    # the report opens as the repaired copy is being opened: wait for both
    run(
        until(
            lambda: (
                isinstance(window.commands.dialog, RepairReportDialog)
                and context.document.path == repaired
                and not context.document.loading
            )
        )
    )
    report = window.commands.dialog
    assert isinstance(report, RepairReportDialog) and report.isVisible()
    assert "first bad line 4" in report.body.toPlainText()
    _shot(report, "repair-report")
    assert document.path == repaired and document.damage is None
    assert not notice.isVisible()
    assert window.app_actions["session.compact"].isEnabled()
    assert rho_desk("check", repaired).returncode == 0
    assert path.read_bytes().count(b"\n") == 6  # the original is untouched
    report.close()


def test_a_damaged_session_is_listed_and_opens_from_the_browser(make_window, run, tmp_path) -> None:
    home = tmp_path / "rho"
    good = v3_session(home, cwd="/work/good")
    path = damaged(home)
    context = make_window(home=home)
    browser = context.window.browser
    run(until(lambda: browser.model.rowCount() == 2))
    paths = [s.path for s in browser.model.summaries()]
    assert paths == [str(good), str(path)]  # readable ones first, the damaged one last
    row = browser.model.data(browser.model.index(1))
    assert row == "⚠ Damaged at line 4", row
    assert "1 cannot be read" in browser.footer.text()
    browser.list.setCurrentIndex(browser.model.index(1))
    browser.open_selected()
    run(until(lambda: context.document.path == path and context.window.notice.isVisible()))
    assert context.document.path == path and context.window.notice.isVisible()
    _shot(context.window, "damaged-session-in-browser")


def test_a_torn_tail_shows_a_notice(make_window, run, tmp_path) -> None:
    home = tmp_path / "rho"
    path = v3_session(home, turns=5)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * 0.6)])
    context = make_window(home=home)
    context.window.commands.open_path(path)
    run(until(lambda: context.document.is_open and context.window.notice.isVisible()))
    notice = context.window.notice
    assert context.document.is_open and context.document.damage is None
    assert notice.isVisible() and notice.level == "warning"
    assert "is unfinished" in notice.text.text() and "as Rho ignores it" in notice.text.text()
    assert not notice.repair_button.isVisible()


def _failed(context) -> tuple[str, str]:
    view = context.window.conversation
    assert view.stack.currentWidget() is view.failed, "the conversation must not stay on Loading…"
    return view.failed.title.text(), view.failed.hint.text()


def test_a_truncated_empty_transcript_says_so(make_window, run, tmp_path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    context = make_window()
    context.window.commands.open_path(path)
    run(
        until(
            lambda: (
                context.window.conversation.stack.currentWidget()
                is context.window.conversation.failed
            )
        )
    )
    title, hint = _failed(context)
    assert title == "Cannot open empty.jsonl" and "the file is empty" in hint
    assert not context.document.is_open and not context.document.loading
    assert "the file is empty" in context.notifier.history[-1].text


def test_a_file_that_is_not_a_session_says_so(make_window, run, tmp_path) -> None:
    for name, content in (("notes.json", '{"hello": "world"}'), ("log.jsonl", "plain text\n")):
        path = tmp_path / name
        path.write_text(content)
        context = make_window()
        context.window.commands.open_path(path)
        view = context.window.conversation
        run(until(lambda v=view: v.stack.currentWidget() is v.failed))
        title, hint = _failed(context)
        assert title == "Not a Rho session file" and "not a Rho session file" in hint
        assert "Loading" not in context.window.conversation.stack.currentWidget().title.text()
        assert "not a Rho session file" in context.notifier.history[-1].text


def test_an_empty_folder_says_what_was_looked_for(make_window, run, tmp_path) -> None:
    empty = tmp_path / "empty-home"
    (empty / "sessions").mkdir(parents=True)
    context = make_window(home=empty)
    run(until(lambda: context.window.browser.footer.text().startswith("No Rho sessions in ")))
    footer = context.window.browser.footer.text()
    assert footer.startswith(f"No Rho sessions in {empty}: looked for sessions/<workspace>/")


def test_trash_restore_and_empty(make_window, run, tmp_path, isolated_dirs) -> None:
    home = tmp_path / "rho"
    first = v3_session(home, cwd="/work/a")
    second = v3_session(home, cwd="/work/b")
    context = make_window(home=home)
    browser = context.window.browser
    run(until(lambda: browser.model.rowCount() == 2))
    summaries = []
    for path in (first, second):
        summary = browser.summary_for(path)
        assert summary is not None
        summaries.append(summary)
        run(context.library.atrash(summary.workspace_key, summary.id))
    assert not first.exists() and not second.exists()
    context.actions.trigger("library.trash_view")
    dialog = context.window.commands.dialog
    assert isinstance(dialog, TrashDialog)
    run(until(lambda: dialog.model.rowCount() == 2))
    assert dialog.model.rowCount() == 2
    # each row says what the session is, not its id: the first prompt (no title), size, dates
    model = dialog.model
    shown = {model.index(r, 1).data() for r in range(2)}
    prompts = {
        " ".join((browser_summary.first_user_message or "").split())
        for browser_summary in summaries
    }
    assert shown == prompts and not {s.id for s in summaries} & shown
    assert {model.index(r, 2).data() for r in range(2)} == {
        f"{s.message_count:,}" for s in summaries
    }
    assert all(model.index(r, 3).data() != "–" for r in range(2))
    assert "session " in model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)
    _shot(dialog, "trash")
    row = next(i for i, item in enumerate(dialog.items) if item.transcript == first)
    dialog.table.selectRow(row)
    dialog.restore_button.click()
    run(until(lambda: first.is_file() and dialog.model.rowCount() == 1))
    assert first.is_file() and dialog.model.rowCount() == 1
    assert context.notifier.history[-1].text.startswith("Restored “")
    with RhoIndex.open_readonly(home / "sessions") as index:
        assert [r.path for r in index.rows()] == [str(first)]
    assert rho_desk("check", home).returncode == 0
    assert str(first) in [s.path for s in browser.model.summaries()]
    # empty: asks first; Cancel keeps everything, "Delete for Good" deletes
    dialog.empty_button.click()
    assert isinstance(dialog.confirm, QMessageBox) and dialog.confirm.isVisible()
    dialog.confirm.reject()
    run(idle(context.bridge))  # nothing to wait for: the declined emptying deletes nothing
    assert dialog.model.rowCount() == 1
    dialog.empty_button.click()
    next(b for b in dialog.confirm.buttons() if b.text() == "Delete for Good").click()
    run(until(lambda: dialog.model.rowCount() == 0))
    assert dialog.model.rowCount() == 0 and dialog.empty_label.text() == "The trash is empty."
    assert list((isolated_dirs / "trash").iterdir()) == []
    assert read_session(first).tree.session_id
    dialog.close()


def with_newer_record(home: Path) -> Path:
    """A version-3 session whose line 3 is a well-formed record of a type a newer Rho might write."""
    path = v3_session(home, turns=4, cwd="/home/maya/src/payments-api")
    lines = path.read_bytes().splitlines(keepends=True)
    lines.insert(2, b'{"type":"bookmark","timestamp":"1767000002","label":"before the refactor"}\n')
    path.write_bytes(b"".join(lines))
    return path


def test_a_newer_rho_record_opens_read_only_with_the_record_shown(
    make_window, run, tmp_path
) -> None:
    home = tmp_path / "rho"
    path = with_newer_record(home)
    context = make_window(home=home)
    window = context.window
    window.commands.open_path(path)
    run(until(lambda: context.document.path == path and not context.document.loading))
    document = context.document
    assert document.is_open and document.damage is None
    assert document.newer is not None and document.newer.line == 3
    assert document.tree.active_leaf.revision == 4  # every revision around it was read
    notice = window.notice
    assert notice.isVisible() and notice.level == "warning"
    assert "written by a newer Rho" in notice.text.text() and "read-only" in notice.text.text()
    assert "before the refactor" in notice.text.text()  # the record, shown as it is
    assert not notice.repair_button.isVisible()
    assert notice.accessibleName() == "Newer Rho record notice"
    assert not window.app_actions["session.compact"].isEnabled()
    assert not window.app_actions["session.edit"].isEnabled()
    _shot(window, "newer-rho-record-notice")


def test_the_trash_table_is_a_model_that_passes_the_tester(qtmodeltester) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from rho_desk.core.stores.trash import TrashItem
    from rho_desk.qt.recovery.trash_model import TrashModel

    def item(n: int, **extra: object) -> TrashItem:
        return TrashItem(
            path=Path(f"/trash/e{n}"),
            session_id=f"id-{n}",
            workspace_key="w",
            cwd="/work/a",
            original=Path(f"/rho/u{n}"),
            transcript=Path(f"/rho/u{n}/session.jsonl"),
            title=None,
            deleted_at=1_790_000_000 + n,
            runs=(),
            **extra,
        )  # type: ignore[arg-type]

    model = TrashModel()
    # an entry from before rho-desk recorded prompts and sizes reads as its id, with dashes
    model.set_rows(
        [
            item(1, first_prompt="Fix  the\nflaky test", messages=42, updated_at=1_789_999_000),
            item(2),
        ]
    )
    qtmodeltester.check(model)
    assert [model.index(0, c).data() for c in (1, 2)] == ["Fix the flaky test", "42"]
    assert [model.index(1, c).data() for c in (1, 2, 3)] == ["id-2", "–", "–"]
