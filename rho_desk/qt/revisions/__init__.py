"""The revision timeline: the session's revision tree, and the difference between two revisions."""
