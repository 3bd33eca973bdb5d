"""Damaged sessions and the trash: the notice over a session that did not read cleanly, the
repair report, and the trash window (restore, empty)."""
