"""MCP tool results and errors as the agent's :class:`ToolResult` and messages.

Text stays text; images and audio become :class:`DataBlock`; embedded resources
give their text or bytes; resource links and structured content are described in
text so the model sees them. ``isError`` carries over as ``is_error``.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from shell.core.messages import DataBlock, TextBlock, ToolResult


def convert_result(result: Any, *, server: str, tool: str) -> ToolResult:
    """A ``CallToolResult`` (any SDK version) as a ToolResult."""
    data = (
        result.model_dump(by_alias=True, mode="json", exclude_none=True)
        if hasattr(result, "model_dump")
        else {}
    )
    blocks: list[TextBlock | DataBlock] = []
    for item in data.get("content") or []:
        blocks.extend(_block(item))
    structured = data.get("structuredContent")
    if structured is not None and not any(isinstance(b, TextBlock) for b in blocks):
        blocks.append(TextBlock(json.dumps(structured, ensure_ascii=False)))
    details = {"server": server, "tool": tool}
    if structured is not None:
        details["structured"] = structured
    is_error = bool(data.get("isError"))
    if all(isinstance(b, TextBlock) for b in blocks):
        text = "\n".join(b.text for b in blocks if isinstance(b, TextBlock))
        return ToolResult(text or "(no content)", is_error=is_error, details=details)
    return ToolResult(tuple(blocks), is_error=is_error, details=details)


def _block(item: dict[str, Any]) -> list[TextBlock | DataBlock]:
    kind = item.get("type")
    if kind == "text":
        return [TextBlock(str(item.get("text", "")))]
    if kind in ("image", "audio"):
        raw = _b64(item.get("data", ""))
        media = str(item.get("mimeType") or f"{kind}/unknown")
        return [DataBlock(media, raw)] if raw is not None else [TextBlock(f"[{kind} with invalid data]")]
    if kind == "resource":
        res = item.get("resource") or {}
        uri = res.get("uri", "")
        if "text" in res:
            return [TextBlock(f"[resource {uri}]\n{res['text']}")]
        raw = _b64(res.get("blob", ""))
        media = str(res.get("mimeType") or "application/octet-stream")
        if raw is None:
            return [TextBlock(f"[resource {uri} with invalid data]")]
        return [TextBlock(f"[resource {uri}, {media}, {len(raw)} bytes]"), DataBlock(media, raw)]
    if kind == "resource_link":
        label = item.get("name") or item.get("title") or ""
        return [TextBlock(f"[resource link {label}: {item.get('uri', '')}]")]
    return [TextBlock(f"[unsupported MCP content type {kind!r}]")]


def _b64(value: Any) -> bytes | None:
    try:
        return base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError):
        return None


def describe_error(exc: BaseException) -> str:
    """A one-line reason for a failure, unwrapping exception groups to their first cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc).strip() or "no detail"
    name = type(exc).__name__
    return text if name in ("TimeoutError", "MCPError", "McpError") else f"{name}: {text}"


def connection_lost(exc: BaseException) -> bool:
    """Whether a failed call means the connection itself is gone (not just this call)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    name = type(exc).__name__
    if name in ("ClosedResourceError", "BrokenResourceError", "EndOfStream") or "Connect" in name:
        return True
    return "connection closed" in str(exc).lower()
