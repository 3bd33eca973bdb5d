"""Receipts as documents: pydantic validation with located errors, version 1 still read, and the
Ed25519 signature over every field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rho_desk.core.errors import InputError
from rho_desk.core.export import (
    RULESET_VERSION,
    Selection,
    audit_bytes,
    build_receipt,
    decode_receipt,
    encode_receipt,
    export_snapshot,
    parse_public_key,
    public_key_text,
    signing_key,
    verify_receipt,
)
from rho_desk.core.export.scanner._secrets import SecretScanner
from rho_desk.keys import MemoryKeySource

from .builders import canary_snapshot

KEY = bytes(range(32))


def _signed() -> tuple[bytes, dict[str, Any], MemoryKeySource]:
    keys = MemoryKeySource()
    result = export_snapshot(canary_snapshot(), Selection.everything(), key=KEY)
    receipt = build_receipt(
        result, output_name="x.json", key_id="kid:0", signing_key=signing_key(keys)
    )
    return result.data, json.loads(encode_receipt(receipt)), keys


def _check(data: bytes, document: dict[str, Any], keys: MemoryKeySource) -> str | None:
    receipt = decode_receipt(json.dumps(document).encode())
    report = audit_bytes(data, scanner=SecretScanner([]), key=KEY)
    public = parse_public_key(public_key_text(signing_key(keys)))
    return verify_receipt(receipt, data, report, "kid:0", public_key=public).signature


def test_a_signed_receipt_verifies_and_declares_its_facts() -> None:
    data, document, keys = _signed()
    assert document["format_version"] == 2 and document["history"] == "model"
    assert document["ruleset_version"] == RULESET_VERSION
    assert _check(data, document, keys) == "valid"
    assert _check(data, document, MemoryKeySource()) == "other-key"


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["output"].update(sha256="0" * 64),
        lambda d: d["output"].update(bytes=d["output"]["bytes"] + 1),
        lambda d: d.update(history="display"),
        lambda d: d.update(ruleset_version=RULESET_VERSION + 1),
        lambda d: d["classes"]["user"].update(strings=d["classes"]["user"]["strings"] + 1),
        lambda d: d["selection"].update(excluded=["images"]),
        lambda d: d.update(findings=[{"rule": "x", "severity": "low", "location": "$"}]),
        lambda d: d.update(created_at="2020-01-01T00:00:00Z"),
    ],
    ids=["sha256", "bytes", "history", "ruleset", "counts", "classes", "findings", "time"],
)
def test_every_declared_fact_is_covered_by_the_signature(edit) -> None:  # type: ignore[no-untyped-def]
    data, document, keys = _signed()
    edit(document)
    assert _check(data, document, keys) == "invalid"


def test_an_unsigned_receipt_is_reported_as_such() -> None:
    data, document, keys = _signed()
    del document["signature"]
    assert _check(data, document, keys) == "missing"


def test_a_version_1_receipt_still_reads() -> None:
    _data, document, _keys = _signed()
    for name in ("history", "ruleset_version", "signature"):
        del document[name]
    document["format_version"] = 1
    document["override"] = None
    receipt = decode_receipt(json.dumps(document).encode())
    assert receipt.history == "model" and receipt.signature is None and receipt.format_version == 1


def test_validation_errors_name_the_field() -> None:
    _data, document, _keys = _signed()
    document["output"]["sha256"] = "not hex"
    with pytest.raises(
        InputError,
        match=r"r\.json: not a rho-desk export receipt: output\.sha256: String should match",
    ):
        decode_receipt(json.dumps(document).encode(), source="r.json")
    document["format_version"] = 7
    with pytest.raises(InputError, match=r"unsupported receipt rho-desk\.export-receipt version 7"):
        decode_receipt(json.dumps(document).encode())
    with pytest.raises(InputError, match="not JSON"):
        decode_receipt(b"{")
    document = {**_signed()[1], "surprise": 1}
    with pytest.raises(InputError, match="surprise: Extra inputs are not permitted"):
        decode_receipt(json.dumps(document).encode())
