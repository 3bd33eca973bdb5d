"""Classification: every string of a snapshot, its JSON path and its class, in wire order."""

from __future__ import annotations

import msgspec

from rho_desk.core.export import ContentClass, class_stats, is_placeholder, iter_slots
from rho_desk.core.export._classify import document_spans, is_attachment, json_path
from rho_desk.core.wire.codec import encode_pretty

from .builders import CANARIES, canary, canary_snapshot

C = ContentClass


def test_slots_are_in_wire_order() -> None:
    # the audit maps the n-th occurrence of a string in the bytes to the n-th slot holding it
    snapshot = canary_snapshot()
    data = encode_pretty(snapshot)
    slots = list(iter_slots(snapshot))
    counts: dict[str, int] = {}
    for slot in slots:
        counts[slot.text] = counts.get(slot.text, 0) + 1
    positions = []
    for slot in slots:
        # field names ("name", "data") are on the wire too: compare texts that cannot be one
        if counts[slot.text] == 1 and len(slot.text) > 12:
            positions.append(data.index(msgspec.json.encode(slot.text)))
    assert len(positions) > 30
    assert positions == sorted(positions)


def test_every_canary_is_in_a_slot_of_its_class() -> None:
    slots = list(iter_slots(canary_snapshot()))
    for name, cls in CANARIES.items():
        holders = [s for s in slots if canary(name) in s.text]
        assert holders, name
        for slot in holders:
            if cls is C.DOCUMENTS and slot.cls is C.TOOL_RECORDS:
                assert slot.kind == "result" and any(
                    canary(name) in slot.text[a:b] for a, b in document_spans(slot.text)
                )
            else:
                assert slot.cls is cls, (name, slot.path, slot.cls)


def test_paths_name_the_wire_locations() -> None:
    paths = {s.path: s.cls for s in iter_slots(canary_snapshot())}
    assert paths["$.history[0].System"] is C.INSTRUCTIONS
    assert paths["$.history[1].User[1].Image.data"] is C.IMAGES
    assert paths["$.history[1].User[1].Image.mime_type"] is None
    assert (
        paths["$.history[4].EnrichedAssistant.content[1].ToolCall.arguments.command"]
        is C.TOOL_RECORDS
    )
    assert paths["$.history[4].EnrichedAssistant.content[1].ToolCall.arguments.command@key"] is None
    assert (
        paths["$.history[4].EnrichedAssistant.content[2].ToolCall.arguments.input[0].ops.put"]
        is C.TOOL_RECORDS
    )
    assert paths["$.history[4].EnrichedAssistant.reasoning_summary"] is C.REASONING_SUMMARIES
    assert (
        paths["$.history[4].EnrichedAssistant.provider_context[0].data.encrypted_content"]
        is C.PROVIDER_CONTEXT
    )
    assert paths["$.history[4].EnrichedAssistant.provider_context[0].kind"] is None
    assert paths["$.history[12].AbortedAssistant.tool_calls[0].arguments"] is C.TOOL_RECORDS
    assert paths["$.history[12].AbortedAssistant.tool_calls[0].id"] is None
    assert paths["$.metadata.title"] is C.METADATA
    assert paths["$.metadata.CANARY_META_KEY_Q7@key"] is C.METADATA
    assert paths["$.prompt_cache_key"] is C.METADATA
    assert paths["$.session_id"] is None


def test_counts_and_sizes_per_class() -> None:
    stats = class_stats(canary_snapshot())
    assert stats.strings[C.INSTRUCTIONS] == 1
    assert stats.strings[C.IMAGES] == 2
    # two attachment blocks + a notice and a warning line in one tool result
    assert stats.strings[C.DOCUMENTS] == 4
    assert stats.strings[C.METADATA] == 5  # two keys, two values, the cache key
    assert stats.bytes[C.USER] > 0 and stats.structure_strings > 0
    assert set(stats.to_json()) == {c.value for c in C}


def test_documents_are_recognised() -> None:
    assert is_attachment("Attached file: a (b).pdf (application/pdf)\n<<<\ntext\n>>>")
    assert is_attachment("[docx: plan.docx · 120 chars]")
    assert is_attachment("[pdf: scan.pdf · 200000 chars · truncated]")
    assert not is_attachment("[note: this is a plain remark]")
    assert not is_attachment("I attached file: no")
    content = "text\n\nExtraction notice: content was truncated at the output limit.\n[document warning: bad font]\nafter"
    assert [content[a:b] for a, b in document_spans(content)] == [
        "Extraction notice: content was truncated at the output limit.",
        "[document warning: bad font]",
    ]
    assert document_spans("plain output") == []


def test_placeholders() -> None:
    assert is_placeholder("[images excluded: image/png, 45 KB]")
    assert is_placeholder(
        " [tool_records excluded: tool output, 3 B]\n\n[documents excluded: document warning] "
    )
    assert is_placeholder("[images redacted: contained a secret, image/png, 2 KB]")
    assert not is_placeholder("[images excluded: image/png] and more")
    assert not is_placeholder("[pictures excluded: x]")


def test_json_paths_quote_odd_keys() -> None:
    assert json_path("$.a", "plain_key") == "$.a.plain_key"
    assert json_path("$.a", 'with "quote" and space') == '$.a["with \\"quote\\" and space"]'
