"""The built-in middleware, found by looking, not by a hand-kept list.

Every module in this package may define ``Middleware`` subclasses with
``builtin = True``; they are offered in the side panel and by ``--middleware``.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import Middleware

_SKIP = {"base", "context", "registry", "stack", "stats", "types"}


def builtin_middleware() -> dict[str, type[Middleware]]:
    """Name → class of every built-in, in module order."""
    import middleware as package

    found: dict[str, type[Middleware]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name in _SKIP or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"middleware.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Middleware)
                and value.__dict__.get("builtin", False)
                and value.__module__ == module.__name__
            ):
                found[value.name] = value
    return found
