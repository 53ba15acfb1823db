"""agent-shell: a terminal agent shell with a middleware runtime."""

from .startpath import drop_unsafe_entries

drop_unsafe_entries()  # before any dependency is imported: a planted anyio.py must not run (A10)

__version__ = "0.1.0"
