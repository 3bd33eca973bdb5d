"""Other agents' sessions in the window: listed with a badge beside Rho's, searched with them,
opened whole and read-only (every tool call with its result, images, reasoning, compactions; the
Statistics tab's usage from the agent's own records, the Changes tab from its tool calls), never
renamed or deleted, and continued as a Rho session (imported, opened, the composer shown)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from rho_desk.core.agents import AGENT_LABELS, AGENTS
from rho_desk.qt.conversation.model import RowKind
from rho_desk.qt.services.settings import PREFS_AGENT_HOMES, PREFS_AGENTS_LISTED, Settings
from rho_desk.qt.window.main_window import (
    TAB_CHANGES,
    TAB_CONVERSATION,
    TAB_REVISIONS,
    TAB_STATISTICS,
)

from ..core.agents.conftest import main_sessions, make_homes
from .conftest import idle, until


@pytest.fixture
def homes(tmp_path: Path) -> dict[str, Path]:
    return make_homes(tmp_path / "agents")


@pytest.fixture
def agents_window(make_window, demo_home, homes, run):
    settings = Settings()
    for agent, home in homes.items():
        settings.set(PREFS_AGENT_HOMES[agent], str(home))
    settings.sync()
    context = make_window(home=demo_home)
    browser = context.window.browser
    run(until(lambda: {s.agent for s in browser.model.summaries()} >= set(AGENTS)))
    return context


def _open(context, run, path: Path) -> None:
    context.window.commands.open_path(path)
    run(until(lambda: context.document.path == path and not context.document.loading))
    run(idle(context.bridge))  # the views load the opened session


def test_the_library_lists_every_agent_with_its_badge(agents_window, homes, run, qtbot) -> None:
    browser = agents_window.window.browser
    rows = browser.model.summaries()
    assert {s.agent for s in rows} == {"rho", *AGENTS}
    by_agent = {s.agent: s for s in rows if s.agent != "rho"}
    # a subagent's session is opened from its parent, not listed on its own
    assert len([s for s in rows if s.agent != "rho"]) == len(AGENTS)
    for agent, summary in by_agent.items():
        index = browser.model.index(rows.index(summary))
        assert f"{AGENT_LABELS[agent]} session" in index.data(Qt.ItemDataRole.AccessibleTextRole)
        assert summary.message_count > 0 and summary.path == str(main_sessions(homes)[agent])
    browser.list.viewport().grab()  # every card paints (badges of every agent)
    # the workspaces of every agent are offered in the scope
    assert browser.scope.count() > 1 + len({s.workspace_key for s in rows if s.agent == "rho"})


def test_search_covers_every_agent(agents_window, run) -> None:
    library = agents_window.library
    for summary in [s for s in agents_window.window.browser.model.summaries() if s.agent != "rho"]:
        word = max((summary.first_user_message or "").split(), key=len)
        results = run(library.asearch(word))
        assert summary.path in [h.session.path for h in results.hits], (summary.agent, word)


def test_another_agents_session_is_never_renamed_or_deleted(agents_window, run) -> None:
    context = agents_window
    browser = context.window.browser
    row = next(i for i, s in enumerate(browser.model.summaries()) if s.agent == "codex")
    browser.list.setCurrentIndex(browser.model.index(row))
    assert not context.actions["library.rename"].isEnabled()
    assert not context.actions["library.trash"].isEnabled()
    summary = browser.model.summaries()[row]
    with pytest.raises(Exception, match="only reads another agent's sessions"):
        run(context.library.atrash(summary.workspace_key, summary.id, agent=summary.agent))
    assert Path(summary.path).is_file()
    rho = next(i for i, s in enumerate(browser.model.summaries()) if s.agent == "rho")
    browser.list.setCurrentIndex(browser.model.index(rho))
    assert context.actions["library.rename"].isEnabled()


@pytest.mark.parametrize("agent", AGENTS)
def test_an_agents_session_opens_whole_and_read_only(agents_window, homes, run, agent) -> None:
    context = agents_window
    path = main_sessions(homes)[agent]
    _open(context, run, path)
    document, window = context.document, context.window
    assert document.agent == agent and document.read_only and not document.writable
    assert not document.is_snapshot_document  # a whole tree, with its display history
    assert f"{AGENT_LABELS[agent]} session, read-only" in window.header.facts.text()
    actions = context.actions
    assert actions["session.continue"].isEnabled()  # as a Rho session
    for writing in (
        "session.compact",
        "session.edit",
        "session.metadata",
        "edit.undo",
        "revision.make_active",
    ):
        assert not actions[writing].isEnabled(), writing
    # the conversation: every tool call shown with its result, images, reasoning, compactions
    window.show_tab(TAB_CONVERSATION)
    run(until(lambda: len(window.conversation.model.rows) > 0))
    rows = window.conversation.model.rows
    assert len(rows.call_ids) >= 2
    assert all(r >= 0 for r in rows.call_result), "a tool call shown without its result"
    assert sum(rows.images) >= 1
    assert RowKind.MARKER in rows.kinds, "the compaction marker is shown"
    assert any(
        (m.enriched_assistant or m.aborted_assistant) is not None
        and (m.enriched_assistant or m.aborted_assistant).reasoning_summary
        for m in rows.messages
    )
    # the revisions: the agent's branch (a rewind, an edited prompt, a rolled-back turn) is one
    window.show_tab(TAB_REVISIONS)
    revisions = window.revisions
    run(until(lambda: revisions.model.rowCount() >= 1))
    assert revisions.model.rowCount() >= 1 and document.tree.node_count > 1
    assert not revisions.make_active_button.isEnabled() and not revisions.fork_button.isEnabled()
    # usage from the agent's own records
    window.show_tab(TAB_STATISTICS)
    stats = window.statistics
    run(until(lambda: stats.usage is not None))
    assert stats.usage.recorded_by == agent
    assert (
        stats.usage.requests
        and stats.usage_title.text() == f"Requests {AGENT_LABELS[agent]} recorded"
    )
    # the changes its tool calls made
    window.show_tab(TAB_CHANGES)
    changes = window.changes
    run(until(lambda: changes.changes is not None))
    assert any(t.files for t in changes.changes.turns), changes.summary.text()


def test_continue_offers_a_rho_session_then_continues_it(
    agents_window, homes, demo_home, run, qtbot
) -> None:
    context = agents_window
    source = main_sessions(homes)["claude-code"]
    _open(context, run, source)
    before = source.read_bytes()
    context.actions.trigger("session.continue")
    box = context.operations.continue_box
    assert box is not None and box.isVisible() and "Claude Code session" in box.text()
    box.button(QMessageBox.StandardButton.Yes).click()
    document = context.document
    run(
        until(lambda: document.path is not None and document.agent is None and not document.loading)
    )
    imported = document.path
    assert imported.is_relative_to(demo_home / "sessions") and document.writable
    assert (imported.parent / "rho-desk-import.json").is_file()
    assert source.read_bytes() == before  # the agent's own log is never written
    run(until(lambda: context.continue_dock.isVisible()))
    # listed in the library as a Rho session
    run(
        until(
            lambda: any(
                s.path == str(imported) and s.agent == "rho"
                for s in context.window.browser.model.summaries()
            )
        )
    )
    # continuing it again imports nothing new and opens the same Rho session
    _open(context, run, source)
    context.actions.trigger("session.continue")
    context.operations.continue_box.button(QMessageBox.StandardButton.Yes).click()
    run(until(lambda: document.path == imported and not document.loading))
    run(until(lambda: any("Already imported" in n.text for n in context.services.notifier.history)))
    assert any("Already imported" in n.text for n in context.services.notifier.history)


def test_no_agents_listed_when_the_settings_say_none(make_window, demo_home, homes, run) -> None:
    settings = Settings()
    settings.set(PREFS_AGENTS_LISTED, [])
    for agent, home in homes.items():
        settings.set(PREFS_AGENT_HOMES[agent], str(home))
    settings.sync()
    context = make_window(home=demo_home)
    assert {s.agent for s in context.window.browser.model.summaries()} == {"rho"}
    assert context.library.agents == {}


def test_the_demo_library_lists_no_other_agent(make_window, homes, run) -> None:
    settings = Settings()
    for agent, home in homes.items():
        settings.set(PREFS_AGENT_HOMES[agent], str(home))
    settings.sync()
    context = make_window(demo=True)
    assert context.library.agents == {}


def test_the_settings_choose_the_agents_and_their_folders(
    agents_window, homes, tmp_path, run
) -> None:
    context = agents_window
    browser = context.window.browser
    dialog = context.session_commands.show_dialog("settings")
    assert all(box.isChecked() for box in dialog.agent_listed.values())
    assert dialog.agent_home["pi"].text() == str(homes["pi"])
    dialog.agent_listed["codex"].setChecked(False)
    assert not dialog.agent_home["codex"].isEnabled()
    empty = tmp_path / "no-pi-here"
    empty.mkdir()
    dialog.agent_home["pi"].setText(str(empty))
    dialog.apply()
    run(
        until(
            lambda: (
                "codex" not in context.library.agents and context.library.agents.get("pi") == empty
            )
        )
    )
    run(
        until(
            lambda: (
                {s.agent for s in browser.model.summaries()} == {"rho", *AGENTS} - {"codex", "pi"}
            )
        )
    )
    assert Settings().get(PREFS_AGENTS_LISTED) == [a for a in AGENTS if a != "codex"]
    dialog.close()


@pytest.mark.parametrize("agent", AGENTS)
def test_export_of_an_agents_session_redacts_the_secret_in_its_tool_result(
    make_window, homes, run, tmp_path, agent
) -> None:
    from rho_desk.core.export import ALL_CLASSES

    from ..core.agents.conftest import SECRETS

    source = main_sessions(homes)[agent]
    context = make_window(open_file=source)
    run(until(lambda: context.document.agent == agent))
    dialog = context.session_commands.show_dialog("export")
    run(until(lambda: dialog.current() is not None))
    dialog.set_selection(set(ALL_CLASSES))
    dialog._timer.stop()
    dialog._on_timer_timeout()
    run(until(lambda: dialog.current() is not None))
    result = dialog.current()
    assert result is not None
    assert SECRETS[agent].encode() not in result.data and result.redactions
    assert SECRETS[agent] not in dialog.preview.toPlainText()
    out = tmp_path / "out" / "export.json"
    written: list[tuple[Path, Path]] = []
    dialog.sig_written.connect(lambda a, b: written.append((a, b)))
    if result.blocked:  # a finding the audit blocks on: written only with the recorded override
        dialog.override.setChecked(True)
    dialog.export_to(out)
    run(until(lambda: bool(written)))
    assert written and SECRETS[agent].encode() not in out.read_bytes()
    assert written[0][1].is_file()  # the signed receipt beside it
