"""Another agent's session published to the team library: the same redaction pipeline and signed
receipt as Rho's (``rho-desk publish PATH`` detects the format), its tool result's secret never
stored, and ``team show`` verifying the receipt."""

from __future__ import annotations

import json

import psycopg
import pytest

from rho_desk.cli import main
from rho_desk.core.agents import AGENTS

from ..core.agents.conftest import SECRETS, main_sessions, make_homes
from .helpers import without_password
from .test_publish import team_name


def test_every_agents_session_publishes_redacted_and_signed(  # type: ignore[no-untyped-def]
    pg_db: str, tmp_path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pg_db = without_password(pg_db, tmp_path, monkeypatch)
    key_file = tmp_path / "keys"
    team = team_name()
    assert main(["team", "init", "--db", pg_db, "--team", team]) == 0
    capsys.readouterr()
    sessions = main_sessions(make_homes(tmp_path / "homes"))
    for agent in AGENTS:
        status = main(
            [
                "publish",
                str(sessions[agent]),
                "--db",
                pg_db,
                "--team",
                team,
                "--include",
                "all",
                "--allow-findings",
                "--key-file",
                str(key_file),
                "--json",
            ]
        )
        published = json.loads(capsys.readouterr().out)
        assert status == 0 and published["added"] and published["history"] == "display", agent
        assert (
            main(
                [
                    "team",
                    "show",
                    published["session_id"],
                    "--db",
                    pg_db,
                    "--key-file",
                    str(key_file),
                    "--json",
                ]
            )
            == 0
        )
        shown = json.loads(capsys.readouterr().out)
        assert shown["verification"]["ok"] and shown["verification"]["signature"] == "valid", agent
    with psycopg.connect(pg_db) as conn:
        rows = conn.execute(
            "SELECT v.export FROM rho_desk.versions v JOIN rho_desk.sessions s ON s.id = v.session WHERE s.team = %s",
            (team,),
        ).fetchall()
    assert len(rows) == len(AGENTS)
    stored = b"".join(bytes(r[0]) for r in rows)
    for agent in AGENTS:
        assert SECRETS[agent].encode() not in stored, agent
