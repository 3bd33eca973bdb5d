"""The export package is cut along public seams: no module reaches into a sibling's private names.

Each module of ``rho_desk/core/export`` and of its scanner package says its one job in its docstring and uses its siblings
only through the names they make public (no leading underscore): a module that imports
``_spend`` from ``_rules``, or reads ``_rules._spend``, is one unit cut in two. The modules
themselves are named with an underscore (the package's surface is ``__init__``), so only the
names imported from them count, and dunders (``__version__``) are not private.
"""

from __future__ import annotations

import ast
from pathlib import Path

import rho_desk.core.export as export

# each package of the export, and the prefix its modules are imported by
PACKAGES = {
    Path(export.__file__).parent: "rho_desk.core.export.",
    Path(export.__file__).parent / "scanner": "rho_desk.core.export.scanner.",
}
SIBLING = "rho_desk.core.export.scanner."
# in the layout `ruff format` gives (a module of 800 lines hand-packed to 100 columns formats to
# about 900-950): past this, a module holds more than one job and is split by responsibility
MAX_LINES = 1000


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(source: str, siblings: set[str], prefix: str = SIBLING) -> list[str]:
    """Where ``source`` (a module of the package) uses a private name of one of ``siblings``:
    ``from ._x import _name``, ``from <prefix>_x import _name``, or ``_x._name``
    after ``from . import _x`` / ``import <prefix>_x as _x``."""
    tree = ast.parse(source)
    out: list[str] = []
    aliases: dict[str, str] = {}  # a local name bound to a sibling module -> that module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module is None:
                for alias in node.names:
                    if alias.name in siblings:
                        aliases[alias.asname or alias.name] = alias.name
                continue
            if node.level == 1:
                module = node.module
            elif node.level == 0 and node.module and node.module.startswith(prefix):
                module = node.module[len(prefix) :]
            else:
                continue
            if module not in siblings:
                continue
            out += [
                f"line {node.lineno}: from {module} import {a.name}"
                for a in node.names
                if _private(a.name)
            ]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if (
                    alias.name.startswith(prefix)
                    and alias.name[len(prefix) :] in siblings
                    and alias.asname
                ):
                    aliases[alias.asname] = alias.name[len(prefix) :]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and _private(node.attr)
        ):
            out.append(f"line {node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return out


def _modules(package: Path) -> dict[str, Path]:
    return {path.stem: path for path in sorted(package.glob("*.py"))}


def test_no_module_imports_a_private_name_of_a_sibling() -> None:
    for package, prefix in PACKAGES.items():
        modules = _modules(package)
        siblings = set(modules) - {"__init__"}
        found = {
            name: uses
            for name, path in modules.items()
            if (uses := private_uses(path.read_text(encoding="utf-8"), siblings, prefix))
        }
        assert found == {}, package


def test_every_module_says_its_job_and_stays_small() -> None:
    for name, path in {
        f"{package.name}/{name}": path
        for package in PACKAGES
        for name, path in _modules(package).items()
    }.items():
        source = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(source))
        assert doc and doc.strip().splitlines()[0].endswith("."), name
        assert len(source.splitlines()) <= MAX_LINES, (name, len(source.splitlines()))


def test_the_check_sees_each_way_of_reaching_a_private_name() -> None:
    siblings = {"_rules", "_views"}
    assert private_uses("from ._rules import Hit, _spend\n", siblings) == [
        "line 1: from _rules import _spend"
    ]
    assert private_uses("from rho_desk.core.export.scanner._rules import _Pass\n", siblings) == [
        "line 1: from _rules import _Pass"
    ]
    assert private_uses("from . import _views\n_views._DUMP_START\n", siblings) == [
        "line 2: _views._DUMP_START"
    ]
    assert private_uses(
        "import rho_desk.core.export.scanner._rules as r\nr._spend(1)\n", siblings
    ) == ["line 2: _rules._spend"]
    assert (
        private_uses(
            "from ... import __version__\nfrom ._rules import Hit\nfrom re import _compile\n",
            siblings,
        )
        == []
    )
