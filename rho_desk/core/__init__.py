"""The session engine: a Python port of Rho's SDK core. No Qt, no network."""
