"""SIGTERM in the TUI (finding Y5): the app quits as Ctrl+Q does, cancelling the reply
in flight, so Textual gives the terminal back (alternate screen left, mouse reports
off); the process's exit code is the shell's for the signal. By Python's default the
process ended where it stood and the terminal stayed in the TUI's modes."""

from __future__ import annotations

import os
import signal

import pytest

from shell.agent import AssistantMessage

from .helpers import SIZE, flood_app, reply_under_way, wait_for

pytestmark = pytest.mark.anyio


async def test_sigterm_mid_reply_cancels_it_and_quits_with_143() -> None:
    app, agent = flood_app("\n\n".join("word " * 40 for _ in range(5_000)))
    async with app.run_test(size=SIZE) as pilot:
        await reply_under_way(app, pilot)
        os.kill(os.getpid(), signal.SIGTERM)
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 143 and app.return_value == 143
    last = agent.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "cancelled"
    assert signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None)  # a second one would end the process


QUESTION_OPEN = """
import asyncio, os, signal
from tests.tui.helpers import AskEverything, ask_dialog, scripted_app
from shell.agent import AssistantMessage, ToolCallBlock

async def main():
    call = AssistantMessage((ToolCallBlock("c1", "write_note", {"path": "a.txt", "text": "x"}),))
    app, agent, _ = scripted_app([call, "done"], middleware=[AskEverything()])
    async with app.run_test(size=(100, 32)) as pilot:
        await ask_dialog(app, pilot)
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(100):
            await pilot.pause(0.1)
            if app.return_code is not None:
                break
        print("return_code", app.return_code, "busy", agent.busy)

asyncio.run(main())
"""


def test_sigterm_while_an_approval_is_open_cancels_and_quits() -> None:
    """Finding Z6: with a question open (or a tool running), TERM only cancelled the
    reply and the app stayed up; a second TERM then killed it with the terminal left raw.
    Run as the CLI runs the app (``asyncio.run``, in a process of its own): there the
    signal's loop callback had no async library to cancel the reply with, and failed."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", QUESTION_OPEN], cwd=root, capture_output=True, text=True,
                          timeout=120)
    assert "return_code 143 busy False" in done.stdout, (done.stdout, done.stderr[-2000:])
    assert "Exception in callback" not in done.stderr and "never awaited" not in done.stderr, done.stderr
