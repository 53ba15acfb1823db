"""Who raised an error: a middleware (by name), or the core (the model, a tool, the loop).

A failure is named once, by tagging the exception (:func:`tag`); the first name
sticks, so an error that only passes through other layers keeps its source. Where
no wrapper saw it leave (the onions add none per layer on the happy path), it is
named from its traceback: the deepest frame that runs a layer (or core) of an onion
in flight (:func:`owner_of`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .stack_slots import Slot

SOURCE_ATTR = "__agent_shell_source__"
HOOK_ATTR = "__agent_shell_hook__"


def tag(exc: BaseException, source: str, hook: str | None = None) -> bool:
    """Name who raised ``exc`` (once: the first name sticks)."""
    if hasattr(exc, SOURCE_ATTR):
        return False
    try:
        setattr(exc, SOURCE_ATTR, source)
        if hook:
            setattr(exc, HOOK_ATTR, hook)
    except AttributeError:  # an exception type with __slots__: it stays untagged
        return False
    return True


class InFlight(Protocol):
    """An onion invocation that may be asked who raised an error."""

    core_source: str

    @property
    def members(self) -> list[tuple[Any, Slot | None]]:
        """What each layer (and the core) produced: generators and coroutines, with the
        slot they belong to (None: the core)."""
        ...

    def failed(self, slot: Slot | None, exc: Exception) -> None: ...


ACTIVE: set[InFlight] = set()
"""The onions in flight. Each knows the generators (and coroutines) of its layers and
core; an error that leaves a layer is named by the deepest of their frames it passed
through (:func:`owner_of`), read off the traceback only when there is an error: the
happy path registers nothing per layer."""


def _code_of(obj: Any) -> Any:
    return getattr(obj, "ag_code", None) or getattr(obj, "cr_code", None)


def _frame_of(obj: Any) -> Any:
    return getattr(obj, "ag_frame", None) or getattr(obj, "cr_frame", None)


def owner_of(exc: BaseException) -> tuple[InFlight, Slot | None] | None:
    """The layer (or core: slot None) an exception came from, read off its traceback:
    the deepest frame that runs the code of a layer (or core) of an onion in flight.
    Two layers running the same code (two instances of one class) are told apart by
    the frame itself while it runs, else by its ``self``."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    if not frames or not ACTIVE:
        return None
    by_code: dict[Any, list[tuple[InFlight, Slot | None, Any]]] = {}
    for onion in list(ACTIVE):
        for obj, slot in onion.members:
            code = _code_of(obj)
            if code is not None:
                by_code.setdefault(code, []).append((onion, slot, obj))
    for frame in reversed(frames):
        hits = by_code.get(frame.f_code)
        if not hits:
            continue
        if len(hits) > 1:
            same = [h for h in hits if _frame_of(h[2]) is frame]
            if not same:
                me = frame.f_locals.get("self")
                same = [h for h in hits if h[1] is not None and h[1].middleware is me]
            hits = same or hits
        return hits[0][0], hits[0][1]
    return None
