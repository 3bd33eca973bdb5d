"""Inside large_buffers() a second session-sized buffer reuses the first one's memory; after it,
the memory goes back to the system (rho_desk.core.system.allocator)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")

_PROBE = """
import json, resource, sys
from rho_desk.core.system.allocator import large_buffers

def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt

def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096

data = b"x" * 50_000_000
out = {}
with large_buffers() if sys.argv[1] != "default" else open("/dev/null"):
    with large_buffers() if sys.argv[1] == "nested" else open("/dev/null"):
        data.lower()  # a first buffer: its pages are new either way
    before = faults()
    data.lower()
    out["faults"] = faults() - before
    out["inside"] = resident()
out["after"] = resident()
print(json.dumps(out))
"""


def _run(mode: str) -> dict[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True, timeout=60
    )
    return dict(json.loads(done.stdout))


def test_a_second_large_buffer_reuses_the_memory_of_the_first() -> None:
    # 50 MB is 12,207 pages: fresh pages fault once each, reused ones do not
    assert _run("default")["faults"] > 10_000
    assert _run("kept")["faults"] < 1_000


def test_the_heap_gives_the_memory_back_when_the_job_ends() -> None:
    kept = _run("kept")
    assert (
        kept["inside"] - kept["after"] > 40_000_000
    )  # the freed 50 MB buffer was held, then returned


def test_nested_blocks_keep_the_setting_until_the_last_ends() -> None:
    # the inner block has ended: the outer one still reuses the memory
    assert _run("nested")["faults"] < 1_000
