"""SIGTERM and SIGHUP in the line mode (finding Y5): at the prompt they end it as Ctrl+D
does (prompt-toolkit gives the terminal back: by Python's default the process died in
raw mode, no echo until ``reset``); during a reply they cancel it as Ctrl+C does, keep
what arrived, and quit instead of prompting again. Exit code 143 / 129."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from shell.agent import AssistantMessage

from .test_plain import line_mode

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
async def test_term_or_hup_at_the_prompt_quits_as_ctrl_d_does(tmp_path: Path, signum: int, code: int) -> None:
    async with line_mode(tmp_path, []) as d:
        await d.until(lambda: d.shell.session.app.is_running)
        os.kill(os.getpid(), signum)
    assert d.result == [code]
    assert signal.getsignal(signum) == signal.SIG_DFL


async def test_term_mid_reply_cancels_it_keeps_what_arrived_and_quits(tmp_path: Path) -> None:
    reply = "\n\n".join(f"para{i} " + "word " * 10 for i in range(400))
    async with line_mode(tmp_path, [reply], delay=0.01, chunk_size=20) as d:
        await d.send("go\r", then="para3 word")
        os.kill(os.getpid(), signal.SIGTERM)
    assert d.result == [143]
    last = d.runtime.agent.messages[-1]
    assert isinstance(last, AssistantMessage) and last.stop_reason == "cancelled"
    assert last.text.startswith("para0 word") and "para399" not in last.text
