"""A saved conversation as the ``session/update`` notifications that rebuild it in
an editor (``session/load``): the user's messages, the agent's thinking and text,
every tool call with how it ended and what it returned, and the plan last written.

Diffs are not replayed as diffs: a session keeps what a tool told the model,
not the file before and after, so an edit comes back as its text result.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from acp import helpers

from shell.core.messages import (
    AssistantMessage,
    DataBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolResultMessage,
    UserMessage,
)
from shell.core.remoteimages import defuse_images
from shell.core.textsafety import plain_id, sanitize
from shell.core.tools import Tool
from shell.sessions.export import STOPPED_LABELS

from . import toolview
from .permissions import tool_kind
from .updates import Update, plan_update, text_content, tool_call_start

PLAN_MIDDLEWARE = "TodoList"


def history_updates(
    messages: Sequence[Message],
    session_state: dict[str, Any],
    find_tool: Callable[[str], Tool | None],
    root: Path,
    outcomes: Mapping[str, str] | None = None,
) -> Iterator[Update]:
    """``outcomes``: the session's, by call id (see :func:`shell.frontend.reply.calls_from_messages`):
    ACP's statuses end at ``failed``, so a call the user rejected, a rule blocked or
    agent-shell's stop interrupted says which first, not as the tool's own failure."""
    outcomes = outcomes or {}
    results = {m.call_id: m for m in messages if isinstance(m, ToolResultMessage)}
    for message in messages:
        if isinstance(message, UserMessage):
            yield from _user(message)
        elif isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, ThinkingBlock) and block.text:
                    yield helpers.update_agent_thought_text(inert(block.text))
                elif isinstance(block, TextBlock) and block.text:
                    yield helpers.update_agent_message_text(inert(block.text))
            for call in message.tool_calls:
                yield tool_call_start(
                    call.id, call.name, dict(call.args), tool_kind(find_tool(call.name), call.name), root
                )
                result = results.get(call.id)
                if result is None:
                    continue
                text = result.text
                content = [text_content(toolview.fenced(text))] if text.strip() else []
                label = STOPPED_LABELS.get(outcomes.get(call.id, ""))
                if label:
                    content.insert(0, text_content(f"{label}."))
                yield helpers.update_tool_call(
                    plain_id(call.id),
                    status="failed" if result.is_error or label else "completed",
                    content=content,
                )
    todos = (session_state.get(PLAN_MIDDLEWARE) or {}).get("todos")
    if isinstance(todos, list) and todos:
        yield plan_update(todos)


def inert(text: str) -> str:
    """``text`` as the live stream sends it: sanitised, no image or tag that loads by
    itself and no link the TUI would ask about (:func:`toolview.editor_defuser`). A
    replay is drawn like the live reply, so the editor fetched on reopening what it
    never fetched live (finding S15)."""
    return defuse_images(sanitize(text), toolview.editor_defuser())


def _user(message: UserMessage) -> Iterator[Update]:
    """The user's turns, inert too: they hold what the user did not write (a compaction
    summary the model wrote, a mentioned file's text)."""
    if isinstance(message.content, str):
        if message.content:
            yield helpers.update_user_message_text(inert(message.content))
        return
    for block in message.content:
        if isinstance(block, TextBlock) and block.text:
            yield helpers.update_user_message_text(inert(block.text))
        elif isinstance(block, DataBlock) and block.media_type.startswith("image/"):
            data = base64.b64encode(block.data).decode("ascii")
            yield helpers.update_user_message(helpers.image_block(data, block.media_type))
