"""Every agent's sessions in one library: listed, searched, sorted and cached like Rho's."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from rho_desk.core.agents import AGENTS
from rho_desk.core.agents.library import RHO, AgentLibrary, AllSessions
from rho_desk.core.stores.library import SessionLibrary
from rho_desk.core.stores.rho_files.layout import workspace_key

from ...conftest import RHO_FIXTURES
from .conftest import main_sessions


def test_each_agent_lists_its_session_with_its_badge(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    for agent in AGENTS:
        with AgentLibrary(agent, homes[agent], cache_dir=tmp_path / "cache") as library:
            report = library.refresh()
            assert not report.failed, report.failed
            page = library.list()
            assert [s.agent for s in page.sessions] == [agent], (
                "subagents are opened from their parent"
            )
            (summary,) = page.sessions
            assert summary.path == str(main_sessions(homes)[agent])
            assert summary.workspace_key == workspace_key(summary.cwd)
            assert summary.message_count > 0 and summary.compaction_count >= 1 and summary.model


def test_a_refresh_reads_only_what_changed(homes: dict[str, Path], tmp_path: Path) -> None:
    with AgentLibrary("pi", homes["pi"], cache_dir=tmp_path / "cache") as library:
        assert library.refresh().added
        again = library.refresh()
        assert (again.unchanged, again.added, again.updated) == (1, [], [])
        path = main_sessions(homes)["pi"]
        with open(path, "ab") as handle:
            handle.write(
                b'{"type":"session_info","id":"z9","parentId":"e3000010","timestamp":"2026-03-10T15:00:00Z","name":"Renamed"}\n'
            )
        os.utime(path, ns=(time.time_ns(), time.time_ns() + 10**9))
        report = library.refresh()
        assert report.updated == [str(path)]
        assert library.list().sessions[0].title == "Renamed"


def test_a_broken_log_is_listed_as_a_failure_with_its_line(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    path = main_sessions(homes)["gemini"]
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = b"{nope\n"
    path.write_bytes(b"".join(lines))
    with AgentLibrary("gemini", homes["gemini"], cache_dir=tmp_path / "cache") as library:
        report = library.refresh()
        assert [f.path for f in report.failed] == [str(path)]
        assert f"{path}:4:" in report.failed[0].reason
        assert library.failures() == report.failed
        assert library.list().sessions == []


def test_a_home_that_is_not_there_lists_nothing(tmp_path: Path) -> None:
    for agent in AGENTS:
        with AgentLibrary(agent, tmp_path / "none", cache_dir=tmp_path / "cache") as library:
            assert library.refresh().failed == [] and library.list().sessions == []


def test_all_sessions_merges_rho_and_every_agent_in_order(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    rho_home = tmp_path / "rho"
    unit = (
        rho_home
        / "sessions"
        / workspace_key("/historical/workspace")
        / "300_33333333-3333-4333-8333-333333333333"
    )
    unit.mkdir(parents=True)
    (unit / "session.jsonl").write_bytes((RHO_FIXTURES / "session-v3.jsonl").read_bytes())
    rho = SessionLibrary(rho_home, cache_dir=tmp_path / "cache")
    with AllSessions(rho, homes, cache_dir=tmp_path / "cache") as library:
        library.refresh()
        page = library.list()
        agents = [s.agent for s in page.sessions]
        assert sorted(agents) == sorted([*AGENTS, RHO]) and page.total == 6
        assert [s.updated_at for s in page.sessions] == sorted(
            (s.updated_at for s in page.sessions), reverse=True
        )
        by_size = library.list(sort="size", descending=False, limit=2, offset=1)
        everything = sorted(
            library.list().sessions, key=lambda s: (s.file_size or 0, s.updated_at, s.created_at)
        )
        assert [s.path for s in by_size.sessions] == [s.path for s in everything[1:3]]
        assert by_size.total == 6


def test_search_finds_every_agents_words(homes: dict[str, Path], tmp_path: Path) -> None:
    with AllSessions(None, homes, cache_dir=tmp_path / "cache") as library:
        library.refresh()
        assert [h.session.agent for h in library.search("stylesheet").hits] == ["claude-code"]
        assert [h.session.agent for h in library.search("config.toml").hits] == ["codex"]
        assert {h.session.agent for h in library.search("the").hits} == set(AGENTS)
        hit = library.search("qty").hits[0]
        assert hit.session.agent == "gemini" and hit.snippets


def test_one_workspace_holds_its_sessions_of_every_agent(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    with AllSessions(None, homes, cache_dir=tmp_path / "cache") as library:
        library.refresh()
        key = workspace_key("/home/dev/api")
        assert [s.agent for s in library.list(key).sessions] == ["codex"]


@pytest.mark.parametrize("agent", AGENTS)
def test_a_library_api_call_takes_only_known_sort_keys(
    agent: str, homes: dict[str, Path], tmp_path: Path
) -> None:
    from rho_desk.core.errors import InputError

    with (
        AllSessions(None, {agent: homes[agent]}, cache_dir=tmp_path / "cache") as library,
        pytest.raises(InputError),
    ):
        library.list(sort="colour")


def test_workspaces_and_failures_name_every_agent(homes: dict[str, Path], tmp_path: Path) -> None:
    rho_home = tmp_path / "rho"
    unit = (
        rho_home
        / "sessions"
        / workspace_key("/home/dev/api")
        / "300_33333333-3333-4333-8333-333333333333"
    )
    unit.mkdir(parents=True)
    text = (
        (RHO_FIXTURES / "session-v3.jsonl")
        .read_bytes()
        .replace(b"/historical/workspace", b"/home/dev/api")
    )
    (unit / "session.jsonl").write_bytes(text)
    broken = main_sessions(homes)["pi"]
    broken.write_bytes(broken.read_bytes() + b"{broken}\n{broken}\n")
    rho = SessionLibrary(rho_home, cache_dir=tmp_path / "cache")
    with AllSessions(rho, homes, cache_dir=tmp_path / "cache") as library:
        library.refresh()
        infos = {w.workspace_key: w for w in library.workspaces()}
        api = infos[workspace_key("/home/dev/api")]
        assert api.sessions == 2  # Rho's and Codex's of the same folder, one workspace
        assert [w.updated_at for w in library.workspaces()] == sorted(
            (w.updated_at for w in infos.values()), reverse=True
        )
        assert [(agent, f.path) for agent, f in library.failures_by_agent()] == [
            ("pi", str(broken))
        ]
        assert library.failures() == [f for _, f in library.failures_by_agent()]
        # the two refreshes apart: Rho's report, then one per agent
        assert library.refresh_rho().index_state is not None
        assert [r.agent for r in library.refresh_agents()] == list(homes)


def test_an_agents_usage_is_its_own_records_with_its_subagents(sessions: dict[str, Path]) -> None:
    from rho_desk.core.agents import read_log
    from rho_desk.core.agents.usage import agent_usage

    for agent, path in sessions.items():
        log = read_log(path)
        usage = agent_usage(log)
        assert usage.recorded_by == agent and usage.home is None
        assert usage.requests, agent
        assert [r.occurred_at_ms for r in usage.requests] == sorted(
            r.occurred_at_ms for r in usage.requests
        )
        own = [r for r in usage.requests if r.session_id == log.session_id]
        assert len(own) == len(log.requests)
        assert usage.total is not None and usage.total.requests == len(usage.requests)
        assert usage.total.output_tokens == sum(r.output_tokens or 0 for r in usage.requests)
        if any(read_log(ref.path).requests for ref in log.subagents):
            assert any(
                r.purpose == "subagent" and r.session_id != log.session_id for r in usage.requests
            ), agent
