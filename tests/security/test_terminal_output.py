"""A session file's text cannot act on the terminal it is printed to: its folder, title or
conversation may carry escape sequences (rewrite the screen, set the window title) and carriage
returns. The commands show them as text, on a terminal and piped (a pager or ``| cat`` hands
piped text to a terminal too); ``--raw`` prints the bytes, for a program, never to a terminal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from rho_desk.core.stores.rho_files import create_session
from rho_desk.core.wire import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    SessionSnapshot,
)

from .helpers import environment, on_a_terminal

IDENTITY = ModelIdentity("openai", "chat-completions", "m")
TITLE_SET = "\x1b]0;PWNED\x07"
ERASE = "\x1b[2K\r"
REPLY = f"Done.{ERASE}All tests passed{TITLE_SET}"


def _session(tmp_path: Path) -> tuple[Path, Path]:
    workspace = tmp_path / f"proj{ERASE}TRUSTED"
    workspace.mkdir()
    history = (
        Message.system_text("You are Rho."),
        Message.user_text("run the tests"),
        Message.enriched(
            AssistantMessage(content=(ContentBlock(text=REPLY),), provenance=IDENTITY)
        ),
    )
    snapshot = SessionSnapshot.new("0b6f3c1e-6d0a-4c3e-9b7a-2f1d9e8c7a55", 2, history, IDENTITY)
    with create_session(tmp_path / "rho", str(workspace), snapshot) as writer:
        return writer.path, workspace


def _on_a_terminal(env: dict[str, str], *argv: str, status: int = 0) -> bytes:
    """``rho-desk ARGV`` on a pseudo-terminal, exiting with ``status``: what it wrote there."""
    returned, out = on_a_terminal(env, Path.cwd(), *argv, timeout=60)
    assert returned == status, out
    return out


def test_show_on_a_terminal_prints_escapes_as_text(tmp_path: Path) -> None:
    path, _workspace = _session(tmp_path)
    out = _on_a_terminal(environment(tmp_path), "show", "--display", str(path))
    assert b"\x1b" not in out and b"\x07" not in out
    text = out.decode()
    assert "All tests passed" in text and "\\x1b]0;PWNED\\x07" in text and "\\x1b[2K␍" in text


def test_piped_output_is_escaped_too_and_raw_is_byte_for_byte(tmp_path: Path) -> None:
    path, _workspace = _session(tmp_path)
    env = environment(tmp_path)
    piped = subprocess.run(
        [sys.executable, "-m", "rho_desk", "show", "--display", str(path)],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert piped.returncode == 0 and b"\x1b" not in piped.stdout and b"\x07" not in piped.stdout
    assert "Done.\\x1b[2K␍All tests passed\\x1b]0;PWNED\\x07" in piped.stdout.decode()
    raw = subprocess.run(
        [sys.executable, "-m", "rho_desk", "show", "--display", "--raw", str(path)],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert raw.returncode == 0 and REPLY.encode() in raw.stdout
    as_json = subprocess.run(
        [sys.executable, "-m", "rho_desk", "show", "--display", "--json", str(path)],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert b"\x1b" not in as_json.stdout
    assert json.dumps(REPLY)[1:-1] in as_json.stdout.decode()  # JSON escapes: the same document


def test_raw_is_refused_on_a_terminal(tmp_path: Path) -> None:
    path, _workspace = _session(tmp_path)
    out = _on_a_terminal(environment(tmp_path), "show", "--display", "--raw", str(path), status=2)
    assert b"\x1b" not in out and b"All tests passed" not in out


def test_a_refusal_naming_a_spoofing_folder_shows_its_escapes(tmp_path: Path) -> None:
    path, _workspace = _session(tmp_path)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "rho_desk",
            "continue",
            str(path),
            "-m",
            "hi",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
        env=environment(tmp_path),
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 2, out.stderr
    assert b"\x1b" not in out.stderr and b"\r" not in out.stderr
    assert (
        "proj\\x1b[2K␍TRUSTED" in out.stderr.decode() and "--trust-workspace" in out.stderr.decode()
    )
