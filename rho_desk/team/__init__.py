"""The team library: published, redacted sessions in PostgreSQL, and PostgresSessionStore.

Network code (psycopg 3); core never imports it, and it never imports Qt.
"""
