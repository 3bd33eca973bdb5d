"""Build the bundled demo library: ``resources/demo/home`` (a complete Rho home).

    .venv/bin/python resources/demo/build.py

Writes realistic sessions in every transcript schema, through rho-desk's own writer and wire
types wherever it can:

* version 3 files with ``create_session`` + ``SessionWriter.save`` (a snapshot, then deltas; a
  compaction as a new complete snapshot), and a fork with ``fork_session``;
* version 4 trees: header and root node encoded from our record types, then every later node,
  the branch and the ``set_leaf`` appended by ``SessionWriter`` (a compaction node with facts);
* legacy version 1 (``message`` / ``replace_history``) and version 2 (``snapshot``) records,
  which our writer never writes, encoded from the same record structs in the exact form of
  storage.md §5.2-§5.4;
* ``workspace-checkpoints/checkpoints.jsonl`` for two folder sessions, as Rho (or a turn
  continued in rho-desk) records it: the exact content before each turn, the digest after, the
  shell commands it cannot undo, and one turn that failed before it was saved (its write is
  recorded, its messages are not);
* ``demo-titles.json``: a few titles. No ``sessions/index.sqlite3`` ships (its rows name absolute
  paths): the app builds Rho's index in its private copy, with these titles.

Three workspaces (a Python web service, a Rust CLI, a data notebook); tool calls with file
contents and command output; a PNG image; compactions with facts; an aborted turn with partial
tool calls; a branch; provider context from OpenAI (encrypted reasoning) and Anthropic (signed
thinking). The output is committed; the app opens a private copy of it, never the bundle.
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import shutil
import struct
import sys
import tempfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from rho_desk.core.compaction import CompactionOutcome, estimate_messages_tokens  # noqa: E402
from rho_desk.core.stores.rho_files import (  # noqa: E402
    SessionWriter,
    create_session,
    fork_session,
    read_session,
)
from rho_desk.core.stores.rho_files.layout import workspace_dir  # noqa: E402
from rho_desk.core.stores.rho_files.records import (  # noqa: E402
    HeaderRecord,
    MessageRecord,
    NodeKind,
    NodeRecord,
    ReplaceHistoryRecord,
    SnapshotRecord,
    SnapshotTransition,
    StoredDisplayMessage,
)
from rho_desk.core.wire import (  # noqa: E402
    AbortedAssistant,
    AssistantMessage,
    CompactionState,
    ContentBlock,
    Message,
    ModelIdentity,
    ModelUsage,
    PartialToolCall,
    ProviderContextBlock,
    SessionSnapshot,
    encode,
)

OUT = HERE / "home"
AGENT = ("default", hashlib.sha256(b"rho default agent v1").hexdigest())
GPT5 = ModelIdentity("openai", "responses", "gpt-5")
CLAUDE = ModelIdentity("anthropic", "anthropic-messages", "claude-sonnet-4-5")
OLD_GPT = ModelIdentity("openai", "chat-completions", "gpt-4.1")

PAYMENTS = "/home/maya/src/payments-api"
RGLITE = "/home/maya/src/ripgrep-lite"
NOTEBOOK = "/home/maya/notebooks/churn-analysis"


def system_prompt(cwd: str, extra: str) -> Message:
    return Message.system_text(
        "You are Rho, a coding agent working in a local repository. Read before you edit, run the "
        "tests after every change, keep diffs small, and explain what you changed.\n\n"
        f"# Workspace\n{cwd}\n\n# AGENTS.md\n{extra}\n\n# Tools\nread_file, write_file, edit_file, "
        "bash, grep, list_dir"
    )


# -- message helpers ----------------------------------------------------------------------------


class Ids:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.n = itertools.count(1)

    def __call__(self) -> str:
        return f"{self.prefix}_{next(self.n):03d}"


def user(text: str) -> Message:
    return Message.user_text(text)


def call(cid: str, name: str, **arguments: object) -> ContentBlock:
    return ContentBlock.of_tool_call(cid, name, dict(arguments))


def result(cid: str, content: str, ok: bool = True) -> Message:
    return Message.result(cid, ok, content)


def _opaque(seed: str, n: int) -> str:
    digest = b"".join(hashlib.sha256(f"{seed}:{i}".encode()).digest() for i in range(n // 32 + 1))
    return base64.b64encode(digest).decode()[:n]


def openai_reasoning(seed: str, summary: str) -> tuple[ProviderContextBlock, ...]:
    """An OpenAI Responses reasoning item: encrypted, replayable to gpt-5 only."""
    return (
        ProviderContextBlock(
            identity=GPT5,
            kind="openai_response_output_item",
            position=0,
            data={
                "type": "reasoning",
                "id": f"rs_{hashlib.md5(seed.encode()).hexdigest()[:24]}",
                "encrypted_content": "gAAAAABp" + _opaque(seed, 540),
                "summary": [{"type": "summary_text", "text": summary}],
            },
        ),
    )


def anthropic_thinking(seed: str) -> tuple[ProviderContextBlock, ...]:
    """Anthropic signed thinking (the thinking text is not kept; the signature replays it)."""
    return (
        ProviderContextBlock(
            identity=CLAUDE,
            kind="anthropic_content_block",
            position=0,
            data={
                "type": "thinking",
                "thinking": "",
                "signature": "EqQBCkgIBhABGAIiQ" + _opaque(seed, 300),
            },
        ),
    )


def gpt(
    text: str = "",
    calls: Sequence[ContentBlock] = (),
    *,
    summary: str | None = None,
    seed: str = "",
) -> Message:
    content = ((ContentBlock.of_text(text),) if text else ()) + tuple(calls)
    ctx = openai_reasoning(seed or text[:40], summary) if summary else ()
    return Message.enriched(
        AssistantMessage(
            content=content, provenance=GPT5, reasoning_summary=summary, provider_context=ctx
        )
    )


def claude(
    text: str = "", calls: Sequence[ContentBlock] = (), *, seed: str = "", think: bool = True
) -> Message:
    content = ((ContentBlock.of_text(text),) if text else ()) + tuple(calls)
    ctx = anthropic_thinking(seed or text[:40]) if think else ()
    return Message.enriched(
        AssistantMessage(content=content, provenance=CLAUDE, provider_context=ctx)
    )


# -- a small PNG, made by hand (no imaging library needed) -------------------------------------


def retention_png(width: int = 320, height: int = 180) -> bytes:
    """A retention curve as a PNG: axes, grid, two cohorts."""
    pixels = [[(255, 255, 255)] * width for _ in range(height)]

    def plot(x: int, y: int, color: tuple[int, int, int], r: int = 1) -> None:
        for dx in range(-r, r + 1):
            for dy in range(-r, r + 1):
                if 0 <= x + dx < width and 0 <= y + dy < height:
                    pixels[y + dy][x + dx] = color

    left, top, right, bottom = 30, 12, width - 10, height - 22
    for gy in range(top, bottom + 1, (bottom - top) // 4):
        for x in range(left, right):
            pixels[gy][x] = (230, 233, 238)
    for y in range(top, bottom + 1):
        pixels[y][left] = (90, 90, 90)
    for x in range(left, right + 1):
        pixels[bottom][x] = (90, 90, 90)
    for color, decay in (((59, 91, 219), 0.09), ((230, 119, 0), 0.05)):  # January, June
        prev = None
        for week in range(0, 13):
            value = 0.35 + 0.65 * (2.718 ** (-decay * week * 2.2)) if week else 1.0
            x = left + int((right - left) * week / 12)
            y = bottom - int((bottom - top) * value)
            if prev is not None:
                steps = max(abs(x - prev[0]), abs(y - prev[1]), 1)
                for s in range(steps + 1):
                    plot(
                        prev[0] + (x - prev[0]) * s // steps,
                        prev[1] + (y - prev[1]) * s // steps,
                        color,
                        1,
                    )
            plot(x, y, color, 2)
            prev = (x, y)
    raw = b"".join(b"\x00" + bytes(c for px in row for c in px) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


# -- writing helpers ------------------------------------------------------------------------------


def clock(start: int) -> Callable[[], float]:
    times = itertools.count(start, 37)
    return lambda: float(next(times))


def shown(ts: str, messages: Iterable[Message]) -> tuple[StoredDisplayMessage, ...]:
    return tuple(StoredDisplayMessage(ts, m) for m in messages if m.system is None)


def compact(
    history: tuple[Message, ...], summary: str, keep: int
) -> tuple[tuple[Message, ...], CompactionOutcome, int]:
    """Replace all but the system prompt and the last ``keep`` messages by a summary message."""
    kept = (history[0], Message.user_text(summary), *history[-keep:])
    before, after = estimate_messages_tokens(history), estimate_messages_tokens(kept)
    return kept, CompactionOutcome(len(history), len(kept), before, after, 3_140, 0), before - after


# -- session 1: payments-api, v4 tree with a branch, a compaction, OpenAI reasoning ------------------


def payments_webhook_v4(home: Path) -> str:
    sid = "5f0c2a9e-8d1b-4c47-9a6e-2b7d3f1e0a11"
    created = 1_795_400_000
    ids = Ids("call_wh")
    cwd = PAYMENTS
    history: tuple[Message, ...] = (
        system_prompt(cwd, "Use pytest. Never hit Stripe's live API in tests."),
    )
    t1 = (
        user("The refund webhook test fails about one run in five on CI. Can you find out why?"),
        gpt(
            "Let me look at the test and the handler first.",
            [
                call(c1 := ids(), "read_file", path="tests/test_webhooks.py"),
                call(c2 := ids(), "read_file", path="app/webhooks/refunds.py"),
            ],
            summary="Reading the flaky test and the handler it exercises.",
            seed="wh1",
        ),
        result(
            c1,
            'import time\n\nfrom app.webhooks.refunds import handle_refund\n\n\ndef test_refund_marks_payment_refunded(db, stripe_event):\n    event = stripe_event("charge.refunded", created=int(time.time()))\n    handle_refund(db, event)\n    payment = db.payments.get(event.data.object.payment_intent)\n    assert payment.status == "refunded"\n    assert payment.refunded_at == event.created\n',
        ),
        result(
            c2,
            'from datetime import datetime, timezone\n\nTOLERANCE_SECONDS = 1\n\n\ndef handle_refund(db, event):\n    charge = event.data.object\n    payment = db.payments.get(charge.payment_intent)\n    if abs(datetime.now(timezone.utc).timestamp() - event.created) > TOLERANCE_SECONDS:\n        raise StaleEvent(event.id)\n    payment.status = "refunded"\n    payment.refunded_at = event.created\n    db.payments.save(payment)\n',
        ),
        gpt(
            "",
            [
                call(
                    c3 := ids(),
                    "bash",
                    command="pytest tests/test_webhooks.py -k refund --count 20 -q",
                )
            ],
            summary="Reproducing with repeated runs.",
            seed="wh2",
        ),
        result(
            c3,
            "....F....F..........                                              [100%]\nFAILED tests/test_webhooks.py::test_refund_marks_payment_refunded - app.webhooks.refunds.StaleEvent: evt_1Q2\nFAILED tests/test_webhooks.py::test_refund_marks_payment_refunded - app.webhooks.refunds.StaleEvent: evt_1Q9\n2 failed, 18 passed in 4.31s",
            ok=True,
        ),
        gpt(
            "Found it. `handle_refund` rejects events older than **one second** (`TOLERANCE_SECONDS = 1`), and the "
            "test builds its event with `int(time.time())`, which truncates. When the test straddles a second "
            "boundary and the fixture setup is slow, the age exceeds the tolerance and `StaleEvent` is raised.\n\n"
            "Two ways to fix it:\n\n1. **Freeze the clock** in the test (`freezegun`), so the age is always 0.\n"
            "2. **Inject the clock** into `handle_refund`, and raise the production tolerance to Stripe's "
            "recommended 5 minutes.\n\nWhich do you prefer?",
            summary="The tolerance check races the wall clock; two fixes.",
            seed="wh3",
        ),
    )
    history += t1
    root = SessionSnapshot.new(sid, 1, history, GPT5, prompt_cache_key=f"rho:{sid}")
    folder = workspace_dir(home, cwd) / f"{created}_{sid}"
    folder.mkdir(parents=True)
    path = folder / "session.jsonl"
    ts = str(created + 60)
    path.write_bytes(
        encode(HeaderRecord(4, sid, str(created), cwd, *AGENT))
        + b"\n"
        + encode(
            NodeRecord(
                id="7a3e9c41-0b52-4d8e-9f61-3c2a8b7d5e10",
                timestamp=ts,
                kind=NodeKind.COMMIT,
                transition=SnapshotTransition(root),
                display_messages=shown(ts, t1),
            )
        )
        + b"\n"
    )
    writer = SessionWriter(read_session(path), clock=clock(created + 400), take_lease=False)
    branch_point = writer.tree.active_leaf
    assert branch_point is not None
    # branch A: freeze the clock in the test
    ta = (
        user("Let's try freezing the clock in the test first."),
        gpt(
            "",
            [
                call(
                    c4 := ids(),
                    "edit_file",
                    path="tests/test_webhooks.py",
                    old="def test_refund_marks_payment_refunded(db, stripe_event):",
                    new='@freeze_time("2026-11-21 10:00:00")\ndef test_refund_marks_payment_refunded(db, stripe_event):',
                )
            ],
            summary="Decorating the test with freeze_time.",
            seed="wh4",
        ),
        result(c4, "Edited tests/test_webhooks.py (+1 -0)"),
        gpt(
            "",
            [
                call(
                    c5 := ids(),
                    "bash",
                    command="pytest tests/test_webhooks.py -k refund --count 20 -q",
                )
            ],
            summary="Re-running.",
            seed="wh5",
        ),
        result(
            c5, "E   ModuleNotFoundError: No module named 'freezegun'\n1 error in 0.21s", ok=False
        ),
        gpt(
            "`freezegun` is not a dependency of this project, and the handler would still read the real clock in "
            "other tests. I'd rather not add a test-only dependency for this; the injected clock is cleaner.",
            summary="freezegun is missing; recommending the injected clock.",
            seed="wh6",
        ),
    )
    history_a = history + ta
    writer.save(
        SessionSnapshot.new(sid, 2, history_a, GPT5, prompt_cache_key=f"rho:{sid}"), display=ta
    )
    # branch B (from the branch point): inject the clock
    tb = (
        user("Go with option 2: inject the clock and use a 300 s tolerance."),
        gpt(
            "",
            [
                call(
                    c6 := ids(),
                    "edit_file",
                    path="app/webhooks/refunds.py",
                    old="TOLERANCE_SECONDS = 1\n\n\ndef handle_refund(db, event):",
                    new="TOLERANCE_SECONDS = 300  # Stripe's recommendation\n\n\ndef handle_refund(db, event, now=time.time):",
                ),
                call(
                    c7 := ids(),
                    "edit_file",
                    path="app/webhooks/refunds.py",
                    old="if abs(datetime.now(timezone.utc).timestamp() - event.created) > TOLERANCE_SECONDS:",
                    new="if abs(now() - event.created) > TOLERANCE_SECONDS:",
                ),
            ],
            summary="Injecting `now` and widening the tolerance.",
            seed="wh7",
        ),
        result(c6, "Edited app/webhooks/refunds.py (+1 -1)"),
        result(c7, "Edited app/webhooks/refunds.py (+1 -1)"),
        gpt(
            "",
            [call(c8 := ids(), "bash", command="pytest -q")],
            summary="Running the whole suite.",
            seed="wh8",
        ),
        result(
            c8,
            "........................................................ [ 61%]\n.................................. [100%]\n90 passed in 7.82s",
        ),
        gpt(
            "All 90 tests pass, and 200 repeated runs of the refund test are green.\n\n```diff\n-TOLERANCE_SECONDS = 1\n+TOLERANCE_SECONDS = 300  # Stripe's recommendation\n-def handle_refund(db, event):\n+def handle_refund(db, event, now=time.time):\n```\n\n"
            "Stripe documents a [five-minute tolerance](https://docs.stripe.com/webhooks#replay-attacks) for "
            "replay protection, so 300 s matches their guidance.",
            summary="Suite green; explained the change.",
            seed="wh9",
        ),
    )
    history_b = history + tb
    writer.fork(
        branch_point,
        SessionSnapshot.new(sid, 3, history_b, GPT5, prompt_cache_key=f"rho:{sid}"),
        display=tb,
    )
    # more work, then a compaction, then one more turn
    for i, (ask, cmd, out, answer) in enumerate(
        [
            (
                "Add a regression test that uses an old event and expects StaleEvent.",
                "pytest tests/test_webhooks.py -q",
                "......\n6 passed in 0.44s",
                "Added `test_stale_refund_event_is_rejected`, which passes `now=lambda: event.created + 301`.",
            ),
            (
                "Also log the event id when we reject one, at warning level.",
                "pytest tests/test_webhooks.py -q",
                "......\n6 passed in 0.41s",
                "`handle_refund` now logs `stale refund event evt_…, age 301 s` before raising.",
            ),
            (
                "Update the changelog.",
                "git diff --stat",
                " CHANGELOG.md                |  4 ++++\n app/webhooks/refunds.py     |  9 ++++++---\n tests/test_webhooks.py      | 14 ++++++++++++++\n 3 files changed, 24 insertions(+), 3 deletions(-)",
                "Changelog updated under *Unreleased → Fixed*.",
            ),
        ]
    ):
        c = ids()
        turn = (
            user(ask),
            gpt("", [call(c, "bash", command=cmd)], summary="Checking.", seed=f"wm{i}"),
            result(c, out),
            gpt(answer, summary="Done.", seed=f"wa{i}"),
        )
        history_b = history_b + turn
        writer.save(
            SessionSnapshot.new(sid, 4 + i, history_b, GPT5, prompt_cache_key=f"rho:{sid}"),
            display=turn,
        )
    kept, outcome, _ = compact(
        history_b,
        "Summary of the session so far: the refund webhook test was flaky because "
        "handle_refund compared event.created with the wall clock under a 1 s tolerance. We "
        "injected the clock (now=time.time), raised the tolerance to 300 s, added a regression "
        "test for stale events, logged rejected event ids, and updated the changelog. All 91 "
        "tests pass.",
        keep=4,
    )
    state = CompactionState(0, 0).record(
        previous_messages=outcome.previous_messages,
        current_messages=outcome.current_messages,
        previous_tokens=outcome.previous_tokens,
        current_tokens=outcome.current_tokens,
        cost_usd_micros=outcome.cost_usd_micros,
        revision=7,
    )
    writer.save(
        SessionSnapshot.new(sid, 7, kept, GPT5, state, prompt_cache_key=f"rho:{sid}"),
        outcome=outcome,
    )
    c = ids()
    last = (
        user("Open a PR description for this."),
        gpt(
            "",
            [call(c, "bash", command="git log --oneline -3")],
            summary="Looking at the commits.",
            seed="wp1",
        ),
        result(
            c,
            "a41c2f9 Log rejected refund events\n3be09d1 Add stale refund regression test\n8c77e20 Inject clock into refund webhook; 300 s tolerance",
        ),
        gpt(
            "**Fix flaky refund webhook test**\n\n- `handle_refund` takes a `now` callable (default `time.time`), so tests control the clock.\n"
            "- The replay tolerance is 300 s, as Stripe recommends (was 1 s, which raced the test's own setup).\n"
            "- Stale events are logged with their id and age.\n- New regression test for stale events.",
            summary="Drafted the PR text.",
            seed="wp2",
        ),
    )
    writer.save(
        SessionSnapshot.new(sid, 8, kept + last, GPT5, state, prompt_cache_key=f"rho:{sid}"),
        display=last,
    )
    writer.close()
    return sid


# -- session 2: payments-api, v3 via our writer, an aborted turn with partial tool calls -------------


def payments_idempotency_v3(home: Path) -> Path:
    sid = "b2e47d10-3c6a-4f2e-8d95-7a1c0e4b9f22"
    ids = Ids("call_idem")
    cwd = PAYMENTS
    history: tuple[Message, ...] = (
        system_prompt(cwd, "Use pytest. Never hit Stripe's live API in tests."),
    )
    t1 = (
        user("/plan add idempotency keys to POST /payments"),
        gpt(
            "Here is the plan:\n\n1. Accept an `Idempotency-Key` header (UUID, optional for now).\n2. Store `(key, request hash, "
            "response)` in a new `idempotency_keys` table with a 24 h TTL.\n3. Replay the stored response for a repeated key "
            "with the same body; answer **409** for the same key with a different body.\n4. Tests for all three paths.",
            summary="Proposed a four-step plan.",
            seed="id1",
        ),
    )
    display1 = (user("/plan add idempotency keys to POST /payments"), t1[1])
    history += t1
    w = create_session(
        home,
        cwd,
        SessionSnapshot.new(sid, 1, history, GPT5, prompt_cache_key=f"rho:{sid}"),
        created=1_795_480_000,
        agent_id=AGENT[0],
        agent_fingerprint=AGENT[1],
        display=display1,
        clock=clock(1_795_480_020),
        take_lease=False,
    )
    c1, c2 = ids(), ids()
    t2 = (
        user("Sounds good, implement steps 1 and 2."),
        gpt(
            "",
            [
                call(
                    c1,
                    "write_file",
                    path="migrations/0042_idempotency_keys.sql",
                    content="create table idempotency_keys (\n    key uuid primary key,\n    request_hash text not null,\n    response jsonb not null,\n    created_at timestamptz not null default now()\n);\ncreate index on idempotency_keys (created_at);\n",
                )
            ],
            summary="Writing the migration.",
            seed="id2",
        ),
        result(c1, "Wrote migrations/0042_idempotency_keys.sql (7 lines)"),
        gpt(
            "",
            [call(c2, "bash", command="alembic upgrade head && pytest tests/test_payments.py -q")],
            summary="Migrating and testing.",
            seed="id3",
        ),
        result(
            c2,
            "INFO  [alembic.runtime.migration] Running upgrade 0041 -> 0042, idempotency keys\n..........\n10 passed in 1.12s",
        ),
    )
    history += t2
    w.save(SessionSnapshot.new(sid, 2, history, GPT5, prompt_cache_key=f"rho:{sid}"), display=t2)
    # the user stopped the next turn while the model was streaming two tool calls
    aborted = Message.aborted(
        AbortedAssistant(
            content=(
                ContentBlock.of_text(
                    "Now the middleware. I'll add it to `app/middleware/idempotency.py` and register it"
                ),
                call(
                    "call_idem_003",
                    "write_file",
                    path="app/middleware/idempotency.py",
                    content='import hashlib\n\nfrom starlette.middleware.base import BaseHTTPMiddleware\n\n\nclass IdempotencyMiddleware(BaseHTTPMiddleware):\n    async def dispatch(self, request, call_next):\n        key = request.headers.get("Idempotency-Key")\n        if key is None or request.method != "POST":\n            return await call_next(request)\n',
                ),
            ),
            reasoning="",
            provenance=GPT5,
            tool_calls=(
                PartialToolCall(
                    id="call_idem_003",
                    name="write_file",
                    arguments='{"path": "app/middleware/idempotency.py", "content": "import hashlib\\n..."}',
                ),
                PartialToolCall(
                    id="call_idem_004",
                    name="edit_file",
                    arguments='{"path": "app/main.py", "old": "app = FastAPI(',
                ),
            ),
            usage=ModelUsage(
                input_tokens=6_412, output_tokens=388, total_tokens=6_800, context_window=400_000
            ),
        )
    )
    t3 = (user("Now step 3, the replay logic."), aborted)
    history += t3
    w.save(SessionSnapshot.new(sid, 3, history, GPT5, prompt_cache_key=f"rho:{sid}"), display=t3)
    c5 = ids()
    t4 = (
        user("Sorry, I stopped that. Don't register it globally, only on the payments router."),
        gpt(
            "Understood: the middleware stays, but it is mounted on the payments router only.",
            [
                call(
                    c5,
                    "write_file",
                    path="app/routers/payments.py",
                    content="router = APIRouter(dependencies=[Depends(idempotency)])\n",
                )
            ],
            summary="Scoping idempotency to the payments router.",
            seed="id5",
        ),
        result(c5, "Wrote app/routers/payments.py (1 line)"),
        gpt(
            "Done. `POST /payments` now goes through the idempotency dependency; other routes are untouched. "
            "Next: the 409 path and its tests.",
            summary="Reported progress.",
            seed="id6",
        ),
    )
    history += t4
    w.save(SessionSnapshot.new(sid, 4, history, GPT5, prompt_cache_key=f"rho:{sid}"), display=t4)
    path = w.path
    w.close()
    return path


# -- session 3: payments-api, legacy v1 (message / replace_history) -----------------------------------


def payments_legacy_v1(home: Path) -> None:
    sid = "0d9a7c55-61e2-4b3a-a8f4-91c2d6e3b733"
    created = 1_792_100_000
    folder = workspace_dir(home, PAYMENTS)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{created}_{sid}.jsonl"  # the legacy flat layout
    t = itertools.count(created + 10, 45)
    lines = [encode(HeaderRecord(1, sid, str(created), PAYMENTS))]

    def msg(message: Message, display: Message | None = None) -> None:
        lines.append(encode(MessageRecord(str(next(t)), message, display)))

    msg(
        user(
            "Migrate app/settings.py from pydantic v1 BaseSettings to pydantic-settings v2. Keep env var names."
        ),
        user("/goal migrate settings to pydantic v2"),
    )
    msg(
        Message.assistant_text(
            "I'll switch to `pydantic_settings.BaseSettings`, replace `class Config` with "
            '`model_config = SettingsConfigDict(env_prefix="PAY_")`, and rename `Field(env=...)` '
            "to `validation_alias`."
        )
    )
    msg(user("Go ahead."))
    msg(
        Message.assistant_text(
            "Done: 14 settings migrated; `PAY_DATABASE_URL` and `PAY_STRIPE_KEY` still load. "
            "`pytest tests/test_settings.py` passes (8 tests)."
        )
    )
    lines.append(
        encode(
            ReplaceHistoryRecord(
                str(next(t)),
                (
                    user(
                        "Summary: app/settings.py now uses pydantic-settings v2 (SettingsConfigDict, env_prefix PAY_, "
                        "validation_alias for renamed variables); 8 settings tests pass."
                    ),
                ),
            )
        )
    )
    msg(user("Does anything else still import pydantic v1 APIs?"))
    msg(
        Message.assistant_text(
            "Only `app/schemas/legacy.py` uses `@validator`; everything else is on v2. "
            "I'd port it in a separate change."
        )
    )
    path.write_bytes(b"\n".join(lines) + b"\n")


# -- session 4: ripgrep-lite, v4 with Anthropic signed thinking ---------------------------------------


def rust_json_v4(home: Path) -> None:
    sid = "c81f3e02-7a44-4d19-b6e0-5e2f9a8c1d44"
    created = 1_795_300_000
    ids = Ids("toolu")
    cwd = RGLITE
    history: tuple[Message, ...] = (
        system_prompt(cwd, "Run `cargo test` and `cargo clippy -- -D warnings` before you finish."),
    )
    c1, c2 = ids(), ids()
    t1 = (
        user(
            "Add a `--json` flag that prints one JSON object per match (path, line number, text)."
        ),
        claude(
            "I'll check how matches are printed today.",
            [
                call(c1, "grep", pattern="fn print_match", path="src"),
                call(c2, "read_file", path="src/output.rs"),
            ],
            seed="rs1",
        ),
        result(
            c1,
            "src/output.rs:18:pub fn print_match(out: &mut impl Write, m: &Match, color: bool) -> io::Result<()> {",
        ),
        result(
            c2,
            'use std::io::{self, Write};\n\nuse crate::search::Match;\n\npub fn print_match(out: &mut impl Write, m: &Match, color: bool) -> io::Result<()> {\n    if color {\n        write!(out, "\\x1b[35m{}\\x1b[0m:", m.path.display())?;\n    } else {\n        write!(out, "{}:", m.path.display())?;\n    }\n    writeln!(out, "{}:{}", m.line_number, m.text)\n}\n',
        ),
        claude(
            "Printing is one function, so a `--json` mode is a second printer selected in `main`. I'll use "
            "`serde_json` (already a dependency through `ignore`? no — I'll add it explicitly).",
            seed="rs2",
        ),
    )
    history += t1
    folder = workspace_dir(home, cwd) / f"{created}_{sid}"
    folder.mkdir(parents=True)
    path = folder / "session.jsonl"
    ts = str(created + 90)
    root = SessionSnapshot.new(sid, 1, history, CLAUDE, prompt_cache_key=f"rho:{sid}")
    path.write_bytes(
        encode(HeaderRecord(4, sid, str(created), cwd, *AGENT))
        + b"\n"
        + encode(
            NodeRecord(
                id="e41b6f2a-9c3d-4e8a-b1f7-2d5c8a9e6b01",
                timestamp=ts,
                kind=NodeKind.COMMIT,
                transition=SnapshotTransition(root),
                display_messages=shown(ts, t1),
            )
        )
        + b"\n"
    )
    writer = SessionWriter(read_session(path), clock=clock(created + 300), take_lease=False)
    c3, c4, c5 = ids(), ids(), ids()
    t2 = (
        user("Yes, add serde_json and implement it."),
        claude(
            "",
            [
                call(
                    c3,
                    "edit_file",
                    path="Cargo.toml",
                    old="[dependencies]\n",
                    new='[dependencies]\nserde_json = "1"\n',
                ),
                call(
                    c4,
                    "write_file",
                    path="src/output.rs",
                    content='pub fn print_json(out: &mut impl Write, m: &Match) -> io::Result<()> {\n    let value = serde_json::json!({"path": m.path, "line": m.line_number, "text": m.text});\n    writeln!(out, "{value}")\n}\n',
                ),
            ],
            seed="rs3",
        ),
        result(c3, "Edited Cargo.toml (+1 -0)"),
        result(c4, "Appended to src/output.rs (4 lines)"),
        claude(
            "", [call(c5, "bash", command="cargo test && cargo clippy -- -D warnings")], seed="rs4"
        ),
        result(
            c5,
            '   Compiling ripgrep-lite v0.3.0 (/home/maya/src/ripgrep-lite)\nerror[E0277]: the trait bound `PathBuf: serde::Serialize` is not satisfied\n  --> src/output.rs:24:49\n   |\n24 |     let value = serde_json::json!({"path": m.path, "line": m.line_number, "text": m.text});\n   |                                                 ^^^^^^ the trait `Serialize` is not implemented for `PathBuf`\n\nerror: could not compile `ripgrep-lite` (lib) due to 1 previous error',
            ok=False,
        ),
    )
    history += t2
    writer.save(
        SessionSnapshot.new(sid, 2, history, CLAUDE, prompt_cache_key=f"rho:{sid}"), display=t2
    )
    c6, c7 = ids(), ids()
    t3 = (
        user("Paths that aren't UTF-8 should still come out somehow."),
        claude(
            "Right: I'll emit `path` as a lossy string and add `path_bytes` (base64) only when the path is not "
            "valid UTF-8, like ripgrep's own JSON output does with `bytes`.",
            [
                call(
                    c6,
                    "edit_file",
                    path="src/output.rs",
                    old='"path": m.path,',
                    new='"path": m.path.to_string_lossy(),',
                )
            ],
            seed="rs5",
        ),
        result(c6, "Edited src/output.rs (+1 -1)"),
        claude(
            "", [call(c7, "bash", command="cargo test && cargo clippy -- -D warnings")], seed="rs6"
        ),
        result(
            c7,
            "running 23 tests\n.......................\ntest result: ok. 23 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.08s\n    Checking ripgrep-lite v0.3.0\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.94s",
        ),
        claude(
            '`--json` works:\n\n```console\n$ rgl --json \'fn main\' src\n{"line":1,"path":"src/main.rs","text":"fn main() {"}\n```\n\n'
            "Tests and clippy are clean. Non-UTF-8 paths are printed lossily for now; `path_bytes` can follow.",
            seed="rs7",
        ),
    )
    history += t3
    writer.save(
        SessionSnapshot.new(sid, 3, history, CLAUDE, prompt_cache_key=f"rho:{sid}"), display=t3
    )
    writer.close()


# -- session 5: ripgrep-lite, legacy v2 (snapshot records) ---------------------------------------------


def rust_binary_size_v2(home: Path) -> None:
    sid = "9e6d1b47-2f80-4a35-8c1e-d4b7a2f0c655"
    created = 1_793_900_000
    folder = workspace_dir(home, RGLITE) / f"{created}_{sid}"
    folder.mkdir(parents=True)
    ids = Ids("call_sz")
    c1 = ids()
    turn1 = (
        user("Why is the release binary 40 MB?"),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_text("Let me look at what is in it."),
                    call(c1, "bash", command="cargo bloat --release --crates -n 8"),
                ),
                provenance=OLD_GPT,
            )
        ),
        result(
            c1,
            "File  .text     Size Crate\n 9.1%  31.0%   3.2MiB std\n 6.4%  21.7%   2.2MiB regex_automata\n 4.9%  16.6%   1.7MiB aho_corasick\n 2.2%   7.4% 780.2KiB ignore\n29.4% 100.0%  10.3MiB .text section size, the file size is 40.1MiB\n",
        ),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_text(
                        "The code itself is 10 MiB; the other 30 MiB are **debug symbols**, because `[profile.release]` sets "
                        '`debug = true`. Set `strip = "symbols"` (or `debug = false`) and add `lto = "thin"`; that usually '
                        "brings a binary like this to 4-6 MiB."
                    ),
                ),
                provenance=OLD_GPT,
            )
        ),
    )
    history = (system_prompt(RGLITE, "Run `cargo test` before you finish."), *turn1)
    t1, t2 = str(created + 30), str(created + 140)
    snap1 = SessionSnapshot.new(sid, 2, history, OLD_GPT, metadata={"client": "rho-tui"})
    lines = [
        encode(HeaderRecord(2, sid, str(created), RGLITE)),
        encode(
            SnapshotRecord(t2, snap1, (StoredDisplayMessage(t1, turn1[0]), *shown(t2, turn1[1:])))
        ),
    ]
    turn2 = (
        user("Do it."),
        Message.enriched(
            AssistantMessage(
                content=(
                    ContentBlock.of_text(
                        'Added `strip = "symbols"` and `lto = "thin"` to `[profile.release]`: the binary is now **4.8 MiB**.'
                    ),
                ),
                provenance=OLD_GPT,
            )
        ),
    )
    t3 = str(created + 400)
    snap2 = SessionSnapshot.new(sid, 3, history + turn2, OLD_GPT, metadata={"client": "rho-tui"})
    lines.append(encode(SnapshotRecord(t3, snap2, shown(t3, turn2))))
    (folder / "session.jsonl").write_bytes(b"\n".join(lines) + b"\n")


# -- session 6: churn notebook, v3 with an image and a compaction; then a fork ---------------------------


def notebook_retention_v3(home: Path) -> tuple[Path, str]:
    sid = "4a7e2c19-d05b-4f63-9e8a-1b3c5d7f9a66"
    ids = Ids("call_nb")
    cwd = NOTEBOOK
    png = base64.b64encode(retention_png()).decode()
    t1 = (
        Message.user_blocks(
            [
                ContentBlock.of_text(
                    "What does this retention curve tell us? January vs June cohorts."
                ),
                ContentBlock.of_image(png, "image/png"),
            ]
        ),
        gpt(
            "The **June cohort (orange)** retains clearly better: after 12 weeks roughly 58 % are still active against "
            "about 40 % for January (blue). Both curves flatten after week 6, so the difference is made early.\n\n"
            "| cohort | week 1 | week 4 | week 12 |\n|---|---|---|---|\n| January | 82 % | 55 % | 40 % |\n| June | 90 % | 71 % | 58 % |\n\n"
            "I can check what changed in onboarding between the two cohorts if the event data is in the notebook.",
            summary="Read the chart; June retains better, mostly in the first weeks.",
            seed="nb1",
        ),
    )
    history: tuple[Message, ...] = (
        system_prompt(cwd, "This is a Jupyter project. Use polars, not pandas."),
        *t1,
    )
    w = create_session(
        home,
        cwd,
        SessionSnapshot.new(sid, 1, history, GPT5, prompt_cache_key=f"rho:{sid}"),
        created=1_795_520_000,
        agent_id=AGENT[0],
        agent_fingerprint=AGENT[1],
        display=t1,
        clock=clock(1_795_520_060),
        take_lease=False,
    )
    for i, (ask, code, out, answer) in enumerate(
        [
            (
                "Yes, compare onboarding completion for the two cohorts.",
                "df.filter(pl.col('cohort').is_in(['2026-01', '2026-06'])).group_by('cohort').agg(pl.col('onboarding_done').mean())",
                "shape: (2, 2)\n┌─────────┬─────────────────┐\n│ cohort  ┆ onboarding_done │\n╞═════════╪═════════════════╡\n│ 2026-01 ┆ 0.41            │\n│ 2026-06 ┆ 0.77            │\n└─────────┴─────────────────┘",
                "Onboarding completion nearly doubled (41 % → 77 %). That lines up with the new checklist shipped in May.",
            ),
            (
                "Is that significant or just noise?",
                "from scipy.stats import chi2_contingency\nchi2_contingency([[1230, 1770], [2310, 690]])",
                "Chi2ContingencyResult(statistic=795.4, pvalue=1.9e-175, dof=1, ...)",
                "Very significant (p ≈ 2e-175 with 3,000 users per cohort). The effect on retention is a correlation, though; "
                "a holdout would show causation.",
            ),
            (
                "Plot week-4 retention by onboarding status.",
                "chart = alt.Chart(df).mark_bar().encode(x='onboarding_done:N', y='mean(active_w4):Q', column='cohort:N')",
                "<altair.vegalite.v5.api.FacetChart object>",
                "Users who finished onboarding are active at week 4 at 74 % against 39 % for those who did not, in both cohorts.",
            ),
        ]
    ):
        c = ids()
        turn = (
            user(ask),
            gpt("", [call(c, "run_cell", code=code)], summary="Running a cell.", seed=f"nbc{i}"),
            result(c, out),
            gpt(answer, summary="Interpreted the result.", seed=f"nba{i}"),
        )
        history = history + turn
        w.save(
            SessionSnapshot.new(sid, 2 + i, history, GPT5, prompt_cache_key=f"rho:{sid}"),
            display=turn,
        )
    kept, outcome, _ = compact(
        history,
        "Summary: June cohort retains better than January (58 % vs 40 % at week 12). "
        "Onboarding completion rose from 41 % to 77 % (chi-square p ≈ 2e-175). Users who finish "
        "onboarding are active at week 4 at 74 % vs 39 %. The image of the retention curve was "
        "discussed and is no longer needed.",
        keep=4,
    )
    state = CompactionState(0, 0).record(
        previous_messages=outcome.previous_messages,
        current_messages=outcome.current_messages,
        previous_tokens=outcome.previous_tokens,
        current_tokens=outcome.current_tokens,
        cost_usd_micros=outcome.cost_usd_micros,
        revision=5,
    )
    w.save(
        SessionSnapshot.new(sid, 5, kept, GPT5, state, prompt_cache_key=f"rho:{sid}"),
        outcome=outcome,
    )
    c = ids()
    last = (
        user("Write the three findings as bullet points for the weekly update."),
        gpt(
            "- **June retains better than January**: 58 % vs 40 % active at week 12.\n- **Onboarding drives it**: completion "
            "went from 41 % to 77 % after the May checklist.\n- **Finishing onboarding ≈ 2× week-4 activity** (74 % vs 39 %); "
            "a holdout test would confirm causation.",
            summary="Wrote the bullets.",
            seed="nbz",
        ),
    )
    w.save(
        SessionSnapshot.new(sid, 6, kept + last, GPT5, state, prompt_cache_key=f"rho:{sid}"),
        display=last,
    )
    path = w.path
    w.close()
    return path, sid


def notebook_fork(home: Path, source: Path) -> None:
    """Fork the notebook session at its second revision (before the compaction) into a new session."""
    tree = read_session(source).tree
    node = tree.path()[1]
    times = clock(1_795_560_000)
    writer = fork_session(
        tree,
        node,
        home,
        new_id="f3b8d6a1-5e27-4c90-a4d3-6c8e0b2f7d77",
        clock=times,
        take_lease=False,
    )
    history = writer.tree.history()
    c = "call_fk_001"
    turn = (
        user("Instead, check whether the effect holds for mobile users only."),
        gpt(
            "",
            [
                call(
                    c,
                    "run_cell",
                    code="df.filter(pl.col('platform') == 'ios').group_by('cohort').agg(pl.col('onboarding_done').mean())",
                )
            ],
            summary="Filtering to iOS.",
            seed="fk1",
        ),
        result(c, "shape: (2, 2)\n│ 2026-01 ┆ 0.38 │\n│ 2026-06 ┆ 0.79 │"),
        gpt("It holds on mobile too: 38 % → 79 %.", summary="Same effect on mobile.", seed="fk2"),
    )
    snap = writer.tree.snapshot(prompt_cache_key=None, trim=False)
    writer.save(
        SessionSnapshot.new(
            snap.session_id,
            snap.revision + 1,
            history + turn,
            GPT5,
            prompt_cache_key=snap.prompt_cache_key,
        ),
        display=turn,
    )
    writer.close()


TITLES_FILE = "demo-titles.json"
TITLES = (
    (PAYMENTS, "5f0c2a9e-8d1b-4c47-9a6e-2b7d3f1e0a11", "Flaky refund webhook test"),
    (RGLITE, "c81f3e02-7a44-4d19-b6e0-5e2f9a8c1d44", "JSON output for rgl"),
    (NOTEBOOK, "4a7e2c19-d05b-4f63-9e8a-1b3c5d7f9a66", "Churn: retention by cohort"),
)


# What the files were before the demo's turns changed them (the transcripts show only the edits).
_ORIGINALS = {
    "Cargo.toml": '[package]\nname = "rgl"\nversion = "0.3.1"\nedition = "2021"\n\n[dependencies]\nclap = { version = "4.5", features = ["derive"] }\nignore = "0.4"\nregex = "1.10"\n',
    "app/routers/payments.py": 'from fastapi import APIRouter, Depends\n\nfrom app.deps import db_session\n\nrouter = APIRouter(prefix="/payments", tags=["payments"])\n',
}
_CREATED = {"migrations/0042_idempotency_keys.sql", "app/middleware/idempotency.py"}
_FAILED_NODE = "9b1d7f3e-2c4a-4e8b-a6d5-0f1e2d3c4b5a"


def _turn_nodes(tree) -> dict[int, object]:  # type: ignore[no-untyped-def]
    """Turn number -> the node that saved it (the last node holding the turn's messages)."""
    out: dict[int, object] = {}
    turn = 0
    for node in tree.path():
        for entry in node.display:
            if entry.message.user is not None:
                turn += 1
            if turn:
                out[turn] = node
    return out


def checkpoint_journals(home: Path) -> None:
    """Workspace checkpoint journals for the ripgrep-lite JSON session and the idempotency one."""
    from rho_desk.core.changes import session_changes
    from rho_desk.core.changes.checkpoint import (
        Absent,
        BasicFileMetadata,
        CapturedRegularFile,
        CheckpointOutcome,
        FileCheckpoint,
        ObservedRegular,
        UntrackedEffect,
        WorkspaceCheckpoint,
        encode_record,
        journal_path,
        sha256_hex,
    )

    meta = BasicFileMetadata(False, 0o644)

    def captured(data: bytes | None) -> CapturedRegularFile | Absent:
        return Absent() if data is None else CapturedRegularFile(data, meta, sha256_hex(data))

    def observed(data: bytes) -> ObservedRegular:
        return ObservedRegular(sha256_hex(data), len(data), meta)

    for sid, shell in (("c81f3e02", "bash"), ("b2e47d10", "bash")):
        transcript = next(p for p in home.rglob("session.jsonl") if sid in str(p))
        tree = read_session(transcript).tree
        changes = session_changes(transcript)
        nodes = _turn_nodes(tree)
        cwd = tree.header.cwd
        calls = {
            b.tool_call.id: b.tool_call
            for n in tree.path()
            for e in n.display
            for b in e.message.content
            if b.tool_call is not None
        }
        current: dict[str, bytes | None] = {}
        lines: list[bytes] = []
        turns = list(changes.turns)
        for turn in turns:
            files = []
            for change in turn.files:
                before = (
                    change.before
                    if change.before_known
                    else current.get(change.path, _ORIGINALS.get(change.path, "").encode() or None)
                )
                if change.path in _CREATED and change.path not in current:
                    before = None
                after = before
                for cid in change.call_ids:
                    args = calls[cid].arguments
                    if "content" in args:
                        after = args["content"].encode()
                    elif "old" in args and after is not None:
                        after = after.decode().replace(args["old"], args["new"], 1).encode()
                current[change.path] = after
                files.append(
                    FileCheckpoint(
                        f"{cwd}/{change.path}",
                        captured(before),
                        observed(after) if after is not None else Absent(),
                    )
                )
            if not files:
                continue
            node = nodes[turn.turn]  # type: ignore[index]
            outcome = CheckpointOutcome.COMPLETED
            limitations = (UntrackedEffect("shell_command", shell),) if turn.hidden else ()
            files.sort(key=lambda f: f.path)
            lines.append(
                encode_record(
                    WorkspaceCheckpoint(
                        tree.session_id,
                        node.id,
                        node.revision,
                        node.time - 40,
                        node.time,  # type: ignore[attr-defined]
                        outcome,
                        tuple(files),
                        limitations,
                    )
                )
            )
        if (
            sid == "b2e47d10"
        ):  # a last turn that failed on a context overflow after one write: not saved
            before = current["app/routers/payments.py"] or b""
            after = before.replace(
                b"router = APIRouter(", b'router = APIRouter(\n    prefix="/payments",\n    '
            )
            leaf = tree.active_leaf
            lines.append(
                encode_record(
                    WorkspaceCheckpoint(
                        tree.session_id,
                        _FAILED_NODE,
                        leaf.revision,
                        leaf.time + 600,
                        leaf.time + 1080,
                        CheckpointOutcome.FAILED,
                        (
                            FileCheckpoint(
                                f"{cwd}/app/routers/payments.py", captured(before), observed(after)
                            ),
                        ),
                        (),
                    )
                )
            )
        journal = journal_path(transcript.parent)
        journal.parent.mkdir(mode=0o700, exist_ok=True)
        journal.write_bytes(b"".join(lines))
        journal.chmod(0o600)


def build(out: Path = OUT) -> Path:
    staging = Path(tempfile.mkdtemp(prefix="rho-demo-"))
    home = staging / "home"
    try:
        payments_webhook_v4(home)
        payments_idempotency_v3(home)
        payments_legacy_v1(home)
        rust_json_v4(home)
        rust_binary_size_v2(home)
        notebook, _ = notebook_retention_v3(home)
        notebook_fork(home, notebook)
        checkpoint_journals(home)
        for lock in home.rglob(".*.active.lock"):
            lock.unlink()
        if out.exists():
            shutil.rmtree(out)
        # Rho's index stays behind: its rows would name this machine's paths (our writer keeps
        # it current while building, as Rho would).
        shutil.copytree(home, out, ignore=shutil.ignore_patterns("index.sqlite3*"))
        titles = [{"cwd": cwd, "id": sid, "title": title} for cwd, sid, title in TITLES]
        (out / TITLES_FILE).write_text(
            json.dumps(titles, indent=2, ensure_ascii=False) + "\n", "utf-8"
        )
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


if __name__ == "__main__":
    target = build()
    files = sorted(p.relative_to(target) for p in target.rglob("*") if p.is_file())
    for f in files:
        print(f)
    print(f"{len(files)} files in {target}")
