"""Composition root of the desktop app (a minimal window until the full GUI lands)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..core.errors import InputError
from ..core.wire import decode, decode_snapshot


def default_home() -> Path:
    env = os.environ.get("RHO_HOME")
    return Path(env) if env else Path.home() / ".rho"


def _bundled_samples() -> Path:
    return Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "rho"


def describe(path: Path) -> str:
    """One line about a session file or snapshot: its kind, id and size, or why it is unreadable."""
    try:
        data = path.read_bytes()
        if path.suffix == ".json":
            snap = decode_snapshot(data, source=str(path))
            return f"{path.name}: snapshot {snap.session_id}, revision {snap.revision}, {len(snap.history)} messages"
        first = data.split(b"\n", 1)[0]
        header = decode(first, dict, source=str(path), line=1)
        return f"{path.name}: session file v{header.get('version')}, id {header.get('id')}, {data.count(chr(10).encode())} lines"
    except (OSError, InputError) as exc:
        return f"{path.name}: unreadable: {exc}"


def main(path: Path | None = None, *, screenshot: Path | None = None) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QLabel, QListWidget, QMainWindow, QVBoxLayout, QWidget

    root = path or default_home()
    demo = not root.exists()
    if demo:
        root = _bundled_samples()
    files = [root] if root.is_file() else sorted(
        p for p in root.rglob("*") if p.suffix in (".json", ".jsonl") and p.is_file()
    )
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = QMainWindow()
    window.setWindowTitle("rho-desk")
    body = QWidget()
    layout = QVBoxLayout(body)
    banner = "Demo library (no Rho data found)" if demo else f"Rho data: {root}"
    layout.addWidget(QLabel(banner))
    listing = QListWidget()
    for file in files:
        listing.addItem(describe(file))
    layout.addWidget(listing)
    window.setCentralWidget(body)
    window.resize(900, 500)
    window.show()
    if screenshot is not None:
        def grab() -> None:
            window.grab().save(str(screenshot))
            app.quit()

        QTimer.singleShot(200, grab)
    return app.exec()
