"""docs/architecture.md's "one home per job" rules that a scan of the source can check.

Each rule names the one module that does a job; the scan finds any other module doing it. The
behaviour behind each rule has its own test: the same turn saved alike by the window and
``rho-desk continue`` (tests/qt/dialogs/test_continue_same_path.py), the same export and receipt
from the dialog and ``rho-desk export`` (tests/qt/dialogs/test_export_dialog.py), qt's layers
(tests/test_import_contract.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rho_desk

PACKAGE = Path(rho_desk.__file__).parent
FRONT_ENDS = ("cli", "qt", "team", "providers", "mcp")


def _modules(*parts: str) -> list[Path]:
    roots = [PACKAGE / p for p in parts if (PACKAGE / p).exists()]
    return sorted(p for root in roots for p in root.rglob("*.py") if "_resources_rc" not in p.name)


def _uses(source: str, package: str) -> set[str]:
    """What a module does that the rules look for: the modules it imports (relative imports
    resolved, lazy ones included), the functions it calls, the attributes it reads."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = parts[: len(parts) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.update(f"import {base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            found.add(f"call {name}")
        elif isinstance(node, ast.Attribute):
            found.add(f"attribute {node.attr}")
    return found


RULES = [
    # (what, what no front end may do, the one module outside core that may)
    (
        "a run's events are walked by the turn driver (core/session/turn.py); front ends present its events",
        {"import rho_desk.core.session.events"},
        (),
    ),
    (
        "an export is built and signed by build_export and sign_export (core/export/_pipeline.py)",
        # the MCP gate still runs export_snapshot itself (a session answer, and each answer's strings)
        {"call export_snapshot", "call build_receipt"},
        ("mcp/_gate.py",),
    ),
    (
        "a revision is written through acommit on an EditableSession: a writer is opened by the app's document, or to fork into a new session file",
        {"call SessionWriter", "call create_session"},
        ("qt/services/document.py", "qt/continue_/controller.py"),
    ),
    (
        "the tree lock is taken only through the session's API (run_locked, arun_locked)",
        {"attribute tree_lock"},
        ("qt/services/document.py",),
    ),
    (
        "a write holds the session's writer only through acommit (core/revisions): making a revision active and forking too",
        {"call writing"},
        (),
    ),
]


@pytest.mark.parametrize(
    ("rule", "banned", "home"), RULES, ids=[r[0].split(" (")[0].split(":")[0][:50] for r in RULES]
)
def test_each_job_has_one_home(rule: str, banned: set[str], home: tuple[str, ...]) -> None:
    offenders = []
    for path in _modules(*FRONT_ENDS):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative in home:
            continue
        package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
        used = _uses(path.read_text(encoding="utf-8"), package) & banned
        if used:
            offenders.append(f"{relative}: {', '.join(sorted(used))}")
    assert not offenders, f"{rule}:\n" + "\n".join(offenders)


@pytest.mark.parametrize(
    ("planted", "seen"),
    [
        (
            "def drive():\n    from ..core.session import events\n    return events.Completed\n",
            "import rho_desk.core.session.events",
        ),
        (
            "def save(f):\n    from ..core.stores.rho_files import SessionWriter\n    SessionWriter(f).save(None)\n",
            "call SessionWriter",
        ),
        (
            "def peek(document):\n    with document.tree_lock:\n        pass\n",
            "attribute tree_lock",
        ),
        (
            "async def fork(self, node):\n    async with self.writing() as writer:\n        writer.fork(node)\n",
            "call writing",
        ),
    ],
)
def test_a_planted_second_home_is_found(planted: str, seen: str) -> None:
    """The scan sees a front end doing a job itself, in a function, through a relative import."""
    assert seen in _uses(planted, "rho_desk.cli")


def test_revision_logic_lives_in_core_revisions() -> None:
    """Edits, their rules, undo and the difference between two revisions are defined in
    core/revisions only: no other module defines a class or function of one of their names (the
    names that say what they are about; ``Entry``, ``Step`` or ``restore`` also name other things)."""
    import importlib
    import re

    home = PACKAGE / "core" / "revisions"
    names = {
        name
        for path in _modules("core/revisions")
        if path.stem != "__init__"
        for name in importlib.import_module(f"rho_desk.core.revisions.{path.stem}").__all__
        if re.search("revision|diff|edit|commit|undo|session|state", name, re.IGNORECASE)
    }
    assert {
        "RevisionDiff",
        "revision_diff",
        "compute_diff",
        "acommit",
        "FileSession",
        "apply_edits",
    } <= names
    offenders = [
        f"{path.relative_to(PACKAGE).as_posix()}: {node.name}"
        for path in _modules("")
        if home not in path.parents
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.name in names
    ]
    assert not offenders, "revision logic outside core/revisions:\n" + "\n".join(offenders)
