"""Prose read by shape alone (``scanner/_generated``'s ``prose_words``): on the lines of an export
where prose is (a text block, a reasoning summary), a word shaped as a generated password is a
value whatever language names it and whatever symbol it holds; elsewhere, and for names shaped
otherwise, nothing."""

from __future__ import annotations

import json

import pytest

from rho_desk.core.export.scanner import SecretScanner
from rho_desk.core.export.scanner._generated import prose_words, spoken_apart

from .test_scanner_engines import re_only_scanner


def _line(key: str, text: str) -> bytes:
    return f'        "{key}": {json.dumps(text, ensure_ascii=False)}\n'.encode()


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("Text", "Kecap konci pikeun router kantor nyaéta cM_8TD8a3eAY.", "cM_8TD8a3eAY"),
        ("Text", "Ko te kupuhipa hou mō te tūmau ko OupN0aP-U0JsB9.", "OupN0aP-U0JsB9"),
        ("Text", "Tessera arcana servitoris: HxaF2+glaNPOfj (noli divulgare).", "HxaF2+glaNPOfj"),
        ("Text", "notes:\n\nVk7wN2pRq4Ts\n\nuse it", "Vk7wN2pRq4Ts"),  # after an escaped \n
        ("reasoning_summary", "The user pasted zR8mQ2vX5nLw earlier.", "zR8mQ2vX5nLw"),
        ("reasoning", "ລະຫັດຜ່ານແມ່ນrT6_pKw3NvZ8", "rT6_pKw3NvZ8"),  # glued to another script
    ],
)
def test_a_generated_word_in_prose_is_a_value(key: str, text: str, value: str) -> None:
    data = b'{\n      "User": [\n' + _line(key, text) + b"      ]\n}"
    found = [data[h.start : h.end] for h in prose_words(data, None)]
    assert found == [value.encode()]
    assert value.encode() in [data[h.start : h.end] for h in SecretScanner().scan(data)]


def test_only_prose_lines_are_read() -> None:
    text = "Kecap konci pikeun router kantor nyaéta cM_8TD8a3eAY."
    for key in ("content", "command", "System", "title"):
        assert prose_words(_line(key, text), None) == []


@pytest.mark.parametrize(
    "word",
    [
        b"ViT-B-16-SigLIP",
        b"H100-PCIe-80GB",
        b"Yi-1.5-34B-Chat-16K",
        b"Standard_NC24ads_A100_v4",
        b"DINOv2-ViT-L14",
        b"IPv6AddrV4Map",  # an identifier's words
        b"Vec3fToQuat2d",
        b"WizardLM-2-8x22B",  # a measure
        b"iOS17.4.1_iPhone15",
    ],
)
def test_a_name_is_not_spoken_apart(word: bytes) -> None:
    assert not spoken_apart(word)
    assert prose_words(_line("Text", f"we tried {word.decode()} today"), None) == []


def test_the_gate_finds_what_the_plain_scan_finds() -> None:
    lines = [
        _line("Text", "Furaha sirta ah ee server-ka waa TAZXqW-K38umbA."),
        _line("content", "Furaha sirta ah ee server-ka waa TAZXqW-K38umbA."),
        _line("reasoning_summary", "(Nk4Rt7Wq-Zp2Xm) is what I set; gpt-4o-mini-2024-07-18 ran"),
    ]
    data = b"{\n" + b"".join(lines) + b"}\n"
    gated, plain = SecretScanner(), re_only_scanner([])
    assert [(h.start, h.end) for h in gated.scan(data)] == [
        (h.start, h.end) for h in plain.scan(data)
    ]
    assert [data[h.start : h.end] for h in prose_words(data, None)] == [
        b"TAZXqW-K38umbA",
        b"Nk4Rt7Wq-Zp2Xm",
    ]
