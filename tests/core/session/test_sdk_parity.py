"""Upstream ``rho-sdk``'s public names against ``rho_desk.core``'s, with each difference documented.

The upstream list is ``tests/fixtures/upstream/rho-sdk-exports.json`` (the ``pub use`` names of
``crates/rho-sdk/src/lib.rs`` at the commit it records); the differences are the table in
docs/compatibility.md, section "The SDK's public names".
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import rho_desk.core as core

ROOT = Path(__file__).resolve().parents[3]
UPSTREAM = json.loads((ROOT / "tests/fixtures/upstream/rho-sdk-exports.json").read_text())
DOC = (ROOT / "docs/compatibility.md").read_text(encoding="utf-8")


def _table() -> dict[str, str]:
    section = DOC.split("## The SDK's public names", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([^`]+)`", cells[0]):
            assert name not in rows or rows[name] == cells[1], f"{name} is in two rows"
            rows.setdefault(name, cells[1])
    return rows


def _resolve(dotted: str) -> object:
    """A module (imported: packages load their submodules on first use) or a name in one."""
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError:
        module, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(module), name)


def test_every_upstream_name_is_ours_or_documented() -> None:
    table = _table()
    ours = set(core.__all__)
    undocumented = [n for n in UPSTREAM["names"] if n not in ours and n not in table]
    assert not undocumented, (
        f"upstream names neither in rho_desk.core nor documented: {undocumented}"
    )


def test_no_stale_rows() -> None:
    table = _table()
    upstream = set(UPSTREAM["names"])
    assert not set(table) - upstream, "rows name things upstream does not export"
    # A documented name must really be missing from core's surface, or the row says nothing.
    assert not set(table) & set(core.__all__)


def test_every_place_a_row_names_exists() -> None:
    for name, where in _table().items():
        for dotted in re.findall(r"`(rho_desk\.[\w.]+)`", where):
            assert _resolve(dotted) is not None, (name, dotted)


def test_should_compact_is_upstreams_predicate() -> None:
    # crates/rho-sdk/src/compaction_tests.rs
    policy = core.CompactionPolicy.after_messages(3)
    assert not policy.should_compact(2, 2**64 - 1)
    assert policy.should_compact(3, 0)
    policy = core.CompactionPolicy.at_context_tokens(1_000)
    assert not policy.should_compact(2**63, 999)
    assert policy.should_compact(0, 1_000)
