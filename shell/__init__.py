"""agent-shell: a terminal agent shell with a middleware runtime."""

__version__ = "0.1.0"
