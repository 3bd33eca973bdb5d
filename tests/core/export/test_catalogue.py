"""docs/security.md carries the rule catalogue exactly as the code generates it."""

from __future__ import annotations

from pathlib import Path

from rho_desk.core.export import RULES
from rho_desk.core.export.scanner._catalogue import CATALOGUE_BEGIN, CATALOGUE_END, rule_catalogue

SECURITY = Path(__file__).resolve().parents[3] / "docs" / "security.md"


def test_the_catalogue_in_the_docs_is_the_generated_one() -> None:
    text = SECURITY.read_text(encoding="utf-8")
    start = text.index(CATALOGUE_BEGIN)
    end = text.index(CATALOGUE_END) + len(CATALOGUE_END)
    assert text[start:end] == rule_catalogue(), "paste rule_catalogue() into docs/security.md"


def test_the_catalogue_names_every_rule() -> None:
    table = rule_catalogue()
    assert all(f"| `{rule}` |" in table for rule in RULES)
