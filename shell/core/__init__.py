"""The bottom layer: messages, events, tools, approvals and the model protocol.

Frozen data and the contracts between the loop, the middleware and the providers;
no hooks, no loop, no I/O. Everything above imports from here and nothing here
imports anything above (``shell.agent`` re-exports these names for users).
"""

from __future__ import annotations

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
from .tools import FunctionTool, Tool, ToolArgumentError, ToolContext, ToolKind, tool

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
