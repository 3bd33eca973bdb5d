"""A measurement taken in a process of its own.

A process's CPU time and tracemalloc's peak count every thread of the process. In the suite's
process a thread an earlier test left running adds its work to a measurement (a scan's peak read
7.8 x in a full run where a process alone measures under 3.5 x), so the timed and memory tests
run their measurement in a fresh interpreter and compare only what it prints.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

_RUN = (
    "import importlib, json, sys\n"
    "module, name, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])\n"
    "print(json.dumps(getattr(importlib.import_module(module), name)(*args)))\n"
)


def in_own_process(function: Callable[..., Any], *args: Any, timeout: float = 300) -> Any:
    """``function(*args)`` called in a new interpreter, its result read back as JSON.

    ``function`` must be a module-level function of an importable module, and its arguments and
    result must be JSON values.
    """
    done = subprocess.run(
        [sys.executable, "-c", _RUN, function.__module__, function.__qualname__, json.dumps(args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
