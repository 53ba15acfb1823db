"""The middleware stack in two steps: what the start needs now, the switched-off
rest once the first screen is out.

Why: finding every built-in imports all twenty modules (~20 ms of the start-up
thread) and building the ones that are switched off costs about as much again,
while only HumanInTheLoop and ProjectInstructions are on by default. The side
panel lists all of them, but it mounts after the welcome; so a front end that
asks for it (``RuntimeOptions.middleware_later``) gets the switched-on ones (and
HumanInTheLoop, the permission policy's gate, which always runs) from
:func:`build_first`, and the rest from :meth:`LaterMiddleware.complete`, called
by ``runtime.complete_middleware()`` before anything lists or toggles the stack.

The first step finds its classes through ``middleware.BUILTINS`` (name ->
module, checked against real discovery by a test) without looking at the other
modules. It declines (the caller builds the whole stack at once, as before)
whenever that could differ from a full build: a plugin may be installed or sits
in the config dir, a name given (config, ``--middleware``, ``--no-middleware``)
is not a built-in's, a module fails to import, or HumanInTheLoop is not among the
switched-on ones (its place in the onion would move). Problems the second step
finds (a built-in module that no longer imports) are returned for the front end
to show, and kept in ``runtime.problems``.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from middleware.base import Middleware
    from middleware.stack import MiddlewareStack

    from ..config import Settings
    from ..tools.workspace import Workspace

from .options import DEFAULT_MIDDLEWARE, HITL


def build_first(
    settings: Settings, on: Sequence[str], off: Sequence[str], problems: list[str]
) -> tuple[MiddlewareStack, LaterMiddleware] | None:
    """The stack with only the switched-on middleware (config order, then ``on``),
    HumanInTheLoop among them; and what builds the rest. None: build it all now."""
    from middleware.stack import MiddlewareStack as Stack

    from .build import PANEL_DEFAULTS, instantiate, setup_error

    if _plugins_possible():
        return None
    configured = settings.middleware.enabled
    wanted = _builtins_named([*(configured if configured is not None else DEFAULT_MIDDLEWARE), *on])
    switched_off = _builtins_named(off)
    if wanted is None or switched_off is None or HITL not in wanted:
        return None
    options = {k.lower(): v for k, v in settings.middleware.options.items()}
    stack = Stack()
    for name, cls in wanted.items():
        kwargs = options.get(name.lower(), PANEL_DEFAULTS.get(name, {}))
        try:
            instance = instantiate(cls, kwargs, settings)
        except Exception as exc:
            problems.append(f"Middleware {name} could not be set up: {setup_error(cls, kwargs, exc)}")
            continue
        stack.add(instance, enabled=name not in switched_off)
    return stack, LaterMiddleware(settings, built=set(wanted))


class LaterMiddleware:
    """Builds the switched-off middleware :func:`build_first` left out, once."""

    def __init__(self, settings: Settings, built: set[str]) -> None:
        self.settings = settings
        self.built = built
        """Class names already in the stack (built by the first step)."""
        self._lock = threading.Lock()  # the TUI completes in a thread; a command may ask at once
        self._done = False

    def complete(self, stack: MiddlewareStack, workspace: Workspace) -> list[str]:
        """Discover every middleware (built-ins and plugins) and add the ones not
        built yet, switched off, in discovery order (where a full build puts
        them). Returns the problems found; a second call does nothing."""
        from .build import PANEL_DEFAULTS, discover_middleware, instantiate, point_at_workspace

        with self._lock:
            if self._done:
                return []
            self._done = True
            problems: list[str] = []
            classes = discover_middleware(problems)
            options = {k.lower(): v for k, v in self.settings.middleware.options.items()}
            added: list[Middleware] = []
            for name, cls in classes.items():
                if name in self.built:
                    continue
                try:  # a built-in that needs arguments is only offered once configured
                    instance = instantiate(cls, options.get(name.lower(), PANEL_DEFAULTS.get(name, {})),
                                           self.settings)
                except Exception:
                    continue
                try:
                    stack.add(instance, enabled=False)
                except ValueError as exc:  # two middleware of one name: the first stays
                    problems.append(f"Middleware {name} was left out: {exc}")
                    continue
                added.append(instance)
            point_at_workspace(added, workspace)
            return problems


def _builtins_named(names: Sequence[str]) -> dict[str, type[Middleware]] | None:
    """Canonical name -> class of each built-in named (any case, in order, once),
    importing only their modules; None when a name is not a built-in's or its
    module fails (the full discovery then says what is wrong)."""
    import middleware
    from middleware.base import Middleware

    by_lower = {n.lower(): n for n in middleware.BUILTINS}
    found: dict[str, type[Middleware]] = {}
    for given in names:
        name = by_lower.get(given.strip().lower())
        if name is None:
            return None
        try:
            cls: Any = getattr(importlib.import_module(f"middleware.{middleware.BUILTINS[name]}"), name)
        except Exception:
            return None
        builtin = isinstance(cls, type) and issubclass(cls, Middleware) and cls.__dict__.get("builtin", False)
        if not builtin or cls.name != name:
            return None
        found.setdefault(name, cls)
    return found


def _plugins_possible() -> bool:
    """Some installed package may declare middleware, or the config dir's
    ``middleware/`` folder has a file the plugin loader would import."""
    from middleware.plugins import ENTRY_POINT_GROUP, may_declare

    from ..core.dirs import config_dir

    if may_declare(ENTRY_POINT_GROUP):
        return True
    folder = config_dir() / "middleware"
    try:
        return any(not p.name.startswith("_") for p in folder.glob("*.py"))
    except OSError:
        return True
