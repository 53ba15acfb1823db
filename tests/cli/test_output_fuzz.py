"""Fuzz: whatever a model, a tool, an MCP server, a provider or a session file says,
no ESC, C1 control, BEL, bidi override or invisible character (Unicode tags,
zero-width space, direction marks: text a user cannot see but a model reads)
reaches the terminal, in any front end.

Hypothesis writes strings from every control class (C0, ESC sequences, C1, DEL,
bidi overrides and isolates, lone surrogates) mixed with ordinary text; they go
in as model text, thinking, tool names, tool arguments, tool results, notices,
errors, MCP tool descriptions, model ids and session titles, and come out through
headless (text, json, jsonl), the line mode and the TUI.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from middleware.base import Middleware
from middleware.context import HookContext
from middleware.types import ReplyRequest
from shell.agent import Agent, AssistantMessage, TextBlock, ThinkingBlock, ToolCallBlock
from shell.commands.agent import describe_tools
from shell.config import Settings
from shell.core.events import ErrorEvent, Event, Notice, ToolExecutionEnd
from shell.core.tools import tool
from shell.headless import run_headless
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import SessionInfo, format_sessions
from shell.tools.workspace import Workspace

CONTROLS = st.sampled_from(
    [chr(c) for c in range(0x20) if c not in (0x09, 0x0A)]
    + ["\x1b[2J", "\x1b]0;title\x07", "\x1b]52;c;ZXZpbA==\x1b\\", "\x1bP+q\x1b\\", "\x7f"]
    + [chr(c) for c in range(0x80, 0xA0)]
    + [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]
    + ["\ud800", "\udfff", "\ud83d"]
    + ["\U000e0049", "\U000e0020", "\U000e007f", "\U000e0100", "\u200b", "\u200e", "\u200f", "\ufeff",
       "\u2028", "\u2029", "\u2060", "\u2064", "\u00ad"]  # invisible: tags, zero-width, marks
)
HOSTILE = st.lists(st.one_of(CONTROLS, st.text(max_size=8)), min_size=1, max_size=12).map("".join)
INVISIBLE = {0x00AD, 0x200B, 0x200E, 0x200F, 0xFEFF, 0x2028, 0x2029, *range(0x2060, 0x2065),
             *range(0xE0000, 0xE0080), *range(0xE0100, 0xE01F0)}
FORBIDDEN = {0x1B, 0x07, 0x9B, 0x9D, 0x90} | set(range(0x80, 0xA0)) | set(range(0x202A, 0x202F)) | set(
    range(0x2066, 0x206A)
) | INVISIBLE
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reaches_terminal(text: str) -> list[str]:
    return [repr(c) for c in text if ord(c) in FORBIDDEN or 0xD800 <= ord(c) <= 0xDFFF]


class Announces(Middleware):
    """A middleware whose notice and error carry the hostile text too."""

    def __init__(self, text: str) -> None:
        self.text = text

    async def on_reply(self, ctx: HookContext, request: ReplyRequest, next: Any) -> Any:
        ctx.emit(Notice("warning", self.text, "fuzz"))
        ctx.emit(ErrorEvent(self.text, self.text))
        async for event in next(request):
            yield event


def hostile_runtime(tmp: Path, text: str) -> ShellRuntime:
    # a name model APIs take (a tool of ours with another is refused where it is written:
    # finding Y14); the model's own hostile name is the second call's, which names no tool
    name = "t" + "".join(c for c in text if c.isascii() and c.isalnum())[:10]

    async def echo(value: str) -> str:
        return f"result {text} {value}"

    echo_tool = tool(name=name, read_only=True)(echo)
    echo_tool.description = f"An MCP tool {text}"  # type: ignore[misc]
    turn = AssistantMessage((
        ThinkingBlock(f"thinking {text}"),
        TextBlock(f"text {text}"),
        ToolCallBlock("c1", name, {"value": text, f"k{text}": [text, {"deep": text}]}),
        ToolCallBlock("c2", f"no such tool {text}", {"a": text}),
    ))
    model = ScriptedModel([turn, f"answer {text}"], delay=0, chunk_size=3)
    agent = Agent(model, tools=[echo_tool], middleware=[Announces(text)])
    options = RuntimeOptions(record=False, cwd=str(tmp))
    return ShellRuntime(agent, settings=Settings(), workspace=Workspace(tmp), options=options)


@FUZZ
@given(text=HOSTILE, fmt=st.sampled_from(["text", "json", "jsonl"]))
def test_headless_output(tmp_path_factory: pytest.TempPathFactory, text: str, fmt: str) -> None:
    runtime = hostile_runtime(tmp_path_factory.mktemp("h"), text)
    out, err = io.StringIO(), io.StringIO()

    async def go() -> int:
        return await run_headless(runtime, f"prompt {text}", output_format=fmt,  # type: ignore[arg-type]
                                  approve="always", out=out, err=err)

    anyio.run(go)
    for stream in (out.getvalue(), err.getvalue()):
        assert not reaches_terminal(stream), stream
    if fmt != "text":
        for line in out.getvalue().splitlines():
            json.loads(line)  # escaped, never broken


@FUZZ
@given(text=HOSTILE)
def test_line_mode_output(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from shell.commands import CommandResult, format_models
    from shell.plain import PlainShell

    tmp = tmp_path_factory.mktemp("p")
    runtime = hostile_runtime(tmp, text)
    runtime.problems.append(f"problem {text}")
    console = Console(file=io.StringIO(), width=100, color_system=None, force_terminal=False)

    async def go() -> None:
        with create_pipe_input() as pipe:
            shell = PlainShell(runtime, console=console, input=pipe, output=DummyOutput(),
                               history=InMemoryHistory())
            runtime.ask = None  # read-only tools only; nothing to ask
            shell._banner()
            await shell.reply(f"prompt {text}")
            shell._show_result(CommandResult(describe_tools(runtime)))  # /tools: MCP descriptions
            shell._show_result(CommandResult(format_models({"openai": [f"gpt {text}"]})))  # /model list
            info = SessionInfo("id", tmp, f"title {text}", 1, 0.0, "", str(tmp), "")
            shell._show_result(CommandResult(format_sessions([info])))  # /sessions
            shell._show_result(CommandResult(f"failed {text}", error=True))

    anyio.run(go)
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert not reaches_terminal(shown), shown


TUI_FUZZ = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@TUI_FUZZ
@given(text=HOSTILE)
def test_tui_output(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    from textual.widget import Widget

    from shell.tui.app import AgentShellApp
    from shell.tui.entries import NoticeEntry

    from ..tui.helpers import frame_drawn, wait_for

    runtime = hostile_runtime(tmp_path_factory.mktemp("t"), text)
    drawn: list[str] = []

    async def go() -> None:
        app = AgentShellApp(runtime=runtime)
        async with app.run_test(size=(100, 60)) as pilot:
            await pilot.pause()
            app.status.model_label = f"model {text}"
            app.start_reply(f"prompt {text}")
            await wait_for(pilot, lambda: not app.busy)
            await app.run_command_line("/tools")
            await app.conversation.add(NoticeEntry("warning", f"title {text}"))
            for span in app.query("ToolSpan"):
                span.collapsed = False  # type: ignore[attr-defined]
            await frame_drawn(pilot)  # the expanded spans laid out before their lines are read
            for widget in app.screen.query(Widget):
                for y in range(widget.size.height):
                    drawn.append(widget.render_line(y).text)

    anyio.run(go)
    screen = "\n".join(drawn)
    assert "answer" in screen and "MCP tool" in screen  # the paths were drawn
    assert not reaches_terminal(screen), screen


def test_the_fuzz_reaches_every_path(tmp_path: Path) -> None:
    """Without the sanitiser, these paths would carry the text raw: the fuzz can fail."""
    runtime = hostile_runtime(tmp_path, "\x1b[2J")
    assert "\x1b[2J" in describe_tools(runtime)
    events: list[Event] = []

    async def go() -> None:
        async for event in runtime.agent.reply("x"):
            events.append(event)

    anyio.run(go)
    assert any("\x1b[2J" in e.text for e in events if isinstance(e, Notice))
    assert any("\x1b[2J" in e.error for e in events if isinstance(e, ErrorEvent))
    results = [e for e in events if isinstance(e, ToolExecutionEnd)]
    assert "\x1b[2J" in results[0].result.text
