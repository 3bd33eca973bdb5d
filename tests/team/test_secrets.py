"""Secrets and excluded classes never reach the team database: every table's contents are scanned.

The export's canary session (a distinct canary in every wire location, every kind of secret
planted plain and encoded, known credentials) is published with classes excluded, through the
CLI path (known credentials include the database password) and with a PostgreSQL session store
encrypting at rest. Then every row of every table of the ``rho_desk`` schema, bytea decoded and
JSON strings unescaped, is searched for each canary of an excluded class and for every secret in
every form. Failures name the table and the match, never the value.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets

import psycopg
import pytest

from rho_desk.cli.publish import database_passwords
from rho_desk.core.export import (
    ALL_CLASSES,
    ContentClass,
    ExportSource,
    Selection,
    display_snapshot,
)
from rho_desk.team.library import TeamLibrary
from rho_desk.team.store import PostgresSessionStore

from ..core.export.builders import (
    CANARIES,
    IMAGE_MARKERS,
    KNOWN,
    KNOWN_SPECIAL,
    SECRETS,
    canary,
    canary_snapshot,
    forbidden_forms,
    json_strings,
    secrets_messages,
)
from .helpers import KEYS, create_login

EXCLUDED = frozenset(
    {
        ContentClass.INSTRUCTIONS,
        ContentClass.TOOL_RECORDS,
        ContentClass.IMAGES,
        ContentClass.PROVIDER_CONTEXT,
        ContentClass.METADATA,
    }
)


def every_table(dsn: str) -> dict[str, str]:
    """Each table of the rho_desk schema, all its rows as text (bytea decoded, JSON unescaped)."""
    out = {}
    with psycopg.connect(dsn) as conn:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'rho_desk' ORDER BY 1"
            )
        ]
        assert {
            "sessions",
            "versions",
            "teams",
            "store_snapshots",
            "store_history",
            "schema_version",
        } <= set(tables)
        for table in tables:
            parts = []
            for row in conn.execute(f"SELECT * FROM rho_desk.{table}"):
                for value in row:
                    text = (
                        value.decode("utf-8", "replace")
                        if isinstance(value, bytes)
                        else json.dumps(value)
                        if isinstance(value, dict)
                        else str(value)
                    )
                    parts.append(text)
                    with contextlib.suppress(ValueError):
                        parts.extend(json_strings(json.loads(text)))
            out[table] = "\n".join(parts)
    return out


def private_key_material() -> list[str]:
    """The fingerprint key and the signing key's private half, in every stored form."""
    from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

    seed = KEYS.signer.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return [*KEYS.known, seed.hex(), KEYS.fingerprint.hex()]


def leaks(text: str, db_password: str) -> list[str]:
    found = []
    values = [s.value for s in SECRETS] + [
        KNOWN,
        KNOWN_SPECIAL,
        KNOWN.lower(),
        KNOWN.upper(),
        db_password,
    ]
    values.extend(private_key_material())
    values.append("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ")
    for value in values:
        for form in forbidden_forms(value):
            if form in text:
                found.append(f"{value[:10]}…:{form[:14]}…")
    return found


@pytest.mark.parametrize("history", ["display", "model"])
def test_no_secret_and_no_excluded_class_in_any_table(pg_db: str, history: str) -> None:
    db_password = "db-Pa55-" + secrets.token_hex(8)
    role = f"pub{secrets.token_hex(3)}"
    dsn = create_login(pg_db, role, db_password)
    with psycopg.connect(pg_db, autocommit=True) as conn:
        conn.execute(
            f"GRANT SELECT, INSERT, UPDATE, DELETE ON rho_desk.store_snapshots, rho_desk.store_history TO {role}"
        )
    # the session mentions the database password too: it is a known credential when publishing
    snapshot = canary_snapshot(extra=[*secrets_messages()]).replace(
        session_id=f"canary-session-{history}"
    )
    from rho_desk.core.wire.model import Message

    # ... and rho-desk's own keys, pasted from a key file: they are redacted like any credential
    pasted = [
        Message.user_text(f"connect with {db_password} please"),
        Message.user_text(f"my key file says {KEYS.known[1]} and {KEYS.known[0]}"),
    ]
    snapshot = snapshot.replace(history=(*snapshot.history, *pasted))
    source = (
        ExportSource(display_snapshot(snapshot, snapshot.history), "display")
        if history == "display"
        else snapshot
    )
    known = [KNOWN, KNOWN_SPECIAL, *database_passwords(dsn)]

    async def go() -> None:
        async with await TeamLibrary.open(pg_db) as admin:
            await admin.create_team("canary", (role,))
        async with await TeamLibrary.open(dsn) as lib:
            selection = Selection.including(frozenset(ALL_CLASSES) - EXCLUDED)
            pub, _ = await lib.publish(
                "canary", source, selection, keys=KEYS, known_secrets=known, allow_findings=True
            )
            assert pub.history == history
        async with PostgresSessionStore(dsn, key=os.urandom(32), keep_revisions=2) as store:
            await store.save(snapshot)
            await store.save(snapshot.replace(revision=snapshot.revision + 1))

    asyncio.run(go())
    tables = every_table(pg_db)
    assert f"canary-session-{history}" in tables["sessions"]  # the scan reads real rows
    assert "rho-desk.display-export" in tables["versions"] or history == "model"
    for table, text in tables.items():
        assert leaks(text, db_password) == [], table
        for name, cls in CANARIES.items():
            if cls in EXCLUDED:
                assert canary(name) not in text, (table, name)
        for marker in IMAGE_MARKERS.values():
            assert marker[:40] not in text, table
    # included classes did arrive (the scan would see them)
    assert (
        canary("user_text") in tables["versions"]
        and canary("assistant_enriched") in tables["sessions"]
    )


@pytest.mark.parametrize("encrypted", [True, False])
def test_the_session_store_encrypts_at_rest(pg_db: str, encrypted: bool) -> None:
    snapshot = canary_snapshot().replace(session_id="stored")

    async def go() -> None:
        async with PostgresSessionStore(pg_db, key=os.urandom(32) if encrypted else None) as store:
            await store.save(snapshot)
            assert await store.load("stored") == snapshot

    asyncio.run(go())
    stored = every_table(pg_db)["store_snapshots"]
    assert (canary("user_text") in stored) is not encrypted
