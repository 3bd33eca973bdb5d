"""Benchmarks of the session engine: snapshots, event delivery, compaction, the token estimate.

* ``engine.snapshot_serialize_1k``: build ``Session.snapshot()`` of 1,000 representative
  messages (user and assistant text, tool calls and results, one image, enriched assistants
  with provider context) and serialise it as ``SessionSnapshot.to_json`` does (pretty JSON).
  Target: median ≤ 10 ms. A second figure gives the compact encoding (session-file records).
* ``engine.snapshot_parse_100k``: parse and validate a ~58 MB compact snapshot of 100,000
  messages (100 of them carry a 200 KB base64 image) with ``decode_snapshot``. Target: throughput
  ≥ 0.4 × ``orjson.loads`` on the same bytes in the same run (both with the cyclic GC paused,
  as ``decode_snapshot`` does). ``.memory``: peak allocation during the parse, measured with
  ``tracemalloc`` in this process (the input bytes excluded), as a multiple of the file size;
  target ≤ 4.
* ``engine.event_delivery_10k``: 10,000 streamed text deltas through one run (default event
  capacity 64) to a consumer; events/s over the whole run. Baseline: a bare
  ``asyncio.Queue(64)`` producer/consumer of 10,000 items, same run. Target ≥ 250,000 events/s.
  ``.latency_p99``: per run, the 99th percentile of send-to-consume latency of the deltas
  (provider-side timestamp before ``send`` to the consumer's receipt); target < 5 ms.
* ``engine.compaction_1k``: one run on a 999-message history with ``after_messages(1000)``:
  automatic compaction by a scripted compactor (two-message replacement), its commit, then the
  scripted answer and the final commit. Target: median ≤ 15 ms. Baseline: the same run on the
  two-message history without compaction (the run's own cost).
* ``engine.token_estimate_100k``: ``estimate_messages_tokens`` over the 100,000 messages of the
  parse benchmark; reports messages/s.

``--quick`` keeps every size (the targets are about these sizes) and takes fewer samples.
"""

from __future__ import annotations

import asyncio
import gc
import random
import time
from typing import Any

import orjson

from rho_desk.benchkit import BenchResult, benchmark, measure, percentile, traced_peak
from rho_desk.core.compaction.api import CompactionPolicy
from rho_desk.core.compaction.tokens import estimate_messages_tokens
from rho_desk.core.provider import EventSink, ModelProvider, ModelRequest, OutputDelta
from rho_desk.core.session import Rho, SessionOptions
from rho_desk.core.session import events as ev
from rho_desk.core.testing import ScriptedCompactor, ScriptedProvider, ScriptedTurn
from rho_desk.core.wire.codec import decode_snapshot, encode, encode_pretty, gc_paused
from rho_desk.core.wire.model import (
    AssistantMessage,
    ContentBlock,
    ImageContent,
    Message,
    ModelIdentity,
    ProviderContextBlock,
)
from rho_desk.core.wire.snapshot import SessionSnapshot

IDENTITY = ModelIdentity("openai", "responses", "gpt-5")
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _vocabulary(rng: random.Random) -> list[str]:
    return ["".join(rng.choice(_LETTERS) for _ in range(rng.randint(2, 9))) for _ in range(5_000)]


def _prose(rng: random.Random, vocab: list[str], mean_words: float) -> str:
    return " ".join(rng.choices(vocab, k=max(1, int(rng.expovariate(1 / mean_words)))))


def representative(
    n: int, *, images: int, image_chars: int, mean_words: float, seed: int
) -> list[Message]:
    """A realistic mix: user prompts, assistant answers with provider context, tool rounds."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    image_every = n // images if images else 0
    image_data = "".join(
        rng.choices(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", k=image_chars
        )
    )
    out: list[Message] = []
    i = 0
    while len(out) < n:
        blocks = [ContentBlock(text=_prose(rng, vocab, mean_words))]
        if (
            image_every
            and i % image_every == 0
            and sum(1 for m in out if m.user and len(m.user) > 1) < images
        ):
            blocks.append(ContentBlock(image=ImageContent(image_data, "image/png")))
        out.append(Message(user=tuple(blocks)))
        if i % 3 == 0:  # a tool round
            call_id = f"call_{i}"
            call = ContentBlock.of_tool_call(
                call_id, "read_file", {"path": f"src/{rng.choice(vocab)}.py", "limit": 200}
            )
            out.append(
                Message.enriched(
                    AssistantMessage(
                        content=(ContentBlock(text="Let me look."), call), provenance=IDENTITY
                    )
                )
            )
            out.append(Message.result(call_id, True, _prose(rng, vocab, mean_words * 2)))
        context = (
            ProviderContextBlock(
                identity=IDENTITY,
                kind="openai_response_output_item",
                position=0,
                data={
                    "type": "reasoning",
                    "encrypted_content": "".join(rng.choices(_LETTERS, k=120)),
                },
            ),
        )
        out.append(
            Message.enriched(
                AssistantMessage(
                    content=(ContentBlock(text=_prose(rng, vocab, mean_words)),),
                    provenance=IDENTITY,
                    reasoning_summary="checked the files" if i % 2 else None,
                    provider_context=context,
                )
            )
        )
        i += 1
    return out[:n]


def _samples(quick: bool, full: int, fast: int) -> int:
    return fast if quick else full


# --- snapshot serialisation ---------------------------------------------------------------


@benchmark("engine.snapshot_serialize_1k")
def snapshot_serialize_1k(quick: bool) -> list[BenchResult]:
    history = representative(1_000, images=1, image_chars=8_192, mean_words=45, seed=1)
    rho = Rho.builder().provider(ScriptedProvider(identity=IDENTITY)).build()
    session = rho.session(
        SessionOptions(history=tuple(history), revision=42, metadata={"title": "bench"})
    )
    repeat = _samples(quick, 40, 12)
    pretty = measure(lambda: encode_pretty(session.snapshot()), repeat=repeat, warmup=2)
    compact = measure(lambda: encode(session.snapshot()), repeat=repeat, warmup=2)
    size = len(encode_pretty(session.snapshot()))
    results = [
        BenchResult(
            "engine.snapshot_serialize_1k",
            "ms",
            pretty,
            "median <= 10 ms",
            percentile(pretty, 50) <= 10,
        ),
        BenchResult("engine.snapshot_serialize_1k.compact", "ms", compact, "report", None),
    ]
    results[0].details["bytes"] = size
    return results


# --- snapshot parsing ---------------------------------------------------------------------


def _big_snapshot() -> bytes:
    history = representative(100_000, images=100, image_chars=200_000, mean_words=45, seed=2)
    snapshot = SessionSnapshot.new(
        "bench-100k", 100_000, history, IDENTITY, metadata={"title": "big"}
    )
    return encode(snapshot)  # compact, as a session file's base record stores it (~58 MB)


_BIG: list[Any] = []


def _big() -> tuple[bytes, SessionSnapshot]:
    if not _BIG:
        data = _big_snapshot()
        _BIG.append((data, decode_snapshot(data)))
    return _BIG[0]  # type: ignore[no-any-return]


@benchmark("engine.snapshot_parse_100k")
def snapshot_parse_100k(quick: bool) -> list[BenchResult]:
    data, _ = _big()
    megabytes = len(data) / 1e6
    repeat = _samples(quick, 7, 3)

    def orjson_loads() -> None:
        with gc_paused():
            orjson.loads(data)

    # interleave so that machine noise hits both alike
    ours: list[float] = []
    theirs: list[float] = []
    for _ in range(repeat):
        ours += measure(lambda: decode_snapshot(data), repeat=1, warmup=0)
        theirs += measure(orjson_loads, repeat=1, warmup=0)
    ours_mb_s = [megabytes / (ms / 1000) for ms in ours]
    base = percentile([megabytes / (ms / 1000) for ms in theirs], 50)
    ratio = percentile(ours_mb_s, 50) / base
    speed = BenchResult(
        "engine.snapshot_parse_100k",
        "MB/s",
        ours_mb_s,
        ">= 0.4 x orjson.loads",
        ratio >= 0.4,
        baseline=base,
        ratio=ratio,
    )
    speed.details.update(bytes=len(data), median_ms=percentile(ours, 50))

    peak = traced_peak(lambda: decode_snapshot(data))
    memory = BenchResult(
        "engine.snapshot_parse_100k.memory",
        "x file",
        [peak / len(data)],
        "<= 4 x file size (tracemalloc peak)",
        peak / len(data) <= 4,
    )
    return [speed, memory]


# --- event delivery -----------------------------------------------------------------------


class _StampingProvider(ModelProvider):
    """Streams N deltas, stamping each right before ``send``."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.sent: list[float] = []

    def identity(self) -> ModelIdentity:
        return IDENTITY

    async def send_turn_stream(
        self, request: ModelRequest, events: EventSink
    ) -> tuple[ContentBlock, ...]:
        stamps = self.sent
        clock = time.perf_counter
        for _ in range(self.n):
            stamps.append(clock())
            await events.send(OutputDelta("x"))
        return (ContentBlock(text="done"),)


async def _deliver(n: int) -> float:
    provider = ScriptedProvider([ScriptedTurn.streaming([OutputDelta("tok ")] * n, "done")])
    session = Rho.builder().provider(provider).build().session()
    start = time.perf_counter()
    run = session.start("go")
    count = 0
    async for _ in run:
        count += 1
    await run.outcome()
    return count / (time.perf_counter() - start)


async def _latency_p99(n: int) -> float:
    provider = _StampingProvider(n)
    session = Rho.builder().provider(provider).build().session()
    received: list[float] = []
    clock = time.perf_counter
    run = session.start("go")
    async for event in run:
        if type(event) is ev.AssistantTextDelta:
            received.append(clock())
    await run.outcome()
    latencies = [(r - s) * 1000 for r, s in zip(received, provider.sent, strict=True)]
    return percentile(latencies, 99)


async def _queue_baseline(n: int) -> float:
    queue: asyncio.Queue[object] = asyncio.Queue(64)

    async def produce() -> None:
        for _ in range(n):
            await queue.put(ev.AssistantTextDelta("tok "))
        await queue.put(None)

    start = time.perf_counter()
    producer = asyncio.ensure_future(produce())
    count = 0
    while await queue.get() is not None:
        count += 1
    await producer
    return count / (time.perf_counter() - start)


@benchmark("engine.event_delivery_10k")
def event_delivery_10k(quick: bool) -> list[BenchResult]:
    n = 10_000
    repeat = _samples(quick, 15, 5)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(_deliver(n))  # warm up
        rates: list[float] = []
        base: list[float] = []
        p99s: list[float] = []
        for _ in range(repeat):
            gc.collect()
            rates.append(loop.run_until_complete(_deliver(n)))
            base.append(loop.run_until_complete(_queue_baseline(n)))
            p99s.append(loop.run_until_complete(_latency_p99(n)))
    finally:
        loop.close()
    median = percentile(rates, 50)
    baseline = percentile(base, 50)
    return [
        BenchResult(
            "engine.event_delivery_10k",
            "events/s",
            rates,
            ">= 250,000 events/s",
            median >= 250_000,
            baseline=baseline,
            ratio=median / baseline,
        ),
        BenchResult(
            "engine.event_delivery_10k.latency_p99",
            "ms",
            p99s,
            "p99 < 5 ms",
            percentile(p99s, 50) < 5,
        ),
    ]


# --- compaction ---------------------------------------------------------------------------


@benchmark("engine.compaction_1k")
def compaction_1k(quick: bool) -> BenchResult:
    history = tuple(representative(999, images=1, image_chars=8_192, mean_words=45, seed=3))
    replacement = (
        Message.system_text("summary of the conversation so far"),
        Message.user_text("q"),
    )
    repeat = _samples(quick, 30, 10)
    loop = asyncio.new_event_loop()
    sessions: list[Any] = []

    def compacting() -> None:
        rho = (
            Rho.builder()
            .provider(ScriptedProvider([ScriptedTurn.completed("answer")], identity=IDENTITY))
            .compactor(ScriptedCompactor([replacement]))
            .compaction_policy(CompactionPolicy.after_messages(1_000))
            .build()
        )
        sessions[:] = [rho.session(SessionOptions(history=history))]

    def plain() -> None:
        rho = (
            Rho.builder()
            .provider(ScriptedProvider([ScriptedTurn.completed("answer")], identity=IDENTITY))
            .build()
        )
        sessions[:] = [rho.session(SessionOptions(history=replacement[:1]))]

    def run() -> None:
        outcome = loop.run_until_complete(sessions[0].complete("q"))
        assert outcome.revision >= 1

    try:
        samples = measure(run, repeat=repeat, warmup=2, setup=compacting)
        assert sessions[0].compaction_state.completed_compactions == 1
        baseline = measure(run, repeat=repeat, warmup=2, setup=plain)
    finally:
        loop.close()
    median, base = percentile(samples, 50), percentile(baseline, 50)
    return BenchResult(
        "engine.compaction_1k",
        "ms",
        samples,
        "median <= 15 ms",
        median <= 15,
        baseline=base,
        ratio=median / base,
    )


# --- token estimate -----------------------------------------------------------------------


@benchmark("engine.token_estimate_100k")
def token_estimate_100k(quick: bool) -> BenchResult:
    _, snapshot = _big()
    history = snapshot.history
    samples = measure(
        lambda: estimate_messages_tokens(history), repeat=_samples(quick, 5, 2), warmup=1
    )
    rates = [len(history) / (ms / 1000) for ms in samples]
    return BenchResult("engine.token_estimate_100k", "messages/s", rates, "report", None)
