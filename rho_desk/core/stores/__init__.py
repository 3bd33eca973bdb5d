"""Session stores: the SessionStore protocol and its adapters (memory, durable file, Rho files),
the SQLite index and the session library."""
