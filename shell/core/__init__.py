"""The bottom layer: messages, events, tools, approvals and the model protocol.

Frozen data and the contracts between the loop, the middleware and the providers;
no hooks, no loop, no I/O. Everything above imports from here and nothing here
imports anything above (``shell.agent`` re-exports these names for users).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .approvals import ApprovalDecision, ApprovalRequest
    from .messages import (
        AssistantMessage,
        Block,
        DataBlock,
        HintBlock,
        Message,
        SystemMessage,
        TextBlock,
        ThinkingBlock,
        ToolCallBlock,
        ToolResult,
        ToolResultMessage,
        Usage,
        UserMessage,
    )
    from .model import (
        ChatModel,
        ModelChunk,
        ModelError,
        ModelRequest,
        StopChunk,
        TextDelta,
        ThinkingDelta,
        ToolCallDelta,
        UsageChunk,
    )
    from .tools import FunctionTool, Tool, ToolArgumentError, ToolContext, ToolKind, tool


_HOMES = {
    **dict.fromkeys(("ApprovalDecision", "ApprovalRequest"), ".approvals"),
    **dict.fromkeys(("AssistantMessage", "Block", "DataBlock", "HintBlock", "Message", "SystemMessage",
                     "TextBlock", "ThinkingBlock", "ToolCallBlock", "ToolResult", "ToolResultMessage",
                     "Usage", "UserMessage"), ".messages"),
    **dict.fromkeys(("ChatModel", "ModelChunk", "ModelError", "ModelRequest", "StopChunk", "TextDelta",
                     "ThinkingDelta", "ToolCallDelta", "UsageChunk"), ".model"),
    **dict.fromkeys(("FunctionTool", "Tool", "ToolArgumentError", "ToolContext", "ToolKind", "tool"),
                    ".tools"),
}
"""Where each name of ``__all__`` lives. The package imports a submodule when one of
its names is first asked for (PEP 562), not when any submodule is imported: the
line mode reads its config (``shell.core.filedata``) before its first prompt, and
the messages, the tools and the model protocol (~20-30 ms) are not needed there."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "ApprovalDecision",
    "ApprovalRequest",
    "AssistantMessage",
    "Block",
    "ChatModel",
    "DataBlock",
    "FunctionTool",
    "HintBlock",
    "Message",
    "ModelChunk",
    "ModelError",
    "ModelRequest",
    "StopChunk",
    "SystemMessage",
    "TextBlock",
    "TextDelta",
    "ThinkingBlock",
    "ThinkingDelta",
    "Tool",
    "ToolArgumentError",
    "ToolCallBlock",
    "ToolCallDelta",
    "ToolContext",
    "ToolKind",
    "ToolResult",
    "ToolResultMessage",
    "Usage",
    "UsageChunk",
    "UserMessage",
    "tool",
]
