"""Real processes: a writer killed with SIGKILL mid-save, and two writers racing for one session."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rho_desk.core.stores.rho_files import create_session, read_session
from rho_desk.core.wire import encode

from . import _procs

SCRIPT = str(Path(_procs.__file__))
TOTAL = 200

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and flock")


def new_session(tmp_path: Path) -> Path:
    writer = create_session(tmp_path / "home", "/work/crash", _procs.first_snapshot(), created=1)
    writer.close()
    return writer.path


@pytest.mark.timeout(120)
def test_sigkill_during_200_saves_never_loses_or_mixes(tmp_path: Path) -> None:
    path = new_session(tmp_path)
    rng = random.Random(20260822)
    confirmed = 0
    kills = 0
    while confirmed < TOTAL:
        proc = subprocess.Popen(
            [sys.executable, SCRIPT, "crash", str(path), str(TOTAL)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(rng.uniform(0.0, 0.04))
        proc.kill()  # SIGKILL, at a random moment of the save loop
        proc.wait(timeout=30)
        kills += proc.returncode == -9
        events = proc.stdout.read().split("\n")
        proc.stdout.close()
        saved = [int(e.split()[1]) for e in events if e.startswith("saved ")]
        attempted = [int(e.split()[1]) for e in events if e.startswith("saving ")]
        session = read_session(path)  # loads after every kill
        stored = session.tree.snapshot(prompt_cache_key=None)
        revision = stored.revision
        last_saved = max(saved, default=confirmed)
        last_attempt = max(attempted, default=confirmed)
        # the previous or the new revision, never a loss, never a mix
        assert revision in (last_saved, last_attempt), (revision, last_saved, last_attempt)
        assert revision >= confirmed
        assert encode(stored) == encode(_procs.expected(revision))
        confirmed = revision
    assert kills >= 3  # the loop really was interrupted several times
    final = read_session(path).tree
    assert final.snapshot().revision == TOTAL
    assert final.snapshot().compaction.completed_compactions == TOTAL // _procs.COMPACT_EVERY


@pytest.mark.timeout(120)
def test_two_processes_appending_one_wins(tmp_path: Path) -> None:
    path = new_session(tmp_path)
    procs = [
        subprocess.Popen(
            [sys.executable, SCRIPT, "race", str(path), name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        for name in ("alpha", "beta")
    ]
    try:
        for round_ in range(8):
            lines_before = path.read_bytes().count(b"\n")
            for proc in procs:
                proc.stdin.write("load\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
            assert [p.stdout.readline().strip() for p in procs] == ["loaded", "loaded"]  # type: ignore[union-attr]
            for proc in procs:
                proc.stdin.write("save\n")  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]
            answers = sorted(p.stdout.readline().strip() for p in procs)  # type: ignore[union-attr]
            assert answers == ["conflict", "ok"], (round_, answers)
            data = path.read_bytes()
            assert data.count(b"\n") == lines_before + 1  # exactly one record added
            tree = read_session(path).tree  # nothing interleaved: it parses strictly
            assert tree.snapshot().revision == round_ + 1
            last = tree.history()[-1].text()
            assert last in ("from alpha " + "y" * 5000, "from beta " + "y" * 5000)
    finally:
        for proc in procs:
            proc.stdin.write("quit\n")  # type: ignore[union-attr]
            proc.stdin.close()  # type: ignore[union-attr]
            proc.wait(timeout=30)
            proc.stdout.close()  # type: ignore[union-attr]
