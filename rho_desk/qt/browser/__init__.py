"""The session browser: the library's sessions (the Local scope) and the team library's (the
Team scope), listed as cards, searched and sorted."""
