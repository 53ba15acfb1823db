"""A reply's events as ACP ``session/update`` notifications.

:class:`ReplyUpdates` follows one reply: text and thinking deltas become
``agent_message_chunk`` / ``agent_thought_chunk`` (sanitised as they stream), a
tool call becomes a ``tool_call`` (``pending``, with its kind, title, locations and,
for file edits, the diff it proposes) that ``tool_call_update`` moves to
``in_progress`` and then ``completed`` or ``failed``, with the command's output
streaming in between (at most every ``OUTPUT_INTERVAL`` seconds, the last part
always). TodoList's list becomes a ``plan``. Whatever was announced and never
finished (a cancelled reply) is closed as ``failed`` by :meth:`finish`, so no
editor keeps a spinner going.

The permission dialog announces a call through the same object
(:meth:`announce`), so the call the user approves is the call the editor shows,
whichever of the two gets there first.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import helpers
from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    AgentThoughtChunk,
    ContentToolCallContent,
    FileEditToolCallContent,
    PlanEntry,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from shell.core import events as ev
from shell.core.messages import ToolResult
from shell.core.textsafety import StreamSanitizer, plain_id, sanitize
from shell.core.tools import Tool, ToolKind
from shell.frontend.reply import WITHDRAWN_NOTE

from . import toolview
from .permissions import tool_kind

OUTPUT_INTERVAL = 0.1
"""Seconds between two updates of a running tool's output."""

Update = Any
"""One of the SDK's session-update models."""
ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent
PLAN_STATUSES = ("pending", "in_progress", "completed")


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    args: dict[str, Any] = field(default_factory=dict)
    kind: ToolKind = "other"
    announced: bool = False
    described: bool = False
    finished: bool = False
    diff: toolview.Diff | None = None
    output: str = ""
    terminal_id: str | None = None
    last_sent: float = 0.0


class ReplyUpdates:
    """Turns the events of replies into session updates for one ACP session.

    ``send`` delivers an update; ``find_tool`` looks a tool up by name (for its
    kind); ``root`` is the workspace (relative paths become absolute for the editor).
    """

    def __init__(
        self,
        send: Callable[[Update], Awaitable[None]],
        find_tool: Callable[[str], Tool | None],
        root: Path,
    ) -> None:
        self.send = send
        self.find_tool = find_tool
        self.root = root
        self.calls: dict[str, _Call] = {}
        self._text: dict[str, StreamSanitizer] = {}
        self._message = toolview.editor_defuser()  # an editor renders Markdown: no image loads, no link asks
        self._thought = toolview.editor_defuser()
        """One defuser for each of the agent's message and thoughts up to the next tool
        call entry, not one per text block: the editor joins the chunks into one Markdown
        document, so a fence the model left open in one block (or in a withdrawn attempt)
        decides what is code in the next (finding A5)."""
        self.model_calls = 0
        self.last_usage: Any = None

    # -- the reply -------------------------------------------------------------------
    async def handle(self, event: ev.Event) -> None:
        if isinstance(event, (ev.TextBlockStart, ev.ThinkingBlockStart)):
            self._text[event.block_id] = StreamSanitizer()
        elif isinstance(event, ev.TextBlockDelta):
            await self._chunk(event.block_id, event.delta, thought=False)
        elif isinstance(event, ev.ThinkingBlockDelta):
            await self._chunk(event.block_id, event.delta, thought=True)
        elif isinstance(event, (ev.TextBlockEnd, ev.ThinkingBlockEnd)):
            thought = isinstance(event, ev.ThinkingBlockEnd)
            images = self._thought if thought else self._message
            rest = images.feed(self._text.pop(event.block_id, StreamSanitizer()).flush()) + images.flush()
            if rest:
                await self._send_text(rest, thought=thought)
        elif isinstance(event, ev.ToolCallStart):
            await self.announce(event.call_id, event.name, None)
        elif isinstance(event, ev.ToolCallEnd):
            await self.announce(event.call_id, event.name, event.args)
        elif isinstance(event, ev.ToolExecutionStart):
            call = await self.announce(event.call_id, event.name, event.args)
            await self.send(helpers.update_tool_call(call.id, status="in_progress"))
        elif isinstance(event, ev.ToolArgsChanged):  # an on_acting layer changed what runs
            await self.announce(event.call_id, event.name, event.args)
        elif isinstance(event, ev.ToolExecutionUpdate):
            await self._progress(event.call_id, event.progress)
        elif isinstance(event, ev.ToolExecutionEnd):
            await self._finish_call(event.call_id, event.result, event.blocked)
        elif isinstance(event, ev.CustomEvent) and event.name == "todos" and isinstance(event.data, list):
            await self.send(plan_update(event.data))
        elif isinstance(event, ev.AttemptWithdrawn):
            await self._withdraw_text(event.block_ids)
        elif isinstance(event, ev.ModelCallEnd):
            self.model_calls += 1
            self.last_usage = event.usage

    async def _withdraw_text(self, block_ids: tuple[str, ...]) -> None:
        """A middleware retried a model call that failed part way: a chunk sent to the
        client cannot be taken back, so the withdrawn text is followed by a note."""
        sent = [b for b in block_ids if b in self._text]
        for block_id in sent:
            self._text.pop(block_id, None)
        if not sent:
            return
        for thought, images in ((True, self._thought), (False, self._message)):
            images.discard()  # what it held was never sent
            if closing := images.settle():  # the note and the next attempt start outside code
                await self._send_text(closing, thought=thought)
        note = self._message.feed(f"\n\n{WITHDRAWN_NOTE}\n\n") + self._message.flush()
        await self._send_text(note, thought=False)

    async def _chunk(self, block_id: str, delta: str, *, thought: bool) -> None:
        text = self._text.setdefault(block_id, StreamSanitizer()).feed(delta)
        text = (self._thought if thought else self._message).feed(text)
        if text:
            await self._send_text(text, thought=thought)

    async def _send_text(self, text: str, *, thought: bool) -> None:
        block = helpers.text_block(text)
        update: AgentThoughtChunk | AgentMessageChunk = (
            helpers.update_agent_thought(block) if thought else helpers.update_agent_message(block)
        )
        await self.send(update)

    async def message(self, text: str) -> None:
        """A line of our own (a notice, a warning) in the agent's message: outside any
        code the model left open, and through the same defuser, since the editor joins it
        to the model's text (a server's error text may carry an image too)."""
        images = self._message
        await self._send_text(images.settle() + images.feed(sanitize(text)) + images.flush(), thought=False)

    async def _new_message(self) -> None:
        """A tool call entry comes next: an editor starts a new message after it, or
        joins the text on both sides; either way the next text starts at a line's start
        outside code, for the editor as for a fresh defuser."""
        for thought in (True, False):
            images = self._thought if thought else self._message
            if rest := images.settle(line_end=True):
                await self._send_text(rest, thought=thought)
        self._message, self._thought = toolview.editor_defuser(), toolview.editor_defuser()

    # -- tool calls ------------------------------------------------------------------
    async def announce(self, call_id: str, name: str, args: dict[str, Any] | None) -> _Call:
        """Make sure the editor knows the call (``tool_call``), and once its
        arguments are known, what it does (title, locations, proposed diff)."""
        call = self.calls.get(call_id)
        if call is None:
            kind = tool_kind(self.find_tool(name), name)
            call = self.calls[call_id] = _Call(plain_id(call_id), name, kind=kind)
        if not call.announced:
            call.announced = True
            await self._new_message()
            await self.send(
                helpers.start_tool_call(
                    call.id, toolview.one_line(name), kind=call.kind, status="pending", raw_input={}
                )
            )
        if args is not None and (not call.described or args != call.args):
            call.args = dict(args)
            call.described = True
            await self.send(self._describe(call))
        return call

    def _describe(self, call: _Call) -> ToolCallProgress:
        content: list[ToolContent] | None = None
        if call.kind == "edit":
            call.diff = toolview.preview_diff(call.name, call.args, self.root)
            if call.diff is not None:
                content = [diff_content(call.diff)]
        return helpers.update_tool_call(
            call.id,
            title=toolview.title_for(call.name, call.args),
            kind=call.kind,
            locations=self._locations(call),
            raw_input=call.args,
            content=content,
        )

    def permission_view(self, call_id: str, question: str = "") -> ToolCallUpdate:
        """The call as the permission dialog shows it (it was announced just before):
        what it would change, then ``question``, the approval as every front end
        words it (:func:`shell.frontend.approval.approval_lines`), fenced whole.
        Editors show a request's title and content, not its ``rawInput`` (finding N8)."""
        call = self.calls[call_id]
        view = self._describe(call)
        content: list[ToolContent] = list(view.content or [])
        if question:
            content.append(text_content(toolview.fenced(question, tail=None)))
        return ToolCallUpdate(
            tool_call_id=call.id,
            title=view.title,
            kind=view.kind,
            status="pending",
            locations=view.locations,
            raw_input=view.raw_input,
            content=content or None,
        )

    def _locations(self, call: _Call) -> list[ToolCallLocation]:
        return [
            ToolCallLocation(path=path, line=line)
            for path, line in toolview.locations_for(call.name, call.args, self.root)
        ]

    async def _progress(self, call_id: str, progress: Any) -> None:
        call = self.calls.get(call_id)
        if call is None:
            return
        if isinstance(progress, dict) and isinstance(progress.get("terminal_id"), str):
            call.terminal_id = progress["terminal_id"]
            await self.send(
                helpers.update_tool_call(call.id, content=[helpers.tool_terminal_ref(call.terminal_id)])
            )
            return
        if not isinstance(progress, str) or not progress:
            return
        call.output = (call.output + progress)[-2 * toolview.MAX_OUTPUT_CHARS :]
        now = time.monotonic()
        if now - call.last_sent >= OUTPUT_INTERVAL:
            call.last_sent = now
            await self.send(
                helpers.update_tool_call(call.id, content=[text_content(toolview.fenced(call.output))])
            )

    async def _finish_call(self, call_id: str, result: ToolResult, blocked: bool) -> None:
        call = self.calls.get(call_id)
        if call is None or call.finished:
            return
        call.finished = True
        failed = blocked or result.is_error
        content: list[ToolContent] = []
        if call.terminal_id is not None:
            content.append(helpers.tool_terminal_ref(call.terminal_id))
        diff = None if failed else (toolview.result_diff(result) or call.diff)
        if diff is not None and call.kind == "edit":
            content.append(diff_content(diff))
        else:
            text = toolview.result_text(result)
            if text.strip() and call.terminal_id is None:
                content.append(text_content(toolview.fenced(text)))
            for image in toolview.result_images(result):
                content.append(
                    helpers.tool_content(
                        helpers.image_block(base64.b64encode(image.data).decode("ascii"), image.media_type)
                    )
                )
        await self.send(
            helpers.update_tool_call(
                call.id,
                status="failed" if failed else "completed",
                content=content,
            )
        )

    async def finish(self) -> None:
        """Close every call the reply announced and did not finish (cancelled)."""
        for call in self.calls.values():
            if call.announced and not call.finished:
                call.finished = True
                await self.send(
                    helpers.update_tool_call(
                        call.id, status="failed", content=[text_content("Cancelled before it finished.")]
                    )
                )
        self.calls.clear()
        self._text.clear()
        self._message, self._thought = toolview.editor_defuser(), toolview.editor_defuser()


def text_content(text: str) -> ContentToolCallContent:
    return helpers.tool_content(helpers.text_block(text))


def diff_content(diff: toolview.Diff) -> FileEditToolCallContent:
    return helpers.tool_diff_content(diff.path, diff.new_text, diff.old_text)


def plan_update(todos: list[Any]) -> AgentPlanUpdate:
    """TodoList's list as an ACP plan (every entry at medium priority: the list has none)."""
    entries = []
    for todo in todos:
        if not isinstance(todo, dict):
            continue
        status = todo.get("status")
        entries.append(
            PlanEntry(
                content=toolview.one_line(str(todo.get("content", "")), 500),
                priority="medium",
                status=status if status in PLAN_STATUSES else "pending",
            )
        )
    return helpers.update_plan(entries)


def tool_call_start(
    call_id: str, name: str, args: dict[str, Any], kind: ToolKind, root: Path
) -> ToolCallStart:
    """A finished call for a replayed session (what it did, not what it proposed)."""
    return helpers.start_tool_call(
        plain_id(call_id),
        toolview.title_for(name, args),
        kind=kind,
        status="pending",
        locations=[ToolCallLocation(path=p, line=n) for p, n in toolview.locations_for(name, args, root)],
        raw_input=args,
    )
