"""Line mode: a check after a sandboxed command that ends after the command's result
was given (Esc, or past its time) is printed when it ends, above the prompt being
typed, which it leaves as it was; line mode never shows a result, so before this the
user heard of it only at exit, if at all."""

from __future__ import annotations

import threading
from pathlib import Path

import anyio
import pytest

from shell.tools import after_check

from .test_plain import line_mode

pytestmark = pytest.mark.anyio


class _Box:
    """Stands for the sandbox the late check ran in (its notes are kept per sandbox)."""

    def __init__(self) -> None:
        self.unmarked: list[str] = []  # a crashed session's skip-worktree marks (none here)


async def test_a_late_checks_findings_are_printed_when_it_ends_and_the_typed_line_stays(
        tmp_path: Path) -> None:
    async with line_mode(tmp_path, ["Hello.", "Noted."]) as d:  # a reply for each message sent
        await d.send("hi\r", then="Hello.")
        d.pipe.send_text("half a sen")  # the user is typing when the check ends
        await anyio.sleep(0.1)
        after_check.finish(0)  # what earlier tests left
        box = _Box()
        head = ("[agent-shell: the check after an earlier command (it took over 3 s before the check ended) "
                "finished after that command's result was given: it found what follows.]")
        found = "[agent-shell: moved out of the workspace: sub/.envrc\x1b]0;pwned\x07]"
        thread = threading.Thread(target=after_check._leave, args=(box, head, [found]))
        thread.start()
        thread.join(30)
        await d.wait_for("moved out of the workspace: sub/.envrc")
        assert "[agent-shell" not in d.text and "\x1b" not in d.text
        assert after_check.finish(0) == []  # said: not printed again at exit
        await d.send("tence\r")
        await d.until(lambda: len(d.runtime.agent.messages) >= 3)
        await d.send("/quit\r")
    assert d.runtime.agent.messages[2].text == "half a sentence"  # the typed line was kept
    assert d.text.count("sub/.envrc") == 1
