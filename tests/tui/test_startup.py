"""The two-step start: the first frame comes before the runtime exists.

What a user relies on: the prompt takes input at once; what is typed before the
shell is ready is kept and sent (or run) once it is; a configuration error found
while building ends the app with exit code 2 and a one-line message, not a
traceback.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import threading
import time
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
        await wait_for(pilot, lambda: app.ready and not app.busy and not app._queue, timeout=10)
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


async def test_a_configuration_error_while_starting_exits_2(tmp_path: Path) -> None:
    def build() -> ShellRuntime:
        raise ConfigError("Unknown model 'nope:x': use provider:name.")

    app = AgentShellApp(build=build, settings=Settings(path=tmp_path / "none.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None, timeout=10)
    assert app.return_code == 2
    assert app.startup_error == "Unknown model 'nope:x': use provider:name."


def _run_on_pty(
    args: list[str], env: dict[str, str], timeout: float = 30, quit_on: bytes | None = None,
    cwd: Path | None = None, type_at_once: bytes = b"",
) -> tuple[int, str]:
    """Run ``args`` on a pseudo-terminal; with ``quit_on``, press Ctrl+Q once that
    text has been drawn; ``type_at_once`` is typed right after the launch, before
    the app has the terminal. Returns the exit code and everything drawn."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd)
    os.close(follower)
    if type_at_once:
        os.write(leader, type_at_once)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:
                    break
                seen += chunk
                if b"\x1b[6n" in chunk:
                    os.write(leader, b"\x1b[1;1R")
                if quit_on is not None and quit_on in seen:
                    os.write(leader, b"\x11")  # Ctrl+Q
                    quit_on = None
            elif proc.poll() is not None:
                break
        return proc.wait(timeout=5), seen.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)


def test_cli_bad_model_in_the_tui_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_SHELL_CONFIG_DIR": str(tmp_path / "c"),
           "AGENT_SHELL_DATA_DIR": str(tmp_path / "d"), "TERM": "xterm-256color"}
    code, output = _run_on_pty([sys.executable, "-m", "shell", "--model", "nope:x"], env)
    assert code == 2
    assert "agent-shell: Unknown model 'nope:x'" in output
    assert "Traceback" not in output


def test_cli_continue_in_the_tui_shows_the_last_session(tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_SHELL_CONFIG_DIR": str(tmp_path / "c"),
           "AGENT_SHELL_DATA_DIR": str(tmp_path / "d"), "TERM": "xterm-256color"}
    script = tmp_path / "turns.json"
    script.write_text('["Noted the word kiwi."]')
    first = subprocess.run(
        [sys.executable, "-m", "shell", "-p", "remember kiwi", "--model", f"scripted:{script}"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert first.returncode == 0, first.stderr
    args = [sys.executable, "-m", "shell", "--continue", "--model", f"scripted:{script}"]
    code, output = _run_on_pty(args, env, quit_on=b"kiwi.", cwd=tmp_path)
    assert "Noted the word kiwi." in output.replace("\x1b", "")
    assert code == 0


async def test_a_bug_while_starting_exits_1_with_the_trace(tmp_path: Path) -> None:
    def build() -> ShellRuntime:
        raise RuntimeError("boom in a plugin")

    app = AgentShellApp(build=build, settings=Settings(path=tmp_path / "none.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None, timeout=10)
    assert app.return_code == 1
    assert app.startup_error is not None
    assert app.startup_error.startswith("could not start (RuntimeError: boom in a plugin)")
    assert "Traceback" in app.startup_error


def test_a_message_typed_before_the_screen_opens_is_sent(tmp_path: Path) -> None:
    """Type at once after launching: the terminal, still in cooked mode, turns Enter
    into a line feed; the shell sends it rather than adding a new line."""
    env = {**os.environ, "AGENT_SHELL_CONFIG_DIR": str(tmp_path / "c"),
           "AGENT_SHELL_DATA_DIR": str(tmp_path / "d"), "TERM": "xterm-256color"}
    script = tmp_path / "turns.json"
    script.write_text('["The early bird was heard."]')
    args = [sys.executable, "-m", "shell", "--model", f"scripted:{script}", "--no-session"]
    code, output = _run_on_pty(args, env, quit_on=b"was heard.", cwd=tmp_path, type_at_once=b"early\r")
    assert "The early bird was heard." in output
    assert code == 0
