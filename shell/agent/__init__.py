"""The engine: messages, events, tools, the model protocol and the agent loop.

No UI and no HTTP live here; this package and ``middleware`` work as a library
with no terminal at all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from .model import ChatModel, ModelError, ModelRequest
from .tools import FunctionTool, Tool, ToolArgumentError, ToolContext, tool

if TYPE_CHECKING:
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
    "ToolResult",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
    "tool",
]


def __getattr__(name: str) -> Any:
    # The loop imports ``middleware``, which imports this package's bottom layer;
    # loading the loop lazily keeps that import cycle out of the way.
    if name == "Agent":
        from .loop import Agent

        return Agent
    raise AttributeError(f"module 'shell.agent' has no attribute {name!r}")
