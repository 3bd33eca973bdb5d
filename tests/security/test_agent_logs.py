"""Another agent's log is untrusted input (issue 35): absurd nesting, huge lines, a subagent or a
project folder that leads elsewhere, ids with ``..``, and titles and messages full of terminal
controls. Each is a clear error (file, line, reason, exit 2) or is shown harmlessly; nothing is
followed out of the agent's folder, nothing written outside the Rho home."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rho_desk.core.agents import open_session, read_log
from rho_desk.core.agents.importer import import_session

from ..core.agents.conftest import main_sessions, make_homes
from .helpers import environment, one_line_error, rho
from .test_hostile_home import HOSTILE, SHOWN, on_a_terminal, raw_controls


@pytest.fixture
def homes(tmp_path: Path) -> dict[str, Path]:
    return make_homes(tmp_path / "agents")


def test_deep_json_in_a_log_is_refused_with_the_line(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    path.write_text(
        '{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n'
        '{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":'
        + deep
        + "}}\n"
    )
    line = one_line_error(rho(environment(tmp_path), tmp_path, "show", str(path)))
    assert f"{path}:2:" in line and "nesting is too deep" in line


def test_a_huge_line_is_refused_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "rollout-huge.jsonl"
    with open(path, "w") as handle:
        handle.write('{"timestamp":"t","type":"session_meta","payload":{"id":"x","cwd":"/w"}}\n')
        handle.write(
            '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"'
        )
        handle.write("x" * (300 * 1024 * 1024))
    line = one_line_error(rho(environment(tmp_path), tmp_path, "show", str(path), timeout=120))
    assert f"{path}:2:" in line and "longer than" in line


def test_a_subagent_file_that_is_a_link_out_of_the_folder_is_not_followed(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(
        '{"type":"user","uuid":"x","parentUuid":null,"message":{"role":"user","content":"planted"}}\n'
    )
    session = main_sessions(homes)["claude-code"]
    subagents = session.parent / session.stem / "subagents"
    (subagents / "agent-evil.jsonl").symlink_to(outside)
    os.symlink(outside, session.parent / "agent-evil2.jsonl")
    refs = read_log(session).subagents
    assert [r.session_id for r in refs] == ["agent-a5f1c2d"]


def test_a_gemini_session_id_with_dots_names_no_folder_outside_chats(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    chat = main_sessions(homes)["gemini"]
    lines = chat.read_text("utf-8").splitlines(keepends=True)
    lines[0] = json.dumps({"sessionId": "../../../../etc", "projectHash": "x"}) + "\n"
    chat.write_text("".join(lines), "utf-8")
    assert read_log(chat).subagents == []


def test_an_import_lands_inside_the_rho_home_whatever_the_log_says(
    homes: dict[str, Path], tmp_path: Path
) -> None:
    session = main_sessions(homes)["pi"]
    lines = session.read_text("utf-8").splitlines(keepends=True)
    header = json.loads(lines[0])
    header.update(cwd="../../../../tmp/escape", id="../../../evil")
    lines[0] = json.dumps(header) + "\n"
    session.write_text("".join(lines), "utf-8")
    home = tmp_path / "rho"
    result = import_session(session, home=home)
    assert result.transcript.resolve().is_relative_to((home / "sessions").resolve())
    assert ".." not in result.transcript.relative_to(home).parts
    assert not (tmp_path / "escape").exists()


def test_an_opencode_session_id_is_only_a_lookup(homes: dict[str, Path]) -> None:
    from rho_desk.core.errors import InputError

    database = homes["opencode"] / "opencode.db"
    with pytest.raises(InputError, match="no such session"):
        read_log(Path(f"{database}#../../etc/passwd"))
    with pytest.raises(InputError, match="no such session"):
        read_log(Path(f"{database}#x' or '1'='1"))


def _hostile_claude(root: Path) -> Path:
    folder = root / "claude" / "projects" / f"-w{HOSTILE}"
    folder.mkdir(parents=True)
    base = {"sessionId": "6b7c0e2a-1111-4222-8333-444455556666", "cwd": f"/w{HOSTILE}"}
    records = [
        {"type": "custom-title", "customTitle": f"Title {HOSTILE}", "sessionId": base["sessionId"]},
        {
            **base,
            "type": "user",
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-02-01T10:00:00Z",
            "message": {"role": "user", "content": f"prompt {HOSTILE}"},
        },
        {
            **base,
            "type": "assistant",
            "uuid": "u2",
            "parentUuid": "u1",
            "timestamp": "2026-02-01T10:00:01Z",
            "message": {
                "id": "m1",
                "model": f"model{HOSTILE}",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": f"t{HOSTILE}",
                        "name": f"Bash{HOSTILE}",
                        "input": {"command": f"ls {HOSTILE}"},
                    }
                ],
            },
        },
        {
            **base,
            "type": "user",
            "uuid": "u3",
            "parentUuid": "u2",
            "timestamp": "2026-02-01T10:00:02Z",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"t{HOSTILE}",
                        "content": f"out {HOSTILE}",
                    }
                ],
            },
        },
        {**base, "type": f"kind{HOSTILE}", "uuid": "u4", "parentUuid": "u3", "payload": HOSTILE},
    ]
    path = folder / "6b7c0e2a-1111-4222-8333-444455556666.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "--display", "{s}"],
        ["show", "--json", "--display", "{s}"],
        ["sessions", "--agent", "claude-code", "--home", "{h}", "--all"],
        ["sessions", "--agent", "claude-code", "--home", "{h}", "--all", "--search", "prompt"],
        ["changes", "{s}"],
        ["import", "{s}", "-o", "{o}"],
        ["audit", "{s}"],
    ],
    ids=lambda argv: " ".join(a for a in argv if not a.startswith("{")),
)
def test_a_hostile_agent_log_prints_no_raw_control(argv: list[str], tmp_path: Path) -> None:
    session = _hostile_claude(tmp_path)
    env = environment(tmp_path, RHO_DESK_CACHE_DIR=str(tmp_path / "cache"), TERM="xterm")
    values = {
        "s": str(session),
        "h": str(tmp_path / "claude"),
        "o": str(tmp_path / "imported.jsonl"),
    }
    status, out = on_a_terminal(env, tmp_path, *(a.format(**values) for a in argv))
    assert status in (0, 1) and b"Traceback" not in out, out.decode(errors="replace")
    assert raw_controls(out) == [], out.decode(errors="replace")
    if argv[0] in ("show", "sessions"):
        assert any(s in out.decode() for s in SHOWN), out.decode(errors="replace")


def test_a_hostile_log_is_read_as_data(tmp_path: Path) -> None:
    session = _hostile_claude(tmp_path)
    log = read_log(session)
    assert log.title == f"Title {HOSTILE}"
    assert log.loss.dropped[f"kind{HOSTILE}:$"] == 1
    assert open_session(session).tree.node_count == 1
