"""--plain: Ctrl+C before the model's first word takes the request back to the prompt
(Y9), as the TUI's Esc does; it is not sent again glued to the next message."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from shell.providers.openai import to_openai_messages

from .test_plain import line_mode

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")]


async def test_ctrl_c_before_the_first_word_gives_the_request_back(tmp_path: Path) -> None:
    async with line_mode(tmp_path, ["The sea...", "Sent once."], delay=60, chunk_size=1000) as d:
        model = d.runtime.agent.model
        await d.send("write a haiku\r")
        await d.until(lambda: bool(model.requests))  # type: ignore[attr-defined]
        os.kill(os.getpid(), signal.SIGINT)  # the model has said nothing yet
        await d.wait_for("back at the prompt")
        assert d.runtime.agent.messages == []
        model.delay = 0  # type: ignore[attr-defined]
        await d.send("\r", then="Sent once.")  # Enter sends it again as it was
        await d.send("/quit\r")
    sent = to_openai_messages(model.requests[-1])  # type: ignore[attr-defined]
    assert [m["content"] for m in sent if m["role"] == "user"] == ["write a haiku"]
