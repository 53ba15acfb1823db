"""The agent loop, and the core names users import with it.

``from shell.agent import Agent, tool`` is the public way in: the loop lives here
(``loop.py`` what a reply does, turn by turn; ``reasoning.py`` the model call,
``acting.py`` the turn's tool calls, ``tool_call.py`` one of them, ``batch.py`` their
order, ``compression.py`` the top of a round, ``reporting.py`` failures and asks;
``reply.py`` how a reply runs), the frozen data it works
on lives in :mod:`shell.core` and is re-exported (with the model stream's chunks,
``TextDelta`` … ``StopChunk``, for a user's own ChatModel or an ``on_model_call`` that
answers alone; the loop's events of similar names are in :mod:`.events`). No UI and no HTTP live here; this
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
    ModelChunk,
    ModelError,
    ModelRequest,
    StopChunk,
    SystemMessage,
    TextBlock,
    TextDelta,
    ThinkingBlock,
    ThinkingDelta,
    Tool,
    ToolArgumentError,
    ToolCallBlock,
    ToolCallDelta,
    ToolContext,
    ToolKind,
    ToolResult,
    ToolResultMessage,
    Usage,
    UsageChunk,
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

