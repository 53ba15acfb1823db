"""--plain under a middleware that retries a model call which failed part way: text
already printed cannot be taken back, so the line mode says it is not part of the
answer; the answer kept is the retry's alone."""

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

from middleware import HookContext, Middleware
from middleware.base import ModelNext
from shell.config import Settings
from shell.core.messages import AssistantMessage
from shell.core.model import ModelChunk, ModelRequest, StopChunk, TextDelta
from shell.frontend.reply import WITHDRAWN_NOTE
from shell.plain import PlainShell
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio


class DropsOnce:
    name = "drops-once"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.calls += 1
        if self.calls == 1:
            yield TextDelta("Half of a first try.\n\n")
            raise ConnectionError("dropped")
        yield TextDelta("The whole answer.\n")
        yield StopChunk("end_turn")


class Retry(Middleware):
    async def on_model_call(
        self, ctx: HookContext, request: ModelRequest, next: ModelNext
    ) -> AsyncIterator[ModelChunk]:
        try:
            async for chunk in next(request):
                yield chunk
        except ConnectionError:
            async for chunk in next(request):
                yield chunk


async def test_printed_text_of_a_failed_attempt_is_said_withdrawn(tmp_path: Path) -> None:
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False),
        settings=Settings(path=tmp_path / "none.toml"), model=DropsOnce(),
    )
    runtime.agent.middleware.add(Retry())
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False, color_system=None)
    with create_pipe_input() as pipe:
        shell = PlainShell(
            runtime, console=console, input=pipe, output=DummyOutput(), history=InMemoryHistory()
        )
        async with anyio.create_task_group() as tg:
            tg.start_soon(shell.run)
            pipe.send_text("go\r")
            with anyio.fail_after(10):
                while "The whole answer." not in out.getvalue():  # noqa: ASYNC110 (what it printed)
                    await anyio.sleep(0.01)
            pipe.send_text("/quit\r")
    text = out.getvalue()
    assert text.index("Half of a first try.") < text.index(WITHDRAWN_NOTE) < text.index("The whole answer.")
    answers = [m.text for m in runtime.agent.messages if isinstance(m, AssistantMessage)]
    assert answers == ["The whole answer.\n"]
