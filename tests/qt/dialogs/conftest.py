"""Fixtures of the action-dialog tests: an app on a session, a loopback model server, its profile.

The loopback server is the providers' own (``tests/providers/loopback.py``, imported, not
copied): aiohttp on 127.0.0.1, port 0, in the test's qasync loop, speaking the OpenAI-compatible
streaming protocol. The profile pointing at it keeps its key in the test's in-memory keyring.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rho_desk.providers.credentials import set_api_key
from rho_desk.providers.profiles import ProfileKind, ProfileStore, ProviderProfile

from ...providers.loopback import OPENAI_DONE, Loopback, Reply, openai_chunk, serve
from ..conftest import until  # noqa: F401 (the continue tests import it from here)

LOOPBACK_KEY = "sk-loopback-test-0123456789abcdef"


@pytest.fixture
def loopback(run: Callable[..., Any]) -> Iterator[Loopback]:
    """A loopback model server running in the test's qasync loop."""
    server = serve()
    lb = run(server.__anext__())
    try:
        yield lb
    finally:
        run(server.aclose())


@pytest.fixture
def loopback_profile(loopback: Loopback) -> ProviderProfile:
    """A stored profile (the default) pointing at the loopback server, its key in the keyring.

    Its tools are off: these sessions record folders that are not on this machine (the tools'
    own tests choose a mode and a real folder)."""
    profile = ProviderProfile(
        name="loopback",
        kind=ProfileKind.OPENAI_COMPATIBLE,
        base_url=loopback.url + "/v1",
        model="gpt-test",
        provider="loopback",
        context_window=32_000,
        permission_mode="off",
    )
    ProfileStore().upsert(profile, make_default=True)
    set_api_key(profile, LOOPBACK_KEY)
    return profile


def text_reply(*pieces: str, hang: bool = False, delay: float = 0.0) -> Reply:
    """A streamed OpenAI-compatible answer made of ``pieces`` (then hanging, if asked)."""
    chunks = [openai_chunk({"role": "assistant", "content": pieces[0]})]
    chunks += [openai_chunk({"content": p}) for p in pieces[1:]]
    if hang:
        return Reply(chunks=chunks, hang_after=len(chunks), delay=delay)
    chunks += [
        openai_chunk(finish="stop"),
        openai_chunk(
            choices=False, usage={"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57}
        ),
        OPENAI_DONE,
    ]
    return Reply(chunks=chunks, delay=delay)


def sent_messages(loopback: Loopback, index: int = -1) -> list[dict[str, Any]]:
    """The ``messages`` of a recorded chat request."""
    body = loopback.requests[index].body
    return list(body["messages"]) if isinstance(body, dict) else json.loads(body)["messages"]


def demo_session(home: Path, session_id: str) -> Path:
    return next(p for p in (home / "sessions").rglob("*.jsonl") if session_id in str(p))


def audit_written(output: Path, receipt_path: Path, known: list[str] = ()) -> Any:
    """Audit a written export the way ``rho-desk audit FILE`` does; the receipt check result."""
    import base64

    from rho_desk.core.export import (
        ContentClass,
        SecretScanner,
        audit_bytes,
        decode_receipt,
        fingerprint_key,
        key_id,
        verify_receipt,
    )
    from rho_desk.keys import default_key_source

    data = output.read_bytes()
    receipt = decode_receipt(receipt_path.read_bytes())
    key = fingerprint_key(default_key_source())
    excluded = frozenset(ContentClass(n) for n in receipt.selection.excluded)
    report = audit_bytes(
        data,
        scanner=SecretScanner([*known, base64.b64encode(key).decode()]),
        key=key,
        name=output.name,
        excluded=excluded,
        recorded_echoes=receipt.finding_objects(),
    )
    return verify_receipt(receipt, data, report, key_id(key)), report, receipt
