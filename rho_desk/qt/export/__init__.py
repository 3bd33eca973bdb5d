"""The export dialog: content classes, live preview, the redaction audit and its override, the
signed receipt, and publishing to the team library."""
