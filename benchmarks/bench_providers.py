"""Benchmarks of the provider adapters and the compactors.

* ``providers.sse_decode``: the SSE decoder over a 10,000-event Chat Completions stream fed in
  4 KiB chunks (MB/s). Baseline: ``bytes.split(b"\\n\\n")`` of the whole buffer (no line rules,
  no chunking): the floor of any decoder.
* ``providers.stream_openai`` / ``providers.stream_anthropic``: one full streamed turn through the
  real adapter over a loopback aiohttp server (5,000 text deltas; 2,000 with ``--quick``),
  reported as deltas/s. Baseline: the same bytes read with plain httpx and no parsing (the
  transport's own cost). Target ≥ 20,000 deltas/s: far above any model's token rate.
* ``providers.cancel_to_disconnect``: from ``token.cancel()`` in the middle of a stream to the
  server seeing the connection closed (ms). Target p95 < 50 ms.
* ``compaction.local_preview_10k``: the local compactor's preview of a 10,000-message history
  (partition + digest). Baseline: ``estimate_messages_tokens`` of the same history (one pass
  that touches every message). Target < 500 ms.
* ``compaction.local_repeated``: one compaction in a loop of 300 (each after four new
  messages), ms per compaction; the history size stays bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

import httpx
from aiohttp import web

from rho_desk.benchkit import BenchResult, benchmark, measure
from rho_desk.core.cancellation import CancellationToken
from rho_desk.core.compaction import estimate_messages_tokens
from rho_desk.core.compaction.local import LocalCompactor, RecentBudget
from rho_desk.core.errors import ProviderError
from rho_desk.core.provider import ModelRequest, OutputDelta
from rho_desk.core.secrets.scrub import SecretString
from rho_desk.core.wire.model import AssistantMessage, ContentBlock, Message
from rho_desk.providers.anthropic import AnthropicProvider
from rho_desk.providers.openai_chat import OpenAIChatProvider
from rho_desk.providers.sse import SseDecoder


def _openai_stream(n: int) -> bytes:
    parts = []
    for i in range(n):
        chunk = {
            "id": "chatcmpl-b",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": f"tok{i} "}, "finish_reason": None}],
        }
        parts.append(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    end = {
        "id": "chatcmpl-b",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
    }
    parts.append(b"data: " + json.dumps(end).encode() + b"\n\n")
    parts.append(b"data: [DONE]\n\n")
    return b"".join(parts)


def _anthropic_stream(n: int) -> bytes:
    def event(kind: str, **payload: Any) -> bytes:
        return f"event: {kind}\ndata: {json.dumps({'type': kind, **payload})}\n\n".encode()

    parts = [
        event(
            "message_start",
            message={
                "id": "m",
                "type": "message",
                "role": "assistant",
                "content": [],
                "usage": {"input_tokens": 5, "output_tokens": 1},
            },
        ),
        event("content_block_start", index=0, content_block={"type": "text", "text": ""}),
    ]
    parts += [
        event("content_block_delta", index=0, delta={"type": "text_delta", "text": f"tok{i} "})
        for i in range(n)
    ]
    parts += [
        event("content_block_stop", index=0),
        event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": n}),
        event("message_stop"),
    ]
    return b"".join(parts)


@benchmark("providers.sse_decode")
def bench_sse_decode(quick: bool) -> BenchResult:
    data = _openai_stream(10_000)
    chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    megabytes = len(data) / 1e6

    def decode() -> None:
        decoder = SseDecoder()
        count = sum(1 for c in chunks for _ in decoder.feed(c))
        assert count == 10_002

    def floor() -> None:
        assert len(data.split(b"\n\n")) == 10_003

    repeat = 5 if quick else 15
    samples = [megabytes / (ms / 1000) for ms in measure(decode, repeat=repeat)]
    base = [megabytes / (ms / 1000) for ms in measure(floor, repeat=repeat)]
    result = BenchResult("providers.sse_decode", "MB/s", samples, "report", None)
    result.baseline = result.median and sorted(base)[len(base) // 2]
    result.ratio = result.median / result.baseline if result.baseline else None
    return result


async def _serve(
    body: bytes, hang: asyncio.Event | None = None
) -> tuple[web.AppRunner, str, asyncio.Event]:
    closed = asyncio.Event()

    async def handle(request: web.Request) -> web.StreamResponse:
        await request.read()
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        if hang is None:
            for i in range(0, len(body), 16_384):
                await response.write(body[i : i + 16_384])
            await response.write_eof()
            return response
        await response.write(body[:2000])
        while request.transport is not None and not request.transport.is_closing():
            await asyncio.sleep(0.0005)
        closed.set()
        return response

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", handle)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}", closed


class _Count:
    def __init__(self) -> None:
        self.deltas = 0

    async def send(self, event: object) -> None:
        if isinstance(event, OutputDelta):
            self.deltas += 1


def _stream_bench(
    name: str, make: Callable[[str], Any], body: bytes, n: int, quick: bool
) -> BenchResult:
    repeat = 5 if quick else 12

    async def main() -> tuple[list[float], list[float]]:
        runner, url, _ = await _serve(body)
        samples: list[float] = []
        base: list[float] = []
        try:
            provider = make(url)
            async with provider, httpx.AsyncClient() as client:
                for i in range(repeat + 1):
                    sink = _Count()
                    request = ModelRequest(
                        messages=(Message.user_text("hi"),),
                        tools=(),
                        cancellation=CancellationToken(),
                    )
                    start = time.perf_counter()
                    await provider.send_turn_stream(request, sink)
                    elapsed = time.perf_counter() - start
                    assert sink.deltas == n
                    start = time.perf_counter()
                    async with client.stream("POST", url + "/v1/x", content=b"{}") as response:
                        async for _ in response.aiter_bytes():
                            pass
                    raw = time.perf_counter() - start
                    if i:  # the first round warms the connection pools
                        samples.append(n / elapsed)
                        base.append(n / raw)
        finally:
            await runner.cleanup()
        return samples, base

    samples, base = asyncio.run(main())
    result = BenchResult(name, "deltas/s", samples, "≥ 20000 deltas/s", None)
    result.met = result.median >= 20_000
    result.baseline = sorted(base)[len(base) // 2]
    result.ratio = result.median / result.baseline
    return result


@benchmark("providers.stream_openai")
def bench_stream_openai(quick: bool) -> BenchResult:
    n = 2000 if quick else 5000
    return _stream_bench(
        "providers.stream_openai",
        lambda url: OpenAIChatProvider(
            base_url=url + "/v1", model="m", api_key=SecretString("sk-bench")
        ),
        _openai_stream(n),
        n,
        quick,
    )


@benchmark("providers.stream_anthropic")
def bench_stream_anthropic(quick: bool) -> BenchResult:
    n = 2000 if quick else 5000
    return _stream_bench(
        "providers.stream_anthropic",
        lambda url: AnthropicProvider(
            base_url=url + "/v1", model="m", api_key=SecretString("sk-bench")
        ),
        _anthropic_stream(n),
        n,
        quick,
    )


class _Canceller:
    """Cancels the token at the first text delta and remembers when."""

    def __init__(self, token: CancellationToken) -> None:
        self.token = token
        self.cancelled_at = 0.0

    async def send(self, event: object) -> None:
        if isinstance(event, OutputDelta) and not self.token.cancelled:
            self.cancelled_at = time.perf_counter()
            self.token.cancel()


@benchmark("providers.cancel_to_disconnect")
def bench_cancel(quick: bool) -> BenchResult:
    repeat = 10 if quick else 30

    async def main() -> list[float]:
        samples = []
        for _ in range(repeat):
            runner, url, closed = await _serve(_openai_stream(100), hang=asyncio.Event())
            try:
                token = CancellationToken()
                canceller = _Canceller(token)
                provider = OpenAIChatProvider(base_url=url + "/v1", model="m")
                async with provider:
                    request = ModelRequest(
                        messages=(Message.user_text("hi"),), tools=(), cancellation=token
                    )
                    with contextlib.suppress(ProviderError):
                        await provider.send_turn_stream(request, canceller)
                    await asyncio.wait_for(closed.wait(), timeout=5)
                    samples.append((time.perf_counter() - canceller.cancelled_at) * 1000)
            finally:
                await runner.cleanup()
        return samples

    result = BenchResult(
        "providers.cancel_to_disconnect", "ms", asyncio.run(main()), "p95 < 50 ms", None
    )
    result.met = result.p95 < 50
    return result


def _history(turns: int) -> list[Message]:
    messages: list[Message] = [Message.system_text("You are Rho.")]
    for n in range(turns):
        messages += [
            Message.user_text(
                f"request {n}: please look at src/module_{n}.py and https://example.com/doc/{n}"
            ),
            Message.enriched(
                AssistantMessage(
                    content=(
                        ContentBlock(
                            text=f"I'll read module {n} first. Should I also check the tests?"
                        ),
                        ContentBlock.of_tool_call(
                            f"c{n}", "read_file", {"path": f"src/module_{n}.py"}
                        ),
                    )
                )
            ),
            Message.result(f"c{n}", True, "def f():\n    return 1\n" * 20),
            Message.enriched(
                AssistantMessage(content=(ContentBlock(text=f"Module {n} is fine."),))
            ),
        ]
    return messages


@benchmark("compaction.local_preview_10k")
def bench_local_preview(quick: bool) -> BenchResult:
    history = _history(2500)  # 10,001 messages
    compactor = LocalCompactor()
    repeat = 3 if quick else 9
    samples = measure(lambda: compactor.preview(history), repeat=repeat)
    base = measure(lambda: estimate_messages_tokens(history), repeat=repeat)
    result = BenchResult("compaction.local_preview_10k", "ms", samples, "< 500 ms", None)
    result.met = result.median < 500
    result.baseline = sorted(base)[len(base) // 2]
    result.ratio = result.median / result.baseline
    return result


@benchmark("compaction.local_repeated")
def bench_local_repeated(quick: bool) -> BenchResult:
    compactor = LocalCompactor(RecentBudget(max_tokens=4000, max_messages=12))
    extra = _history(300)[1:]
    history: list[Message] = [Message.system_text("You are Rho.")]
    samples = []
    sizes = []
    for n in range(100 if quick else 300):
        history += extra[4 * n : 4 * n + 4]
        start = time.perf_counter()
        history = list(compactor.preview(history).replacement)
        samples.append((time.perf_counter() - start) * 1000)
        sizes.append(len(history))
    result = BenchResult(
        "compaction.local_repeated",
        "ms",
        samples,
        "report (history stays bounded)",
        max(sizes) <= 14,
    )
    result.details = {"max_messages_after": max(sizes)}
    return result
