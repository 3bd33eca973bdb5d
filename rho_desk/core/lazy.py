"""Lazy re-exports (PEP 562) whose names are written once: as the package's typed imports.

A package that re-exports names without importing their modules up front writes each one as an
ordinary import under ``if TYPE_CHECKING:``, in the explicit re-export form::

    if TYPE_CHECKING:
        from .api import Compactor as Compactor
        from ..core.errors import MissingApiKey as MissingApiKey

    if not TYPE_CHECKING:
        __getattr__, __dir__ = attach(__name__, __file__)

mypy, the import-linter contracts and a reader see those lines as the imports they are (mypy
sees no ``__getattr__``, so a name the package does not export is an error, not ``Any``). At
run time the first name the package does not hold makes :func:`attach` read that block from the
package's source, once; each name's module is imported when the name is first used, and the
value is kept in the package (later uses cost nothing). ``__all__`` is the names of the block
and what the package defines itself.

This module holds the one dynamic import of ``rho_desk.core`` (its ``ruff.toml`` bans the
rest): it imports only modules named by import statements the contracts check.
"""

from __future__ import annotations

import importlib  # noqa: TID251
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["attach"]


def attach(package: str, source: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``, whose ``__init__`` is the file ``source``.

    Raises (from ``__getattr__``):
        AttributeError: the name is not one of the package's typed imports.
    """
    table: dict[str, tuple[str, str]] = {}

    def names() -> dict[str, tuple[str, str]]:
        if not table:
            table.update(_typed_imports(source))
        return table

    def getattr_(name: str) -> Any:
        if name == "__all__":
            module = sys.modules[package]
            own = [
                n
                for n, v in vars(module).items()
                if not n.startswith("_") and getattr(v, "__module__", None) == package
            ]
            value: Any = sorted({*names(), *own}, key=_ruf022)
        elif name.startswith("__") or name not in names():
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        else:
            where, attribute = table[name]
            loaded = importlib.import_module(where, package)
            value = getattr(loaded, attribute) if attribute else loaded
        setattr(sys.modules[package], name, value)  # later uses skip __getattr__
        return value

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *names()})

    return getattr_, dir_


def _typed_imports(source: str) -> dict[str, tuple[str, str]]:
    """``name -> (relative module, attribute)`` for the ``from ... import`` statements under the
    module-level ``if TYPE_CHECKING:`` of the file ``source`` (an empty attribute: the name is
    the module itself, as in ``from . import events as events``)."""
    import ast

    try:
        with open(source, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:  # a bundle that left the package's source out
        raise ImportError(f"{source}: the lazy re-exports need this source file ({exc})") from exc
    tree = ast.parse(text, source)
    found: dict[str, tuple[str, str]] = {}
    for node in tree.body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if not isinstance(statement, ast.ImportFrom) or statement.level == 0:
                raise ImportError(
                    f"{source}:{statement.lineno}: only relative 'from ... import' statements "
                    "are lazy re-exports"
                )
            where = "." * statement.level + (statement.module or "")
            for alias in statement.names:
                name = alias.asname or alias.name
                if statement.module is None:
                    found[name] = (where + alias.name, "")
                else:
                    found[name] = (where, alias.name)
    return found


def _is_type_checking(test: object) -> bool:
    import ast

    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _ruf022(name: str) -> tuple[int, str]:
    """ruff's RUF022 order, as every ``__all__`` here: CONSTANTS, Classes, functions."""
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)
