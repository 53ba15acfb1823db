"""The line mode explains a silent model: a local server can read a long prompt for
seconds before its first token, and a blank screen then looks like a hang."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from shell.config import Settings
from shell.core.model import ModelRequest
from shell.plain import PlainShell
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio


class SlowStart(ScriptedModel):
    """A scripted model that says nothing for ``pause`` seconds before each answer."""

    def __init__(self, turns: list[str], pause: float) -> None:
        super().__init__(turns)
        self.pause = pause

    async def stream(self, request: ModelRequest) -> AsyncIterator[object]:  # type: ignore[override]
        await anyio.sleep(self.pause)
        async for chunk in super().stream(request):
            yield chunk


async def reply_on_a_terminal(tmp_path: Path, pause: float, terminal: bool = True) -> str:
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=SlowStart(["The answer."], pause),
    )
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=terminal, color_system=None)
    with create_pipe_input() as pipe:
        shell = PlainShell(runtime, console=console, input=pipe, output=DummyOutput(),
                           history=InMemoryHistory())
        await shell.reply("hello")
    await runtime.aclose()
    return out.getvalue()


async def test_a_silent_model_gets_a_spinner_that_is_gone_before_the_answer(tmp_path: Path) -> None:
    shown = await reply_on_a_terminal(tmp_path, pause=1.2)
    assert "waiting for the model" in shown
    assert shown.rindex("waiting for the model") < shown.index("The answer.")


async def test_a_quick_model_shows_no_spinner(tmp_path: Path) -> None:
    shown = await reply_on_a_terminal(tmp_path, pause=0.0)
    assert "The answer." in shown and "waiting for the model" not in shown


async def test_no_spinner_when_the_output_is_not_a_terminal(tmp_path: Path) -> None:
    shown = await reply_on_a_terminal(tmp_path, pause=1.2, terminal=False)
    assert "The answer." in shown and "waiting for the model" not in shown
