"""Qt item models over the engine's state (no widget knowledge; each passes QAbstractItemModelTester)."""
