"""rho-desk: inspect, repair, compact, export and continue the sessions of the Rho coding agent."""

__version__ = "0.1.0"
