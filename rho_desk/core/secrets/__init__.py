"""Secrets: API keys held in memory and scrubbed from any text that leaves a provider
(``scrub``), and rho-desk's own keys as core receives them (``keys``)."""
