"""``DynamicSystemPrompt``: fresh facts at the end of the system prompt
(AgentScope's dynamic-context example, made a built-in).

A model does not know today's date or where it is working; a system prompt
written once goes stale. Before every model call this appends
``## Current Context`` and whatever ``context_fn()`` returns now (sync or async);
by default the local date and time and the working directory. It sits at the
end of the prompt so the stable part before it stays cacheable.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import ClassVar

from shell.core.textsafety import path_text

from .base import Middleware
from .context import HookContext

ContextFn = Callable[[], str] | Callable[[], Awaitable[str]]

HEADING = "## Current Context"


def default_context(cwd: str | os.PathLike[str] | None = None) -> str:
    """The local date and time (with weekday and zone) and the working directory:
    ``cwd`` (the session's, where its tools work), else the process's."""
    now = datetime.now().astimezone()
    where = os.fspath(cwd) if cwd is not None else os.getcwd()
    # a directory's name is whoever made the tree's text: one line, escaped as the tools show paths
    return f"Date and time: {now:%A %Y-%m-%d %H:%M %Z}\nWorking directory: {path_text(where)}"


class DynamicSystemPrompt(Middleware):
    """Appends current context (date, time, working directory) to the system prompt."""

    builtin: ClassVar[bool] = True
    name = "DynamicSystemPrompt"
    description = "Appends the current date, time and working directory to the system prompt."

    def __init__(
        self, context_fn: ContextFn | None = None, cwd: str | os.PathLike[str] | None = None
    ) -> None:
        """``cwd``: the session's working directory (the shell sets it to the workspace,
        which ``--cwd`` and an ACP session's ``cwd`` put apart from the process's
        directory: the prompt said both, the later "current" one wrong, finding B8)."""
        self.context_fn: ContextFn | None = context_fn
        self.cwd = cwd

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        value = self.context_fn() if self.context_fn is not None else default_context(self.cwd)
        context = await value if inspect.isawaitable(value) else value
        section = f"{HEADING}\n{context}"
        return f"{prompt}\n\n{section}" if prompt else section
