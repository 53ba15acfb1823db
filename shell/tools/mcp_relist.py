"""A server's tool list, listed again when it says the list changed.

``notifications/tools/list_changed`` is a server saying its tools changed: they are
listed again, so new tools are offered and gone ones are not (each new one goes
through the same permission rules; a changed one asks, see :mod:`.mcp_identity`).
A server may say so hundreds of times a second (or lie): the notices are gathered,
at most one list is under way, and lists are at least :data:`RELIST_GAP` seconds
apart, so a flood costs a list every few seconds, not a list per notice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

import anyio

from shell.core.textsafety import sanitize_line

from .mcp_tool import McpTool

RELIST_DELAY = 0.3
"""Seconds after a notice before listing: a burst of notices is one list."""
RELIST_GAP = 3.0
"""Seconds at least between the end of one list and the start of the next."""
NAMES_SHOWN = 8


class Relister:
    """Runs ``relist`` after notices (:meth:`wanted`), gathered and spaced out."""

    def __init__(self, relist: Callable[[], Awaitable[None]]) -> None:
        self._relist = relist
        self._wanted = anyio.Event()
        self.count = 0
        """Lists made (for tests and for /mcp)."""
        self._listing = False

    def wanted(self) -> None:
        self._wanted.set()

    @property
    def pending(self) -> bool:
        """A notice waits for its list, or a list is being made: what the server said
        is not in the tool list yet (tests wait for this, not for a fixed time)."""
        return self._wanted.is_set() or self._listing

    async def run(self) -> None:
        while True:
            await self._wanted.wait()
            await anyio.sleep(RELIST_DELAY)
            self._listing = True
            self._wanted = anyio.Event()  # notices from here on ask for the next list
            self.count += 1
            try:
                await self._relist()
            finally:
                self._listing = False
            await anyio.sleep(RELIST_GAP)


def change_note(before: Sequence[McpTool], after: Sequence[McpTool]) -> str:
    """What a new list changed, for the user ("" when nothing did): tools new, gone,
    and changed (those ask before their next call)."""
    old = {t.name: t for t in before}
    new = {t.name: t for t in after}
    added = [n for n in new if n not in old]
    removed = [n for n in old if n not in new]
    changed = [t for n, t in new.items() if t.changed and (n not in old or old[n].prints != t.prints)]
    parts = []
    if added:
        parts.append(f"new: {_names(added)}")
    if removed:
        parts.append(f"gone: {_names(removed)}")
    if changed:
        said = "; ".join(f"{t.name} ({t.changed})" for t in changed[:NAMES_SHOWN])
        parts.append(f"changed since you accepted them, so they ask before their next call: {said}")
    return sanitize_line("its tools changed: " + "; ".join(parts)) if parts else ""


def _names(names: list[str]) -> str:
    more = f" and {len(names) - NAMES_SHOWN} more" if len(names) > NAMES_SHOWN else ""
    return ", ".join(names[:NAMES_SHOWN]) + more
