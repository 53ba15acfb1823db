"""How a hook may be written, checked once when a middleware joins a stack.

An onion hook is an async generator (it sees every item on its way out), a
coroutine (``return await next(request)``) or a plain function (it returns what to
stream or await: ``next(request)`` itself, :func:`middleware.watch` over it, an
iterator of its own). The other hooks return one value, ``async def`` or plain
``def``. :class:`Entry` is one middleware's hook as the stack wired it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .stats import HookStats

if TYPE_CHECKING:
    from .stack_slots import Slot

STREAMING = ("on_reply", "on_reasoning", "on_model_call")
AWAITED = ("on_compress_context", "on_acting")
ONIONS = STREAMING + AWAITED

GEN, CORO, PLAIN = "async generator", "coroutine", "function"

ARITY = {
    "on_reply": 3,
    "transform_system_prompt": 2,
    "list_tools": 0,
    "on_compress_context": 3,
    "transform_context": 2,
    "on_reasoning": 3,
    "convert_to_llm": 2,
    "on_model_call": 3,
    "after_model_response": 2,
    "before_tool_call": 1,
    "before_tool_batch": 2,
    "on_acting": 3,
    "after_tool_call": 2,
    "after_turn": 2,
    "should_stop_after_turn": 1,
    "on_error": 3,
}


def hook_shape(name: str, hook: str, fn: Any) -> str:
    """How ``fn`` is written; a ``TypeError`` naming the middleware and the hook
    when the stack cannot call it (checked once, when the stack is built)."""
    where = f"Middleware {name!r}: {hook}"
    if inspect.isasyncgenfunction(fn):
        shape = GEN
    elif inspect.iscoroutinefunction(fn):
        shape = CORO
    elif inspect.isgeneratorfunction(fn):
        raise TypeError(
            f"{where} is a plain generator (def ... yield); write it as "
            "'async def ... yield' or as 'async def ... return await next(request)'"
        )
    elif callable(fn):
        shape = PLAIN
    else:
        raise TypeError(f"{where} is not callable ({type(fn).__name__})")
    if shape == GEN and hook not in ONIONS:
        raise TypeError(
            f"{where} is an async generator, but {hook} returns one value: use 'async def ... return'"
        )
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return shape  # no signature to check (a C callable): let the call decide
    try:
        signature.bind(*([None] * ARITY[hook]))
    except TypeError:
        wanted = {0: "()", 1: "(ctx)", 2: "(ctx, value)", 3: "(ctx, request, next)"}[ARITY[hook]]
        if hook == "on_error":
            wanted = "(ctx, error, source)"
        raise TypeError(f"{where} must take {wanted}; it takes {signature}") from None
    return shape


class Entry:
    """One middleware's implementation of one hook, as the stack wired it."""

    __slots__ = ("direct", "fn", "hook", "shape", "slot", "stats")

    def __init__(self, slot: Slot, hook: str, fn: Callable[..., Any], shape: str, stats: HookStats) -> None:
        self.slot = slot
        self.hook = hook
        self.fn = fn
        self.shape = shape
        self.stats = stats
        self.direct = shape == CORO
        """An ``async def``: its coroutine can be awaited as it is (untimed)."""


NEAR = 2
"""Edits (a letter added, dropped, changed, or two swapped) within which a method's
name is taken for a misspelt hook: every hook name is 9 characters or more, and no
two hooks are this close."""


def lookalike_hooks(cls: type, base: type, hooks: Sequence[str]) -> list[tuple[str, str]]:
    """``(method, hook)`` for each public method ``cls`` defines (``base``'s own
    attributes aside) whose name is no hook but within :data:`NEAR` edits of one.

    Why: the stack wires the hooks a class overrides by name, so ``before_tool_cal``
    (a gate that blocks) was never called and nothing said so: the write it was
    written to stop ran (finding Y10)."""
    known = set(dir(base))
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for klass in cls.__mro__:
        if klass is base or issubclass(base, klass):
            continue
        for method, value in vars(klass).items():
            if method.startswith("_") or method in known or method in seen:
                continue
            seen.add(method)
            if not callable(value) and not isinstance(value, (staticmethod, classmethod)):
                continue
            hook = min(hooks, key=lambda h: edits(method.lower(), h))
            if edits(method.lower(), hook) <= NEAR:
                found.append((method, hook))
    return found


def edits(a: str, b: str) -> int:
    """Letters added, dropped, changed, or two neighbours swapped, to make ``a`` into ``b``."""
    if abs(len(a) - len(b)) > NEAR:
        return NEAR + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row = row, [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], before[j - 2] + 1)
        before = prev
    return row[-1]


def lookalike_text(owner: str, method: str, hook: str) -> str:
    """The warning for one misspelt hook."""
    return (f"{owner}: its method {method!r} is no hook, so the stack never calls it; it looks like "
            f"the hook {hook!r}. Rename it {hook!r} to have it run (or start a helper's name with '_').")
