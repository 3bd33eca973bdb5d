"""Regenerate the demo library's usage ledger: ``resources/demo/home/usage.sqlite3``.

    .venv/bin/python scripts/demo_ledger.py [--home resources/demo/home]

A ledger as Rho writes it (upstream's migration 1, ``user_version`` 1, ``INSERT OR IGNORE``;
shipped in rollback-journal mode, see ``Ledger.write``), matching the demo sessions: read with rho-desk's own reader, every model reply of
every revision becomes an ``agent`` request at that revision's time, whose prompt is the
estimated context before the reply (cache reads for the part the previous request already
sent, as the providers bill it) and whose output is the reply; each compaction node becomes a
``compaction`` request (the payments webhook session's first attempt fails and is retried);
each session opens with a ``title`` request; the idempotency session starts a subagent; one
request fails with a rate limit. Costs follow each model's list price (per million tokens);
the local model reports none.

Rho keeps ledger rows when sessions are deleted, and one ledger serves every machine's
sessions synced into it, so the ledger also holds older sessions that are not in the demo
library (deterministic: a fixed seed), spread over the six weeks before the demo sessions,
across the same workspaces and one more. The file is about 200 KB.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sqlite3
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rho_desk.core.compaction import estimate_messages_tokens, message_tokens  # noqa: E402
from rho_desk.core.stores.rho_files import NodeKind, read_session  # noqa: E402

MIGRATION_1 = """
CREATE TABLE usage_events (
    event_id           TEXT PRIMARY KEY,
    schema_version     INTEGER NOT NULL,
    occurred_at_ms     INTEGER NOT NULL,

    session_id         TEXT,
    parent_session_id  TEXT,
    run_id             TEXT,
    step_index         INTEGER,
    attempt_index      INTEGER,
    workspace_path     TEXT,

    provider           TEXT NOT NULL,
    model              TEXT NOT NULL,
    purpose            TEXT NOT NULL,
    request_outcome    TEXT NOT NULL,

    input_tokens       INTEGER,
    output_tokens      INTEGER,
    cache_read_tokens  INTEGER,
    cache_write_tokens INTEGER,
    total_tokens       INTEGER,
    cost_usd_micros    INTEGER,

    rho_version        TEXT
);

CREATE INDEX usage_events_occurred_at
    ON usage_events (occurred_at_ms);
CREATE INDEX usage_events_session
    ON usage_events (session_id, occurred_at_ms);
"""

# $ per million tokens: input, output, cache read, cache write (None: the provider reports no cost)
PRICES: dict[str, tuple[float, float, float, float] | None] = {
    "gpt-5": (1.25, 10.0, 0.125, 0.0),
    "gpt-5-mini": (0.25, 2.0, 0.025, 0.0),
    "gpt-4.1": (2.0, 8.0, 0.5, 0.0),
    "claude-sonnet-4-5": (3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
    "qwen2.5-coder-32b": None,
}
SYSTEM_TOKENS = 2_400
"""Tools and instructions Rho sends with every request, on top of the history."""
VERSION = "0.9.4"


class Ledger:
    def __init__(self, rng: random.Random) -> None:
        self.rows: list[tuple[object, ...]] = []
        self.rng = rng
        self.count = 0

    def add(
        self,
        *,
        at: float,
        session: str | None,
        workspace: str | None,
        provider: str,
        model: str,
        purpose: str,
        prompt: int,
        output: int,
        cached: int = 0,
        outcome: str = "completed",
        parent: str | None = None,
        run: str | None = None,
        step: int | None = 1,
        attempt: int = 1,
    ) -> None:
        self.count += 1
        event = str(
            uuid.UUID(
                bytes=hashlib.sha256(f"demo-event-{self.count}".encode()).digest()[:16], version=4
            )
        )
        price = PRICES.get(model)
        cached = min(cached, prompt)
        anthropic = provider == "anthropic"
        write = 0 if not anthropic else max(0, prompt - cached) if purpose == "agent" else 0
        fresh = prompt - cached - write
        if outcome != "completed":
            output = output // 4
        cost = None
        if price is not None:
            cost = round(
                fresh * price[0] + output * price[1] + cached * price[2] + write * price[3]
            )
        local = price is None
        self.rows.append(
            (
                event,
                1,
                int(at * 1000),
                session,
                parent,
                run,
                step,
                attempt,
                workspace,
                provider,
                model,
                purpose,
                outcome,
                fresh,
                output,
                None if local else cached,
                None if not anthropic else write,
                None if local else prompt + output,
                cost,
                VERSION,
            )
        )

    def write(self, path: Path) -> None:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode = WAL")
        db.executescript(MIGRATION_1)
        db.execute("PRAGMA user_version = 1")
        with db:
            db.executemany(
                f"INSERT OR IGNORE INTO usage_events VALUES ({', '.join('?' * 20)})",
                sorted(self.rows, key=lambda r: r[2]),
            )  # type: ignore[arg-type,return-value]
        db.execute("VACUUM")
        # Shipped in rollback-journal mode: a read-only reader of a WAL file makes -wal and -shm
        # files beside it (in the bundle, in a read-only install). Rho switches it to WAL when it
        # first writes; the schema and rows are what it writes.
        db.execute("PRAGMA journal_mode = DELETE")
        db.close()
        path.chmod(0o600)


def demo_sessions(home: Path, ledger: Ledger) -> None:
    """One request per model reply of every demo session, at its revision's time."""
    for transcript in sorted((home / "sessions").rglob("*.jsonl")):
        tree = read_session(transcript).tree
        sid = tree.session_id
        cwd = tree.header.cwd if tree.header is not None else None
        nodes = sorted(tree.nodes.values(), key=lambda n: (n.time or 0, n.revision))
        if not nodes:
            continue
        first = nodes[0]
        provider = first.provider
        name = (
            provider.model if provider is not None and provider.provider != "legacy" else "gpt-4.1"
        )
        vendor = (
            provider.provider
            if provider is not None and provider.provider != "legacy"
            else "openai"
        )
        start = float(first.time or 0)
        ledger.add(
            at=start + 2,
            session=sid,
            workspace=cwd,
            provider=vendor,
            model=name,
            purpose="title",
            prompt=420,
            output=14,
        )
        previous_prompt = 0
        for node in nodes:
            at = float(node.time or start)
            model = (
                node.provider.model
                if node.provider is not None and node.provider.provider != "legacy"
                else name
            )
            vendor_now = (
                node.provider.provider
                if node.provider is not None and node.provider.provider != "legacy"
                else vendor
            )
            history = tree.history(node)
            if node.kind is NodeKind.COMPACTION:
                before = (
                    SYSTEM_TOKENS + estimate_messages_tokens(tree.history(node.parent))
                    if node.parent
                    else 0
                )
                if "5f0c2a9e" in str(sid):  # the webhook session: the first attempt hits a timeout
                    ledger.add(
                        at=at - 6,
                        session=sid,
                        workspace=cwd,
                        provider=vendor_now,
                        model=model,
                        purpose="compaction",
                        prompt=before,
                        output=0,
                        outcome="failed",
                        attempt=1,
                    )
                ledger.add(
                    at=at - 3,
                    session=sid,
                    workspace=cwd,
                    provider=vendor_now,
                    model=model,
                    purpose="compaction",
                    prompt=before,
                    output=900,
                    attempt=2 if "5f0c2a9e" in str(sid) else 1,
                )
                previous_prompt = 0  # a new prefix: nothing cached
                continue
            appended = node.appended
            if appended is None:  # a complete snapshot (v2): what it added to its parent's history
                before = tree.history(node.parent) if node.parent is not None else ()
                appended = history[len(before) :] if history[: len(before)] == before else history
            base = len(history) - len(appended)
            replies = [
                i
                for i, m in enumerate(appended)
                if m.enriched_assistant is not None
                or m.assistant is not None
                or m.aborted_assistant is not None
            ]
            for step, i in enumerate(replies, 1):
                prompt = SYSTEM_TOKENS + estimate_messages_tokens(history[: base + i])
                output = message_tokens(appended[i])
                when = at - 25 * (len(replies) - step)
                aborted = appended[i].aborted_assistant is not None
                ledger.add(
                    at=when,
                    session=sid,
                    workspace=cwd,
                    provider=vendor_now,
                    model=model,
                    purpose="agent",
                    prompt=prompt,
                    output=output,
                    cached=previous_prompt,
                    step=step,
                    outcome="cancelled" if aborted else "completed",
                    run=f"run-{node.revision}",
                )
                previous_prompt = prompt
        if "b2e47d10" in str(
            sid
        ):  # the idempotency session asked a subagent to read the middleware
            child = str(uuid.UUID(bytes=hashlib.sha256(b"demo-subagent").digest()[:16], version=4))
            for k in range(4):
                ledger.add(
                    at=start + 300 + 20 * k,
                    session=child,
                    parent=sid,
                    workspace=cwd,
                    provider="openai",
                    model="gpt-5-mini",
                    purpose="subagent",
                    prompt=3_000 + 2_500 * k,
                    output=350,
                    cached=(3_000 + 2_500 * (k - 1)) if k else 0,
                    step=k + 1,
                )
        if "c81f3e02" in str(sid):  # one rate-limited attempt, retried
            ledger.add(
                at=start + 60,
                session=sid,
                workspace=cwd,
                provider=vendor,
                model=name,
                purpose="agent",
                prompt=SYSTEM_TOKENS + 800,
                output=0,
                outcome="failed",
                attempt=1,
            )


def history_sessions(ledger: Ledger, end: float) -> None:
    """Sessions no longer in the library: deleted ones, and another machine's."""
    rng = ledger.rng
    workspaces = [
        "/home/maya/src/payments-api",
        "/home/maya/src/ripgrep-lite",
        "/home/maya/notebooks/churn-analysis",
        "/home/maya/src/infra",
    ]
    models = [
        ("openai", "gpt-5"),
        ("anthropic", "claude-sonnet-4-5"),
        ("openai", "gpt-5-mini"),
        ("local", "qwen2.5-coder-32b"),
        ("anthropic", "claude-haiku-4-5"),
    ]
    weights = [5, 4, 2, 1, 1]
    day = 86_400
    for n in range(30):
        at = end - rng.uniform(3, 45) * day
        at -= (at % day) - rng.uniform(8, 19) * 3600  # working hours (UTC)
        sid = str(
            uuid.UUID(bytes=hashlib.sha256(f"demo-old-{n}".encode()).digest()[:16], version=4)
        )
        workspace = rng.choice(workspaces)
        vendor, model = rng.choices(models, weights)[0]
        ledger.add(
            at=at,
            session=sid,
            workspace=workspace,
            provider=vendor,
            model=model,
            purpose="title",
            prompt=400,
            output=12,
        )
        context = SYSTEM_TOKENS + rng.randint(300, 1500)
        previous = 0
        compacted = False
        for step in range(rng.randint(3, 12)):
            at += rng.uniform(20, 200)
            if context > 14_000 and not compacted:
                ledger.add(
                    at=at,
                    session=sid,
                    workspace=workspace,
                    provider=vendor,
                    model=model,
                    purpose="compaction",
                    prompt=context,
                    output=1_100,
                )
                context, previous, compacted = SYSTEM_TOKENS + 1_600, 0, True
                at += 30
            output = rng.randint(80, 900)
            outcome = "failed" if rng.random() < 0.03 else "completed"
            ledger.add(
                at=at,
                session=sid,
                workspace=workspace,
                provider=vendor,
                model=model,
                purpose="agent",
                prompt=context,
                output=output,
                cached=previous,
                step=step + 1,
                outcome=outcome,
            )
            previous = context
            context += output + rng.randint(
                300, 1_800
            )  # the reply and the tool results it asked for


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=ROOT / "resources" / "demo" / "home")
    args = parser.parse_args()
    ledger = Ledger(random.Random(20))
    demo_sessions(args.home, ledger)
    latest = max(row[2] for row in ledger.rows) / 1000  # type: ignore[operator]
    history_sessions(ledger, latest)
    path = args.home / "usage.sqlite3"
    ledger.write(path)
    print(f"{path}: {len(ledger.rows)} requests, {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
