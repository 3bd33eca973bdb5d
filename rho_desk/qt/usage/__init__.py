"""What it cost: the Usage window over Rho's ledger (the library) and the Statistics tab of one
session (its compactions, tokens and requests)."""
