"""A session's revisions: edits as new revisions and the one way to write one (``edits``), the
rules of editing messages (``rules``), undo and redo as restores (``undo``), and the difference
between two revisions (``diff``)."""
