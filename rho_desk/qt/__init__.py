"""The desktop app: the only code that imports PySide6 or qasync."""
