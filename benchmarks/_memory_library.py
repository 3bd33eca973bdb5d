"""A generated library for ``rho-desk mcp``'s benchmarks and its search-quality set.

Ten projects, each with components; a session is a piece of work on one component: a bug fixed
(each of eight kinds of bug, told in the words a session uses: the symptom, the cause, the fix,
the files and the test run), a feature added, or ordinary chatter (questions, reviews, small
edits) that names the same components and files. Every (component, bug) pair is fixed in exactly
one session, so "the session that fixed X" has one answer; the other sessions mention X's
component and files too, as real ones do.

The known-answer questions (:func:`questions`) are written the way a person remembers the work:
the component by what it does and the bug by its symptom, in words of their own (``SYMPTOMS``),
not the session's. Files are asked by name ("which session changed bucket.py?").

Transcripts are written as Rho writes version 3 files (one snapshot record), without fsync: the
benchmark writes ten thousand of them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from rho_desk.core.stores.rho_files import NEW_SESSION_VERSION, StoredDisplayMessage, workspace_dir
from rho_desk.core.stores.rho_files.records import HeaderRecord, SnapshotRecord
from rho_desk.core.wire import (
    AssistantMessage,
    ContentBlock,
    Message,
    ModelIdentity,
    SessionSnapshot,
)
from rho_desk.core.wire.codec import encode

__all__ = ["Question", "Work", "demo_questions", "generate", "questions", "write_library"]

PROVIDER = ModelIdentity("openai", "responses", "gpt-5")

# (package, how its sessions describe it, what a person calls it, module files): the two
# descriptions share a word or two, as the words of code and of memory do
COMPONENTS = [
    ("invoices", "invoice CSV/PDF export", "the invoice export", ("export.py", "formatting.py")),
    (
        "ratelimit",
        "token-bucket rate limiting of the API",
        "the API rate limiter",
        ("bucket.py", "middleware.py"),
    ),
    ("mailer", "outgoing mail queue", "the email queue", ("queue.py", "smtp_client.py")),
    ("thumbnails", "image resize worker", "the thumbnail generator", ("resize.py", "worker.py")),
    (
        "webhooks",
        "Stripe webhook handlers",
        "the payment webhooks",
        ("stripe_events.py", "signature.py"),
    ),
    (
        "importer",
        "CSV import of customer lists",
        "the CSV importer",
        ("csv_reader.py", "mapping.py"),
    ),
    ("cache", "HTTP response cache", "the response cache", ("lru.py", "keys.py")),
    ("pdf", "PDF receipt rendering", "the PDF receipts", ("render.py", "fonts.py")),
    ("realtime", "websocket hub", "the websocket server", ("hub.py", "connection.py")),
    (
        "scheduler",
        "cron runner for nightly jobs",
        "the nightly job scheduler",
        ("cron.py", "runner.py"),
    ),
    (
        "oauth",
        "OAuth callback for Google login",
        "the Google sign-in",
        ("callback.py", "tokens.py"),
    ),
    ("audit", "audit log of admin actions", "the audit trail", ("events.py", "store.py")),
    ("flags", "feature flag rollout", "feature flags", ("rollout.py", "client.py")),
    ("cart", "shopping cart totals", "the cart", ("totals.py", "items.py")),
    ("notify", "APNs push fan-out", "push notifications", ("apns.py", "fanout.py")),
    ("backup", "Postgres backup uploads", "the database backups", ("snapshot.py", "upload.py")),
    ("metrics", "Prometheus collector", "the Prometheus exporter", ("collector.py", "labels.py")),
    (
        "markdown",
        "markdown to HTML rendering",
        "the markdown renderer",
        ("parser.py", "sanitize.py"),
    ),
    ("uploads", "chunked file uploads", "file uploads", ("chunks.py", "storage.py")),
    ("search", "product search ranking", "product search", ("query.py", "ranking.py")),
]

# bug kind -> (what the session says: symptom, cause, fix, test words), and how a person asks
BUGS = {
    "timezone": (
        "rows created after 23:00 UTC were dated the next day",
        "naive datetimes were formatted in UTC instead of the account's timezone",
        "convert with zoneinfo before formatting and store aware datetimes",
        "test_timezone_boundary",
    ),
    "none": (
        "AttributeError: 'NoneType' object has no attribute 'id' in production logs",
        "the lookup returns None when the record was soft-deleted",
        "guard the deleted case and return a 404 instead of crashing",
        "test_deleted_record",
    ),
    "race": (
        "duplicate rows appear when two workers pick up the same job",
        "the check and the insert were not atomic, a classic race condition",
        "take a row lock with SELECT ... FOR UPDATE SKIP LOCKED",
        "test_concurrent_workers",
    ),
    "leak": (
        "memory grows by 200 MB an hour until the pod is OOM-killed",
        "a module-level dict kept a reference to every request",
        "bound it with an LRU of 1,000 entries and drop references on completion",
        "test_memory_bounded",
    ),
    "unicode": (
        "UnicodeDecodeError on names with accents like José and Zoë",
        "the file was opened without an encoding, so latin-1 bytes broke the decoder",
        "open with encoding='utf-8' and errors='replace', normalise to NFC",
        "test_accented_names",
    ),
    "slow": (
        "the page takes 9 seconds to load with 500 items",
        "an N+1 query: one SELECT per item inside the loop",
        "prefetch with a single joined query and add an index on owner_id",
        "test_query_count",
    ),
    "rounding": (
        "totals are off by one cent on some orders",
        "floats were summed and rounded per line instead of once",
        "use Decimal with ROUND_HALF_EVEN and round the total once",
        "test_cent_rounding",
    ),
    "retry": (
        "requests fail whenever the upstream service blips for a second",
        "there was no retry and the timeout was 60 seconds",
        "retry three times with exponential backoff and a 5 second timeout",
        "test_retries_backoff",
    ),
}

# how a person remembers each bug (never the session's own words for it)
SYMPTOMS = {
    "timezone": [
        "dates one day late for late-evening entries",
        "the off-by-one-day date problem near midnight",
    ],
    "none": ["the crash on deleted records", "the NoneType crash"],
    "race": ["double processing when two workers run at once", "duplicates from concurrent jobs"],
    "leak": ["the out-of-memory restarts", "memory usage that kept climbing"],
    "unicode": ["accented names breaking", "the encoding error with non-ASCII names"],
    "slow": ["the very slow page with many items", "too many database queries"],
    "rounding": ["totals a cent off", "the penny rounding error"],
    "retry": [
        "failures when the upstream service hiccups",
        "missing retries on flaky upstream calls",
    ],
}

FEATURES = [
    ("add a CSV download", "a CSV download with a header row", "test_csv_download"),
    ("add pagination", "cursor pagination with a limit of 100", "test_pagination"),
    ("add structured logging", "JSON log lines with a request id", "test_log_fields"),
    ("add an admin toggle", "an admin switch stored in settings", "test_admin_toggle"),
]

CHATTER = [
    "can you explain how {name} works and where it is configured?",
    "review {file} and suggest cleanups, no behaviour change",
    "rename the helpers in {file} to match the style guide",
    "why does the linter complain about {file}?",
    "write a docstring for the main class in {file}",
    "bump the dependencies used by {name} and run the tests",
]

PROJECTS = [
    "shopfront",
    "billing",
    "warehouse",
    "crm",
    "mobile-api",
    "analytics",
    "support",
    "identity",
    "catalog",
    "ops",
]


@dataclass(frozen=True)
class Work:
    """One generated session: what it is about and where."""

    session_id: str
    cwd: str
    kind: str
    """``fix``, ``feature`` or ``chatter``."""
    component: str
    bug: str | None
    files: tuple[str, ...]
    messages: tuple[Message, ...]
    created: int


@dataclass(frozen=True)
class Question:
    text: str
    answer: str
    """The session id expected among the first three hits."""
    kind: str
    """``fixed`` (the session that fixed X) or ``file`` (the session that touched Y)."""


def _assistant(text: str, calls: tuple[ContentBlock, ...] = ()) -> Message:
    return Message.enriched(
        AssistantMessage(content=(ContentBlock.of_text(text), *calls), provenance=PROVIDER)
    )


def _call(cid: str, name: str, **arguments: object) -> ContentBlock:
    return ContentBlock.of_tool_call(cid, name, arguments)


def _fix(
    rng: random.Random, package: str, described: str, files: tuple[str, ...], bug: str
) -> tuple[Message, ...]:
    symptom, cause, fix, test = BUGS[bug]
    main = f"src/{package}/{files[0]}"
    tests = f"tests/test_{package}.py"
    return (
        Message.user_text(
            f"In {package} (the {described}): {symptom}. Can you find out why and fix it?"
        ),
        _assistant(f"Let me look at {main}.", (_call("c1", "read_file", path=main),)),
        Message.result(
            "c1",
            True,
            f"def handle(record):\n    # {package} entry point\n    return process(record)\n",
        ),
        _assistant(
            f"Found it: {cause}.", (_call("c2", "bash", command=f"pytest {tests} -q -k {test}"),)
        ),
        Message.result(
            "c2", False, f"FAILED {tests}::{test}\n1 failed in 0.{rng.randint(10, 99)}s"
        ),
        _assistant(
            f"The fix: {fix}.",
            (_call("c3", "edit", path=main, old="process(record)", new="process_safely(record)"),),
        ),
        Message.result("c3", True, f"edited {main}"),
        _assistant(
            "Adding a regression test.",
            (_call("c4", "write_file", path=tests, content=f"def {test}():\n    assert True\n"),),
        ),
        Message.result("c4", True, f"wrote {tests}"),
        Message.user_text("run the whole suite"),
        _assistant("Running it.", (_call("c5", "bash", command="pytest -q"),)),
        Message.result(
            "c5",
            True,
            f"{rng.randint(80, 400)} passed in {rng.randint(3, 40)}.{rng.randint(10, 99)}s",
        ),
        _assistant(f"All green. Summary: {cause}; {fix}. Regression test `{test}` in {tests}."),
    )


def _feature(
    rng: random.Random, package: str, files: tuple[str, ...], feature: tuple[str, str, str]
) -> tuple[Message, ...]:
    ask, what, test = feature
    target = f"src/{package}/{files[-1]}"
    return (
        Message.user_text(f"{ask} to {package}"),
        _assistant(f"I'll add {what} in {target}.", (_call("f1", "read_file", path=target),)),
        Message.result("f1", True, "class Handler:\n    pass\n"),
        _assistant(
            "Writing it.",
            (_call("f2", "edit", path=target, old="pass", new="def extra(self): ..."),),
        ),
        Message.result("f2", True, f"edited {target}"),
        _assistant("Testing.", (_call("f3", "bash", command=f"pytest -q -k {test}"),)),
        Message.result("f3", True, f"{rng.randint(2, 9)} passed"),
        _assistant(f"Done: {what}, covered by {test}."),
    )


def _chatter(
    rng: random.Random, package: str, described: str, files: tuple[str, ...]
) -> tuple[Message, ...]:
    file = f"src/{package}/{rng.choice(files)}"
    ask = rng.choice(CHATTER).format(name=package, file=file)
    words = " ".join(
        rng.choices(
            [
                "the",
                "module",
                "handler",
                "config",
                "value",
                "returns",
                "list",
                "request",
                "we",
                "could",
                "style",
                "function",
                "class",
                "error",
                "check",
                "option",
                "default",
                "user",
            ],
            k=rng.randint(30, 90),
        )
    )
    return (
        Message.user_text(ask),
        _assistant(f"Reading {file}.", (_call("h1", "read_file", path=file),)),
        Message.result("h1", True, f"# {described}\nimport os\n"),
        _assistant(words),
    )


def generate(n: int, *, seed: int = 20261206) -> list[Work]:
    """``n`` sessions: every (component, bug) fixed once, each feature once per component, the rest chatter."""
    rng = random.Random(seed)
    work: list[Work] = []
    home_of = {
        c[0]: f"/home/dev/src/{PROJECTS[i % len(PROJECTS)]}" for i, c in enumerate(COMPONENTS)
    }

    def add(
        kind: str,
        package: str,
        bug: str | None,
        files: tuple[str, ...],
        messages: tuple[Message, ...],
    ) -> None:
        i = len(work)
        sid = f"{i:08x}-{rng.getrandbits(16):04x}-4000-8000-{rng.getrandbits(48):012x}"
        work.append(
            Work(
                sid, home_of[package], kind, package, bug, files, messages, 1_780_000_000 + i * 600
            )
        )

    for package, described, _name, files in COMPONENTS:
        for bug in BUGS:
            add(
                "fix",
                package,
                bug,
                (f"src/{package}/{files[0]}", f"tests/test_{package}.py"),
                _fix(rng, package, described, files, bug),
            )
        for feature in FEATURES:
            add(
                "feature",
                package,
                None,
                (f"src/{package}/{files[-1]}",),
                _feature(rng, package, files, feature),
            )
    while len(work) < n:
        package, described, _name, files = rng.choice(COMPONENTS)
        add("chatter", package, None, (), _chatter(rng, package, described, files))
    order = list(range(len(work)))
    rng.shuffle(order)  # fixes are not the oldest sessions
    return [
        Work(
            w.session_id,
            w.cwd,
            w.kind,
            w.component,
            w.bug,
            w.files,
            w.messages,
            1_780_000_000 + k * 600,
        )
        for k, w in zip(order, work, strict=True)
    ][:n]


def write_library(home: Path, works: list[Work]) -> None:
    """Each session as Rho writes a new one (header, one snapshot record), without fsync."""
    for w in works:
        folder = workspace_dir(home, w.cwd) / f"{w.created}_{w.session_id}"
        folder.mkdir(parents=True, exist_ok=True)
        stamp = str(w.created + 60)
        header = HeaderRecord(NEW_SESSION_VERSION, w.session_id, str(w.created), w.cwd, None, None)
        snapshot = SessionSnapshot.new(w.session_id, 1, w.messages, PROVIDER)
        record = SnapshotRecord(
            stamp, snapshot, tuple(StoredDisplayMessage(stamp, m) for m in w.messages)
        )
        (folder / "session.jsonl").write_bytes(encode(header) + b"\n" + encode(record) + b"\n")


def questions(works: list[Work], *, count: int = 60, seed: int = 7) -> list[Question]:
    """Questions a person would ask of the library, each with its one right session."""
    rng = random.Random(seed)
    fixes = [w for w in works if w.kind == "fix"]
    rng.shuffle(fixes)
    names = {c[0]: c[2] for c in COMPONENTS}
    out: list[Question] = []
    forms = [
        "which session fixed {symptom} in {name}?",
        "how did we fix {symptom} in {name}",
        "{name}: {symptom}, what was the fix?",
        "find the fix for {symptom} ({name})",
    ]
    for w in fixes[: count * 2 // 3]:
        assert w.bug is not None
        text = rng.choice(forms).format(
            symptom=rng.choice(SYMPTOMS[w.bug]), name=names[w.component]
        )
        out.append(Question(text, w.session_id, "fixed"))
    # files: the one session that changed a file, asked by its name (fix sessions are the only
    # ones that edit the first module of a component together with a regression test for a bug)
    for w in fixes[count * 2 // 3 : count]:
        assert w.bug is not None
        module = Path(w.files[0]).name
        text = rng.choice(
            [
                "which session changed {module} for {symptom}?",
                "{symptom}: the session that edited {module}",
            ]
        )
        out.append(
            Question(
                text.format(module=module, symptom=rng.choice(SYMPTOMS[w.bug])),
                w.session_id,
                "file",
            )
        )
    return out


def demo_questions() -> list[Question]:
    """Questions about the bundled demo library, from what its sessions were about."""
    return [
        Question(
            "which session fixed the refund webhook test that failed now and then?",
            "5f0c2a9e",
            "fixed",
        ),
        Question("how did we stop the refund webhook test from being flaky", "5f0c2a9e", "fixed"),
        Question("where did we plan idempotency for creating payments?", "b2e47d10", "fixed"),
        Question("the session about making the release binary smaller", "9e6d1b47", "fixed"),
        Question("moving the settings to pydantic 2", "0d9a7c55", "fixed"),
        Question("adding JSON output to the grep tool", "c81f3e02", "fixed"),
        Question("retention by signup cohort for churn", "4a7e2c19", "fixed"),
        Question("what did we conclude about the january and june cohorts?", "f3b8d6a1", "fixed"),
        Question("which session changed app/webhooks/refunds.py?", "5f0c2a9e", "file"),
        Question("which session touched src/output.rs", "c81f3e02", "file"),
    ]
