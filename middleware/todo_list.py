"""``TodoList``: a ``write_todos`` tool and a planning prompt (LangChain's
TodoListMiddleware).

Agents do better on long tasks when they write the plan down and tick it off, and
the user gets to watch the plan move. The tool replaces the whole list on every
call (simpler for a model than add/update/delete verbs, and it never drifts).

Where the list lives. ``list_tools()`` has no ``ctx``, so the tool itself cannot
reach ``session_state``. Rather than let the tool write shared instance state (one
middleware instance may serve several agents), the tool is stateless: it echoes
the validated list in ``ToolResult.details``, and ``after_tool_call`` (which has a
``ctx``) makes it the session's list: ``session_state["todos"]``, saved with the
session, and ``self.todos``, the list this instance saw last (handy for a UI that
holds the middleware). Each change is announced as ``CustomEvent("todos", list)``.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from typing_extensions import TypedDict

from shell.core.events import CustomEvent
from shell.core.messages import ToolResult
from shell.core.tools import FunctionTool, Tool

from .base import Middleware
from .context import HookContext, ToolCallContext
from .types import AfterToolCallResult, BeforeToolCallResult

TodoStatus = Literal["pending", "in_progress", "completed"]


# typing_extensions' TypedDict (pydantic wants it before Python 3.12), not a pydantic
# model: the tool's schema is built when first asked for, so loading this module (every
# start-up does) costs no pydantic import. Its docstring becomes the schema's description.
class Todo(TypedDict):
    """One to-do item."""

    content: str
    status: TodoStatus


TOOL_NAME = "write_todos"

DEFAULT_TOOL_DESCRIPTION = """\
Write the to-do list for the current task: pass the complete list every time \
(it replaces the previous one). Each item has `content` (what to do, short and \
concrete) and `status`: "pending", "in_progress" or "completed".

Use it for work with three or more distinct steps, or when the user gives you \
several things to do. Skip it for simple one-step requests. Mark an item \
in_progress before you start it and completed as soon as it is done; keep one \
item in_progress at a time; add items you discover on the way and drop ones that \
no longer apply."""

DEFAULT_SYSTEM_PROMPT = """\
## Planning with `write_todos`

For multi-step work, keep a to-do list with the `write_todos` tool: write the \
plan before you start, update it as each step starts and finishes, and never \
call it more than once in the same turn. The user sees the list, so keep the \
items meaningful. Do not use it for trivial requests."""

_MARKS = {"pending": "[ ]", "in_progress": "[~]", "completed": "[x]"}


def format_todos(todos: list[dict[str, Any]]) -> str:
    """The list as a checklist, one item a line (what the model reads back)."""
    if not todos:
        return "(the to-do list is empty)"
    return "\n".join(f"{_MARKS.get(str(t.get('status')), '[ ]')} {t.get('content', '')}" for t in todos)


class TodoList(Middleware):
    """A write_todos tool and prompt so the agent plans and tracks multi-step work."""

    builtin: ClassVar[bool] = True
    name = "TodoList"
    description = "Gives the agent a write_todos tool to plan multi-step work; the list shows live."

    def __init__(
        self,
        *,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
        tool_description: str = DEFAULT_TOOL_DESCRIPTION,
    ) -> None:
        self.system_prompt = system_prompt
        self.tool_description = tool_description
        self.todos: list[dict[str, str]] = []
        """The list this instance saw last; the session's own is in ``session_state``."""
        # kind "think": it changes only the agent's own notes, so it runs unasked, in plan mode too
        self.tool: Tool = FunctionTool(
            _write_todos, name=TOOL_NAME, description=tool_description, kind="think"
        )

    def list_tools(self) -> list[Tool]:
        return [self.tool]

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        if not self.system_prompt:
            return prompt
        return f"{prompt}\n\n{self.system_prompt}" if prompt else self.system_prompt

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        """Parallel ``write_todos`` calls would race (last one wins at random): refuse
        them all and ask for one call, as LangChain does."""
        if ctx.tool is not self.tool:
            return None
        count = sum(1 for c in ctx.assistant_message.tool_calls if c.name == TOOL_NAME)
        if count > 1:
            return BeforeToolCallResult(
                block=True,
                reason=f"{TOOL_NAME} was called {count} times in one turn. "
                "Call it once, with the complete list.",
            )
        return None

    async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult | None:
        if ctx.tool is not self.tool or result.is_error:
            return None
        details = result.details if isinstance(result.details, dict) else {}
        todos = details.get("todos")
        if not isinstance(todos, list):
            return None
        self.todos = [dict(t) for t in todos]
        ctx.session_state["todos"] = [dict(t) for t in todos]
        ctx.emit(CustomEvent("todos", [dict(t) for t in todos]))
        return None


async def _write_todos(todos: list[Todo]) -> ToolResult:
    """Replace the to-do list.

    Args:
        todos: The complete list; each item has content and status (pending, in_progress, completed).
    """
    items = [{"content": t["content"], "status": t["status"]} for t in todos]
    return ToolResult(f"Updated the to-do list:\n{format_todos(items)}", details={"todos": items})
