"""Middleware: the base class, the stack that composes it, and the built-ins.

``from middleware import HumanInTheLoop`` (or any built-in, LangChain's way) works:
the built-ins load on first use, so importing this package costs only the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .base import Middleware
from .context import HookContext, ToolCallContext
from .stack import MiddlewareStack, error_source
from .stats import HookStats, MiddlewareStats
from .types import (
    AfterToolCallResult,
    BeforeToolCallResult,
    CallOutcome,
    CompressRequest,
    ReasoningRequest,
    ReplyCancelled,
    ReplyRequest,
    StopReply,
    ToolRequest,
    TurnAction,
)
from .watching import watch

if TYPE_CHECKING:
    from .context_editing import ClearToolUses, ContextEditing
    from .dynamic_system_prompt import DynamicSystemPrompt
    from .human_in_the_loop import HumanInTheLoop
    from .long_term_memory import LongTermMemory
    from .model_call_limit import ModelCallLimit, ModelCallLimitExceededError
    from .model_fallback import ModelFallback
    from .pii import PII, PIIDetectionError
    from .project_instructions import ProjectInstructions
    from .prompt_caching import AnthropicPromptCaching
    from .rate_limit import RateLimit
    from .reply_budget_control import ReplyBudgetControl
    from .summarization import Summarization
    from .timing import Timing
    from .todo_list import TodoList
    from .tool_call_limit import ToolCallLimit, ToolCallLimitExceededError
    from .tool_emulator import LLMToolEmulator
    from .tool_retry import ToolRetry
    from .tool_selector import LLMToolSelector
    from .tracing import Tracing
    from .tts import TTS

BUILTINS: dict[str, str] = {
    "AnthropicPromptCaching": "prompt_caching",
    "ClearToolUses": "context_editing",
    "ContextEditing": "context_editing",
    "DynamicSystemPrompt": "dynamic_system_prompt",
    "HumanInTheLoop": "human_in_the_loop",
    "LLMToolEmulator": "tool_emulator",
    "LLMToolSelector": "tool_selector",
    "LongTermMemory": "long_term_memory",
    "ModelCallLimit": "model_call_limit",
    "ModelCallLimitExceededError": "model_call_limit",
    "ModelFallback": "model_fallback",
    "PII": "pii",
    "PIIDetectionError": "pii",
    "ProjectInstructions": "project_instructions",
    "RateLimit": "rate_limit",
    "ReplyBudgetControl": "reply_budget_control",
    "Summarization": "summarization",
    "TTS": "tts",
    "Timing": "timing",
    "TodoList": "todo_list",
    "ToolCallLimit": "tool_call_limit",
    "ToolCallLimitExceededError": "tool_call_limit",
    "ToolRetry": "tool_retry",
    "Tracing": "tracing",
}
"""Public name -> module of every built-in (and the errors they raise)."""


def __getattr__(name: str) -> Any:
    module = BUILTINS.get(name)
    if module is None:
        raise AttributeError(f"module 'middleware' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # once loaded, a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(BUILTINS))


__all__ = [
    "AfterToolCallResult",
    "BeforeToolCallResult",
    "CallOutcome",
    "CompressRequest",
    "HookContext",
    "HookStats",
    "Middleware",
    "MiddlewareStack",
    "MiddlewareStats",
    "ReasoningRequest",
    "ReplyCancelled",
    "ReplyRequest",
    "StopReply",
    "ToolCallContext",
    "ToolRequest",
    "TurnAction",
    "error_source",
    "watch",
    # the built-ins, loaded on first use
    "AnthropicPromptCaching",
    "ClearToolUses",
    "ContextEditing",
    "DynamicSystemPrompt",
    "HumanInTheLoop",
    "LLMToolEmulator",
    "LLMToolSelector",
    "LongTermMemory",
    "ModelCallLimit",
    "ModelCallLimitExceededError",
    "ModelFallback",
    "PII",
    "PIIDetectionError",
    "ProjectInstructions",
    "RateLimit",
    "ReplyBudgetControl",
    "Summarization",
    "TTS",
    "Timing",
    "TodoList",
    "ToolCallLimit",
    "ToolCallLimitExceededError",
    "ToolRetry",
    "Tracing",
]
