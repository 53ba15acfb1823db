"""``describe_tools``: what ``/tools`` shows, computed once for the TUI and line mode.

Both front ends render the same rows: the name the model sees, where the tool comes
from (``builtin``, ``mcp:SERVER`` or ``middleware``), whether it is read-only, and
whether calling it will ask the user first under the current approval policy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from shell.core.tools import Tool


@dataclass(frozen=True, slots=True)
class ToolInfo:
    name: str
    source: str
    read_only: bool
    asks_approval: bool
    description: str = ""

    @property
    def summary(self) -> str:
        """The first line of the description."""
        return self.description.strip().split("\n", 1)[0]


def tool_source(tool: Tool) -> str:
    """``builtin``, ``mcp:SERVER`` or, for tools a middleware lists, ``middleware``."""
    source = getattr(tool, "source", None)
    return source if isinstance(source, str) and source else "middleware"


def describe_tools(
    tools: Iterable[Tool], approval_policy: Callable[[Tool], bool] | None = None
) -> list[ToolInfo]:
    """One row per tool, in the order given.

    ``approval_policy(tool)`` says whether a call would ask first (the
    HumanInTheLoop middleware's view); without one, the default rule applies:
    tools that are not read-only ask.
    """
    policy = approval_policy or (lambda t: not t.read_only)
    return [ToolInfo(t.name, tool_source(t), t.read_only, bool(policy(t)), t.description) for t in tools]
