"""``rho-desk`` starts fast: only the module of the command being run is imported, and
``rho-desk continue`` sends its request before loading what only later steps need."""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

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
    """The exit status and the command modules loaded (``cli.status``, the exit statuses, and
    ``cli.terminal``, the writer every command prints through, always are)."""
    code = (
        "import sys\n"
        "from rho_desk.cli import main\n"
        f"try:\n    status = main({argv!r})\nexcept SystemExit as exc:\n    status = exc.code\n"
        "print(status, ' '.join(sorted(m for m in sys.modules if m.startswith('rho_desk.cli.')\n"
        "                              and m not in ('rho_desk.cli.status', 'rho_desk.cli.terminal'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
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
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["rho_desk.core.changes.checkpoint", "rho_desk.core.changes.journal"]


# What ``rho-desk continue`` leaves for after its request: each loads with the first use that
# needs it (a save, a tool call, a compaction), and nothing of it is needed to send the prompt.
_LOADED_AFTER_THE_REQUEST = (
    "sqlite3",  # Rho's index, updated by the first save
    "rho_desk.core.stores.index",
    "rho_desk.core.stores.summary",
    "rho_desk.core.stores.rho_files.summary",
    "ctypes",  # the writer's history comparison, set up by the first save
    "rho_desk.core.tools.search",  # the tools' implementations, loaded by their first call
    "rho_desk.core.tools.shell",
    "rho_desk.core.tools.hashline",
    "difflib",  # the diff of a write or edit
    "rho_desk.core.compaction.local",
    "rho_desk.core.usage.ledger",
    "rho_desk.core.export",
    "rho_desk.providers.profiles",  # --base-url and --model: no provider profile is read
    "pydantic",
    "keyring",
)
BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
_DATACLASSES_BEFORE_THE_REQUEST = 0
"""How many of rho-desk's own dataclasses may be defined before the request: a frozen, slotted
dataclass costs about 1 ms to define (Python 3.11), a ``msgspec.Struct`` a few hundredths of that."""


def _at_the_request(tmp_path: Path) -> tuple[list[str], list[str]]:
    """``rho-desk continue`` on a small session, stopped as its model request connects: the
    modules then loaded, and rho-desk's dataclasses among their classes."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from bench_continue import small_session  # the session the benchmark continues
    finally:
        sys.path.remove(str(BENCHMARKS))
    path = small_session(tmp_path)
    argv = [
        "continue",
        str(path),
        "-m",
        "go on",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--trust-workspace",
    ]
    code = (
        "import dataclasses, os, sys\n"
        "def at_connect(event, args):\n"
        "    if event == 'socket.connect' and args[1][1] == 9:\n"
        "        own = [m for name, m in list(sys.modules.items()) if name.startswith('rho_desk')]\n"
        "        classes = [f'{m.__name__}.{k}' for m in own for k, v in vars(m).items()\n"
        "                   if isinstance(v, type) and v.__module__ == m.__name__ and dataclasses.is_dataclass(v)]\n"
        "        print(' '.join(sorted(sys.modules)))\n"
        "        print(' '.join(sorted(classes)), flush=True)\n"
        "        os._exit(0)\n"
        "sys.addaudithook(at_connect)\n"
        "from rho_desk.cli import main\n"
        f"sys.exit(main({argv!r}))\n"
    )
    env = {**os.environ, "RHO_DESK_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0 and len(lines) == 2, done.stderr  # the request was under way
    return lines[0].split(), lines[1].split()


def test_continue_sends_its_request_before_loading_what_only_later_steps_need(
    tmp_path: Path,
) -> None:
    modules, dataclasses = _at_the_request(tmp_path)
    assert (
        "httpx" in modules and "rho_desk.core.session.session" in modules
    )  # the turn is under way
    assert [name for name in _LOADED_AFTER_THE_REQUEST if name in modules] == []
    assert len(dataclasses) <= _DATACLASSES_BEFORE_THE_REQUEST, dataclasses
    for name in (
        _LOADED_AFTER_THE_REQUEST
    ):  # each name is a real module (the test would pass on a renamed one)
        assert importlib.util.find_spec(name) is not None, name


def test_a_continue_refused_before_its_request_leaves_the_cycle_collector_running(
    tmp_path: Path,
) -> None:
    """``rho-desk continue`` pauses the collector from the start; a usage error or a refusal
    before the request resumes it (this process runs on)."""
    with pytest.raises(SystemExit):
        cli.main(["continue", str(tmp_path)])  # no -m: a usage error
    assert gc.isenabled()
    assert cli.main(["continue", str(tmp_path / "missing"), "-m", "go on"]) == 2  # no such file
    assert gc.isenabled()
