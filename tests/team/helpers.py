"""Builders for the team-library tests: sessions, roles, a library on a test database."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from rho_desk.core.export import ALL_CLASSES, ExportKeys, Selection
from rho_desk.core.wire.model import ContentBlock, Message, ModelIdentity
from rho_desk.core.wire.snapshot import SessionSnapshot

ID = ModelIdentity("openai", "responses", "gpt-5")
KEY = bytes(range(32))
KEYS = ExportKeys(KEY, Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64))))
"""A fixed fingerprint key and receipt signing key (as ``export_keys`` reads them)."""
EVERYTHING = Selection.including(ALL_CLASSES)


def session(
    session_id: str = "sess-1", revision: int = 1, topic: str = "websocket reconnection"
) -> SessionSnapshot:
    history = [
        Message.system_text("You are a careful coding agent."),
        Message.user_text(f"Please fix the flaky {topic} test"),
        Message.assistant_blocks(
            [ContentBlock.of_tool_call("c1", "read_file", {"path": "net/ws.py"})]
        ),
        Message.result(
            "c1", True, "def reconnect_backoff(attempt):\n    return min(30, 2 ** attempt)"
        ),
    ]
    for n in range(2, revision + 1):
        history.append(Message.assistant_text(f"revision {n}: adjusted the {topic} backoff"))
    return SessionSnapshot.new(session_id, revision, history, ID, metadata={"ticket": "OPS-12"})


def dsn_with(dsn: str, **changes: str) -> str:
    params = psycopg.conninfo.conninfo_to_dict(dsn)
    params.update(changes)
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in params.items()})


def create_login(admin_dsn: str, role: str, password: str) -> str:
    """A login role with a password; its DSN (with the password) on the same database."""
    from psycopg import sql

    with psycopg.connect(admin_dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        if exists is None:
            conn.execute(
                sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                    sql.Identifier(role), sql.Literal(password)
                )
            )
    return dsn_with(admin_dsn, user=role, password=password)


def without_password(dsn: str, pgpass_dir: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """``dsn`` with its password moved to a ``.pgpass`` file (``PGPASSFILE``), as ``--db`` wants it."""
    params = psycopg.conninfo.conninfo_to_dict(dsn)
    password = str(params.pop("password"))
    pgpass = pgpass_dir / "pgpass"
    pgpass.write_text(f"*:*:*:{params['user']}:{password}\n")
    pgpass.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(pgpass))
    return psycopg.conninfo.make_conninfo(**{k: str(v) for k, v in params.items() if v is not None})
