"""The loss report of every fixture log, pinned: what each reader drops (by JSON path, with
counts) and what it makes up, and what ``import`` says it kept. A faster reader must give the
same report; a reader that learns to keep a member changes ``receipts.json`` on purpose.

To rewrite the expected report after such a change: ``python -m tests.core.agents.test_receipt_losses``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from rho_desk.core.agents import read_log
from rho_desk.core.agents.importer import import_session

from .conftest import AGENT_FIXTURES, MAIN, make_homes

EXPECTED = Path(__file__).with_name("receipts.json")


def _logs(homes: dict[str, Path]) -> dict[str, Path]:
    """Every fixture log by a stable name: each agent's main session and the other files."""
    out = {f"{agent}:main": Path(f"{homes[agent]}/{MAIN[agent]}") for agent in MAIN}
    for agent, home in homes.items():
        for path in sorted(home.rglob("*.jsonl")):
            name = f"{agent}:{path.relative_to(home)}"
            if path != out[f"{agent}:main"]:
                out[name] = path
    return out


def reports(homes: dict[str, Path], folder: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, path in _logs(homes).items():
        log = read_log(path)
        entry: dict[str, Any] = log.loss.as_json()
        if name.endswith(":main"):
            receipt = import_session(
                path, output=folder / f"{name.split(':')[0]}.jsonl", clock=0
            ).receipt
            entry["receipt_dropped"] = receipt.dropped
            entry["receipt_made"] = receipt.made
            entry["kept"] = msgspec.structs.asdict(receipt.kept)
        out[name] = entry
    return out


def test_every_fixture_log_drops_and_keeps_what_it_did(tmp_path: Path) -> None:
    homes = make_homes(tmp_path / "homes")
    (tmp_path / "out").mkdir()
    got = reports(homes, tmp_path / "out")
    expected = json.loads(EXPECTED.read_text("utf-8"))
    assert got.keys() == expected.keys()
    for name in expected:
        assert got[name] == expected[name], name


def test_the_dropped_members_are_counted_where_they_are() -> None:
    """The pinned report is not empty: the fixtures drop members at many paths."""
    expected = json.loads(EXPECTED.read_text("utf-8"))
    assert sum(len(e["dropped"]) for e in expected.values()) > 20
    assert AGENT_FIXTURES.is_dir()


if __name__ == "__main__":  # rewrite receipts.json from the readers as they are
    import tempfile

    with tempfile.TemporaryDirectory() as scratch:
        homes = make_homes(Path(scratch) / "homes")
        (Path(scratch) / "out").mkdir()
        report = reports(homes, Path(scratch) / "out")
    EXPECTED.write_text(json.dumps(report, indent=1, sort_keys=True) + "\n", "utf-8")
    sys.stdout.write(f"wrote {EXPECTED} ({len(report)} logs)\n")
