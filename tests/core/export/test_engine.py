"""The scanner's buffers: a wrapped block's chunks are its lines joined, however they are cut."""

from __future__ import annotations

import base64
import binascii
import bisect
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rho_desk.core.export.scanner._decoders import b64_decode
from rho_desk.core.export.scanner._engine import (
    MIN_RUN,
    RUN,
    RUN_TABLE,
    SIGNS,
    SPAN,
    Block,
    Pieces,
    block_chunks,
    dense_runs,
    find_runs,
    joined_pieces,
    runs_of,
    sparse_runs,
    wrapped_blocks,
)
from rho_desk.core.export.scanner._rules import unescaped_start


def _runs(data: bytes) -> list[tuple[int, int]]:
    """The runs as the scanner leaves them: without an escape's tail (``\\nQUJD``), and without
    a diff sign after a line break."""
    runs = list(map(SPAN, RUN.finditer(data.translate(RUN_TABLE))))
    runs = [(unescaped_start(data, s, e), e) if data[s - 1] == 0x5C else (s, e) for s, e in runs]
    runs = [(s, e) for s, e in runs if e - s >= MIN_RUN]
    return [
        (s + 1, e)
        if data[s] in SIGNS and s > 0 and (data[s - 1] == 0x0A or data[s - 2 : s] == b"\\n")
        else (s, e)
        for s, e in runs
    ]


@pytest.mark.parametrize(
    "gap", [b"\n", b"\\n", b"\r\n", b"\\r\\n", b"  \n", b"\n> ", b"\n  ", b"<br>"]
)
def test_a_block_joined_by_one_gap_chunks_to_its_lines_joined(gap: bytes) -> None:
    rng = random.Random(len(gap))
    for width in (60, 64, 76):
        raw = base64.b64encode(rng.randbytes(50_000))  # lines that begin with "+" included
        data = (
            b'{"text": "' + gap.join(raw[i : i + width] for i in range(0, len(raw), width)) + b'"}'
        )
        runs = _runs(data)
        blocks = wrapped_blocks(data, runs)
        assert blocks and all(block.gap == gap for block in blocks)
        assert sum(block.last - block.first + 1 for block in blocks) >= len(runs) - 2
        for block in blocks:
            chunks = list(block_chunks(data, runs, block))
            lines = list(block_chunks(data, runs, Block(block.first, block.last, None)))
            assert chunks == lines
            assert b"".join(body for _, _, body in chunks).count(gap) == 0


def test_a_block_with_numbered_lines_has_no_single_gap() -> None:
    raw = base64.b64encode(random.Random(1).randbytes(6000))
    data = b"".join(
        b"%d:%s\n" % (n + 1, raw[i : i + 76]) for n, i in enumerate(range(0, len(raw), 76))
    )
    runs = _runs(data)
    blocks = wrapped_blocks(data, runs)
    assert blocks and all(block.gap is None for block in blocks)
    body = b"".join(body for block in blocks for _, _, body in block_chunks(data, runs, block))
    assert (
        base64.b64decode(body[: len(body) // 4 * 4])[:100]
        == base64.b64decode(raw[: len(body) // 4 * 4])[:100]
    )


def test_pieces_are_the_pieces_of_the_joined_pass() -> None:
    # around any run asked about, with and without separators between runs
    rng = random.Random(7)
    for trial in range(80):
        parts = []
        for _ in range(rng.randint(1, 400)):
            parts.append(b"a" * rng.choice([16, 17, 30, 76, 200, 900, 1100]))
            gap = b" " * rng.choice([1, 1, 2, 12, 13, 40])
            if trial % 2 and rng.random() < 0.1:
                gap = gap[:-1] + rng.choice([b"\x00", b"\xff"])
            parts.append(gap)
        data = b"".join(parts)
        runs = list(map(SPAN, RUN.finditer(data.translate(RUN_TABLE))))
        joined = list(zip(*joined_pieces(data, runs), strict=True))
        of_run = {}
        for piece in joined:
            for k, (s, _) in enumerate(runs):
                if piece[0] <= s and runs[k][1] <= piece[1]:
                    of_run[k] = piece
        pieces = Pieces(data, runs)
        run_starts = [s for s, _ in runs]
        for end in sorted(
            rng.sample(range(1, len(data) + 1), min(300, len(data))), key=lambda _: rng.random()
        ):
            k = bisect.bisect_right(run_starts, end - 1) - 1
            expected = None if k < 0 else of_run[k] if end - 1 <= of_run[k][1] + 1 else None
            assert pieces.of(end) == expected, (trial, end)


def test_sparse_and_dense_runs_are_the_runs_the_pattern_finds() -> None:
    rng = random.Random(11)
    for density in (0.1, 0.26, 0.5, 0.9, 0.99, 1.0):
        for size in (0, 15, 16, 17, 5000):
            data = bytes(rng.choices(range(256), k=size)) if density < 1 else b"A" * size
            marks = (
                bytes(0x61 if rng.random() < density else 0x20 for _ in range(size))
                if density < 0.99
                else data.translate(RUN_TABLE)
            )
            assert sparse_runs(marks) == list(map(SPAN, RUN.finditer(marks))), (density, size)
            assert dense_runs(marks) == list(map(SPAN, RUN.finditer(marks))), (density, size)
            assert find_runs(marks * 20) == list(map(SPAN, RUN.finditer(marks * 20))), (
                density,
                size,
            )


def test_runs_of_mends_the_runs_and_sorts_blobs_from_the_rest() -> None:
    """``runs_of`` mends the runs in one pass: the runs ``_runs`` describes, on texts dense with
    escapes and signs, split at ``blob_min``."""
    rng = random.Random(5)
    parts = [
        b"\\n",
        b"\\\\n",
        b"\\u0041",
        b"\\",
        b"\n",
        b"+",
        b"-",
        b" ",
        b'"',
        b"QUJD" * 5,
        b"A1b2" * 3,
        b"x" * 40,
        b"n" * 15,
    ]
    for trial in range(300):
        data = b"".join(rng.choices(parts, k=rng.randrange(1, 60)))
        runs, blobs, small = runs_of(data, 24)
        assert runs == _runs(data), (trial, data)
        assert blobs == [r for r in runs if r[1] - r[0] >= 24] and small == [
            r for r in runs if r[1] - r[0] < 24
        ]


_RUN_TEXT = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=.%~ \n",
    max_size=200,
)


@settings(max_examples=500, deadline=None)
@given(
    st.one_of(
        _RUN_TEXT.map(str.encode),
        st.binary(max_size=200),
        st.binary(max_size=150).map(base64.b64encode),
    )
)
def test_base64_decodes_as_binascii_decodes(run: bytes) -> None:
    """``b64_decode`` decodes by SIMD what is all base64 and falls back to binascii, which leaves
    out what is not: the same bytes as binascii alone, or None where it fails."""

    def by_binascii(run: bytes) -> bytes | None:
        if b"-" in run or b"_" in run:
            if b"+" in run or b"/" in run:
                return None
            run = run.translate(bytes.maketrans(b"-_", b"+/"))
        rest = len(run) % 4
        run = run[:-1] if rest == 1 else run + b"=" * ((4 - rest) % 4)
        try:
            return binascii.a2b_base64(run)
        except binascii.Error:
            return None

    assert b64_decode(run) == by_binascii(run)
    assert b64_decode(run.rstrip(b"=")) == by_binascii(run.rstrip(b"="))
