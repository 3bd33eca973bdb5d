"""What the agent changed: Rho's workspace checkpoints, or changes derived from the tool calls.

* :mod:`.checkpoint` — Rho's checkpoint journal (types, strict reader, capture, restore policy);
* :mod:`.journal` — :class:`CheckpointRecorder`, which records the writes of continued turns in
  that journal before each is made;
* :mod:`.build` — :func:`session_changes`: per session, per turn, per file;
* :mod:`.diff` — git-style unified diffs;
* :mod:`.restore` — restoring a file to its content before a turn, with undo;
* :mod:`.index` — the library's index of touched paths ("sessions that touched this file").

The names below load their module on first use (PEP 562, :mod:`rho_desk.core.lazy`): a continued turn records its writes
through :mod:`.journal` without loading the reader of whole sessions' changes.
"""

from typing import TYPE_CHECKING

from ..lazy import attach

if TYPE_CHECKING:
    from .build import changes_of_session as changes_of_session
    from .build import changes_of_tree as changes_of_tree
    from .build import display_path as display_path
    from .build import session_changes as session_changes
    from .build import turn_of_row as turn_of_row
    from .checkpoint import CheckpointOutcome as CheckpointOutcome
    from .checkpoint import FileCheckpoint as FileCheckpoint
    from .checkpoint import RestoreClassification as RestoreClassification
    from .checkpoint import WorkspaceCheckpoint as WorkspaceCheckpoint
    from .checkpoint import classify_restore as classify_restore
    from .checkpoint import journal_path as journal_path
    from .checkpoint import plan_restore as plan_restore
    from .checkpoint import read_journal as read_journal
    from .journal import CheckpointRecorder as CheckpointRecorder
    from .journal import RecordedFile as RecordedFile
    from .journal import RecordedTurn as RecordedTurn
    from .model import ChangeAction as ChangeAction
    from .model import ChangeSource as ChangeSource
    from .model import FileChange as FileChange
    from .model import HiddenChange as HiddenChange
    from .model import SessionChanges as SessionChanges
    from .model import TurnChanges as TurnChanges
    from .patch import unified_diff as unified_diff

if not TYPE_CHECKING:
    __getattr__, __dir__ = attach(__name__, __file__)
