"""A display export carries the system instructions when that class is included, in every format,
and leaves them out (saying so) when it is excluded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rho_desk.core.stores.rho_files.writer import create_session
from rho_desk.core.wire.model import Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

from .helpers_files import rho_desk

INSTRUCTIONS = "You are Rho. Project rule: run the linter before every commit."


@pytest.fixture
def session(tmp_path: Path) -> Path:
    history = [
        Message.system_text(INSTRUCTIONS),
        Message.user_text("lint it"),
        Message.assistant_text("Done."),
    ]
    snapshot = SessionSnapshot.new(
        "0" * 8 + "-0000-4000-8000-" + "0" * 12, 1, history, ModelIdentity("p", "api", "m")
    )
    writer = create_session(tmp_path / "home", "/work/project", snapshot, created=1_700_000_000)
    writer.close()
    return writer.path


@pytest.mark.parametrize("fmt", ["json", "md", "html"])
def test_include_all_carries_the_instructions(tmp_path: Path, session: Path, fmt: str) -> None:
    out_file = tmp_path / f"out.{fmt}"
    out = rho_desk(
        "export", session, "--include", "all", "--history", "display", "-o", out_file, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    text = out_file.read_text(encoding="utf-8")
    assert "run the linter before every commit" in text
    assert "lint it" in text and "Done." in text
    if fmt == "json":
        document = json.loads(text)
        assert next(iter(document["messages"][0]["message"])) == "System"
        # the instructions have no saved time; the messages Rho saved keep theirs
        assert "timestamp" not in document["messages"][0]
        assert all("timestamp" in entry for entry in document["messages"][1:])


@pytest.mark.parametrize("fmt", ["json", "md", "html"])
def test_excluding_instructions_leaves_them_out_and_says_so(
    tmp_path: Path, session: Path, fmt: str
) -> None:
    out_file = tmp_path / f"out.{fmt}"
    out = rho_desk(
        "export",
        session,
        "--exclude",
        "instructions",
        "--history",
        "display",
        "-o",
        out_file,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "run the linter" not in out_file.read_text(encoding="utf-8")
    assert "instructions" in out.stdout + out.stderr


def test_a_display_export_is_not_shown_as_a_snapshot(tmp_path: Path, session: Path) -> None:
    """``show`` on a display export (no model context) says what it is and what to do: exit 2,
    one line, instead of a decoder's "Expected `array`" at ``$.history``."""
    from .helpers_files import one_line_error

    out = tmp_path / "shown.json"
    assert rho_desk("export", "--include", "all", "-o", out, session).returncode == 0
    line = one_line_error(rho_desk("show", out))
    assert "a display export" in line and "--history model" in line and "Expected" not in line
