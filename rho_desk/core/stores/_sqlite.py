"""One SQLite transaction, all or nothing, with the database's errors translated for the caller."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator

__all__ = ["transaction"]


@contextlib.contextmanager
def transaction(
    db: sqlite3.Connection, *, write: bool, translate: Callable[[sqlite3.Error], Exception]
) -> Iterator[sqlite3.Connection]:
    """Run the block in a transaction: commit on success, roll back on any exception.

    ``write`` starts with ``BEGIN IMMEDIATE``, which takes the write lock up front (or fails
    within the busy timeout) rather than deadlocking on a read-to-write upgrade later. SQLite
    errors, from the block or from the transaction itself, become ``translate(error)``.
    """
    try:
        db.execute("begin immediate" if write else "begin")
        try:
            yield db
        except BaseException:
            db.execute("rollback")
            raise
        db.execute("commit")
    except sqlite3.Error as exc:
        with contextlib.suppress(sqlite3.Error):
            if db.in_transaction:
                db.execute("rollback")
        raise translate(exc) from exc
