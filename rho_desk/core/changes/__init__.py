"""What the agent changed: Rho's workspace checkpoints, or changes derived from the tool calls.

* :mod:`.checkpoint` — Rho's checkpoint journal (types, strict reader, capture, restore policy);
* :mod:`.journal` — :class:`CheckpointRecorder`, which records the writes of continued turns in
  that journal before each is made;
* :mod:`.build` — :func:`session_changes`: per session, per turn, per file;
* :mod:`.diff` — git-style unified diffs;
* :mod:`.restore` — restoring a file to its content before a turn, with undo;
* :mod:`.index` — the library's index of touched paths ("sessions that touched this file").

The names below load their module on first use (PEP 562): a continued turn records its writes
through :mod:`.journal` without loading the reader of whole sessions' changes.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .build import (
        changes_of_session,
        changes_of_tree,
        display_path,
        session_changes,
        turn_of_row,
    )
    from .checkpoint import (
        CheckpointOutcome,
        FileCheckpoint,
        RestoreClassification,
        WorkspaceCheckpoint,
        classify_restore,
        journal_path,
        plan_restore,
        read_journal,
    )
    from .journal import CheckpointRecorder, RecordedFile, RecordedTurn
    from .model import (
        ChangeAction,
        ChangeSource,
        FileChange,
        HiddenChange,
        SessionChanges,
        TurnChanges,
    )
    from .patch import unified_diff

_WHERE = {
    **dict.fromkeys(
        ("changes_of_session", "changes_of_tree", "display_path", "session_changes", "turn_of_row"),
        "build",
    ),
    **dict.fromkeys(
        (
            "CheckpointOutcome",
            "FileCheckpoint",
            "RestoreClassification",
            "WorkspaceCheckpoint",
            "classify_restore",
            "journal_path",
            "plan_restore",
            "read_journal",
        ),
        "checkpoint",
    ),
    "unified_diff": "patch",
    **dict.fromkeys(("CheckpointRecorder", "RecordedFile", "RecordedTurn"), "journal"),
    **dict.fromkeys(
        (
            "ChangeAction",
            "ChangeSource",
            "FileChange",
            "HiddenChange",
            "SessionChanges",
            "TurnChanges",
        ),
        "model",
    ),
}


def __getattr__(name: str) -> Any:
    # static imports, one per module: the layer contracts see them (no dynamic imports in core)
    where = _WHERE.get(name)
    if where == "build":
        from . import build as module
    elif where == "checkpoint":
        from . import checkpoint as module  # type: ignore[no-redef]
    elif where == "patch":
        from . import patch as module  # type: ignore[no-redef]
    elif where == "journal":
        from . import journal as module  # type: ignore[no-redef]
    elif where == "model":
        from . import model as module  # type: ignore[no-redef]
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(module, name)
    globals()[name] = value
    return value


__all__ = [
    "ChangeAction",
    "ChangeSource",
    "CheckpointOutcome",
    "CheckpointRecorder",
    "FileChange",
    "FileCheckpoint",
    "HiddenChange",
    "RecordedFile",
    "RecordedTurn",
    "RestoreClassification",
    "SessionChanges",
    "TurnChanges",
    "WorkspaceCheckpoint",
    "changes_of_session",
    "changes_of_tree",
    "classify_restore",
    "display_path",
    "journal_path",
    "plan_restore",
    "read_journal",
    "session_changes",
    "turn_of_row",
    "unified_diff",
]
