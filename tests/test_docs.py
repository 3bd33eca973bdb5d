"""The documentation's examples run: every code block of every ``docs/*.md``, so the docs cannot drift.

What runs, per fenced block (the first word of the info string is the language):

* ``python``: a complete program, executed in a fresh namespace whose ``__name__`` is
  ``"__main__"``; it fails the test by raising (examples ``assert`` what they claim). A block
  whose first line starts with ``>>>`` (or a ``pycon`` block) is a doctest instead, compared with
  ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``.
* ``console``: lines ``$ rho-desk ARGS`` are run through ``rho_desk.cli.main`` in this process.
  A command ends its line, or continues on the next after a trailing ``\\``. The lines after a
  command, up to the next ``$``, are its expected output (stdout, then stderr; ``...`` matches
  anything, whitespace runs compare equal); no lines means the output is not compared. The exit
  status must be 0 unless the command carries a shell comment ``# exit N`` (or
  ``# exit status N``). Environment variables (``"$RHO_HOME"``) are expanded as a shell would.
  Only ``rho-desk`` commands can run.
* A block marked ``no-run`` after its language (```` ```python no-run ````) is only checked:
  Python must compile, console commands must parse as ``rho-desk`` arguments. Use it only for
  what truly cannot run here (a real provider endpoint, the GUI).

Every other language (``json``, ``text``, none) is prose and is ignored.

The blocks of one document run in order, in one sandbox, so a program may write a file that a
later command reads. The sandbox is a temporary folder (the working directory) holding copies of
the upstream fixtures of ``tests/fixtures/rho`` under their own names, and a Rho home
(``RHO_HOME``) whose ``sessions/`` folder holds the three transcripts as Rho would place them
(``100_<id>.jsonl`` in the workspace of ``/historical/workspace``). ``HOME``, the XDG folders and
rho-desk's config, cache and trash folders all point into the sandbox; keyring is the in-memory
one of ``tests/conftest.py``. A document that names ``RHO_DESK_TEAM_DB`` gets it set to a fresh
database (with the current team schema) on the test session's PostgreSQL cluster.

Besides running the blocks, this module checks that every ``rho_desk.…`` name a document cites
in backticks still exists, and that the harness itself fails on a failing example.
"""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import io
import os
import re
import shlex
import shutil
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from .conftest import RHO_FIXTURES

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"

#: The public contract documents (issue 7): each must hold runnable examples.
CONTRACTS = ("compatibility.md", "upgrading.md", "security.md", "embedding.md")

HISTORICAL_CWD = "/historical/workspace"
"""The ``cwd`` in the headers of the upstream transcript fixtures."""
FIXTURE_IDS = {
    "session-v1.jsonl": "11111111-1111-4111-8111-111111111111",
    "session-v2.jsonl": "22222222-2222-4222-8222-222222222222",
    "session-v3.jsonl": "33333333-3333-4333-8333-333333333333",
}
FIXTURE_FILES = (
    *FIXTURE_IDS,
    "session-snapshot-v1.json",
    "session-snapshot-v2.json",
    "usage-v1.sqlite3",
)

RUNNABLE = frozenset({"python", "pycon", "console"})
NO_RUN = "no-run"
DOCTEST_FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
_EXIT_COMMENT = re.compile(r"#\s*exit(?:\s+status)?\s+(\d+)\s*$")
_CITED = re.compile(r"`(rho_desk(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\(\))?`")


# --- reading the documents ------------------------------------------------------------------------


@dataclass(frozen=True)
class Block:
    """One fenced code block of a document."""

    doc: Path
    line: int
    """1-based line of the opening fence."""
    lang: str
    flags: frozenset[str]
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc.name}:{self.line}"

    @property
    def runs(self) -> bool:
        return NO_RUN not in self.flags


def read_blocks(path: Path, text: str | None = None) -> list[Block]:
    """The fenced code blocks of a Markdown document, in order (parsed by markdown-it)."""
    source = path.read_text(encoding="utf-8") if text is None else text
    blocks = []
    for token in MarkdownIt("commonmark").parse(source):
        if token.type != "fence" or token.map is None:
            continue
        words = token.info.split()
        lang = words[0].lower() if words else ""
        blocks.append(Block(path, token.map[0] + 1, lang, frozenset(words[1:]), token.content))
    return blocks


def documents() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


# --- the sandbox --------------------------------------------------------------------------------


def make_sandbox(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Create the sandbox under ``root``, point the environment at it, and return its work folder."""
    from rho_desk.core.stores.rho_files.layout import workspace_dir

    work = root / "work"
    work.mkdir()
    for name in FIXTURE_FILES:
        shutil.copyfile(RHO_FIXTURES / name, work / name)
    home = root / "rho-home"
    folder = workspace_dir(home, HISTORICAL_CWD)
    folder.mkdir(parents=True)
    for name, session_id in FIXTURE_IDS.items():
        shutil.copyfile(RHO_FIXTURES / name, folder / f"100_{session_id}.jsonl")
    environment = {
        "RHO_HOME": home,
        "HOME": root / "user-home",
        "XDG_CONFIG_HOME": root / "xdg-config",
        "XDG_CACHE_HOME": root / "xdg-cache",
        "XDG_DATA_HOME": root / "xdg-data",
        "RHO_DESK_CONFIG_DIR": root / "config",
        "RHO_DESK_CACHE_DIR": root / "cache",
        "RHO_DESK_TRASH_DIR": root / "trash",
    }
    for name, value in environment.items():
        monkeypatch.setenv(name, str(value))
    monkeypatch.chdir(work)
    return work


# --- running blocks -----------------------------------------------------------------------------


class ExampleFailed(AssertionError):
    """An example of a document did not do what the document says."""


def run_python(block: Block) -> None:
    """Execute a program block (or a doctest block) in a fresh namespace."""
    if block.lang == "pycon" or block.text.lstrip().startswith(">>>"):
        run_doctest(block)
        return
    tree = ast.parse(block.text, filename=str(block.doc))
    ast.increment_lineno(tree, block.line)  # tracebacks point at the document's own lines
    code = compile(tree, str(block.doc), "exec")
    if not block.runs:
        return
    namespace = {"__name__": "__main__", "__file__": str(block.doc)}
    try:
        exec(code, namespace)
    except BaseException as exc:
        raise ExampleFailed(
            f"{block.where}: the example raised {type(exc).__name__}: {exc}"
        ) from exc


def run_doctest(block: Block) -> None:
    parser = doctest.DocTestParser()
    test = parser.get_doctest(
        block.text, {"__name__": "__main__"}, block.where, str(block.doc), block.line
    )
    if not block.runs:
        for example in test.examples:
            compile(example.source, block.where, "single")
        return
    runner = doctest.DocTestRunner(optionflags=DOCTEST_FLAGS)
    report: list[str] = []
    runner.run(test, out=report.append, clear_globs=True)
    if runner.failures:
        raise ExampleFailed(f"{block.where}: doctest failed\n" + "".join(report))


@dataclass(frozen=True)
class Command:
    line: int
    argv: list[str]
    status: int
    expected: str


def parse_console(block: Block) -> list[Command]:
    """The ``$ rho-desk ...`` commands of a console block, with their expected output and status."""
    commands: list[Command] = []
    lines = block.text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):  # only possible before the first command
            raise ExampleFailed(
                f"{block.where}: a console block starts with a `$ ` command, not {line!r}"
            )
        number = block.line + 1 + i
        text = line[2:]
        while text.endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text[:-1] + " " + lines[i].strip()
        i += 1
        output = []
        while i < len(lines) and not lines[i].startswith("$ "):
            output.append(lines[i])
            i += 1
        match = _EXIT_COMMENT.search(text)
        status = int(match[1]) if match else 0
        # as a shell would: "$RHO_HOME" names the sandbox's Rho home
        argv = [os.path.expandvars(word) for word in shlex.split(text, comments=True)]
        if not argv or argv[0] != "rho-desk":
            raise ExampleFailed(
                f"{block.doc.name}:{number}: only `rho-desk` commands can run here, not {text!r} "
                "(mark the block `no-run` if it truly cannot run)"
            )
        commands.append(Command(number, argv[1:], status, "\n".join(output).strip("\n")))
    return commands


def run_cli(argv: list[str]) -> tuple[int, str]:
    """``rho-desk ARGV`` in this process: its exit status and its output (stdout, then stderr)."""
    from rho_desk.cli import main

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse: bad usage
            status = exc.code if isinstance(exc.code, int) else 2
    text = [stream.buffer.getvalue().decode("utf-8") for stream in (out, err)]  # type: ignore[attr-defined]
    return status, text[0] + text[1]


def run_console(block: Block) -> None:
    commands = parse_console(block)
    if not block.runs:
        from rho_desk.cli import _parser

        parser = _parser()
        for command in commands:
            with contextlib.redirect_stderr(io.StringIO()):
                try:
                    parser.parse_args(command.argv)
                except SystemExit as exc:
                    raise ExampleFailed(
                        f"{block.doc.name}:{command.line}: `rho-desk {shlex.join(command.argv)}` "
                        "does not parse"
                    ) from exc
        return
    checker = doctest.OutputChecker()
    for command in commands:
        status, output = run_cli(command.argv)
        where = f"{block.doc.name}:{command.line}: rho-desk {shlex.join(command.argv)}"
        if status != command.status:
            raise ExampleFailed(
                f"{where}\nexit status {status}, the document says {command.status}\n{output}"
            )
        want = command.expected + "\n" if command.expected else ""
        if want and not checker.check_output(want, output, DOCTEST_FLAGS):
            raise ExampleFailed(
                f"{where}\noutput differs from the document\n--- document\n{want}--- actual\n{output}"
            )


def run_block(block: Block) -> None:
    if block.lang in ("python", "pycon"):
        run_python(block)
    elif block.lang == "console":
        run_console(block)


def run_document(blocks: list[Block]) -> None:
    """Run the blocks of one document, in order, in the current sandbox."""
    for block in blocks:
        run_block(block)


# --- the tests ------------------------------------------------------------------------------------


@pytest.mark.timeout(120)
@pytest.mark.parametrize("doc", documents(), ids=lambda p: p.name)
def test_examples_run(
    doc: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """Every python and console block of the document does what the document says."""
    make_sandbox(tmp_path, monkeypatch)
    if "RHO_DESK_TEAM_DB" in doc.read_text(encoding="utf-8"):
        # team-library examples: a fresh database on the session's throwaway PostgreSQL cluster
        # (the password in a .pgpass file: rho-desk refuses one inside the connection string)
        from tests.team.helpers import without_password

        monkeypatch.setenv(
            "RHO_DESK_TEAM_DB",
            without_password(request.getfixturevalue("pg_db"), tmp_path, monkeypatch),
        )
    run_document(read_blocks(doc))


@pytest.mark.parametrize("name", CONTRACTS)
def test_contract_documents_have_running_examples(name: str) -> None:
    blocks = read_blocks(DOCS / name)
    assert any(b.lang in RUNNABLE and b.runs for b in blocks), f"{name} has no runnable example"


def test_no_run_is_used_sparingly() -> None:
    """At most one block in ten may be exempt from running."""
    blocks = [b for doc in documents() for b in read_blocks(doc) if b.lang in RUNNABLE]
    exempt = [b.where for b in blocks if not b.runs]
    assert len(exempt) * 10 <= max(len(blocks), 10), exempt


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            value = getattr(value, name)
        return value
    raise ModuleNotFoundError(dotted)


def cited_names() -> Iterator[tuple[str, str]]:
    for doc in documents():
        for dotted in sorted(set(_CITED.findall(doc.read_text(encoding="utf-8")))):
            yield doc.name, dotted


def _wire_strings() -> set[str]:
    """Strings rho-desk writes into files that look like dotted Python names (export markers)."""
    from rho_desk.core.export import MARKER_EXCLUDED, MARKER_REDACTED
    from rho_desk.core.export._redact import EXCLUDED_ARGUMENT_KEY

    return {MARKER_EXCLUDED, MARKER_REDACTED, EXCLUDED_ARGUMENT_KEY}


@pytest.mark.parametrize(("doc", "dotted"), list(cited_names()))
def test_cited_names_exist(doc: str, dotted: str) -> None:
    """A module, class or function a document names in backticks can be imported (or, for the
    export's metadata keys, is one the code writes)."""
    from rho_desk.core.export._classify import EXPORT_MARKER_PREFIX

    if dotted.startswith(EXPORT_MARKER_PREFIX) or dotted == "rho_desk.excluded":
        assert dotted in _wire_strings(), (
            f"{doc} cites the export key `{dotted}`, which rho-desk does not write"
        )
        return
    try:
        _resolve(dotted)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"{doc} cites `{dotted}`, which does not exist: {exc}")


# --- the harness fails when an example is wrong -----------------------------------------------


def _blocks(markdown: str, tmp_path: Path) -> list[Block]:
    return read_blocks(tmp_path / "example.md", textwrap.dedent(markdown))


def test_harness_fails_a_failing_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_sandbox(tmp_path, monkeypatch)
    blocks = _blocks(
        """
        ```python
        assert 1 + 1 == 3, "arithmetic"
        ```
        """,
        tmp_path,
    )
    with pytest.raises(ExampleFailed, match=r"example\.md:2: the example raised AssertionError"):
        run_document(blocks)


def test_harness_fails_a_wrong_doctest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_sandbox(tmp_path, monkeypatch)
    blocks = _blocks(
        """
        ```python
        >>> 1 + 1
        3
        ```
        """,
        tmp_path,
    )
    with pytest.raises(ExampleFailed, match="doctest failed"):
        run_document(blocks)


def test_harness_checks_exit_status_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_sandbox(tmp_path, monkeypatch)
    ok = _blocks(
        """
        ```console
        $ rho-desk check session-v3.jsonl
        session-v3.jsonl: ok
        checked 1 file(s): 0 with problems, 0 finding(s)
        $ rho-desk show no-such-file.jsonl   # exit 2
        rho-desk: no-such-file.jsonl: no such file or folder
        ```
        """,
        tmp_path,
    )
    run_document(ok)
    wrong_status = _blocks(
        """
        ```console
        $ rho-desk show no-such-file.jsonl
        ```
        """,
        tmp_path,
    )
    with pytest.raises(ExampleFailed, match="exit status 2, the document says 0"):
        run_document(wrong_status)
    wrong_output = _blocks(
        """
        ```console
        $ rho-desk check session-v3.jsonl
        session-v3.jsonl: broken
        ...
        ```
        """,
        tmp_path,
    )
    with pytest.raises(ExampleFailed, match="output differs"):
        run_document(wrong_output)


def test_harness_refuses_other_commands_and_checks_no_run_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_sandbox(tmp_path, monkeypatch)
    with pytest.raises(ExampleFailed, match="only `rho-desk` commands"):
        run_document(_blocks("```console\n$ rm -rf session-v1.jsonl\n```\n", tmp_path))
    with pytest.raises(ExampleFailed, match="does not parse"):
        run_document(
            _blocks("```console no-run\n$ rho-desk show --no-such-flag x\n```\n", tmp_path)
        )
    with pytest.raises(SyntaxError):
        run_document(_blocks("```python no-run\ndef broken(:\n```\n", tmp_path))
    # a no-run block is not executed
    run_document(_blocks("```python no-run\nraise SystemExit(3)\n```\n", tmp_path))
    assert Path("session-v1.jsonl").exists()


def test_sandbox_holds_the_fixtures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = make_sandbox(tmp_path, monkeypatch)
    assert Path.cwd() == work
    assert sorted(p.name for p in work.iterdir()) == sorted(FIXTURE_FILES)
    home = Path(os.environ["RHO_HOME"])
    transcripts = sorted(p.name for p in home.glob("sessions/*/*.jsonl"))
    assert transcripts == sorted(f"100_{i}.jsonl" for i in FIXTURE_IDS.values())
    status, output = run_cli(["sessions", "--all", "--json"])
    assert status == 0, output
