"""The team library: published, redacted sessions in PostgreSQL, and PostgresSessionStore.

Network code (psycopg 3); core never imports it, and it never imports Qt.
"""

from typing import Final

__all__ = ["TEAM_DB_ENV"]

TEAM_DB_ENV: Final = "RHO_DESK_TEAM_DB"
"""The environment variable naming the team database (a libpq connection string or URL, without
a password): the command line's default ``--db``, and the app's when Settings names none."""
