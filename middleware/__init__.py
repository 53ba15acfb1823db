"""Middleware: the base class, the stack that composes it, and the built-ins."""

from .base import Middleware
from .context import HookContext, ToolCallContext
from .stack import MiddlewareStack, error_source
from .stats import HookStats, MiddlewareStats
from .types import (
    AfterToolCallResult,
    BeforeToolCallResult,
    CompressRequest,
    ReasoningRequest,
    ReplyRequest,
    StopReply,
    ToolRequest,
    TurnAction,
)

__all__ = [
    "AfterToolCallResult",
    "BeforeToolCallResult",
    "CompressRequest",
    "HookContext",
    "HookStats",
    "Middleware",
    "MiddlewareStack",
    "MiddlewareStats",
    "ReasoningRequest",
    "ReplyRequest",
    "StopReply",
    "ToolCallContext",
    "ToolRequest",
    "TurnAction",
    "error_source",
]
