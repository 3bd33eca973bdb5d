"""Real model providers (OpenAI-compatible, Anthropic), their credentials and profiles, and the
compactors that call them. May use the network; ``rho_desk.core`` never imports this package."""
