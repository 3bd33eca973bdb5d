"""The JSON Schemas published in ``docs/schemas/`` are the ones the code generates.

* ``export-receipt.v2.json``: the export receipt (a pydantic model, ``receipt_json_schema``);
* ``display-export.v1.json``: the display export document (msgspec structs of the wire format,
  ``display_export_schema``);
* ``import-receipt.v1.json``: the receipt ``rho-desk import`` writes beside a Rho session made
  from another agent's (a pydantic model, ``core.agents.importer.receipt_json_schema``).

``python -m tests.test_schemas --write`` rewrites them after a deliberate change (then raise the
version when the change is not backward compatible).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.agents.importer import receipt_json_schema as import_receipt_json_schema
from rho_desk.core.export import display_export_schema, receipt_json_schema

SCHEMAS = Path(__file__).resolve().parents[1] / "docs" / "schemas"
PUBLISHED: dict[str, Callable[[], dict[str, Any]]] = {
    "export-receipt.v2.json": receipt_json_schema,
    "display-export.v1.json": display_export_schema,
    "import-receipt.v1.json": import_receipt_json_schema,
}


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_schema_equals_the_generated_one(name: str) -> None:
    published = (SCHEMAS / name).read_text(encoding="utf-8")
    assert published == render(PUBLISHED[name]()), (
        f"regenerate with: python -m tests.test_schemas --write ({name})"
    )


def test_a_written_receipt_and_display_document_match_their_schemas_fields(tmp_path: Path) -> None:
    """Every top-level field a real export writes is declared in its schema (no silent drift)."""
    from rho_desk.core.export import (
        Selection,
        build_receipt,
        display_snapshot,
        encode_receipt,
        export_snapshot,
    )
    from rho_desk.core.export._keys import signing_key
    from rho_desk.core.wire import Message, ModelIdentity, SessionSnapshot
    from rho_desk.keys import MemoryKeySource

    model = SessionSnapshot.new(
        "s-1", 3, [Message.user_text("summary")], ModelIdentity("p", "a", "m")
    )
    shown = display_snapshot(model, [Message.user_text("hello"), Message.assistant_text("hi")])
    result = export_snapshot(
        shown, Selection.including(set()), key=bytes(32), history="display", timestamps=["1", "2"]
    )
    document = json.loads(result.data)
    assert set(document) <= set(display_export_schema()["$defs"]["DisplayExport"]["properties"])
    receipt = json.loads(
        encode_receipt(
            build_receipt(
                result,
                output_name="x.json",
                key_id="kid:0",
                signing_key=signing_key(MemoryKeySource()),
            )
        )
    )
    assert set(receipt) <= set(receipt_json_schema()["properties"])
    assert receipt["history"] == "display" and "signature" in receipt


def test_a_written_import_receipt_matches_its_schema(tmp_path: Path) -> None:
    """Every field of a real import receipt is declared in its schema, at every level."""
    from rho_desk.core.agents.importer import import_session

    from .core.agents.conftest import main_sessions, make_homes

    schema = import_receipt_json_schema()
    for agent, source in main_sessions(make_homes(tmp_path / "homes")).items():
        result = import_session(source, home=tmp_path / "rho")
        receipt = json.loads(result.receipt_path.read_text(encoding="utf-8"))
        assert set(receipt) == set(schema["properties"]), agent  # type: ignore[index]
        for part in ("source", "kept"):
            ref = schema["properties"][part]["$ref"].rsplit("/", 1)[1]  # type: ignore[index]
            assert set(receipt[part]) <= set(schema["$defs"][ref]["properties"]), (agent, part)  # type: ignore[index]


if __name__ == "__main__":
    if "--write" in sys.argv:
        SCHEMAS.mkdir(parents=True, exist_ok=True)
        for file, make in PUBLISHED.items():
            (SCHEMAS / file).write_text(render(make()), encoding="utf-8")
            print(f"wrote {SCHEMAS / file}")
    else:
        for file, make in PUBLISHED.items():
            print(f"--- {file}\n{render(make())}")
