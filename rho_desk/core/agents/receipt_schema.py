"""The published JSON Schema of the import receipt (``docs/schemas/import-receipt.v1.json``).

The receipt itself is :class:`.importer.ImportReceipt`, a msgspec struct (written and read
without loading pydantic, which costs an import about 0.1 s of CPU). These pydantic models
describe the same fields, in the same order, with the same defaults, only to render the schema;
a test holds the two to each other and checks every receipt the fixtures write against the
published file.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["receipt_json_schema"]


class ReceiptSource(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    agent: str
    path: str
    session_id: str
    digest: str = Field(description="sha256:<hex> of the log's bytes (opencode: of its rows)")
    bytes: int
    agent_version: str | None = None


class ReceiptKept(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    revisions: int
    branches: int
    compactions: int
    messages: int
    tool_calls: int
    tool_results: int
    images: int
    reasoning: int = Field(description="assistant messages with a reasoning summary")
    provider_context: int = Field(
        description="opaque blocks kept for the same model (signed thinking, encrypted reasoning)"
    )


class ReceiptRun(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    at: str
    digest: str
    added: int = Field(description="revisions written by this import (0: nothing was new)")


class ImportReceipt(BaseModel):
    """What an import read, kept and left out (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="rho-desk import receipt")

    format: Literal["rho-desk.import-receipt"] = "rho-desk.import-receipt"
    format_version: Literal[1] = 1
    source: ReceiptSource
    session_id: str = Field(description="the Rho session's id")
    transcript: str
    kept: ReceiptKept
    dropped: dict[str, int] = Field(
        description="each member of the source left out, by JSON path, with its count"
    )
    made: dict[str, int] = Field(
        description="what the import added to keep the history well formed, with counts"
    )
    not_carried: dict[str, int] = Field(
        default_factory=dict, description="what was read but a Rho session has no place for"
    )
    revision_ends: dict[str, str] = Field(description="Rho node id -> the source step it ends with")
    runs: list[ReceiptRun]


def receipt_json_schema() -> dict[str, object]:
    """The published JSON Schema of the import receipt."""
    return ImportReceipt.model_json_schema()
