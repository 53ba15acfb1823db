"""The two-step start: the first frame comes before the runtime exists.

What a user relies on: the prompt takes input at once; what is typed before the
shell is ready is kept and sent (or run) once it is; a configuration error found
while building ends the app with exit code 2 and a one-line message, not a
traceback.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from shell.config import ConfigError, Settings
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tui.app import AgentShellApp
from shell.tui.widgets.assistant_message import AssistantMessage as AssistantWidget
from shell.tui.widgets.queue_bar import QueueBar
from shell.tui.widgets.user_message import UserMessage

from .helpers import SIZE, send, wait_for

pytestmark = pytest.mark.anyio


def _gated_build(tmp_path: Path, turns: list[str]) -> tuple[threading.Event, object]:
    gate = threading.Event()

    def build() -> ShellRuntime:
        assert gate.wait(10), "the test never opened the gate"
        return ShellRuntime.create(
            RuntimeOptions(cwd=str(tmp_path), record=False),
            settings=Settings(path=tmp_path / "none.toml"),
            model=ScriptedModel(turns),
        )

    return gate, build


async def test_prompt_takes_input_before_the_runtime_exists(tmp_path: Path) -> None:
    gate, build = _gated_build(tmp_path, ["The queued one arrived."])
    app = AgentShellApp(build=build, settings=Settings(path=tmp_path / "none.toml"))  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.ready
        assert app.focused is app.prompt
        assert "starting" in str(app.status.render())
        await send(pilot, "sent while starting")
        await send(pilot, "/tools")
        queue = app.query_one(QueueBar)
        assert queue.has_class("-shown")
        assert "sent while starting" in str(queue.render())
        assert app.status.queued == 2
        await pilot.press("f2")  # no panel yet: a note, not a crash
        gate.set()
        await wait_for(pilot, lambda: app.ready and not app.busy and not app.main.queued, timeout=10)
        arrived = "The queued one arrived."
        await wait_for(pilot, lambda: any(w.text == arrived for w in app.query(AssistantWidget)))
        users = [w.text for w in app.query(UserMessage)]
        assert users == ["sent while starting"]
        texts = [w.text for w in app.query(AssistantWidget)]
        assert any("read_file" in t for t in texts), "the queued /tools ran after the reply"
        assert not queue.has_class("-shown")
        assert app.status.state == "idle"
        await pilot.press("f2")
        assert app.side.shown


async def test_esc_while_starting_takes_the_queue_back_into_the_prompt(tmp_path: Path) -> None:
    """Esc at a slow start dropped the queued message with no word (finding J6): it
    comes back into the prompt, before what was being typed, and nothing is sent."""
    gate, build = _gated_build(tmp_path, ["should not be asked"])
    app = AgentShellApp(build=build, settings=Settings(path=tmp_path / "none.toml"))  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await send(pilot, "my carefully written long request")
        await send(pilot, "and a second one")
        await pilot.press(*"draft")
        assert app.status.queued == 2
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.status.queued == 0)
        assert app.prompt.text == "my carefully written long request\n\nand a second one\n\ndraft"
        assert not app.query_one(QueueBar).has_class("-shown")
        gate.set()
        await wait_for(pilot, lambda: app.ready and not app.busy, timeout=10)
        await pilot.pause()
        assert not list(app.query(UserMessage))  # nothing went out
        assert app.prompt.text.startswith("my carefully written long request")


@pytest.mark.parametrize(
    ("error", "code"),
    [(ConfigError("Unknown model 'nope:x': use provider:name."), 2), (RuntimeError("boom in a plugin"), 1)],
)
async def test_a_failed_start_exits_with_its_reason(tmp_path: Path, error: Exception, code: int) -> None:
    """The user's mistake: exit 2 and its one line. Our bug: exit 1 and the traceback."""

    def build() -> ShellRuntime:
        raise error

    app = AgentShellApp(build=build, settings=Settings(path=tmp_path / "none.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None, timeout=10)
    assert app.return_code == code
    if code == 2:
        assert app.startup_error == "Unknown model 'nope:x': use provider:name."
    else:
        assert app.startup_error is not None
        assert app.startup_error.startswith("could not start (RuntimeError: boom in a plugin)")
        assert "Traceback" in app.startup_error
