"""The compaction dialog: preview (what would be removed, token estimates), run, cancel, undo."""
