"""On a small laptop screen (1024 x 700) the continue panel leaves the conversation readable."""

from __future__ import annotations

from pathlib import Path

from .conftest import laid_out, until
from .helpers import v3_session


def test_the_continue_panel_leaves_room_for_the_conversation(
    make_window, run, tmp_path: Path
) -> None:
    context = make_window(open_file=v3_session(tmp_path / "home"))
    window = context.window
    # opened on a large window, then the window shrinks to a small laptop screen's
    window.resize(1280, 800)
    run(laid_out())
    context.continue_dock.show_continue()
    run(
        until(lambda: context.continue_dock.panel.profile.count() > 0)
    )  # the panel has read the profiles
    window.resize(1024, 700)
    run(laid_out())
    conversation = window.conversation.list.viewport().height()
    dock = context.continue_dock.height()
    # the conversation keeps at least as much height as the panel, and room for several cards
    assert conversation >= dock, (conversation, dock)
    assert conversation >= 240, conversation
    panel = context.continue_dock.panel
    assert panel.composer.height() >= 2 * panel.composer.fontMetrics().lineSpacing()
