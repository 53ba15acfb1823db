"""Coroutine-style onion hooks (``return await next()``, the docs' Timing example) in
the front ends that build the runtime in a worker thread: the TUI and the line mode.

Finding R5: there every such hook failed with "'_thread._local' object has no attribute
'coro'" (``-p`` and ``acp`` build and reply in one thread and worked). Only a real
process shows it: in the test process the module is imported on the replying thread."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shell.plain import PROMPT

from .test_tui_launch import run_on_pty

TIMING = '''
from middleware import Middleware


class TimeIt(Middleware):
    """Times the model call, coroutine style."""

    async def on_model_call(self, ctx, request, next):
        message = await next()
        return message

    async def on_reply(self, ctx, request, next):
        return await next()
'''


@pytest.fixture
def timing_on(cli_env: dict[str, str]) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    (config / "middleware").mkdir(parents=True)
    (config / "middleware" / "timing_mine.py").write_text(TIMING, encoding="utf-8")
    enabled = '[middleware]\nenabled = ["HumanInTheLoop", "TimeIt"]\n'
    (config / "config.toml").write_text(enabled, encoding="utf-8")


@pytest.mark.usefixtures("timing_on")
def test_a_coroutine_onion_answers_in_the_line_mode(
    terminal: Any, script: Callable[[list[Any]], str]
) -> None:
    t = terminal("--plain", "--no-session", "--model", script(["Timed and answered."]), columns=200)
    t.expect(PROMPT.strip())
    t.expect("permissions:")  # the banner: built in the worker thread
    t.send("hello\r")
    t.expect("and answered.")
    t.send("/quit\r")
    assert t.close() == 0
    assert "failed in on_" not in t.text


@pytest.mark.usefixtures("timing_on")
def test_a_coroutine_onion_answers_in_the_tui(
    cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    model = script(["Timed and answered."])
    args = [sys.executable, "-m", "shell", "--model", model, "--no-session", "hello"]
    code, output = run_on_pty(args, cli_env, quit_on=b"and answered.", cwd=workspace)
    assert "failed in on_" not in output
    assert "Timed and answered." in output
    assert code == 0
