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


def default_context() -> str:
    """The local date and time (with weekday and zone) and the working directory."""
    now = datetime.now().astimezone()
    # a directory's name is whoever made the tree's text: one line, escaped as the tools show paths
    return f"Date and time: {now:%A %Y-%m-%d %H:%M %Z}\nWorking directory: {path_text(os.getcwd())}"


class DynamicSystemPrompt(Middleware):
    """Appends current context (date, time, working directory) to the system prompt."""

    builtin: ClassVar[bool] = True
    name = "DynamicSystemPrompt"
    description = "Appends the current date, time and working directory to the system prompt."

    def __init__(self, context_fn: ContextFn | None = None) -> None:
        self.context_fn: ContextFn = context_fn or default_context

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        value = self.context_fn()
        context = await value if inspect.isawaitable(value) else value
        section = f"{HEADING}\n{context}"
        return f"{prompt}\n\n{section}" if prompt else section
