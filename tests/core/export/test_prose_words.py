"""Prose read by shape alone (``scanner/_generated``'s ``prose_words``): on the lines of an export
where prose is (a text block, a reasoning summary), a word shaped as a generated password is a
value whatever language names it and whatever symbol it holds; elsewhere, and for names shaped
otherwise, nothing."""

from __future__ import annotations

import json
import random
import string

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


def _random_word(rng: random.Random, n: int) -> str:
    while True:
        word = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(n))
        if not word.isalpha() and not word.isdigit() and word.lower() != word != word.upper():
            return word


_FRAMES = (
    "Baatu jàll bu server bi mooy {}, bul ko wax kenn.",  # Wolof
    "Na vosa vuni ni server e {}.",  # Fijian
    "Wifi ñe'ẽñemi ha'e {}, ani eme'ẽ avavépe.",  # Guarani
    "সাৰ্ভাৰৰ পাছৱৰ্ড হৈছে {}, কাকো নক'ব।",  # Assamese
    "Jecha icciitii wifi: {}",  # Oromo
)


@pytest.mark.parametrize("size", [16, 20, 24, 32, 40])
def test_a_long_random_word_in_prose_is_a_value(size: int) -> None:
    """A word of 16 letters and digits or more was base64 data to the shape, so such a token in a
    sentence of a language no noun table holds left whole (28 of 40 exports, 16 to 32 bytes);
    now it is read by its pieces like a shorter one. Random draws, not chosen words: the share
    read is measured (about nine in ten) and held above four in five."""
    rng = random.Random(size)
    words = [_random_word(rng, size) for _ in range(100)]
    found = 0
    for word in words:
        data = (
            b'{\n      "User": [\n'
            + _line("Text", rng.choice(_FRAMES).format(word))
            + b"      ]\n}"
        )
        found += [data[h.start : h.end] for h in prose_words(data, None)] == [word.encode()]
    assert found >= 80, found


@pytest.mark.parametrize(
    "word",
    [
        "0x742d35Cc6634C0532925a3b844Bc454e4438f44e",  # EIP-55: hex whose case is a checksum
        "ResNet50V2BackboneLarge",  # an identifier's words
        "HttpClient2XmlParserV3Factory",
        "VisionEncoderDecoderModel2",
        "Qwen2.5-Coder-32B-Instruct-GPTQ-Int4",
        "sk-proj-AbC123...xYz9",  # a mask
    ],
)
def test_a_long_name_in_prose_is_not_a_value(word: str) -> None:
    assert prose_words(_line("Text", f"see {word} in the notes"), None) == []


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
