"""What the agent changed: Rho's workspace checkpoints, or changes derived from the tool calls.

* :mod:`.checkpoint` — Rho's checkpoint journal (types, strict reader, capture, restore policy);
* :mod:`.journal` — :class:`CheckpointRecorder`, which records the writes of continued turns in
  that journal before each is made;
* :mod:`.build` — :func:`session_changes`: per session, per turn, per file;
* :mod:`.diff` — git-style unified diffs;
* :mod:`.restore` — restoring a file to its content before a turn, with undo;
* :mod:`.index` — the library's index of touched paths ("sessions that touched this file").
"""

from .build import changes_of_session, changes_of_tree, display_path, session_changes, turn_of_row
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
from .diff import unified_diff
from .journal import CheckpointRecorder, RecordedFile, RecordedTurn
from .model import ChangeAction, ChangeSource, FileChange, HiddenChange, SessionChanges, TurnChanges

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
