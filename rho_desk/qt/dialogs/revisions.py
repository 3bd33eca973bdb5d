"""Undo and redo in the app: the core edit service's restores, told to the views.

The edit write path and the undo/redo stacks live in :mod:`rho_desk.core.edits` (shared with
the command line); this module only turns a written restore into the app's ``OpResult``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...core.edits import RevisionHistory
from ..services.bridge import in_thread
from ..services.changes import OpResult

if TYPE_CHECKING:
    from ..services.document import SessionDocument

__all__ = ["arestore"]


async def arestore(history: RevisionHistory, document: SessionDocument, *, redo: bool = False) -> OpResult[str]:
    """Undo (or redo) the last change of ``document`` and tell the views what moved.

    Raises:
        NothingToUndo: nothing to undo or redo, or the session moved on since.
        RevisionConflict: the file changed on disk (nothing written).
    """
    step = await (history.aredo(document, hop=in_thread) if redo else history.aundo(document, hop=in_thread))
    return OpResult(step.label, document.note_written(step.node))
