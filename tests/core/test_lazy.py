"""Lazy re-exports (rho_desk.core.lazy): each package's typed imports are what it exports, and
every one of them resolves at run time to the object its module defines."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from rho_desk.core.lazy import attach

ROOT = Path(__file__).resolve().parents[2]

LAZY_PACKAGES = sorted(
    ".".join(p.parent.relative_to(ROOT).parts)
    for p in (ROOT / "rho_desk").rglob("__init__.py")
    if "attach(__name__, __file__)" in p.read_text(encoding="utf-8")
)


def test_the_lazy_packages_are_found() -> None:
    assert {
        "rho_desk.core",
        "rho_desk.core.agents",
        "rho_desk.core.changes",
        "rho_desk.core.compaction",
        "rho_desk.core.stores.rho_files",
        "rho_desk.core.usage",
        "rho_desk.mcp",
        "rho_desk.providers",
    } <= set(LAZY_PACKAGES)


def _typed_imports(package: str) -> dict[str, tuple[str, str]]:
    """What the package's ``if TYPE_CHECKING:`` block imports, read here with ast on its own."""
    source = importlib.util.find_spec(package).origin  # type: ignore[union-attr]
    tree = ast.parse(Path(source).read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.dump(statement)
                for alias in statement.names:
                    # the explicit re-export form: the name is written once, as its own alias
                    assert alias.asname == alias.name, (package, alias.name)
                    base = importlib.util.resolve_name(
                        "." * statement.level + (statement.module or ""), package
                    )
                    found[alias.name] = (base, alias.name if statement.module else "")
    return found


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_typed_import_resolves_to_its_module_s_object(package: str) -> None:
    expected = _typed_imports(package)
    assert expected
    # a fresh interpreter: the names must load on their own, in any order, from a cold start
    script = (
        "import importlib, json, sys\n"
        f"pkg = importlib.import_module({package!r})\n"
        f"expected = {expected!r}\n"
        "bad = []\n"
        "for name, (where, attribute) in sorted(expected.items(), reverse=True):\n"
        "    module = importlib.import_module(where if attribute else where + '.' + name)\n"
        "    want = getattr(module, attribute) if attribute else module\n"
        "    if getattr(pkg, name) is not want: bad.append(name)\n"
        "print(json.dumps([bad, pkg.__all__, dir(pkg)]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT
    )
    import json

    bad, exported, listed = json.loads(out.stdout)
    assert bad == []
    assert set(expected) <= set(exported) and set(expected) <= set(listed)
    ruf022 = sorted(exported, key=lambda n: (0 if n.isupper() else 1 if n[:1].isupper() else 2, n))
    assert exported == ruf022


def test_an_unknown_name_is_an_attribute_error() -> None:
    import rho_desk.core as core

    with pytest.raises(AttributeError, match="no attribute 'NoSuchName'"):
        _ = core.NoSuchName
    assert not hasattr(core, "__wrapped__")  # dunder probes never read the source


def test_only_relative_from_imports_are_lazy_re_exports(tmp_path: Path) -> None:
    source = tmp_path / "__init__.py"
    source.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import json\n", encoding="utf-8"
    )
    getattr_, _dir = attach("planted", str(source))
    with pytest.raises(ImportError, match="only relative"):
        getattr_("json")


def test_the_rho_reader_s_decoders_are_made_when_a_rho_file_is_read() -> None:
    """Opening another agent's log resolves none of the Rho record types (about 10 ms of a
    process's start); reading a Rho file makes the decoders, which then decode as before."""
    fixtures = ROOT / "tests" / "fixtures"
    codex = next((fixtures / "agents" / "codex").rglob("rollout-*.jsonl"))
    script = f"""
import sys
from pathlib import Path
from rho_desk.core.stores import open as opening
from rho_desk.core.stores.rho_files import reader
opening.open_snapshot(Path({str(codex)!r}))
made = [n for n in ("_DECODER", "_SHOWN_LATER_DECODER", "_DISPLAY_DECODER", "_HEADER_DECODER")
        if "decode" in vars(getattr(reader, n))]
assert not made, made
record = reader.decode_line(b'{{"type":"set_leaf","timestamp":"1","target_id":"n"}}\\n', True, "s", 1)
assert type(record).__name__ == "SetLeafRecord" and record.target_id == "n", record
assert "decode" in vars(reader._SHOWN_LATER_DECODER)
print("ok")
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False
    )
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
