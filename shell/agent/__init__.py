"""The agent loop, and the core names users import with it.

``from shell.agent import Agent, tool`` is the public way in: the loop lives here
(``loop.py`` what a reply does, ``reply.py`` how it runs), the frozen data it works
on lives in :mod:`shell.core` and is re-exported. No UI and no HTTP live here; this
package and ``middleware`` work as a library with no terminal at all.
"""

from __future__ import annotations

from shell.core import (
    ApprovalDecision,
    ApprovalRequest,
    AssistantMessage,
    Block,
    ChatModel,
    DataBlock,
    FunctionTool,
    HintBlock,
    Message,
    ModelError,
    ModelRequest,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    Tool,
    ToolArgumentError,
    ToolCallBlock,
    ToolContext,
    ToolKind,
    ToolResult,
    ToolResultMessage,
    Usage,
    UserMessage,
    tool,
)

from .loop import Agent

__all__ = [
    "Agent",
    "ApprovalDecision",
    "ApprovalRequest",
    "AssistantMessage",
    "Block",
    "ChatModel",
    "DataBlock",
    "FunctionTool",
    "HintBlock",
    "Message",
    "ModelError",
    "ModelRequest",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "Tool",
    "ToolArgumentError",
    "ToolCallBlock",
    "ToolContext",
    "ToolKind",
    "ToolResult",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "tool",
]

