"""The app's views: session browser, conversation, revision timeline, compaction statistics."""
