"""Tool names a built-in's options give, checked against the tools there are.

A built-in that takes tool names (``ToolCallLimit(tool_name=…)``,
``LLMToolEmulator(tools=[…])``, ``ToolRetry(tools=[…])``,
``LLMToolSelector(always_include=[…])``, ``HumanInTheLoop(interrupt_on={…})``)
did nothing for a name that matches no tool, and said nothing: a typo limited
nothing (finding T3), and in the emulator a typo meant the REAL tool ran (finding
V5). One check for all of them, so they say it the same way: a warning
:class:`~shell.core.events.Notice` once per instance, naming the tools there are
and the closest one. A warning rather than a refusal at build time, because an
MCP server's tools may arrive after the stack is built; the caller decides what
else a missing name means (the emulator refuses to run the real tool a misspelt
name was close to).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from shell.core.events import Notice

from .context import HookContext

SHOWN = 12
"""Tool names listed in the warning before it says "…"."""


def tool_names(ctx: HookContext) -> list[str]:
    """Every tool the agent has or this model call offers, sorted."""
    return sorted({t.name for t in (*ctx.agent.tools, *ctx.tools)})


def closest(name: str, known: Iterable[str]) -> str | None:
    """The tool ``name`` most likely meant (``"wirte"`` → ``"write"``,
    ``"Run_Shell "`` → ``"run_shell"``), or None."""
    known = list(known)
    folded = {k.casefold(): k for k in known}
    key = name.strip().casefold()
    if key in folded:
        return folded[key]
    near = difflib.get_close_matches(key, list(folded), n=1, cutoff=0.75)
    return folded[near[0]] if near else None


class ToolNameCheck:
    """The names one option of one middleware gives; :meth:`missing` says once
    which of them name no tool."""

    __slots__ = ("consequence", "names", "option", "told")

    def __init__(self, option: str, names: Iterable[str], consequence: str) -> None:
        self.option = option
        self.names = tuple(dict.fromkeys(names))
        self.consequence = consequence
        """What a missing name means, said in the warning (e.g. "it limits nothing")."""
        self.told = False

    def missing(self, ctx: HookContext, owner: str) -> list[str]:
        """The names that match no tool now; the first time there are some, a warning
        Notice from ``owner`` (the middleware's name) says so."""
        if not self.names:
            return []
        known = tool_names(ctx)
        absent = [n for n in self.names if n not in known]
        if absent and not self.told:
            self.told = True
            ctx.emit(Notice("warning", self.text(owner, absent, known), owner))
        return absent

    def text(self, owner: str, absent: list[str], known: list[str]) -> str:
        listed = ", ".join(known[:SHOWN]) + (" …" if len(known) > SHOWN else "") if known else "none"
        which = ", ".join(repr(n) for n in absent)
        hints = [f"{n!r} looks like {c!r}" for n in absent if (c := closest(n, known)) is not None]
        hint = f" ({'; '.join(hints)})" if hints else ""
        noun = "no tool is named" if len(absent) == 1 else "no tools are named"
        return (f"{owner}: {noun} {which} (tools: {listed}) for its {self.option} option{hint}; "
                f"{self.consequence}.")
