"""The C heap keeps session-sized buffers for reuse (rho_desk.allocator), as the command line sets it."""

from __future__ import annotations

import subprocess
import sys

import pytest

_PROBE = """
import resource, sys
from rho_desk.allocator import keep_large_buffers
if sys.argv[1] == "kept":
    assert keep_large_buffers()
data = b"x" * 50_000_000
data.lower()  # a first buffer: its pages are new either way
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
data.lower()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True, timeout=60)
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_a_second_large_buffer_reuses_the_memory_of_the_first() -> None:
    # 50 MB is 12,207 pages: fresh pages fault once each, reused ones do not
    assert _faults("default") > 10_000
    assert _faults("kept") < 1_000


def test_the_command_line_sets_it_up(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from rho_desk import cli

    calls: list[bool] = []
    monkeypatch.setattr(cli, "keep_large_buffers", lambda: calls.append(True) or True)
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    assert calls == [True]
