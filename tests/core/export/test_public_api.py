"""The package's public surface: ``__all__`` complete and sorted (RUF022 order)."""

from __future__ import annotations

import importlib

import rho_desk.core.export as export

MODULES = [
    "_atomic",
    "_audit",
    "_classes",
    "_classify",
    "_display",
    "_export",
    "_keys",
    "_receipt",
    "_redact",
    "_transcript",
    "scanner",
    "scanner._secrets",
]


def _ruf022(name: str) -> tuple[int, str]:
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


def test_all_is_sorted_and_every_name_exists() -> None:
    assert export.__all__ == sorted(export.__all__, key=_ruf022)
    assert all(hasattr(export, name) for name in export.__all__)


def test_every_module_all_is_sorted_and_real() -> None:
    for name in MODULES:
        module = importlib.import_module(f"rho_desk.core.export.{name}")
        assert module.__all__ == sorted(module.__all__, key=_ruf022), name
        assert all(hasattr(module, n) for n in module.__all__), name
        assert module.__doc__ and module.__doc__.strip().splitlines()[0].endswith("."), name
