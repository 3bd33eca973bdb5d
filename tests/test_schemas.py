"""The JSON Schemas published in ``docs/schemas/`` are the ones the code generates.

* ``export-receipt.v2.json``: the export receipt (a pydantic model, ``receipt_json_schema``);
* ``display-export.v1.json``: the display export document (msgspec structs of the wire format,
  ``display_export_schema``);
* ``import-receipt.v1.json``: the receipt ``rho-desk import`` writes beside a Rho session made
  from another agent's (msgspec structs, ``core.agents.importer.ImportReceipt``; the schema is
  rendered from the pydantic models of ``core.agents.receipt_schema``, held to the structs here).

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


def test_every_written_import_receipt_validates_against_the_published_schema(
    tmp_path: Path,
) -> None:
    """A first import, a re-import and an import of a grown source each write a receipt the
    published file accepts (types, required members, no undeclared member at any level)."""
    import jsonschema

    from rho_desk.core.agents.importer import import_session

    from .core.agents.conftest import main_sessions, make_homes

    schema = json.loads((SCHEMAS / "import-receipt.v1.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for agent, source in main_sessions(make_homes(tmp_path / "homes")).items():
        receipts = [import_session(source, home=tmp_path / "rho").receipt_path]
        receipts.append(import_session(source, home=tmp_path / "rho").receipt_path)
        if source.suffix == ".jsonl":  # a source that grew: a second run in the receipt
            lines = source.read_bytes().splitlines(keepends=True)
            source.write_bytes(b"".join(lines[: len(lines) // 2]))
            out = tmp_path / f"{agent}.jsonl"
            import_session(source, output=out)
            source.write_bytes(b"".join(lines))
            receipts.append(import_session(source, output=out).receipt_path)
        for path in receipts:
            document = json.loads(path.read_text(encoding="utf-8"))
            errors = [e.message for e in validator.iter_errors(document)]
            assert not errors, (agent, path.name, errors)
        assert validator.is_valid(document)
        document["source"]["extra"] = 1  # the check can fail
        assert not validator.is_valid(document)


def test_the_import_receipt_structs_are_the_schemas_models() -> None:
    """The msgspec structs written and read are the pydantic models the schema comes from:
    the same classes, fields in the same order, the same required fields and defaults."""
    import msgspec

    from rho_desk.core.agents import importer, receipt_schema

    for name in ("ImportReceipt", "ReceiptSource", "ReceiptKept", "ReceiptRun"):
        struct = getattr(importer, name)
        model = getattr(receipt_schema, name)
        fields = msgspec.structs.fields(struct)
        assert [f.name for f in fields] == list(model.model_fields), name
        for f in fields:
            declared = model.model_fields[f.name]
            assert f.required == declared.is_required(), (name, f.name)
            if not f.required:
                default = (
                    f.default if f.default_factory is msgspec.NODEFAULT else f.default_factory()
                )
                assert default == declared.get_default(call_default_factory=True), (name, f.name)
            assert msgspec.json.schema(f.type) == msgspec.json.schema(
                _plain(declared.annotation)
            ), (name, f.name)


def _plain(annotation: Any) -> Any:
    """A pydantic model's annotation with its nested models as the importer's structs."""
    from rho_desk.core.agents import importer, receipt_schema

    names = {
        getattr(receipt_schema, n): getattr(importer, n)
        for n in ("ReceiptSource", "ReceiptKept", "ReceiptRun")
    }
    if annotation in names:
        return names[annotation]
    origin = getattr(annotation, "__origin__", None)
    if origin is list:
        return list[_plain(annotation.__args__[0])]  # type: ignore[misc]
    return annotation


if __name__ == "__main__":
    if "--write" in sys.argv:
        SCHEMAS.mkdir(parents=True, exist_ok=True)
        for file, make in PUBLISHED.items():
            (SCHEMAS / file).write_text(render(make()), encoding="utf-8")
            print(f"wrote {SCHEMAS / file}")
    else:
        for file, make in PUBLISHED.items():
            print(f"--- {file}\n{render(make())}")
