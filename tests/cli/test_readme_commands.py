"""The README's command list names every subcommand the parser has, and nothing else."""

from __future__ import annotations

import re
from pathlib import Path

from rho_desk.cli import _COMMANDS, _SUMMARIES, _parser

ROOT = Path(__file__).resolve().parents[2]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Command line", 1)[1].split("```", 2)[1]
    return [m.group(1) for m in re.finditer(r"^rho-desk (\w[\w-]*)", block, re.M)]


def _parser_commands() -> list[str]:
    sub = next(a for a in _parser()._actions if a.dest == "command")
    return list(sub.choices)  # type: ignore[arg-type]


def test_readme_lists_every_command_once_in_parser_order() -> None:
    assert _readme_commands() == _parser_commands()


def test_every_command_has_a_summary_and_a_module() -> None:
    assert sorted(_parser_commands()) == sorted(_SUMMARIES)
    assert sorted({module for module, _ in _SUMMARIES.values()}) == sorted(_COMMANDS)
