"""MCP tool results and errors as the agent's :class:`ToolResult` and messages.

Text stays text; images and audio become :class:`DataBlock`; embedded resources
give their text or bytes; resource links and structured content are described in
text so the model sees them. ``isError`` carries over as ``is_error``.

A server decides how much it answers, so a result is capped here, the one place
for every MCP result (text, resources and structured content alike), like the
built-in tools cap theirs (``run_shell`` keeps 30,000 characters, about 8k tokens):
at most :data:`MAX_RESULT_CHARS` characters of text and :data:`MAX_DATA_BYTES` of
images and audio reach the model, the session and the screen, and a note at the
end says what was cut and how to get the rest. A 2 MB answer went to the model
whole before, and into the session file twice (its text and, in ``details``, the
same data as structured content); structured content now stays in ``details``
only when it fits the cap.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from dataclasses import replace
from typing import Any

from shell.core.messages import DataBlock, TextBlock, ToolResult
from shell.core.textsafety import json_text
from shell.core.tools import MAX_TOOL_NAME, UNSAFE_NAME_CHAR

from .mcp_http import TOO_LARGE

MAX_RESULT_CHARS = 30_000
"""Characters of an MCP result's text kept (about 8k tokens; ``run_shell`` keeps as many)."""
MAX_DATA_BYTES = 5 * 1024 * 1024
"""Bytes of images and audio kept (``read_file`` takes images up to this size)."""


def convert_result(result: Any, *, server: str, tool: str) -> ToolResult:
    """A ``CallToolResult`` (any SDK version) as a ToolResult, capped (see above)."""
    data = (
        result.model_dump(by_alias=True, mode="json", exclude_none=True)
        if hasattr(result, "model_dump")
        else {}
    )
    blocks: list[TextBlock | DataBlock] = []
    for item in data.get("content") or []:
        blocks.extend(_block(item))
    structured = data.get("structuredContent")
    structured_text = json_text(structured) if structured is not None else ""
    if structured is not None and not any(isinstance(b, TextBlock) for b in blocks):
        blocks.append(TextBlock(structured_text))
    details: dict[str, Any] = {"server": server, "tool": tool}
    if structured is not None:
        if len(structured_text) <= MAX_RESULT_CHARS:
            details["structured"] = structured
        else:
            details["structured_chars"] = len(structured_text)  # left out: the text carries it
    blocks = cap_blocks(blocks, tool_name(server, tool))
    is_error = bool(data.get("isError"))
    if all(isinstance(b, TextBlock) for b in blocks):
        text = "\n".join(b.text for b in blocks if isinstance(b, TextBlock))
        return ToolResult(text or "(no content)", is_error=is_error, details=details)
    return ToolResult(tuple(blocks), is_error=is_error, details=details)


def with_schema_problem(result: ToolResult, label: str, problem: str) -> ToolResult:
    """``result`` with a line saying its structured part does not match the tool's
    declared output schema (the check of :mod:`.mcp_session`): the content is kept.
    Only the problem's first line, capped: jsonschema's message quotes the whole
    instance and schema after it, as large as the server made them."""
    problem = problem.strip().split("\n", 1)[0]
    problem = problem if len(problem) <= 300 else problem[:300] + "…"
    note = (f"[{label}'s structured result does not match the output schema the server declared "
            f"({problem}); the rest of the result is as the server sent it.]")
    content: str | tuple[TextBlock | DataBlock, ...]
    if isinstance(result.content, str):
        content = f"{result.content}\n{note}"
    else:
        content = (*result.content, TextBlock(note))
    details = {**(result.details or {}), "schema_problem": problem}
    return replace(result, content=content, details=details)


_UNSAFE_NAME = UNSAFE_NAME_CHAR
MAX_NAME = MAX_TOOL_NAME
"""What model APIs accept as a tool name (:data:`shell.core.tools.TOOL_NAME`)."""
MAX_SERVER = 40
"""Characters of a server's part of its tools' names (room is left for the tool's)."""


def server_prefix(server: str) -> str:
    """A server's part of its tools' names: ``my server`` is ``my_server``."""
    return _UNSAFE_NAME.sub("_", server)


def server_name_problem(server: str) -> str | None:
    """Why ``server`` cannot name a server's tools unambiguously, or None.

    A tool is ``SERVER__tool``, and a permission rule ``github__*`` means every tool
    of the server ``github``; that holds only when the first ``__`` of a name ends
    the server's part, so that part may not hold ``__`` nor end (or start) with
    ``_``: with a server ``a__b``, ``a__b__*`` would also name server ``a``'s tool
    ``b__c``."""
    prefix = server_prefix(server)
    edges = prefix.startswith("_") or prefix.endswith("_")
    if not prefix or "__" in prefix or edges or len(prefix) > MAX_SERVER:
        suggestion = re.sub(r"_+", "_", prefix).strip("_")[:MAX_SERVER] or "server"
        return (f"the name {server!r} cannot be used: its tools are called NAME__tool (and permission rules "
                f"name them so), so a name has no '__', does not start or end with '_', and has at most "
                f"{MAX_SERVER} characters. Rename it, e.g. {suggestion!r}")
    return None


def tool_name(server: str, tool: str) -> str:
    """``SERVER__tool``, limited to the characters and length model APIs accept.

    A tool name that had to be changed to fit (``a.b``, 200 characters) ends with a
    hash of the real one, so two tools never share a name (``a.b`` and ``a_b`` both
    became ``a_b``; names cut at 64 characters became one)."""
    part = _UNSAFE_NAME.sub("_", tool)
    name = f"{server_prefix(server)}__{part}"
    if part == tool and len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(tool.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def cap_blocks(
    blocks: list[TextBlock | DataBlock], label: str, *, max_chars: int = MAX_RESULT_CHARS,
    max_bytes: int = MAX_DATA_BYTES,
) -> list[TextBlock | DataBlock]:
    """``blocks`` within the caps, a note saying what was cut and how to get the rest
    at the end when anything was: text is kept in order up to ``max_chars`` (a cut
    falls at a line break when one is near), data blocks while they fit ``max_bytes``
    (each one left out is named in its place). ``label``: the tool, for the note."""
    text_total = sum(len(b.text) for b in blocks if isinstance(b, TextBlock))
    data_total = sum(len(b.data) for b in blocks if isinstance(b, DataBlock))
    if text_total <= max_chars and data_total <= max_bytes:
        return blocks
    kept: list[TextBlock | DataBlock] = []
    chars_left, bytes_left, dropped, shown = max_chars, max_bytes, 0, 0
    for block in blocks:
        if isinstance(block, DataBlock):
            if len(block.data) <= bytes_left:
                kept.append(block)
                bytes_left -= len(block.data)
            else:
                dropped += 1
                kept.append(TextBlock(f"[{block.media_type}, {len(block.data):,} bytes: left out]"))
            continue
        if len(block.text) <= chars_left:
            kept.append(block)
            chars_left -= len(block.text)
            shown += len(block.text)
        elif chars_left > 0:
            head = block.text[:chars_left]
            line_end = head.rfind("\n")
            head = head[: line_end + 1] if line_end >= chars_left * 4 // 5 else head
            kept.append(TextBlock(head))
            shown += len(head)
            chars_left = 0
    parts = []
    if text_total > max_chars:
        parts.append(f"the first {shown:,} of {text_total:,} characters are shown (the cap is {max_chars:,})")
    if dropped:
        parts.append(f"{dropped} image/audio block{'s' if dropped != 1 else ''} left out "
                     f"({data_total:,} bytes, the cap is {max_bytes:,})")
    note = (f"[MCP result of {label} cut: {'; '.join(parts)}. To get the rest, call {label} again "
            "asking for less or for the next part (a narrower query, a page, an offset or a limit, "
            "if its parameters take one).]")
    kept.append(TextBlock(note))
    return kept


def lenient_content(result: Any) -> Any:
    """A ``tools/call`` result (as on the wire) whose ``content`` items the SDK would
    refuse (a type MCP does not define, a text item without its text) are each
    replaced by a text item saying so: the SDK refused the whole result, and the
    good parts were lost with the bad one."""
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list):
        return result
    check = _content_check()
    fixed = []
    for item in content:
        try:
            check(item)
            fixed.append(item)
        except Exception:
            kind = item.get("type") if isinstance(item, dict) else None
            what = (f"MCP content of type {str(kind)[:40]!r} that is not valid" if kind in _KNOWN
                    else f"unsupported MCP content type {str(kind)[:40]!r}")
            fixed.append({"type": "text", "text": f"[{what}: left out]"})
    return {**result, "content": fixed}


_KNOWN = ("text", "image", "audio", "resource", "resource_link")


def _content_check() -> Any:
    """A function that raises for a content item the installed SDK cannot read."""
    global _CHECK
    if _CHECK is None:
        from mcp import types
        from pydantic import TypeAdapter

        union = getattr(types, "ContentBlock", None)
        if union is None:  # an SDK without the name: check the type only
            def known(item: Any) -> None:
                if not isinstance(item, dict) or item.get("type") not in _KNOWN:
                    raise ValueError("unknown content")

            _CHECK = known
        else:
            _CHECK = TypeAdapter(union).validate_python
    return _CHECK


_CHECK: Any = None


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
    errors = getattr(exc, "errors", None)
    if type(exc).__name__ == "ValidationError" and callable(errors):  # pydantic: one line, not twenty
        try:
            found = list(errors())
            first = found[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "the top level"
            more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
            title = getattr(exc, "title", "") or "an answer"
            return f"the server's {title} is not valid MCP: {where}: {first.get('msg', '')}{more}"
        except Exception:
            pass
    text = str(exc).strip() or "no detail"
    if TOO_LARGE in text or "the server is still connected" in text:  # our words, in the SDK's
        text = text[text.find("the MCP server "):] if "the MCP server " in text else text
    elif text.startswith(_UNPARSED):  # the SDK's words over HTTP: pydantic's whole report, quoting the answer
        said = re.search(r"\n\s*(.+?) \[type=", text)
        why = said.group(1).strip()[:160] if said else "it is not JSON-RPC"
        return f"the server sent an answer that is not JSON-RPC ({why}); tell the server's author"
    name = type(exc).__name__
    return text if name in ("TimeoutError", "MCPError", "McpError") else f"{name}: {text}"


_UNPARSED = ("Failed to parse JSON response: ", "Failed to parse SSE message: ")
"""How the SDK's streamable HTTP transport begins the error for an answer it cannot read."""


def connection_lost(exc: BaseException) -> bool:
    """Whether a failed call means the connection itself is gone (not just this call)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    name = type(exc).__name__
    if name in ("ClosedResourceError", "BrokenResourceError", "EndOfStream") or "Connect" in name:
        return True
    return "connection closed" in str(exc).lower()
