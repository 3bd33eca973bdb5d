"""Check, then use: another process swaps a workspace folder for a symlink out of it, thousands of
times, while the coding tools read, list, search, write and edit under it. Nothing outside may
be read or written, whichever moment the swap lands (the tools open what they authorized from
its root's descriptor, refusing every symlink on the way)."""

from __future__ import annotations

import asyncio
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from rho_desk.core.tools import ToolError, ToolOutput, beneath
from rho_desk.core.tools.beneath import uses_openat2
from rho_desk.core.tools.permissions import PermissionMode
from rho_desk.core.tools.text import file_hash
from tests.core.tools.test_workspace_and_modes import call, toolset

SECRET = "OUTSIDE-SECRET"
INSIDE = "inside\n"

SWAPPER = """
import os, shutil, sys, time
root, outside, stop, progress = sys.argv[1:5]
real, parked = os.path.join(root, "real"), os.path.join(root, "parked")

def clear():  # a write may create the folder while it is away: keep the parked one
    if os.path.islink(real):
        os.unlink(real)
    elif os.path.isdir(real):
        shutil.rmtree(real, ignore_errors=True)

swaps = 0
while not os.path.exists(stop):
    os.rename(real, parked)
    try:
        os.symlink(outside, real)
    except FileExistsError:
        pass
    while True:
        clear()
        try:
            os.rename(parked, real)
            break
        except OSError:
            continue
    swaps += 1
    if swaps % 8 == 0:
        time.sleep(0.0005)  # leave the folder in place now and then, so some calls get through
    if swaps % 64 == 0:  # how far it got, for the test to wait on (a busy machine swaps slowly)
        with open(progress + ".tmp", "w") as f:
            f.write(str(swaps))
        os.replace(progress + ".tmp", progress)
print(swaps)
"""


@pytest.fixture(params=["openat2", "O_NOFOLLOW walk"])
def swapped(tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    if request.param == "openat2" and not uses_openat2():
        pytest.skip("this kernel has no openat2")
    if request.param != "openat2":
        monkeypatch.setattr(beneath.kernel(), "available", False)  # as on a kernel before 5.6
    root, outside = tmp_path / "project", tmp_path / "elsewhere"
    (root / "real" / "deeper").mkdir(parents=True)
    outside.mkdir()
    (root / "real" / "file.txt").write_text(INSIDE)
    (root / "real" / "deeper" / "file.txt").write_text(INSIDE)
    (outside / "file.txt").write_text(SECRET + "\n")
    (outside / "deeper").mkdir()
    (outside / "deeper" / "file.txt").write_text(SECRET + "\n")
    before = sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*"))
    stop, progress = tmp_path / "stop", tmp_path / "swaps"
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(root), str(outside), str(stop), str(progress)],
        stdout=subprocess.PIPE,
        text=True,
    )
    time.sleep(0.2)

    def swaps() -> int:
        try:
            return int(progress.read_text())
        except (FileNotFoundError, ValueError):
            return 0

    yield root, outside, swaps
    stop.touch()
    out, _ = swapper.communicate(timeout=30)
    assert int(out) > SWAPS, (
        f"the swapper barely ran ({out.strip()} swaps): the race was not exercised"
    )
    assert sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == before, (
        "a file was created outside"
    )
    for name in ("file.txt", "deeper/file.txt"):
        assert (outside / name).read_text() == SECRET + "\n", f"{name} outside was written"
        assert (root / "real" / name).read_text() == INSIDE


HITS = 100
"""Calls on each side of the race (through, refused) a test must see."""

SWAPS = 1000
"""Swaps the other process must make while the calls run."""


def _rounds(
    outcomes: dict[str, int], swaps: Callable[[], int], seconds: float = 2.5, limit: float = 30.0
) -> Any:
    """Round numbers for ``seconds`` (thousands of swaps on a quiet machine), and on until both
    sides of the race were hit more than ``HITS`` times (how often a call lands while the folder
    is in place depends on the scheduler) and the swapper made more than ``SWAPS`` swaps (on a
    busy machine it gets less time), at most ``limit`` seconds in all."""
    start = time.monotonic()
    index = 0
    while True:
        elapsed = time.monotonic() - start
        if elapsed >= limit or (
            elapsed >= seconds and min(outcomes.values()) > HITS and swaps() > SWAPS
        ):
            return
        yield index
        index += 1


def _leaked(result: ToolOutput | ToolError) -> bool:
    text = result.content if isinstance(result, ToolOutput) else result.message
    return SECRET in text


@pytest.mark.asyncio
async def test_reads_lists_and_searches_never_reach_outside(swapped: Any) -> None:
    root, _outside, swaps = swapped
    tools = toolset(root, PermissionMode.BYPASS)
    calls = [
        ("read_file", {"path": "real/file.txt"}),
        ("read_file", {"path": "real/deeper/file.txt"}),
        ("list_dir", {"path": "real"}),
        ("grep", {"pattern": "SECRET|inside", "path": "real"}),
        ("glob", {"pattern": "**/*.txt", "path": "real"}),
    ]
    outcomes = {"ok": 0, "refused": 0}
    for _ in _rounds(outcomes, swaps):
        for name, arguments in calls:
            result = await call(tools, name, **arguments)
            assert not _leaked(result), (name, result)
            outcomes["ok" if isinstance(result, ToolOutput) else "refused"] += 1
    assert outcomes["ok"] > HITS and outcomes["refused"] > HITS, (
        outcomes
    )  # both sides of the race were hit


@pytest.mark.asyncio
async def test_writes_and_edits_never_land_outside(swapped: Any) -> None:
    root, _outside, swaps = swapped
    tools = toolset(root, PermissionMode.BYPASS)
    tag = file_hash(INSIDE)
    outcomes = {"ok": 0, "refused": 0}
    for index in _rounds(outcomes, swaps):
        for name, arguments in (
            ("write", {"path": "real/file.txt", "content": INSIDE}),
            ("write", {"path": f"real/new-{index}.txt", "content": INSIDE}),
            ("write", {"path": f"real/made/{index}/new.txt", "content": INSIDE}),
            ("edit", {"input": f"[real/deeper/file.txt#{tag}]\nPUT 1:\n+inside\n"}),
        ):
            result = await call(tools, name, **arguments)
            assert not _leaked(result), (name, result)
            outcomes["ok" if isinstance(result, ToolOutput) else "refused"] += 1
    assert outcomes["ok"] > HITS and outcomes["refused"] > HITS, outcomes


def test_the_kernel_walk_is_used_where_there_is_one() -> None:
    if sys.platform != "linux":
        pytest.skip("openat2 is Linux's")
    release = tuple(int(part) for part in platform.release().split(".")[:2] if part.isdigit())
    if release < (5, 6):
        pytest.skip("openat2 came with Linux 5.6")
    assert uses_openat2()


@pytest.mark.asyncio
async def test_a_fifo_in_a_files_place_is_refused_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    tools = toolset(tmp_path, PermissionMode.BYPASS)
    result = await asyncio.wait_for(call(tools, "read_file", path="pipe"), timeout=10)
    assert isinstance(result, ToolError) and "not a regular file" in result.message, result
    listed = await asyncio.wait_for(call(tools, "grep", pattern="x"), timeout=10)
    assert isinstance(listed, ToolOutput)


def test_the_checkpoint_journal_captures_no_file_behind_a_swapped_folder(tmp_path: Path) -> None:
    """Before a write, the journal captures the file's content by the real path the tool was
    allowed to write; a folder on that path swapped for a link out of the workspace is refused,
    and the outside file's content never enters the journal."""
    from rho_desk.core.changes.checkpoint import CapturedRegularFile, Unsupported, capture_original

    root, outside = tmp_path / "project", tmp_path / "elsewhere"
    (root / "real").mkdir(parents=True)
    outside.mkdir()
    (root / "real" / "file.txt").write_text(INSIDE)
    (outside / "file.txt").write_text(SECRET + "\n")
    before = capture_original(root / "real" / "file.txt")
    assert isinstance(before, CapturedRegularFile) and before.bytes == INSIDE.encode()
    (root / "real").rename(root / "parked")
    os.symlink(outside, root / "real")  # swapped after the path was authorized
    after = capture_original(root / "real" / "file.txt")
    assert isinstance(after, Unsupported) and after.reason.kind == "symlink"
