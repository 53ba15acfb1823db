"""Messages ↔ plain JSON dicts, for session files.

Why not ``shell.core.events.to_jsonable``: that one is a one-way dump tagged with
Python class names. A session file must be read back by this and by later
versions, so the codec here names things by role and block ``type``, keeps bytes
as base64, and reads leniently: fields it does not know (a newer writer's) are
ignored, a block of an unknown type is dropped and reported, and anything that
cannot become a message raises :class:`CodecError` so the loader can skip that
one record and carry on.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from shell.core.messages import (
    AssistantMessage,
    Block,
    DataBlock,
    HintBlock,
    Message,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
)


class CodecError(ValueError):
    """A dict that is not a message this version can read."""


# -- encoding ---------------------------------------------------------------------


def block_to_dict(block: Block) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ThinkingBlock):
        out: dict[str, Any] = {"type": "thinking", "text": block.text}
        if block.signature is not None:
            out["signature"] = block.signature
        if block.redacted:
            out["redacted"] = True
        return out
    if isinstance(block, ToolCallBlock):
        return {"type": "tool_call", "id": block.id, "name": block.name, "args": dict(block.args)}
    if isinstance(block, DataBlock):
        return {
            "type": "data",
            "media_type": block.media_type,
            "data": base64.b64encode(block.data).decode("ascii"),
        }
    if isinstance(block, HintBlock):
        return {"type": "hint", "text": block.text}
    raise TypeError(f"not a content block: {block!r}")


def _content_to_json(content: str | tuple[Any, ...]) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    return [block_to_dict(b) for b in content]


def usage_to_dict(usage: Usage) -> dict[str, int | bool]:
    out: dict[str, int | bool] = {
        "input_tokens": usage.input_tokens,
        "output_tokens": usage.output_tokens,
        "cache_read_tokens": usage.cache_read_tokens,
        "cache_write_tokens": usage.cache_write_tokens,
    }
    if usage.unknown:
        out["unknown"] = True
    return out


def message_to_dict(message: Message) -> dict[str, Any]:
    """A message as a JSON-ready dict (``role`` says which kind)."""
    if isinstance(message, SystemMessage):
        return {"role": "system", "text": message.text}
    if isinstance(message, UserMessage):
        return {"role": "user", "content": _content_to_json(message.content)}
    if isinstance(message, AssistantMessage):
        return {
            "role": "assistant",
            "content": _content_to_json(message.content),
            "usage": usage_to_dict(message.usage),
            "stop_reason": message.stop_reason,
        }
    if isinstance(message, ToolResultMessage):
        return {
            "role": "tool",
            "call_id": message.call_id,
            "name": message.name,
            "content": _content_to_json(message.content),
            "is_error": message.is_error,
        }
    raise TypeError(f"not a message: {message!r}")


# -- decoding ---------------------------------------------------------------------


def _str(d: dict[str, Any], key: str, default: str | None = None) -> str:
    value = d.get(key, default)
    if not isinstance(value, str):
        raise CodecError(f"{key!r} must be a string, not {type(value).__name__}")
    return value


def block_from_dict(d: Any) -> Block:
    """One block; :class:`CodecError` for an unknown ``type`` or a malformed one."""
    if not isinstance(d, dict):
        raise CodecError(f"a block must be an object, not {type(d).__name__}")
    kind = d.get("type")
    if kind == "text":
        return TextBlock(_str(d, "text"))
    if kind == "thinking":
        signature = d.get("signature")
        signature = signature if isinstance(signature, str) else None
        return ThinkingBlock(_str(d, "text"), signature, d.get("redacted") is True and signature is not None)
    if kind == "tool_call":
        args = d.get("args", {})
        if not isinstance(args, dict):
            raise CodecError("tool_call args must be an object")
        return ToolCallBlock(_str(d, "id"), _str(d, "name"), args)
    if kind == "data":
        try:
            data = base64.b64decode(_str(d, "data"), validate=True)
        except (binascii.Error, ValueError) as exc:
            raise CodecError(f"data block is not valid base64: {exc}") from None
        return DataBlock(_str(d, "media_type"), data)
    if kind == "hint":
        return HintBlock(_str(d, "text"))
    raise CodecError(f"unknown block type {kind!r}")


def _blocks(value: Any, problems: list[str] | None) -> tuple[Block, ...]:
    if not isinstance(value, list):
        raise CodecError(f"content must be a string or a list, not {type(value).__name__}")
    out: list[Block] = []
    for item in value:
        try:
            out.append(block_from_dict(item))
        except CodecError as exc:
            if problems is None:
                raise
            problems.append(f"a content block was skipped: {exc}")
    return tuple(out)


def _content(value: Any, problems: list[str] | None) -> str | tuple[Block, ...]:
    return value if isinstance(value, str) else _blocks(value, problems)


def usage_from_dict(d: Any) -> Usage:
    if not isinstance(d, dict):
        return Usage()
    fields = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    values = [d.get(f, 0) for f in fields]
    a, b, c, e = (v if isinstance(v, int) and not isinstance(v, bool) else 0 for v in values)
    return Usage(a, b, c, e, unknown=d.get("unknown") is True)


def message_from_dict(d: Any, problems: list[str] | None = None) -> Message:
    """A message from :func:`message_to_dict`'s output (or a newer version's).

    Unknown fields are ignored. With ``problems`` given, blocks of unknown types
    are dropped and described there; without it they raise :class:`CodecError`.
    """
    if not isinstance(d, dict):
        raise CodecError(f"a message must be an object, not {type(d).__name__}")
    role = d.get("role")
    if role == "system":
        return SystemMessage(_str(d, "text"))
    if role == "user":
        return UserMessage(_content(d.get("content"), problems))
    if role == "assistant":
        stop = d.get("stop_reason", "end_turn")
        return AssistantMessage(
            _blocks(d.get("content", []), problems),
            usage_from_dict(d.get("usage")),
            stop if isinstance(stop, str) else "end_turn",
        )
    if role == "tool":
        content = _content(d.get("content", ""), problems)
        if not isinstance(content, str):
            content = tuple(b for b in content if isinstance(b, (TextBlock, DataBlock)))
        return ToolResultMessage(_str(d, "call_id"), _str(d, "name", ""), content, d.get("is_error") is True)
    raise CodecError(f"unknown message role {role!r}")


def blocks_to_json(blocks: tuple[Block, ...]) -> list[dict[str, Any]]:
    return [block_to_dict(b) for b in blocks]
