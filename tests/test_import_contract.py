"""The layers hold: import-linter's contracts in pyproject.toml, and what importing core loads.

Two checks:

* the contracts (``[tool.importlinter]``), run by import-linter itself. It reads every import in
  the package, including lazy imports inside functions and relative imports; the tests below
  plant each kind of violation in a copy of the package and watch the real tool catch it;
* dynamically: importing every core module in a fresh interpreter loads no Qt, network or
  keyring module, so a dependency that a third-party import drags in is caught too.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rho_desk

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(rho_desk.__file__).parent
CORE = PACKAGE / "core"

# Loaded by nothing in core, directly or through a dependency.
FORBIDDEN_AT_RUNTIME = {
    "PySide6",
    "shiboken6",
    "qasync",  # Qt
    "httpx",
    "httpcore",
    "aiohttp",
    "requests",
    "urllib3",  # HTTP clients
    "websockets",
    "openai",
    "anthropic",
    "h11",
    "h2",
    "http.client",
    "urllib.request",
    "ftplib",
    "smtplib",
    "xmlrpc",
    "keyring",
    "keyrings",
    "psycopg",
    "psycopg_pool",
    "mcp",
    "starlette",
    "uvicorn",
    "rho_desk.qt",
    "rho_desk.providers",
    "rho_desk.cli",
    "rho_desk.team",
    "rho_desk.keys",
    "rho_desk.mcp",
}


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert tool is not None, "import-linter is pinned in requirements.lock; run ./run-tests"
    return subprocess.run(
        [tool, str(cwd / "pyproject.toml"), "--no-cache", "--no-logo"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd), "HOME": str(cwd)},
    )


def test_layer_contracts_hold() -> None:
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 8 kept, 0 broken" in result.stdout


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("layers")
    shutil.copy(ROOT / "pyproject.toml", root)
    shutil.copytree(PACKAGE, root / "rho_desk", ignore=shutil.ignore_patterns("__pycache__"))
    return root


PLANTED = [
    # (module file to plant in, code, the import the tool must report)
    (
        "core/session/session.py",
        "\n\ndef _planted() -> None:\n    from ...providers import transport  # noqa\n",
        "rho_desk.core.session.session -> rho_desk.providers.transport",
    ),
    (
        "core/wire/model.py",
        "\n\ndef _planted() -> None:\n    import keyring  # noqa\n",
        "rho_desk.core.wire.model -> keyring",
    ),
    (
        "core/export/__init__.py",
        "\n\ndef _planted() -> None:\n    from ..stores import search  # noqa\n    import httpx  # noqa\n",
        "rho_desk.core.export -> httpx",
    ),
    (
        "providers/base.py",
        "\n\ndef _planted() -> None:\n    from PySide6 import QtCore  # noqa\n",
        "rho_desk.providers.base -> PySide6",
    ),
    (
        "qt/ui/text.py",
        "\n\ndef _planted() -> None:\n    from ...cli import show  # noqa\n",
        "rho_desk.qt.ui.text -> rho_desk.cli.show",
    ),
    (
        "keys/_files.py",
        "\n\ndef _planted() -> None:\n    from ..providers import profiles  # noqa\n",
        "rho_desk.keys._files -> rho_desk.providers.profiles",
    ),
    (
        "team/db.py",
        "\n\ndef _planted() -> None:\n    import keyring  # noqa\n",
        "rho_desk.team.db -> keyring",
    ),
    # the memory server: core and the key stores only, no Qt, nothing of core above it
    (
        "mcp/_gate.py",
        "\n\ndef _planted() -> None:\n    from ..providers import export_secrets  # noqa\n",
        "rho_desk.mcp._gate -> rho_desk.providers.export_secrets",
    ),
    (
        "mcp/_index.py",
        "\n\ndef _planted() -> None:\n    from PySide6 import QtCore  # noqa\n",
        "rho_desk.mcp._index -> PySide6",
    ),
    (
        "mcp/_log.py",
        "\n\ndef _planted() -> None:\n    import keyring  # noqa\n",
        "rho_desk.mcp._log -> keyring",
    ),
    (
        "core/stores/library.py",
        "\n\ndef _planted() -> None:\n    from ...mcp import _index  # noqa\n",
        "rho_desk.core.stores.library -> rho_desk.mcp._index",
    ),
    (
        "core/export/_pipeline.py",
        "\n\ndef _planted() -> None:\n    import mcp.server  # noqa\n",
        "rho_desk.core.export._pipeline -> mcp (l.",
    ),
    (
        "keys/_files.py",
        "\n\ndef _planted() -> None:\n    from ..mcp import _log  # noqa\n",
        "rho_desk.keys._files -> rho_desk.mcp._log",
    ),
    # only the layers contract sees these: siblings, and the log scrubber below the keys
    (
        "team/db.py",
        "\n\ndef _planted() -> None:\n    from ..providers import transport  # noqa\n",
        "rho_desk.team.db -> rho_desk.providers.transport",
    ),
    (
        "providers/transport.py",
        "\n\ndef _planted() -> None:\n    from ..team import db  # noqa\n",
        "rho_desk.providers.transport -> rho_desk.team.db",
    ),
    (
        "logs.py",
        "\n\ndef _planted() -> None:\n    from .keys import _files  # noqa\n",
        "rho_desk.logs -> rho_desk.keys._files",
    ),
    # inside qt, nothing imports upward (the layers contract over rho_desk.qt): a dialog typed by
    # the class behind its host protocol, or reaching the window; a feature reaching into another;
    # the ui base reaching a service; a service reaching a feature
    (
        "qt/export/dialog.py",
        "\n\ndef _planted() -> None:\n    from ..window.operations import SessionOperations  # noqa\n",
        "rho_desk.qt.export.dialog -> rho_desk.qt.window.operations",
    ),
    (
        "qt/settings/dialog.py",
        "\n\ndef _planted() -> None:\n    from ..window.main_window import MainWindow  # noqa\n",
        "rho_desk.qt.settings.dialog -> rho_desk.qt.window.main_window",
    ),
    (
        "qt/usage/statistics.py",
        "\n\ndef _planted() -> None:\n    from ..conversation.view import ConversationView  # noqa\n",
        "rho_desk.qt.usage.statistics -> rho_desk.qt.conversation.view",
    ),
    (
        "qt/ui/widgets.py",
        "\n\ndef _planted() -> None:\n    from ..services.bridge import EngineBridge  # noqa\n",
        "rho_desk.qt.ui.widgets -> rho_desk.qt.services.bridge",
    ),
    (
        "qt/services/document.py",
        "\n\ndef _planted() -> None:\n    from ..conversation import model  # noqa\n",
        "rho_desk.qt.services.document -> rho_desk.qt.conversation.model",
    ),
]


@pytest.mark.parametrize(
    ("where", "code", "reported"),
    PLANTED,
    ids=[f"{p[0]}->{p[2].split(' -> ')[1]}" for p in PLANTED],
)
def test_the_contracts_catch_a_planted_lazy_import(
    package_copy: Path, where: str, code: str, reported: str
) -> None:
    target = package_copy / "rho_desk" / where
    original = target.read_text(encoding="utf-8")
    target.write_text(original + code, encoding="utf-8")
    try:
        result = _lint_imports(package_copy)
    finally:
        target.write_text(original, encoding="utf-8")
    assert result.returncode == 1, result.stdout + result.stderr
    assert reported in result.stdout, result.stdout


def _loaded_after(script: str) -> set[str]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            script + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))",
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    return set(json.loads(out.stdout))


def _forbidden(module: str) -> bool:
    return any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN_AT_RUNTIME)


def test_importing_core_loads_no_forbidden_module() -> None:
    modules = sorted(
        "rho_desk.core."
        + ".".join(p.relative_to(CORE).with_suffix("").parts).removesuffix(".__init__")
        for p in CORE.rglob("*.py")
    )
    assert len(modules) > 5
    # asyncio itself imports socket and ssl; only what core adds on top of it counts.
    baseline = _loaded_after("import asyncio, uuid, sqlite3, hashlib, hmac, base64, json")
    loaded = _loaded_after(
        f"import importlib\nfor m in {modules!r}: importlib.import_module(m.rstrip('.'))"
    )
    assert sorted(m for m in loaded - baseline if _forbidden(m)) == []


# -- dynamic imports: invisible to the contracts, so banned in core ---------------------------

DYNAMIC_CALLS = {"__import__", "exec", "eval", "compile"}


def _dynamic_imports(path: Path) -> list[str]:
    """Every way ``path`` could import without an import statement: ``importlib``, ``runpy``,
    ``__import__``, ``exec``, ``eval`` and ``compile`` (by name or as ``builtins.X``)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
            )
            found += [
                f"{path.name}:{node.lineno} imports {n}"
                for n in names
                if n.split(".")[0] in ("importlib", "runpy")
            ]
        elif isinstance(node, ast.Name) and node.id in DYNAMIC_CALLS:
            found.append(f"{path.name}:{node.lineno} uses {node.id}")
        elif (
            isinstance(node, ast.Attribute)
            and node.attr in DYNAMIC_CALLS
            and isinstance(node.value, ast.Name)
            and node.value.id == "builtins"
        ):
            found.append(f"{path.name}:{node.lineno} uses builtins.{node.attr}")
    return found


def test_core_has_no_dynamic_import_but_its_lazy_exports() -> None:
    found = [hit for p in sorted(CORE.rglob("*.py")) for hit in _dynamic_imports(p)]
    # rho_desk/core/lazy.py loads the packages' lazy re-exports (PEP 562): only modules named by
    # the import statements under their ``if TYPE_CHECKING:``, which the contracts read
    # (tests/core/test_lazy.py resolves every one)
    assert sorted(found) == ["lazy.py:26 imports importlib"], found


@pytest.mark.parametrize(
    ("code", "ruff_finds"),
    [
        ('importlib.import_module("PySide6")', True),
        ('exec("import httpx")', True),
        ("eval(\"__import__('httpx')\")", True),
        ('__import__("keyring")', False),
        ('builtins.__import__("psycopg")', False),
    ],
)
def test_a_planted_dynamic_import_in_core_is_found(
    package_copy: Path, code: str, ruff_finds: bool
) -> None:
    target = package_copy / "rho_desk" / "core" / "wire" / "model.py"
    original = target.read_text(encoding="utf-8")
    module = code.split(".")[0] if code.startswith(("importlib.", "builtins.")) else None
    imports = f"    import {module}\n" if module else ""
    target.write_text(
        original + f"\n\ndef _planted() -> None:\n{imports}    {code}\n", encoding="utf-8"
    )
    try:
        assert _dynamic_imports(target), code  # what this suite finds
        ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
        result = subprocess.run(
            [ruff, "check", "--no-cache", "--output-format", "concise", str(target)],
            cwd=package_copy,
            capture_output=True,
            text=True,
            timeout=60,
        )
        if ruff_finds:  # what rho_desk/core/ruff.toml finds in the editor too
            assert result.returncode == 1 and "model.py" in result.stdout, (
                result.stdout + result.stderr
            )
    finally:
        target.write_text(original, encoding="utf-8")


_CIRCLES = """
import grimp, json, sys
graph = grimp.build_graph("rho_desk", cache_dir=None)
prefix = sys.argv[1]
modules = sorted(m for m in graph.modules if m.startswith(prefix))
edges = {m: sorted(d for d in graph.find_modules_directly_imported_by(m) if d.startswith(prefix)) for m in modules}
index, low, stack, on, circles, counter = {}, {}, [], set(), [], [0]
def visit(root):  # Tarjan's strongly connected components, iteratively
    work = [(root, iter(edges[root]))]
    index[root] = low[root] = counter[0]; counter[0] += 1; stack.append(root); on.add(root)
    while work:
        node, children = work[-1]
        child = next(children, None)
        if child is not None:
            if child not in index:
                index[child] = low[child] = counter[0]; counter[0] += 1; stack.append(child); on.add(child)
                work.append((child, iter(edges[child])))
            elif child in on:
                low[node] = min(low[node], index[child])
            continue
        work.pop()
        if work:
            low[work[-1][0]] = min(low[work[-1][0]], low[node])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop(); on.discard(top); part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                circles.append(sorted(part))
for module in modules:
    if module not in index:
        visit(module)
print(json.dumps(circles))
"""


def _circles(root: Path, prefix: str) -> list[list[str]]:
    """The import circles among ``prefix``'s modules (type-checking imports count)."""
    out = subprocess.run(
        [sys.executable, "-c", _CIRCLES, prefix],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root)},
        check=True,
    )
    result: list[list[str]] = json.loads(out.stdout)
    return result


def test_the_package_has_no_import_circles() -> None:
    """In the app, dialogs depend on the host protocol, not on the window, and no view reaches
    into a dialog; below it, a shared type or error sits beneath both of its users (``UnitRef``,
    ``read_failure``, ``MissingApiKey``, ``KeyedProfile``, ``cli.status``)."""
    assert _circles(ROOT, "rho_desk") == []


@pytest.mark.parametrize(
    ("planted", "partner"),
    [
        (
            "from ..window.session_commands import SessionCommands",
            "rho_desk.qt.window.session_commands",
        ),
        ("from ..app import AppContext", "rho_desk.qt.app"),
    ],
    ids=["commands", "app"],
)
def test_a_planted_circle_in_the_app_is_found(
    package_copy: Path, planted: str, partner: str
) -> None:
    """The shapes the dialogs had: each typed by the class that opened it, or by what built the window
    (a dialog reaching the window itself makes no circle now: the layers contract refuses it)."""
    target = package_copy / "rho_desk" / "qt" / "edit" / "dialog.py"
    original = target.read_text(encoding="utf-8")
    target.write_text(
        original + f"\n\ndef _planted() -> None:\n    {planted}  # noqa\n", encoding="utf-8"
    )
    try:
        circles = _circles(package_copy, "rho_desk.qt")
    finally:
        target.write_text(original, encoding="utf-8")
    assert any("rho_desk.qt.edit.dialog" in c and partner in c for c in circles), circles
