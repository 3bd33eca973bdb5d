"""The redaction gate: nothing the memory server answers leaves without the export pipeline.

Two passes, both through :mod:`rho_desk.core.export`'s public functions (so every improvement
to the scanner and the audit reaches the server unchanged):

* :meth:`Gate.session` runs a session's display history through :func:`export_snapshot` with
  the caller's content classes, exactly as ``rho-desk export --include`` does: excluded classes
  become typed placeholders, secrets become ``[secret redacted: RULE fp:…]``, and the exact
  bytes are audited;
* :meth:`Gate.answer` runs every string of a finished answer (titles, snippets, paths, diffs,
  usage keys, the transcript entries again) through the same pipeline as one document, and
  refuses the answer, with a reason naming the rules but never a value, when the audit of
  those bytes still has a critical or high finding.

The known secrets are the credentials rho-desk holds and its own keys' stored forms, as for an
export; the fingerprint key makes the ``fp:`` of each redaction match the receipts' on this
machine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from ..core.errors import KnownError
from ..core.export import ExportResult, ExportSource, Selection, export_snapshot
from ..core.wire.model import Message, ModelIdentity
from ..core.wire.snapshot import SessionSnapshot

__all__ = ["Gate", "Redacted", "Refused"]

_IDENTITY: Final = ModelIdentity("rho-desk", "mcp", "answer")


class Refused(KnownError):
    """The audit still flags an answer after redaction: it is not sent (the reason names rules,
    severities and JSON paths, never a value)."""


@dataclass(slots=True)
class Redacted:
    """What the gate redacted for one answer, by rule."""

    redactions: Counter[str] = field(default_factory=Counter)

    def add(self, result: ExportResult) -> None:
        self.redactions.update(r.rule for r in result.redactions)

    @property
    def count(self) -> int:
        return sum(self.redactions.values())


def _refusal(result: ExportResult, what: str) -> Refused:
    blocking = result.report.blocking
    rules = sorted({f"{f.severity.value} {f.rule}" for f in blocking})
    return Refused(
        f"{what} was not sent: the audit of its redacted bytes still has {len(blocking)} critical or high "
        f"finding(s) ({', '.join(rules)})"
    )


class Gate:
    """Redaction and audit for one server (thread-safe: the pipeline keeps no state between calls).

    Args:
        fingerprint_key: rho-desk's export fingerprint key (the ``fp:`` of redactions).
        known_secrets: every credential to redact whatever its shape (rho-desk's own keys'
            stored forms included by the caller).
    """

    def __init__(self, fingerprint_key: bytes, known_secrets: Sequence[str] = ()) -> None:
        self._key = fingerprint_key
        self._known = tuple(known_secrets)

    def __repr__(self) -> str:
        return f"Gate(known={len(self._known)})"

    def session(self, source: ExportSource, selection: Selection) -> ExportResult:
        """``source`` through the export (select, redact, render, audit), as ``rho-desk export``.

        Raises:
            Refused: the audit still has a critical or high finding.
        """
        result = export_snapshot(
            source.snapshot,
            selection,
            key=self._key,
            known_secrets=self._known,
            fmt="json",
            history=source.history,
            timestamps=source.timestamps,
            title=source.title,
        )
        if result.blocked:
            raise _refusal(result, f"session {source.snapshot.session_id}")
        return result

    def answer(self, payload: dict[str, Any], tally: Redacted | None = None) -> dict[str, Any]:
        """``payload`` with every string redacted, after the audit of those very strings passed.

        Keys of the payload are the server's own field names and are kept as they are; every
        string value (at any depth) is scanned, each distinct string once.

        Raises:
            Refused: the audit of the redacted strings still has a critical or high finding.
        """
        strings = sorted({s for s in _strings(payload) if s})
        if not strings:
            return payload
        document = SessionSnapshot.new(
            "answer", 1, [Message.user_text(s) for s in strings], _IDENTITY
        )
        result = export_snapshot(
            document, Selection.everything(), key=self._key, known_secrets=self._known, fmt="json"
        )
        if result.blocked:
            raise _refusal(result, "the answer")
        if tally is not None:
            tally.add(result)
        if not result.redactions:
            return payload
        replaced: dict[str, str] = {}
        for original, message in zip(strings, result.snapshot.history, strict=True):
            text = message.text()
            if text != original:
                replaced[original] = text
        return _replace(payload, replaced)  # type: ignore[no-any-return]


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)


def _replace(value: Any, replaced: dict[str, str]) -> Any:
    if isinstance(value, str):
        return replaced.get(value, value)
    if isinstance(value, dict):
        return {k: _replace(v, replaced) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_replace(v, replaced) for v in value]
    return value
