"""The three front ends agree: one scripted conversation, driven through the TUI
(pilot), the line mode (a prompt-toolkit pipe) and headless mode (its terminal
approver), shows the same argument summaries, the same call statuses, gives the
model the same words for the same decision, and ends with the same exit code."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.config import Settings
from shell.core.approvals import rejected_message
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage
from shell.frontend.summary import summarize_args
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio

READ = {"path": "README.md"}
WRITE = {"path": "notes.txt", "content": "hello"}
TURNS: list[Any] = [
    AssistantMessage((
        TextBlock("Looking, then writing."),
        ToolCallBlock("c1", "read_file", READ),
        ToolCallBlock("c2", "write_file", WRITE),
    )),
    RuntimeError("the model's server went away"),
]


@dataclass
class Seen:
    """What a front end showed and decided."""

    shown: str
    statuses: dict[str, str]
    results: dict[str, str]
    exit_code: int


def runtime_in(tmp_path: Path) -> ShellRuntime:
    (tmp_path / "README.md").write_text("# A project\n")
    return ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel(TURNS),
    )


def results(runtime: ShellRuntime) -> dict[str, str]:
    return {m.call_id: m.text for m in runtime.agent.messages if isinstance(m, ToolResultMessage)}


async def headless(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seen:
    import shell.headless as headless_mode

    answers = ["n\n", "\n"]  # reject, no reason

    class Tty:
        def __init__(self) -> None:
            self.said: list[str] = []

        def write(self, text: str) -> None:
            self.said.append(text)

        def flush(self) -> None:
            pass

        def readline(self) -> str:
            return answers.pop(0) if answers else ""

        def streams(self) -> dict[str, Any]:
            return {}

        def __enter__(self) -> Tty:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(headless_mode, "_Tty", Tty)
    runtime = runtime_in(tmp_path)
    out, err = io.StringIO(), Terminal()
    code = await headless_mode.run_headless(runtime, "go", approve="ask", out=out, err=err)
    statuses = {c: "done" if "✓" in line else "rejected" if "⊘" in line and "rejected" in line else "?"
                for c, line in (("c1", _line(err.getvalue(), "read_file")),
                                ("c2", _line(err.getvalue(), "write_file")))}
    return Seen(err.getvalue(), statuses, results(runtime), code)


def _line(text: str, name: str) -> str:
    return next((line for line in text.splitlines() if f" {name} " in line), "")


async def line_mode(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seen:
    from prompt_toolkit.history import InMemoryHistory
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from rich.console import Console

    from shell.plain import PlainShell

    runtime = runtime_in(tmp_path)
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, color_system=None)

    async def until(text: str) -> None:
        with anyio.fail_after(10):
            while text not in out.getvalue():  # noqa: ASYNC110 (polling what the console printed)
                await anyio.sleep(0.01)

    with create_pipe_input() as pipe:
        history = InMemoryHistory()
        shell = PlainShell(runtime, console=console, input=pipe, output=DummyOutput(), history=history)
        async with anyio.create_task_group() as tg:
            tg.start_soon(shell.run)
            pipe.send_text("go\r")
            await until("? write_file")
            pipe.send_text("n")
            pipe.send_text("\r")  # the reason prompt: none
            await until("error (")
            with anyio.fail_after(30):  # the reply is over and the prompt back, to read the Ctrl+D
                while shell.last_reply is None or not shell.session.app.is_running:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            pipe.send_text("\x04")  # Ctrl+D on the empty prompt: quit
    assert shell.last_reply is not None
    calls = shell.last_reply.calls
    return Seen(out.getvalue(), {c: calls[c].status for c in calls}, results(runtime),
                shell.last_reply.exit_code)


async def tui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Seen:
    from shell.tui.app import AgentShellApp
    from shell.tui.screens.approval import ApprovalScreen
    from shell.tui.widgets.tool_span import ToolSpan

    monkeypatch.setattr(ApprovalScreen, "GUARD_S", 0.0)
    runtime = runtime_in(tmp_path)
    app = AgentShellApp(runtime=runtime)

    async def until(pilot: Any, condition: Callable[[], bool]) -> None:
        with anyio.fail_after(10):
            while not condition():
                await pilot.pause(0.02)

    async with app.run_test(size=(140, 40)) as pilot:
        await until(pilot, lambda: app.ready)
        app.prompt.insert("go")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.is_mounted)
        await pilot.press("n")
        await pilot.press("enter")  # the reason box: none
        await until(pilot, lambda: app.last_reply is not None and app.last_reply.end is not None)
        await until(pilot, lambda: not app.busy)
        shown = "\n".join(span._make_title(140) for span in app.query(ToolSpan))
        assert app.last_reply is not None
        calls = app.last_reply.calls
        return Seen(shown, {c: calls[c].status for c in calls}, results(runtime), app.last_reply.exit_code)


FRONT_ENDS: dict[str, Callable[[Path, pytest.MonkeyPatch], Awaitable[Seen]]] = {
    "tui": tui,
    "line mode": line_mode,
    "headless": headless,
}


@pytest.mark.parametrize("front_end", list(FRONT_ENDS))
async def test_the_front_ends_agree(front_end: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = await FRONT_ENDS[front_end](tmp_path, monkeypatch)
    # the same summaries, next to the same status marks
    assert f"✓ read_file {summarize_args(READ)}" in seen.shown.replace("(", "").replace(")", "")
    assert f"⊘ write_file {summarize_args(WRITE)}" in seen.shown.replace("(", "").replace(")", "")
    assert summarize_args(WRITE) == "path=notes.txt, content=hello"
    # the same decisions: read-only ran unasked, the rejected write reads "rejected", with the one message
    assert seen.statuses == {"c1": "done", "c2": "rejected"}
    assert seen.results["c2"] == rejected_message("write_file")
    assert seen.results["c1"].startswith("# A project") or "A project" in seen.results["c1"]
    assert (tmp_path / "notes.txt").exists() is False
    # the same end: the model's error is exit code 1 in every front end
    assert seen.exit_code == 1
