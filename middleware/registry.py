"""The built-in middleware, found by looking, not by a hand-kept list.

Every module in this package may define ``Middleware`` subclasses with
``builtin = True``; they are offered in the side panel and by ``--middleware``.
"""

from __future__ import annotations

import importlib
import pkgutil

from .base import Middleware

_SKIP = {"base", "context", "plugins", "registry", "stack", "stats", "types"}


def builtin_middleware(problems: list[str] | None = None) -> dict[str, type[Middleware]]:
    """Name → class of every built-in, in module order.

    With a ``problems`` list, a module that fails to import is reported there and
    skipped (one broken module costs only itself); without one, the error is raised.
    """
    import middleware as package

    found: dict[str, type[Middleware]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name in _SKIP or info.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"middleware.{info.name}")
        except Exception as exc:
            if problems is None:
                raise
            problems.append(f"middleware.{info.name} could not be loaded: {type(exc).__name__}: {exc}")
            continue
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Middleware)
                and value.__dict__.get("builtin", False)
                and value.__module__ == module.__name__
            ):
                found[value.name] = value
    return found
