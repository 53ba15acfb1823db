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
