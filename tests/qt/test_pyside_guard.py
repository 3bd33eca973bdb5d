"""Guard against the PySide6 6.12-on-Python-3.11 refcount bug (environment.md §0.1).

With an affected pair, each void-returning Qt call takes a reference off ``None`` and CPython
aborts after a few thousand calls. Run the calls in a child process so a crash fails this test
instead of killing the test run.
"""

import os
import subprocess
import sys

SCRIPT = """
import sys
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel()
before = sys.getrefcount(None)
for i in range(10_000):
    QCoreApplication.processEvents()
    label.setText(str(i))
drift = before - sys.getrefcount(None)
print(drift)
"""


def test_ten_thousand_void_qt_calls_survive() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert abs(int(result.stdout.split()[-1])) < 100


SOURCE_SCAN = """
import linecache, sys
import rho_desk.qt.app
import rho_desk.qt.window.main_window  # imported after PySide6, as the app's modules are
read = [name for name in linecache.cache if "rho_desk" in name]
print(len(read))
"""


def test_the_app_modules_are_not_read_as_source_at_import() -> None:
    """shiboken's import hook reads each new module's source to default its ``__feature__``
    switching; rho-desk uses no feature, so it must not pay for that (rho_desk.qt turns it off)."""
    result = subprocess.run(
        [sys.executable, "-c", SOURCE_SCAN],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) == 0
