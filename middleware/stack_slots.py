"""The members of a :class:`~middleware.stack.MiddlewareStack`, and how one hook is called.

A :class:`Slot` is one middleware in the stack: its switch, its statistics and its
hooks, wired and checked once when it joins (a hook of a shape the stack cannot
call is a ``TypeError`` then, not at the first reply). :class:`StackSlots` keeps
them in order and calls one hook: timed when someone reads the stats, awaited as
its shape asks, a failure tagged with the middleware's name and counted. Kept
apart from the stack's composition rules (:mod:`middleware.stack`) because these
are the same for every hook kind.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Iterable, Iterator
from time import perf_counter
from typing import Any

from .base import Middleware, overridden_hooks
from .blame import tag
from .hook_shapes import CORO, Entry, hook_shape, lookalike_hooks
from .stats import HookStats, MiddlewareStats


class Slot:
    """One middleware in the stack: its switch and its statistics."""

    __slots__ = ("dynamic", "enabled", "entries", "index", "middleware", "name", "stats")

    def __init__(self, middleware: Middleware, index: int, enabled: bool) -> None:
        self.middleware = middleware
        self.name = middleware.name or type(middleware).__name__
        self.index = index
        self.enabled = enabled
        self.stats = MiddlewareStats()
        self.dynamic = type(middleware).is_active is not Middleware.is_active
        self.entries: list[Entry] = []
        """Its wired hooks, checked once when it joins a stack."""

    def live(self, hook: str) -> bool:
        """Enabled, and (for middleware that decide per call) active for ``hook``."""
        return self.enabled and (not self.dynamic or self.middleware.is_active(hook))


class StackSlots:
    """The ordered slots of a stack (the first is the outermost), their wired hooks
    by kind, and the calling of one hook."""

    timing = False
    """Whether streamed items are timed one by one (the stats' ``time_s`` of the
    streaming hooks). Off until someone reads the stats (:meth:`stats`: the side
    panel, ``/middleware``, Tracing): until then nobody looks, and timing every item
    through every layer would cost more than the layers themselves."""

    def __init__(self, middleware: Iterable[Middleware] = ()) -> None:
        self._slots: list[Slot] = []
        self._counter = 0
        self._hooks: dict[str, tuple[Entry, ...]] = {h: () for h in Middleware.HOOKS}
        self._direct: dict[str, bool] = {h: True for h in Middleware.HOOKS}
        """Per hook: whether every implementation is an ``async def`` (awaited as it is)."""
        self.lookalikes: list[tuple[str, str, str]] = []
        """``(middleware, method, hook)`` for each method named like a hook, found
        when it joined and not yet said (the stack says it at the next reply)."""
        for mw in middleware:
            self.add(mw)

    # -- membership and toggles -------------------------------------------------
    def add(self, middleware: Middleware, *, index: int | None = None, enabled: bool = True) -> None:
        """Add ``middleware`` (last, or at ``index``). Raises ``ValueError`` for a name
        already in the stack and ``TypeError`` for a hook the stack cannot call."""
        name = middleware.name or type(middleware).__name__
        if any(s.name == name for s in self._slots):
            raise ValueError(
                f"a middleware named {name!r} is already in the stack; give one of them another name"
            )
        slot = Slot(middleware, self._counter, enabled)
        slot.entries = self._wire(slot)  # checks every hook before anything changes
        found = lookalike_hooks(type(middleware), Middleware, Middleware.HOOKS)
        self.lookalikes.extend((slot.name, method, hook) for method, hook in found)
        self._counter += 1
        self._slots.insert(len(self._slots) if index is None else index, slot)
        self._rewire()

    def remove(self, name: str) -> Middleware:
        """Take the middleware ``name`` out (``KeyError`` naming those present if none is)."""
        slot = self._slot(name)
        self._slots.remove(slot)
        self._rewire()
        return slot.middleware

    @staticmethod
    def _wire(slot: Slot) -> list[Entry]:
        """The hooks ``slot``'s class overrides, each checked (``TypeError`` for one of a
        shape the stack cannot call): an unimplemented hook costs nothing."""
        entries = []
        for hook in overridden_hooks(slot.middleware):
            fn = getattr(slot.middleware, hook)
            shape = hook_shape(slot.name, hook, fn)
            stats = slot.stats.hooks.setdefault(hook, HookStats())
            entries.append(Entry(slot, hook, fn, shape, stats))
        return entries

    def _rewire(self) -> None:
        hooks: dict[str, list[Entry]] = {h: [] for h in Middleware.HOOKS}
        for slot in self._slots:  # each slot was wired once, when added
            for entry in slot.entries:
                hooks[entry.hook].append(entry)
        self._hooks = {h: tuple(entries) for h, entries in hooks.items()}
        self._direct = {h: all(e.direct for e in entries) for h, entries in hooks.items()}

    def _slot(self, name: str) -> Slot:
        for slot in self._slots:
            if slot.name == name:
                return slot
        known = ", ".join(s.name for s in self._slots) or "none"
        raise KeyError(f"no middleware named {name!r} (in the stack: {known})")

    def set_enabled(self, name: str, on: bool) -> None:
        """Switch ``name`` on or off: read at every invocation, so it takes effect at its
        next hook, inside a reply in flight too."""
        self._slot(name).enabled = on

    def is_enabled(self, name: str) -> bool:
        """Whether ``name`` is switched on (the side panel's toggle)."""
        return self._slot(name).enabled

    def stats(self, name: str) -> MiddlewareStats:
        """``name``'s calls, errors and time per hook; reading them turns timing on."""
        self.timing = True  # someone looks: from now on streamed items are timed too
        return self._slot(name).stats

    def get(self, name: str) -> Middleware:
        """The middleware named ``name`` (``KeyError`` naming those present if none is)."""
        return self._slot(name).middleware

    def has_hook(self, hook: str) -> bool:
        """Whether any enabled middleware implements ``hook`` (to skip work for none)."""
        for entry in self._hooks[hook]:
            slot = entry.slot
            if slot.enabled and (not slot.dynamic or slot.middleware.is_active(hook)):
                return True
        return False

    def hooks_of(self, name: str) -> list[str]:
        """The hooks ``name`` implements (what the side panel and ``/middleware`` list)."""
        return overridden_hooks(self._slot(name).middleware)

    def __iter__(self) -> Iterator[Middleware]:
        return iter([s.middleware for s in self._slots])

    def __len__(self) -> int:
        return len(self._slots)

    def __contains__(self, name: object) -> bool:
        return any(s.name == name for s in self._slots)

    def names(self) -> list[str]:
        """The middleware's names, outermost first."""
        return [s.name for s in self._slots]

    def _failed(self, slot: Slot, hook: str, exc: BaseException) -> None:
        if isinstance(exc, Exception) and tag(exc, slot.name, hook):
            slot.stats.hooks[hook].errors += 1
            slot.stats.last_error = f"{type(exc).__name__}: {exc}"
            slot.stats.last_error_hook = hook

    def _invoke(self, entry: Entry, *args: Any) -> Awaitable[Any]:
        """Call one hook and give what to await for its value. Untimed, an ``async
        def`` hook's own coroutine is handed back as it is (no wrapper per call: the
        caller names a failure, :meth:`_blame`); timed, or of another shape, it runs
        in :meth:`_run`."""
        if entry.direct and not self.timing:
            entry.stats.calls += 1
            return entry.fn(*args)  # type: ignore[no-any-return]
        return self._run(entry, *args)

    async def _run(self, entry: Entry, *args: Any) -> Any:
        """Call one hook: timed, awaited if it is a coroutine, its failure named."""
        st = entry.stats
        st.calls += 1
        t0 = perf_counter()
        try:
            if entry.shape is CORO:
                return await entry.fn(*args)
            value = entry.fn(*args)
            if inspect.isawaitable(value):
                value = await value
            return value
        except Exception as exc:
            self._failed(entry.slot, entry.hook, exc)
            raise
        finally:
            st.time_s += perf_counter() - t0

    def _blame(self, entry: Entry | None, exc: BaseException) -> None:
        if entry is not None:
            self._failed(entry.slot, entry.hook, exc)
