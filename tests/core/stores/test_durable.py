"""The durable file store: the seed's eight points, across processes, with faults and encryption."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path

import pytest

from rho_desk.core.errors import CredentialsUnavailable, InputError, RevisionConflict, StorageError
from rho_desk.core.secrets.keys import KeySource
from rho_desk.core.stores.base import SessionStore
from rho_desk.core.stores.durable import (
    KEYRING_SERVICE,
    MAGIC,
    CorruptSnapshotFile,
    DurableFileSessionStore,
)
from rho_desk.core.system.fsio import atomic_write
from rho_desk.core.wire import Message, ModelIdentity, SessionSnapshot, decode_snapshot, encode

P = ModelIdentity("p", "a", "m")
SECRET = "the launch code is 0000"


def snap(revision: int = 1, sid: str = "s-1", text: str = "hello") -> SessionSnapshot:
    return SessionSnapshot.new(
        sid,
        revision,
        [Message.user_text(text), Message.assistant_text(SECRET)],
        P,
        metadata={"k": "v"},
        prompt_cache_key="rho:s",
    )


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KeySource:
    """The app's key source: the keyring (the in-memory one), or a key file under tmp_path."""
    from rho_desk.keys import default_key_source

    monkeypatch.setenv("RHO_DESK_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv("RHO_DESK_KEY_FILE", raising=False)
    return default_key_source()


def grow(s: SessionSnapshot) -> SessionSnapshot:
    return s.replace(
        revision=s.revision + 1, history=s.history + (Message.user_text(f"r{s.revision + 1}"),)
    )


@pytest.mark.asyncio
async def test_round_trip_and_file_layout(tmp_path: Path) -> None:
    store = DurableFileSessionStore(tmp_path / "store")
    assert isinstance(store, SessionStore)
    assert await store.load("s-1") is None
    first = snap()
    await store.save(first)
    assert await store.load("s-1") == first
    path = store.path_of("s-1")
    data = path.read_bytes()
    assert data.startswith(MAGIC) and oct(path.stat().st_mode & 0o777) == "0o600"
    assert oct((tmp_path / "store").stat().st_mode & 0o777) == "0o700"
    assert encode(first) in data  # unencrypted: the complete compact snapshot
    assert [p.name for p in (tmp_path / "store").iterdir() if p.name.startswith(".tmp")] == []
    second = grow(first)
    await store.save(second)
    assert await DurableFileSessionStore(tmp_path / "store").load("s-1") == second


@pytest.mark.asyncio
async def test_awkward_ids_get_safe_file_names(tmp_path: Path) -> None:
    store = DurableFileSessionStore(tmp_path)
    for sid in ("../escape", "a/b", "ü", ".hidden", "x" * 300):
        await store.save(snap(sid=sid))
        assert store.path_of(sid).parent == tmp_path
        assert (await store.load(sid)).session_id == sid  # type: ignore[union-attr]
    assert len({store.path_of(s) for s in ("a/b", "a_b", "a%2Fb")}) == 3


@pytest.mark.asyncio
async def test_optimistic_revision_check(tmp_path: Path) -> None:
    a = DurableFileSessionStore(tmp_path)
    b = DurableFileSessionStore(tmp_path)
    base = snap()
    await a.save(base)
    assert await b.load("s-1") == base
    await a.save(grow(base))  # a moves on
    with pytest.raises(RevisionConflict, match="saved elsewhere"):
        await b.save(grow(base))  # b still believes revision 1
    assert (await a.load("s-1")).revision == 2  # type: ignore[union-attr]
    # a store that never loaded may only add a strictly newer revision
    c = DurableFileSessionStore(tmp_path)
    with pytest.raises(RevisionConflict, match="load it before saving"):
        await c.save(base)
    # going backwards is refused even for the store that wrote last
    with pytest.raises(RevisionConflict, match="refusing to go back"):
        await a.save(base)
    # a session created elsewhere after we saw it absent
    assert await b.load("s-2") is None
    await a.save(snap(sid="s-2"))
    with pytest.raises(RevisionConflict, match="created elsewhere"):
        await b.save(snap(sid="s-2"))


@pytest.mark.timeout(60)
def test_revision_check_holds_across_processes(tmp_path: Path) -> None:
    """Several processes save from the same base at once: exactly one wins."""
    store_dir = tmp_path / "store"
    asyncio.run(DurableFileSessionStore(store_dir).save(snap()))
    script = textwrap.dedent(f"""
        import asyncio, sys
        from rho_desk.core.errors import RevisionConflict
        from rho_desk.core.stores.durable import DurableFileSessionStore
        from rho_desk.core.wire import Message
        async def main():
            store = DurableFileSessionStore({str(store_dir)!r})
            base = await store.load("s-1")
            sys.stdout.write("ready\\n"); sys.stdout.flush()
            sys.stdin.readline()
            try:
                await store.save(base.replace(revision=2, history=base.history + (Message.user_text(sys.argv[1]),)))
                print("ok")
            except RevisionConflict:
                print("conflict")
        asyncio.run(main())
    """)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, f"p{i}"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(4)
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    for proc in procs:
        proc.stdin.write("go\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
    answers = sorted(proc.communicate(timeout=30)[0].strip() for proc in procs)
    assert answers == ["conflict", "conflict", "conflict", "ok"]
    final = asyncio.run(DurableFileSessionStore(store_dir).load("s-1"))
    assert final is not None and final.revision == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EIO])
async def test_faults_keep_the_previous_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, code: int
) -> None:
    store = DurableFileSessionStore(tmp_path)
    base = snap()
    await store.save(base)
    real = {"write": os.write, "fsync": os.fsync, "replace": os.replace}[where]

    def failing(*args: object) -> object:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, where, failing)
    with pytest.raises(StorageError, match="previous snapshot is unchanged") as caught:
        await store.save(grow(base))
    monkeypatch.setattr(os, where, real)
    assert isinstance(caught.value.__cause__, OSError) and caught.value.__cause__.errno == code
    assert await DurableFileSessionStore(tmp_path).load("s-1") == base
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp")] == []
    await store.save(grow(base))  # the expectation was not disturbed by the failure
    assert (await store.load("s-1")).revision == 2  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_serialisation_failure_writes_nothing(tmp_path: Path) -> None:
    store = DurableFileSessionStore(tmp_path)
    await store.save(snap())
    bad = snap(2).replace(history=(Message.user_blocks([]),)).replace(metadata={"k": object()})  # type: ignore[dict-item]
    with pytest.raises(StorageError, match="cannot serialise"):
        await store.save(bad)
    assert (await store.load("s-1")).revision == 1  # type: ignore[union-attr]


# -- encryption ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_encryption_at_rest(tmp_path: Path, keys: KeySource, memory_keyring: object) -> None:
    store = DurableFileSessionStore(tmp_path, encrypt=True, key_name="laptop", keys=keys)
    await store.save(snap())
    data = store.path_of("s-1").read_bytes()
    assert SECRET.encode() not in data and b"hello" not in data
    entries = memory_keyring.entries  # type: ignore[attr-defined]
    assert list(entries) == [(KEYRING_SERVICE, "durable-store:laptop")]
    key_text = entries[(KEYRING_SERVICE, "durable-store:laptop")]
    assert key_text not in repr(store) and key_text.encode() not in data
    assert (
        await DurableFileSessionStore(tmp_path, keys=keys).load("s-1") == snap()
    )  # any store finds the key by name
    listed = await store.list_sessions()
    assert [(s.session_id, s.revision, s.encrypted) for s in listed] == [("s-1", 1, True)]


@pytest.mark.asyncio
async def test_the_session_id_is_bound_to_the_ciphertext(tmp_path: Path, keys: KeySource) -> None:
    store = DurableFileSessionStore(tmp_path, encrypt=True, keys=keys)
    await store.save(snap(sid="sid-a"))
    await store.save(snap(sid="sid-b"))
    # swap the files: the header names the wrong session for the request ...
    alice, bob = store.path_of("sid-a"), store.path_of("sid-b")
    alice_bytes = alice.read_bytes()
    bob.write_bytes(alice_bytes)
    with pytest.raises(CorruptSnapshotFile, match="holds session 'sid-a'"):
        await DurableFileSessionStore(tmp_path, keys=keys).load("sid-b")
    # ... and editing the header to claim another id breaks authentication
    bob.write_bytes(alice_bytes.replace(b'"session_id":"sid-a"', b'"session_id":"sid-b"'))
    with pytest.raises(CorruptSnapshotFile, match="altered"):
        await DurableFileSessionStore(tmp_path, keys=keys).load("sid-b")
    tampered = bytearray(alice_bytes)
    tampered[-5] ^= 1
    alice.write_bytes(bytes(tampered))
    with pytest.raises(CorruptSnapshotFile, match="cannot decrypt"):
        await DurableFileSessionStore(tmp_path, keys=keys).load("sid-a")


@pytest.mark.asyncio
async def test_missing_key_and_locked_keyring(
    tmp_path: Path, keys: KeySource, memory_keyring: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = DurableFileSessionStore(tmp_path, encrypt=True, keys=keys)
    await store.save(snap())
    memory_keyring.entries.clear()  # type: ignore[attr-defined]
    with pytest.raises(CredentialsUnavailable, match="nor in the keyring") as caught:
        await DurableFileSessionStore(tmp_path, keys=keys).load("s-1")
    assert "Restore it from your backup" in caught.value.text()
    import keyring
    import keyring.errors

    def locked(*args: object) -> None:
        raise keyring.errors.KeyringLocked("collection /secret/aliases/default is locked")

    monkeypatch.setattr(keyring, "get_password", locked)
    with pytest.raises(
        CredentialsUnavailable, match=r"the keyring reported KeyringLocked\. Unlock the keyring"
    ):
        await DurableFileSessionStore(tmp_path / "other", encrypt=True, keys=keys).save(snap())
    assert not any((tmp_path / "other").glob("*.rdsnap"))


@pytest.mark.asyncio
async def test_without_a_keyring_the_key_lives_in_the_key_file(
    tmp_path: Path, keys: KeySource
) -> None:
    import keyring
    from keyring.backends.fail import Keyring as Fail

    previous = keyring.get_keyring()
    keyring.set_keyring(Fail())
    try:
        store = DurableFileSessionStore(tmp_path / "store", encrypt=True, keys=keys)
        await store.save(snap())
        key_file = tmp_path / "config" / "keys"
        assert "durable-store:default " in key_file.read_text()
        assert oct(key_file.stat().st_mode & 0o777) == "0o600"
        assert await DurableFileSessionStore(tmp_path / "store", keys=keys).load("s-1") == snap()
    finally:
        keyring.set_keyring(previous)


@pytest.mark.asyncio
async def test_a_store_without_a_key_source_says_so(tmp_path: Path) -> None:
    with pytest.raises(CredentialsUnavailable, match="without a key source"):
        await DurableFileSessionStore(tmp_path, encrypt=True).save(snap())


@pytest.mark.asyncio
async def test_keyring_calls_leave_the_event_loop(
    tmp_path: Path, keys: KeySource, memory_keyring: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import keyring

    loop_thread = threading.get_ident()
    seen = []
    real = keyring.get_password

    def spy(service: str, user: str) -> str | None:
        seen.append(threading.get_ident())
        return real(service, user)

    monkeypatch.setattr(keyring, "get_password", spy)
    await DurableFileSessionStore(tmp_path, encrypt=True, keys=keys).save(snap())
    assert seen and loop_thread not in seen


# -- retention, deletion, backup, restore, export ----------------------------------------------------


@pytest.mark.asyncio
async def test_retention_keeps_previous_revisions(tmp_path: Path) -> None:
    store = DurableFileSessionStore(tmp_path, keep_revisions=2)
    s = snap()
    await store.save(s)
    for _ in range(4):
        s = grow(s)
        await store.save(s)
    assert await store.revisions("s-1") == [3, 4]
    assert (await store.load_revision("s-1", 3)).revision == 3
    assert (await store.load_revision("s-1", 5)).revision == 5
    with pytest.raises(InputError, match="not kept"):
        await store.load_revision("s-1", 1)
    assert await store.prune(1) == 1
    assert await store.revisions("s-1") == [4]


@pytest.mark.asyncio
async def test_delete_and_purge(tmp_path: Path) -> None:
    now = [1_000_000.0]
    store = DurableFileSessionStore(tmp_path, keep_revisions=1, clock=lambda: now[0])
    await store.save(snap(sid="old"))
    await store.save(grow(snap(sid="old")))
    now[0] += 86400 * 40
    await store.save(snap(sid="new"))
    assert await store.purge(timedelta(days=30)) == ["old"]
    assert [s.session_id for s in await store.list_sessions()] == ["new"]
    assert not (tmp_path / ".history" / "old").exists()
    assert await store.delete("new") is True and await store.delete("new") is False
    assert await store.load("new") is None
    await store.save(snap(sid="new"))  # deleted means absent: saving again is a first save


@pytest.mark.asyncio
async def test_backup_restore_and_export(tmp_path: Path, keys: KeySource) -> None:
    store = DurableFileSessionStore(tmp_path / "store", encrypt=True, keys=keys)
    await store.save(snap(sid="a"))
    await store.save(snap(sid="b"))
    report = await store.backup(tmp_path / "backups")
    assert (report.sessions, report.encrypted) == (2, 2)
    manifest = json.loads((report.folder / "manifest.json").read_text())
    assert [s["session_id"] for s in manifest["sessions"]] == ["a", "b"]
    assert SECRET.encode() not in b"".join(p.read_bytes() for p in report.folder.iterdir())
    await store.delete("a")
    await store.save(grow(snap(sid="b")))
    assert await store.restore(report.folder) == ["a"]  # b is newer in the store: kept
    assert (await store.load("a")) == snap(sid="a")
    assert await store.restore(report.folder, overwrite=True) == ["a", "b"]
    exported = tmp_path / "out" / "a.json"
    exported.parent.mkdir()
    await store.export("a", exported)
    assert decode_snapshot(exported.read_bytes()) == snap(sid="a")  # plain, decrypted SDK document
    assert oct(exported.stat().st_mode & 0o777) == "0o600"
    with pytest.raises(InputError, match="no stored session"):
        await store.export("zzz", tmp_path / "x.json")


def test_atomic_write_failure_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.json"
    atomic_write(target, b"old")

    def failing(*args: object) -> None:
        raise OSError(errno.EIO, "I/O error")

    monkeypatch.setattr(os, "replace", failing)
    with pytest.raises(StorageError, match="cannot write"):
        atomic_write(target, b"new")
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == [
        "f.json"
    ]


def test_stale_temp_files_are_cleaned(tmp_path: Path) -> None:
    stale = tmp_path / ".tmp-x-1-abcd"
    stale.write_bytes(b"half")
    os.utime(stale, (1, 1))
    fresh = tmp_path / ".tmp-y-2-abcd"
    fresh.write_bytes(b"in progress")
    DurableFileSessionStore(tmp_path)
    assert not stale.exists() and fresh.exists()
