"""``LLMToolEmulator``: a model answers in place of real tools (LangChain's
LLMToolEmulator).

For trying an agent out before its tools exist, or without the cost and side
effects of running them: in ``on_acting`` the listed tools are not executed
(``next`` is never called); a model is given the tool's name, description,
parameter schema and the call's arguments and asked for a plausible result,
which the agent's model then sees as the tool's output.

``tools=None`` emulates every tool; an empty list emulates none. ``model``
defaults to the agent's own. The result carries ``details={"emulated": True}`` so
a UI (or a test) can tell an emulated result from a real one. If the emulating
model fails, the call ends as an error result, like a failing tool.

A name in ``tools`` that matches no tool is said once (:mod:`.tool_names`), and a
real tool whose name it looks like (``"wirte"``, ``"Run_Shell "``) is refused, not
run: the whole point of listing a tool here is that it does not really run, so a
typo must not mean real side effects (finding V5).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from shell.core.messages import ToolResult, UserMessage
from shell.core.model import ChatModel, ModelRequest, as_model
from shell.core.tools import Tool

from .base import Middleware
from .context import ToolCallContext
from .tool_names import ToolNameCheck, closest
from .tool_selector import complete_text
from .types import ToolRequest

DEFAULT_SYSTEM_PROMPT = """\
You stand in for a software tool that cannot run right now. Given the tool's \
name, description, parameters and the arguments of a call, answer with exactly \
what the tool would plausibly return for that call: the output only, in the form \
the tool would produce it (plain text or JSON), with no commentary and no \
mention that it is emulated. Keep it realistic and consistent with the arguments."""


class LLMToolEmulator(Middleware):
    """A model invents plausible results for the listed tools instead of running them."""

    builtin: ClassVar[bool] = True
    name = "LLMToolEmulator"
    description = "Emulates tools with a model instead of running them (for trying agents out)."

    def __init__(
        self,
        *,
        tools: Sequence[str | Tool] | None = None,
        model: ChatModel | str | None = None,
        system_prompt: str = DEFAULT_SYSTEM_PROMPT,
    ) -> None:
        self.tools = None if tools is None else frozenset(t if isinstance(t, str) else t.name for t in tools)
        self.model = model
        self.system_prompt = system_prompt
        unknown = "it emulates nothing, and a real tool whose name it resembles is not run"
        self._names = ToolNameCheck("tools", sorted(self.tools or ()), unknown)

    def emulates(self, tool_name: str) -> bool:
        return self.tools is None or tool_name in self.tools

    async def on_acting(
        self,
        ctx: ToolCallContext,
        request: ToolRequest,
        next: Callable[[ToolRequest], Any],
    ) -> ToolResult:
        if not self.emulates(request.tool.name):
            meant = [n for n in self._names.missing(ctx, self.name)
                     if closest(n, [request.tool.name]) == request.tool.name]
            if meant:
                return ToolResult(
                    f"Not run: {self.name} is set to emulate {meant[0]!r}, which names no tool but looks "
                    f"like {request.tool.name!r}, so the real tool was not run. The user can fix the "
                    "name in the middleware's options.",
                    is_error=True,
                )
            result: ToolResult = await next(request)
            return result
        model = as_model(self.model) if self.model is not None else ctx.agent.model
        ask = ModelRequest(model, self.system_prompt, (UserMessage(self.prompt(request)),))
        try:
            text = await complete_text(model, ask)
        except Exception as exc:
            return ToolResult(
                f"{request.tool.name} could not be emulated: {type(exc).__name__}: {exc}",
                is_error=True,
                details={"emulated": True},
            )
        return ToolResult(text.strip(), details={"emulated": True})

    def prompt(self, request: ToolRequest) -> str:
        """What the emulating model reads about the call."""
        tool = request.tool
        return (
            f"Tool: {tool.name}\n"
            f"Description: {tool.description or '(none)'}\n"
            f"Parameters (JSON schema): {json.dumps(tool.parameters, ensure_ascii=False)}\n"
            f"Arguments of this call: {json.dumps(request.args, ensure_ascii=False, default=str)}\n\n"
            "Reply with the tool's output."
        )
