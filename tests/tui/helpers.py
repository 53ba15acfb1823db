"""Shared pieces of the TUI tests: agents and apps around a ScriptedModel, a workspace,
a bare conversation page, small middleware. (One place for the setup, so a test shows
only what it checks.)"""

from __future__ import annotations

import struct
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult

from middleware.base import Middleware
from middleware.context import HookContext, ToolCallContext
from middleware.types import BeforeToolCallResult, ReplyRequest
from shell.agent import ApprovalRequest, Tool, tool
from shell.agent.loop import Agent
from shell.core.events import DataBlockDelta, DataBlockEnd, DataBlockStart, Event, ReplyStart
from shell.providers.scripted import ScriptedModel
from shell.tui.widgets.conversation import Conversation

if TYPE_CHECKING:
    import pytest

    from shell.tui.app import AgentShellApp
    from shell.tui.screens.approval import ApprovalScreen
    from shell.tui.widgets.assistant_message import AssistantMessage

SIZE = (100, 32)


@tool
def write_note(path: str, text: str) -> str:
    """Write a note to a file.

    Args:
        path: where to write
        text: what to write
    """
    return f"wrote {len(text)} characters to {path}"


@tool(read_only=True)
def read_note(path: str) -> str:
    """Read a note.

    Args:
        path: which note
    """
    return f"contents of {path}"


class AskEverything(Middleware):
    """Asks the user before every tool call (a stand-in for HumanInTheLoop)."""

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        if ctx.session_state.get(f"always:{ctx.call.name}"):
            return None
        request = ApprovalRequest(ctx.call, ctx.tool, dict(ctx.args), suggested_rules=(ctx.call.name,))
        decision = await ctx.ask(request)
        if decision.always:
            ctx.session_state[f"always:{ctx.call.name}"] = True
        if decision.type == "reject":
            return BeforeToolCallResult(block=True, reason=decision.message)
        if decision.type == "edit":
            return BeforeToolCallResult(args=decision.args)
        return None


class Shout(Middleware):
    """Upper-cases the system prompt."""

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        return prompt.upper() + " SHOUTED"


def wav_bytes(seconds: float = 0.5, rate: int = 8000) -> bytes:
    n = int(seconds * rate)
    import math

    samples = b"".join(
        struct.pack("<h", int(30000 * math.sin(math.pi * i / n) ** 2 * math.sin(i / 3))) for i in range(n)
    )
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(samples),
        b"WAVE",
        b"fmt ",
        16,
        1,
        1,
        rate,
        rate * 2,
        2,
        16,
        b"data",
        len(samples),
    )
    return header + samples


class Speaker(Middleware):
    """Emits an audio data block at the start of every reply, in three deltas."""

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> AsyncIterator[Event]:
        async for event in next(request):
            yield event
            if isinstance(event, ReplyStart):
                data = wav_bytes()
                yield DataBlockStart("audio1", "audio/wav")
                third = len(data) // 3
                for part in (data[:third], data[third : 2 * third], data[2 * third :]):
                    yield DataBlockDelta("audio1", part)
                yield DataBlockEnd("audio1")


def make_agent(
    turns: Sequence[Any],
    *,
    tools: Sequence[Tool] = (write_note, read_note),
    middleware: Sequence[Middleware] = (),
    delay: float = 0.0,
    chunk_size: int = 4,
) -> tuple[Agent, ScriptedModel]:
    model = ScriptedModel(turns, delay=delay, chunk_size=chunk_size)
    return Agent(model, tools=tools, middleware=middleware, system_prompt="be brief"), model


def scripted_app(turns: Sequence[Any], **agent: Any) -> tuple[AgentShellApp, Agent, ScriptedModel]:
    """The whole app over :func:`make_agent` (``agent`` goes to it)."""
    from shell.tui.app import AgentShellApp

    built, model = make_agent(turns, **agent)
    return AgentShellApp(built, model_label="scripted"), built, model


def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: Mapping[str, str | bytes]) -> Path:
    """A workspace ``tmp_path/ws`` holding ``files`` (relative name: text or bytes),
    with the data and config dirs under ``tmp_path`` (never the user's)."""
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(tmp_path / "config"))
    root = tmp_path / "ws"
    root.mkdir()
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def runtime_app(ws: Path, turns: Sequence[Any], *, delay: float = 0.0, chunk_size: int = 4,
                **settings: Any) -> tuple[AgentShellApp, ScriptedModel]:
    """The whole app over the whole runtime (default middleware, the real tools) in
    ``ws``, answering with ``turns``; nothing recorded; ``settings`` as in the config."""
    from shell.config import Settings
    from shell.runtime import RuntimeOptions, ShellRuntime
    from shell.tui.app import AgentShellApp

    model = ScriptedModel(turns, delay=delay, chunk_size=chunk_size)
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(ws), record=False),
                                  settings=Settings(path=ws / "none.toml", **settings), model=model)
    return AgentShellApp(runtime=runtime), model


def flood_app(text: str) -> tuple[AgentShellApp, Agent]:
    """The whole app over a model that streams ``text`` without pause, 64 characters a
    delta (the flood the cancel tests press Esc in)."""
    from shell.tui.app import AgentShellApp

    agent = Agent(ScriptedModel([text], delay=0, chunk_size=64))
    return AgentShellApp(agent, model_label="scripted"), agent


def drawn_and_behind(widget: AssistantMessage) -> bool:
    """Some of the reply drawn and more received than drawn: had Esc come before the
    first frame drew anything, the history would rightly keep no answer at all (nothing
    was shown); CI saw that under load (170 kB received, 0 drawn)."""
    return 0 < widget.backlog < len(widget.text)


async def reply_under_way(app: AgentShellApp, pilot: Any, ready: Any = drawn_and_behind) -> AssistantMessage:
    """Start a reply and wait until its last text block is ``ready(widget)`` (by default:
    some drawn, more received than drawn yet); that widget. Started directly, not typed: the pilot's
    key presses wait for a screen that a flood never lets go idle."""
    from shell.tui.widgets.assistant_message import AssistantMessage

    app.start_reply("go")

    def under_way() -> bool:
        widgets = app.query(AssistantMessage)
        return bool(widgets) and bool(ready(widgets.last()))

    await wait_for(pilot, under_way)
    return app.query(AssistantMessage).last()


def shown_entries(app: AgentShellApp, span: Any = lambda state: state.call_id) -> list[str]:
    """The conversation's messages and spans, top to bottom: ``user:<text>``,
    ``reply:<text>``, ``span:<span(state)>`` (by default the call's id)."""
    from shell.tui.widgets.assistant_message import AssistantMessage
    from shell.tui.widgets.tool_span import ToolSpan
    from shell.tui.widgets.user_message import UserMessage

    out: list[str] = []
    for widget in app.conversation.children:
        if isinstance(widget, UserMessage):
            out.append(f"user:{widget.text}")
        elif isinstance(widget, AssistantMessage):
            out.append(f"reply:{widget.text}")
        elif isinstance(widget, ToolSpan):
            out.append(f"span:{span(widget.state)}")
    return out


def drawn_text(widget: AssistantMessage) -> str:
    """What of ``widget``'s text is drawn: its ``text`` also holds what waits for the next
    frame, which Esc drops. A test that waited for words in ``text`` and pressed Esc failed
    under load (CI): the words were all still waiting, and nothing of them was drawn."""
    return widget.text[: len(widget.text) - widget.backlog]


async def cancelled_under_way(app: AgentShellApp, pilot: Any,
                              ready: Any = drawn_and_behind) -> AssistantMessage:
    """Start a reply, press Esc once its last text block is ``ready(widget)`` (see
    :func:`reply_under_way`), and wait for the reply to end; that widget."""
    widget = await reply_under_way(app, pilot, ready)
    await pilot.press("escape")
    await wait_for(pilot, lambda: not app.busy)
    return widget


def notices(app: App[Any]) -> list[str]:
    """The notice lines the conversation shows (an error the reply ended with is one):
    what an assertion about a reply's end prints when it fails."""
    from shell.tui.widgets.notice_line import NoticeLine

    return [n.text for n in app.query(NoticeLine)]


class ConversationPage(App[None]):
    """Only the conversation widget: for tests of how messages draw."""

    def compose(self) -> ComposeResult:
        yield Conversation()


async def streaming_message(app: App[None]) -> AssistantMessage:
    """A streaming reply mounted at the end of ``app``'s conversation, which follows it."""
    from shell.tui.widgets.assistant_message import AssistantMessage

    conversation = app.query_one(Conversation)
    conversation.anchor()
    message = AssistantMessage(streaming=True)
    await conversation.mount(message)
    return message


def approval_dialog(app: App[Any]) -> ApprovalScreen | None:
    """The approval dialog when it is the screen on top and mounted, else None.

    A pushed screen is on top before its widgets are: a test that queried it then
    failed under load (CI), and the app, torn down mid-mount, failed in on_mount."""
    from shell.tui.screens.approval import ApprovalScreen

    screen = app.screen
    return screen if isinstance(screen, ApprovalScreen) and screen.is_mounted else None


async def ask_dialog(app: App[Any], pilot: Any, text: str = "go") -> ApprovalScreen:
    """Send ``text`` and wait for the approval dialog it leads to; the dialog."""
    await send(pilot, text)
    await wait_for(pilot, lambda: approval_dialog(app) is not None)
    dialog = approval_dialog(app)
    assert dialog is not None
    return dialog


async def wait_for(pilot: Any, condition: Any, timeout: float = 30.0) -> None:
    """Let the app run until ``condition()`` is true (fail after ``timeout``: generous,
    since a CI machine under load may take seconds for what takes milliseconds here;
    a condition met returns at once, so only a failing test waits that long)."""
    import asyncio
    import time

    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        # a plain sleep: pilot.pause() waits for every widget to go idle, which a
        # reply streaming at 60 frames a second keeps from happening for long
        await asyncio.sleep(0.02)
    await asyncio.sleep(0)


def screen_drawn(app: Any) -> bool:
    """Nothing waits to be laid out or drawn: no widget of the screen has a message,
    a layout, a scroll or a repaint pending, nor the screen (nor a callback deferred
    until after a refresh, as ``scroll_to`` is)."""
    screen = app.screen
    if (screen._layout_required or screen._scroll_required or screen._repaint_required
            or screen._dirty_widgets or screen._callbacks
            or getattr(screen, "_render_deferred", False) or getattr(screen, "_render_held", False)):
        return False  # (the last two: a split frame's render half, still to come)
    widgets = list(screen.walk_children())
    return all(node._message_queue.empty() for node in (app, screen, *widgets)) and not any(
        w._layout_required or w._scroll_required or w._repaint_required for w in widgets if _shown(w, screen)
    )


def _shown(widget: Any, screen: Any) -> bool:
    """Whether ``widget`` and its parents up to ``screen`` are displayed: a hidden one is
    never painted, so its repaint request stays pending (a ToolSpan's hidden 'show all'
    button kept the screen from ever counting as drawn)."""
    node = widget
    while node is not None and node is not screen:
        if not node.display:
            return False
        node = node.parent
    return True


async def frame_drawn(pilot: Any, timeout: float = 30.0) -> None:
    """Wait until the screen has drawn all that was asked of it so far (a scroll, a
    mount, a layout), for reading the screen after a change where a fixed pause, which
    a busy machine outlasted, stood before."""
    await wait_for(pilot, lambda: screen_drawn(pilot.app), timeout)


async def eventually(pilot: Any, check: Any, timeout: float = 30.0) -> None:
    """Let the app run until ``check()`` raises no AssertionError; after ``timeout``,
    raise its last one. For a state the app reaches in several passes (a redraw, a
    timer's sync, a layout): the test keeps its own asserts, and a fixed pause before
    them, which a busy machine outlasted, is not needed."""
    import asyncio
    import time

    end = time.monotonic() + timeout
    while True:
        try:
            check()
            return
        except AssertionError:
            if time.monotonic() > end:
                raise
        await asyncio.sleep(0.02)


async def repeat_until(pilot: Any, action: Any, condition: Any, timeout: float = 30.0) -> None:
    """Do ``action()`` and let the app run, again and again, until ``condition()`` is
    true (fail after ``timeout``): for a state reached a step per action (each scroll
    to the top brings one batch back). A fixed number of tries failed on a busy
    machine, where each step takes longer; each step waits for the screen to have
    drawn what the action asked (not a fixed pause, too short under load and idle
    time otherwise)."""
    import time

    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        action()
        await wait_for(pilot, lambda: screen_drawn(pilot.app), max(end - time.monotonic(), 0.1))


async def send(pilot: Any, text: str) -> None:
    await pilot.press(*text)
    await pilot.press("enter")


async def type_now(app: Any, text: str) -> None:
    """Keys straight to the prompt, as a terminal delivers them (no idle waits)."""
    import asyncio

    from textual import events

    for ch in text:
        app.prompt.post_message(events.Key(ch, ch))
    app.prompt.post_message(events.Key("enter", None))
    await asyncio.sleep(0.05)
