"""The flow in the TUI (pilot): rewind (Esc Esc and /rewind), steering mid-reply,
notifications only while unfocused (the escape sequences captured), Ctrl+R over the
prompt history, /copy through OSC 52, custom commands that send."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from textual import events

from shell.agent import tool
from shell.config import Settings
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, UserMessage
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tui.app import AgentShellApp
from shell.tui.flow import DOUBLE_ESC_S
from shell.tui.screens.history_search import HistorySearchScreen
from shell.tui.screens.rewind import RewindScreen
from shell.tui.widgets.user_message import UserMessage as UserWidget

from .helpers import SIZE, send, wait_for


def held_reply(then: str) -> tuple[AgentShellApp, ScriptedModel, anyio.Event]:
    """The app over a model whose first answer calls a tool that waits for the returned
    event (a reply held running, for what is typed meanwhile), then answers ``then``."""
    from shell.agent import Agent

    gate = anyio.Event()

    @tool(read_only=True)
    async def wait_a_bit() -> str:
        """Waits until the test lets it go."""
        await gate.wait()
        return "waited"

    model = ScriptedModel([AssistantMessage((ToolCallBlock("c1", "wait_a_bit", {}),)), then])
    return AgentShellApp(Agent(model, tools=[wait_a_bit])), model, gate

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    for name in ("TMUX", "TERM_PROGRAM", "VTE_VERSION", "KITTY_WINDOW_ID", "DISPLAY", "WAYLAND_DISPLAY",
                 "DBUS_SESSION_BUS_ADDRESS", "LC_TERMINAL", "WEZTERM_PANE", "GHOSTTY_RESOURCES_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


class Clock:
    """The flow's clock, moved by the test: under load the pilot's two Escs came more
    than the double-Esc window apart (or a lone Esc and the next pair less), so the
    test says which presses count as one double Esc, not the machine's speed."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    import shell.tui.flow

    fake = Clock()
    monkeypatch.setattr(shell.tui.flow, "time", fake)
    return fake


def write(path: str, content: str) -> AssistantMessage:
    return AssistantMessage((TextBlock("Writing."), ToolCallBlock(f"w-{content}", "write_file",
                                                                  {"path": path, "content": content})))


def runtime(ws: Path, turns: list[Any]) -> ShellRuntime:
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(ws), permission_mode="bypass"),
        settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns),
    )


def captured(app: AgentShellApp) -> list[str]:
    out: list[str] = []
    app.flow.write = out.append  # type: ignore[method-assign]
    return out


async def test_a_slow_rewind_preview_does_not_hold_the_dialog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    """Working out a preview reads every changed file and its kept copy (and a resumed
    session's file): it runs in a thread, so the list moves at once and says it is
    working; each position's preview is worked out once."""
    import threading

    import shell.rewind

    real, asked = shell.rewind.plan_rewind, []
    release = threading.Event()  # the first preview takes as long as the test says, not a fixed time

    def slow(runtime: Any, number: int) -> Any:
        asked.append(number)
        release.wait(timeout=30)
        return real(runtime, number)

    monkeypatch.setattr(shell.rewind, "plan_rewind", slow)
    ws = tmp_path / "ws"
    ws.mkdir()
    rt = runtime(ws, [write("a.txt", "one"), "First done.", write("a.txt", "two"), "Second done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "make it one")
        await wait_for(pilot, lambda: not app.busy and (ws / "a.txt").read_text() == "one")
        await send(pilot, "make it two")
        await wait_for(pilot, lambda: not app.busy and (ws / "a.txt").read_text() == "two")
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
        plan = app.screen.query_one("#plan")
        assert "Working out" in str(plan.source)  # type: ignore[attr-defined]
        release.set()
        await wait_for(pilot, lambda: "restore `a.txt`" in str(plan.source))  # type: ignore[attr-defined]
        await pilot.press("up")
        await wait_for(pilot, lambda: len(asked) == 2)
        await pilot.press("down")  # back to a position already worked out: shown from memory
        await pilot.pause()
        assert "restore `a.txt`" in str(plan.source) and len(asked) == 2  # type: ignore[attr-defined]


async def test_esc_esc_opens_rewind_and_b_goes_back_in_both(tmp_path: Path, clock: Clock) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.txt").write_bytes(b"original\r\n")
    rt = runtime(ws, [write("a.txt", "one"), "First done.", write("a.txt", "two"), "Second done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "make it one")
        await wait_for(pilot, lambda: not app.busy and (ws / "a.txt").read_text() == "one")
        await send(pilot, "make it two")
        await wait_for(pilot, lambda: not app.busy and (ws / "a.txt").read_text() == "two")
        await pilot.press("escape")
        assert not isinstance(app.screen, RewindScreen)  # one Esc does nothing
        clock.now += DOUBLE_ESC_S + 0.1  # and is forgotten
        await pilot.press("escape", "escape")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
        await wait_for(pilot, lambda: "restore `a.txt`" in str(app.screen.query_one("#plan").source))  # type: ignore[attr-defined]
        await pilot.press("up")  # the first message
        await pilot.pause()
        await pilot.press("b")  # asks first, saying what goes
        screen = app.screen
        assert isinstance(screen, RewindScreen)
        await wait_for(pilot, lambda: "puts back 1 file(s)" in asked(screen))
        assert (ws / "a.txt").read_text() == "two" and len(app.agent.messages) == 8
        await pilot.press("y")
        await wait_for(pilot, lambda: (ws / "a.txt").read_bytes() == b"original\r\n")
        await wait_for(pilot, lambda: app.prompt.text == "make it one")
        assert app.agent.messages == []
        assert [w.text for w in app.query(UserWidget)] == []


def asked(screen: RewindScreen) -> str:
    """The question the dialog asks before a rewind ("" while choosing in the list)."""
    return str(screen.query_one("#ask").render()) if screen.asked is not None else ""


async def test_the_rewind_list_stops_at_its_ends_and_enter_asks_before_dropping_the_conversation(
    tmp_path: Path,
) -> None:
    """No file involved, the rewind still drops the conversation: Enter asks first, naming
    the messages that go, and Down on the newest message stays there (it wrapped to the
    oldest: "Down Down Enter" rewound to message 2 of 3 at once)."""
    ws = tmp_path / "ws"
    ws.mkdir()
    rt = runtime(ws, ["One.", "Two.", "Three."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SIZE) as pilot:
        for text in ("first question", "second question", "third question"):
            await send(pilot, text)
            await wait_for(pilot, lambda: not app.busy and len(app.agent.messages) % 2 == 0)
        assert len(app.agent.messages) == 6
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        assert isinstance(screen, RewindScreen)
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert screen.position == 3 and app.screen is screen and len(app.agent.messages) == 6
        await wait_for(pilot, lambda: "“third question”" in asked(screen))
        said = asked(screen)
        assert "“second question”" not in said and "removes from the conversation" in said, said
        await pilot.press("escape")  # back to the list, nothing done
        await pilot.pause()
        assert app.screen is screen and screen.asked is None and len(app.agent.messages) == 6
        await pilot.press("up", "up", "up", "enter")  # stops at the first message too
        everything = "“first question”, “second question”, “third question”"
        await wait_for(pilot, lambda: everything in asked(screen))
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: "“second question”, “third question”" in asked(screen))
        counts = "2 messages of yours and 2 model turns"  # 4 messages go: the question and the preview agree
        assert counts in asked(screen) and counts in screen._plans[screen.position], asked(screen)
        await pilot.press("enter")  # the question's default: Rewind
        await wait_for(pilot, lambda: app.prompt.text == "second question")
        assert [m.content for m in app.agent.messages if isinstance(m, UserMessage)] == ["first question"]


async def test_on_a_60_by_20_screen_the_rewind_dialog_cuts_off_no_button_and_keeps_the_chosen_row(
    tmp_path: Path,
) -> None:
    """At 60 columns the four choice buttons ran past the dialog's edge ("Fi"): there the
    hint that names the same keys stands alone; and the question kept no row of the list."""
    from textual.widgets import Button, OptionList

    ws = tmp_path / "ws"
    ws.mkdir()
    app = AgentShellApp(runtime=runtime(ws, ["One.", "Two."]))
    async with app.run_test(size=(60, 20)) as pilot:
        for text in ("first question", "second question"):
            await send(pilot, text)
            await wait_for(pilot, lambda: not app.busy and len(app.agent.messages) % 2 == 0)
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
        screen = app.screen
        assert isinstance(screen, RewindScreen)

        def cut_off() -> list[str]:
            inside = screen.query_one("#dialog").content_region
            return [str(b.label) for b in screen.query(Button)
                    if b.display and b.parent is not None and b.parent.display
                    and not inside.contains_region(b.region)]

        await pilot.pause()
        assert cut_off() == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: "“second question”" in asked(screen))
        assert cut_off() == [] and screen.query_one(OptionList).content_region.height >= 1


async def test_rewind_dialog_escape_changes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    rt = runtime(ws, [write("a.txt", "one"), "Done."])
    app = AgentShellApp(runtime=rt)
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "make it")
        await wait_for(pilot, lambda: not app.busy and (ws / "a.txt").exists())
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindScreen))
        assert (ws / "a.txt").read_text() == "one" and len(app.agent.messages) == 4


async def test_ctrl_enter_steers_a_running_reply(tmp_path: Path) -> None:
    app, model, gate = held_reply("Took your note.")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "start")
        await wait_for(pilot, lambda: app.busy and len(model.requests) == 1)
        await pilot.press(*"mind the tests")
        await pilot.press("ctrl+enter")
        assert app.prompt.text == "" and app.agent.steering
        gate.set()
        await wait_for(pilot, lambda: not app.busy)
        assert model.requests[1].messages[-1] == UserMessage("mind the tests")
        shown = [w.text for w in app.query(UserWidget)]
        assert shown == ["start", "mind the tests"]  # where it landed, after the tool
        assert app.main.queued == []


async def test_alt_enter_from_a_legacy_terminal_is_a_key() -> None:
    from textual._xterm_parser import XTermParser

    from shell.tui.flow import install_alt_enter

    install_alt_enter()
    keys = [getattr(e, "key", None) for e in XTermParser().feed("\x1b\r")]
    assert keys == ["alt+enter"]


async def test_notifications_only_while_unfocused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM_PROGRAM", "iTerm.app")
    ws = tmp_path / "ws"
    ws.mkdir()
    app = AgentShellApp(runtime=runtime(ws, ["First \x1b]0;evil\x07answer.", "Second answer."]))
    async with app.run_test(size=SIZE) as pilot:
        out = captured(app)
        await send(pilot, "one")
        await wait_for(pilot, lambda: not app.busy and len(app.agent.messages) == 2)
        assert out == []  # focused: nothing
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: not app.app_focus)
        app.prompt.load_text("two")
        app.prompt.action_submit()
        await wait_for(pilot, lambda: not app.busy and len(app.agent.messages) == 4)
        await wait_for(pilot, lambda: bool(out))
        assert out == ["\x1b]9;agent-shell: reply finished: Second answer.\x07"]
        app.post_message(events.AppFocus())
        await wait_for(pilot, lambda: app.app_focus)


async def test_notification_text_is_made_safe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VTE_VERSION", "7600")
    ws = tmp_path / "ws"
    ws.mkdir()
    app = AgentShellApp(runtime=runtime(ws, ["evil\x07\x1b]52;c;AAAA\x07;x"]))
    async with app.run_test(size=SIZE) as pilot:
        out = captured(app)
        app.post_message(events.AppBlur())
        await wait_for(pilot, lambda: not app.app_focus)
        app.prompt.load_text("go")  # (a key press would count as the user being back)
        app.prompt.action_submit()
        await wait_for(pilot, lambda: bool(out))
        [seq] = out
        assert seq.startswith("\x1b]777;notify;agent-shell: reply finished;") and seq.endswith("\x07")
        body = seq[len("\x1b]777;notify;"):-1]
        assert "\x07" not in body and "\x1b" not in body and body.count(";") == 1


async def test_ctrl_r_finds_a_prompt_from_an_earlier_run(tmp_path: Path) -> None:
    from shell.frontend.prompt_history import PromptHistory

    PromptHistory().add("deploy the staging branch")
    PromptHistory().add("something else")
    ws = tmp_path / "ws"
    ws.mkdir()
    app = AgentShellApp(runtime=runtime(ws, []))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, HistorySearchScreen))
        await pilot.press(*"stag")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.prompt.text == "deploy the staging branch")
        await pilot.press("up")  # and Up walks the same history
        assert app.prompt.sent_history[-2:] == ["deploy the staging branch", "something else"]


async def test_copy_writes_osc52(tmp_path: Path) -> None:
    import base64

    ws = tmp_path / "ws"
    ws.mkdir()
    app = AgentShellApp(runtime=runtime(ws, ["Run:\n```sh\nmake test\n```"]))
    async with app.run_test(size=SIZE) as pilot:
        out = captured(app)
        await send(pilot, "how do I test")
        await wait_for(pilot, lambda: not app.busy and len(app.agent.messages) == 2)
        await send(pilot, "/copy 1")
        await wait_for(pilot, lambda: bool(out))
        assert out == ["\x1b]52;c;" + base64.b64encode(b"make test").decode() + "\x07"]


async def test_a_custom_command_sends_its_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config"  # the TUI conftest's config dir
    (config / "commands").mkdir(parents=True)
    (config / "commands" / "review.md").write_text("---\ndescription: Review a file\n---\nReview $ARGUMENTS")
    ws = tmp_path / "ws"
    ws.mkdir()
    app = AgentShellApp(runtime=runtime(ws, ["Reviewed."]))
    async with app.run_test(size=SIZE) as pilot:
        assert "/review" in app.main.command_names()
        await send(pilot, "/review main.py")
        await wait_for(pilot, lambda: not app.busy and len(app.agent.messages) == 2)
        assert app.agent.messages[0] == UserMessage("Review main.py")


async def test_esc_stops_the_reply_and_holds_the_queue_in_the_prompt(tmp_path: Path) -> None:
    """Esc with messages queued started the next one at once: in auto mode a queued
    command ran right after the user pressed the stop key (finding T12). Esc stops;
    the queued messages come back into the prompt, ahead of the draft, unsent."""
    app, model, _ = held_reply("sent unasked")  # Esc ends it: the tool is never let go
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "start")
        await wait_for(pilot, lambda: app.busy and len(model.requests) == 1)
        await send(pilot, "run touch queued.txt")
        await send(pilot, "and then this")
        await pilot.press(*"a draft")
        assert app.main.queued == ["run touch queued.txt", "and then this"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        await pilot.pause()
        assert len(model.requests) == 1  # nothing more was sent
        assert app.main.queued == []
        assert app.prompt.text == "run touch queued.txt\n\nand then this\n\na draft"
        assert [w.text for w in app.query(UserWidget)] == ["start"]


async def test_esc_puts_a_steer_the_reply_never_took_back_in_the_prompt(tmp_path: Path) -> None:
    """A steer waits for the reply's next tool boundary; Esc before it came sent it as
    the next message once the reply ended (finding T12): it comes back into the prompt."""
    app, model, _ = held_reply("sent unasked")  # Esc ends it: the tool is never let go
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "start")
        await wait_for(pilot, lambda: app.busy and len(model.requests) == 1)
        await pilot.press(*"mind the tests")
        await pilot.press("ctrl+enter")
        assert app.prompt.text == "" and app.agent.steering
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        await wait_for(pilot, lambda: app.prompt.text == "mind the tests")
        assert len(model.requests) == 1 and app.main.queued == []
        assert [w.text for w in app.query(UserWidget)] == ["start"]
