"""The edit dialog: messages, title and metadata, provider blocks; each edit a new revision."""
