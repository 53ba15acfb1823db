"""What a message from an MCP server is, read off the SDK's wire objects.

:class:`~shell.tools.mcp_watch.Watcher` watches every message between the SDK's
session and its transport; these small readers say
what a message is without depending on one SDK version's classes (only their
names and attributes), and make an answer to a tool call readable when only some
of its content is not.
"""

from __future__ import annotations

from typing import Any

from .mcp_results import lenient_content


def unwrap(message: Any) -> Any:
    """The JSON-RPC message a ``SessionMessage`` carries (``.message.root`` in mcp 1.x).

    Read from the instance's ``__dict__``: where the message is no ``RootModel`` (mcp
    2.x), ``getattr(wrapped, "root", …)`` went through pydantic's ``__getattr__`` and
    the ``AttributeError`` it builds, ~30 us for every message (six times what parsing
    the line costs), so a flood of stray answers or progress notices cost that each."""
    wrapped = getattr(message, "message", None)
    fields = getattr(wrapped, "__dict__", None)
    return fields["root"] if isinstance(fields, dict) and "root" in fields else wrapped


def first_line(exc: BaseException) -> str:
    """``Type: the first line of its message`` (160 characters at most)."""
    text = str(exc).strip().split("\n", 1)[0][:160]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def error_answer(ident: Any, reason: str) -> Any:
    """A ``SessionMessage`` holding a JSON-RPC error answer to the request ``ident``
    (made here, for a request whose real answer was lost), in any SDK version."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    error = types.JSONRPCError(jsonrpc="2.0", id=ident, error=types.ErrorData(code=-32000, message=reason))
    wrapper: Any = types.JSONRPCMessage
    return SessionMessage(wrapper(error) if hasattr(wrapper, "model_validate") else error)


def lenient_answer(inner: Any) -> None:
    """Make an answer to a tool call (the JSON-RPC message) readable by the SDK when
    only some of its content items are not (see :func:`lenient_content`)."""
    result = getattr(inner, "result", None)
    if isinstance(result, dict):
        inner.result = lenient_content(result)
