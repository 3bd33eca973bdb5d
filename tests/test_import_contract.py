"""The layering contract: ``rho_desk.core`` never touches Qt or the network.

Checked twice: statically (every import statement under rho_desk/core) and dynamically
(importing every core module in a fresh interpreter loads none of the forbidden modules,
so a transitive import is caught too).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import rho_desk

PACKAGE = Path(rho_desk.__file__).parent
CORE = PACKAGE / "core"

FORBIDDEN = {
    "PySide6", "shiboken6", "qasync",                       # Qt
    "httpx", "httpcore", "aiohttp", "requests", "urllib3",  # HTTP clients
    "websockets", "openai", "anthropic", "h11", "h2",
    "socket", "ssl", "http", "urllib.request", "ftplib", "smtplib", "xmlrpc",
    "rho_desk.qt", "rho_desk.providers",                   # layers above core
    "keyring", "keyrings", "rho_desk.keys",                # keys reach core through core.keys
}  # fmt: skip
FORBIDDEN_CALLS = {"open_connection", "start_server", "create_connection", "open_unix_connection"}


def _forbidden(module: str) -> bool:
    return any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN)


def _core_files() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def test_core_has_modules() -> None:
    assert len(_core_files()) > 5


def test_no_forbidden_import_statements() -> None:
    offences = []
    for path in _core_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                if node.func.attr in FORBIDDEN_CALLS:
                    offences.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.func.attr}()")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "__import__":
                offences.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: __import__()")
            offences += [f"{path.relative_to(PACKAGE)}:{node.lineno}: {n}" for n in names if _forbidden(n)]
    assert offences == []


def _loaded_after(script: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", script + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        check=True, capture_output=True, text=True,
    )
    return set(json.loads(out.stdout))


def test_importing_core_loads_no_forbidden_module() -> None:
    modules = [
        "rho_desk.core." + ".".join(p.relative_to(CORE).with_suffix("").parts).removesuffix(".__init__")
        for p in _core_files()
    ]
    # asyncio itself imports socket and ssl; only what core adds on top of it counts.
    baseline = _loaded_after("import asyncio, uuid, sqlite3, hashlib, hmac, base64, json")
    loaded = _loaded_after(f"import importlib\nfor m in {modules!r}: importlib.import_module(m.rstrip('.'))")
    assert sorted(m for m in loaded - baseline if _forbidden(m)) == []


def test_the_contract_catches_a_violation(tmp_path: Path) -> None:
    # The static check is not vacuous: it flags a planted import.
    tree = ast.parse("import httpx\nfrom PySide6.QtCore import QObject\n")
    found = [n for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
             for n in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module])]
    assert all(_forbidden(n) for n in found) and len(found) == 2
