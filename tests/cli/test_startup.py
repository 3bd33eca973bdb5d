"""``rho-desk`` starts fast: only the module of the command being run is imported."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from rho_desk import cli


def test_summaries_are_what_each_command_registers() -> None:
    for command, (module_name, summary) in cli._SUMMARIES.items():
        parser = argparse.ArgumentParser()
        sub = parser.add_subparsers(dest="command")
        importlib.import_module(f"rho_desk.cli.{module_name}").register(sub)
        helps = {action.dest: action.help for action in sub._choices_actions}
        assert helps == {command: summary}, module_name
    assert {module for module, _ in cli._SUMMARIES.values()} == set(cli._COMMANDS)


def _loaded_after(argv: list[str]) -> tuple[int, list[str]]:
    """The exit status and the command modules loaded (``cli.status``, the exit statuses, always is)."""
    code = (
        "import sys\n"
        "from rho_desk.cli import main\n"
        f"try:\n    status = main({argv!r})\nexcept SystemExit as exc:\n    status = exc.code\n"
        "print(status, ' '.join(sorted(m for m in sys.modules if m.startswith('rho_desk.cli.')\n"
        "                              and m != 'rho_desk.cli.status')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    status, _, modules = out.splitlines()[-1].partition(" ")
    return int(status), modules.split()


def test_help_imports_no_command_module() -> None:
    status, modules = _loaded_after(["--help"])
    assert status == 0 and modules == []


_ARGVS = [
    ["check", "/nonexistent"],
    ["--log-level", "info", "check", "/nonexistent"],
    ["--log-l", "info", "check", "/nonexistent"],  # an abbreviated option and its value
    ["--log-level=info", "check", "/nonexistent"],
]


@pytest.mark.parametrize("argv", _ARGVS)
def test_the_command_runs_with_only_its_module(argv: list[str]) -> None:
    status, modules = _loaded_after(argv)
    assert status == 2  # the command ran and refused the missing path
    assert modules == ["rho_desk.cli.check"]


def test_a_command_help_is_its_full_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["show", "--help"])
    assert "--revision" in capsys.readouterr().out


def test_recording_a_turn_loads_only_the_journal_of_the_changes_package() -> None:
    """``rho-desk continue`` records its writes through the journal; the reader of a whole
    session's changes (and what it imports) loads only when changes are shown."""
    code = (
        "import sys\n"
        "from rho_desk.core.changes import CheckpointRecorder\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('rho_desk.core.changes.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["rho_desk.core.changes.checkpoint", "rho_desk.core.changes.journal"]
