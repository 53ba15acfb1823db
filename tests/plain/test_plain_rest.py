"""The line mode's answers for more than one question: ``Y`` approves the rest of the
reply's calls to the same tool that ask the same routine question, ``N`` rejects the
call and every call after it, and ``A`` approves the question shown and the routine
ones waiting behind it (parallel calls), as in the TUI."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock
from shell.core.tools import tool

from .test_plain import line_mode

pytestmark = pytest.mark.anyio


def writes(*paths: str) -> AssistantMessage:
    calls = tuple(ToolCallBlock(f"w{i}", "write_file", {"path": p, "content": "x"})
                  for i, p in enumerate(paths))
    return AssistantMessage((TextBlock("Writing."), *calls))


async def test_y_approves_the_rest_of_the_reply_and_each_is_still_judged(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    turns = [writes("a.txt", "b.txt", ".git/hooks/pre-commit", "c.txt"), "Done."]
    async with line_mode(tmp_path, turns) as d:
        await d.send("write\r", then="? write_file")
        await d.send("Y", then="the 3 write_file calls listed")
        await d.wait_for("path: .git/hooks/pre-commit")  # what runs later is asked on its own
        await d.send("n")
        await d.send("no hooks\r", then="Done.")
        await d.send("/quit\r")
    assert all((tmp_path / n).read_text() == "x" for n in ("a.txt", "b.txt", "c.txt"))
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()
    assert d.text.count("? write_file") == 2


async def test_n_rejects_the_call_and_every_one_after_it(tmp_path: Path) -> None:
    async with line_mode(tmp_path, [writes("a.txt", "b.txt", "c.txt"), "Understood."]) as d:
        await d.send("write\r", then="? write_file")
        await d.send("N")
        await d.send("not now\r", then="Understood.")
        await d.send("/quit\r")
    assert "rejected, and the 2 calls after it" in d.text
    assert not any((tmp_path / n).exists() for n in ("a.txt", "b.txt", "c.txt"))
    assert d.text.count("? write_file") == 1


async def test_a_approves_the_routine_questions_waiting_behind_it(tmp_path: Path) -> None:
    ran: list[str] = []

    @tool(name="peek", kind="other", read_only=True)
    async def peek(what: str) -> str:
        """Look at something (runs in parallel with other read-only calls; asks in default mode)."""
        ran.append(what)
        return f"saw {what}"

    turn = AssistantMessage((TextBlock("Looking."),
                             *(ToolCallBlock(f"p{i}", "peek", {"what": f"w{i}"}) for i in range(3))))
    async with line_mode(tmp_path, [turn, "Seen."]) as d:
        d.runtime.agent.tools.append(peek)
        await d.send("look\r", then="? peek")
        with anyio.fail_after(5):
            while len(d.shell.waiting) < 2:  # noqa: ASYNC110 (the parallel calls reach the question)
                await anyio.sleep(0.01)
        await d.send("A", then="Seen.")
        await d.send("/quit\r")
    assert sorted(ran) == ["w0", "w1", "w2"]
    assert d.text.count("? peek") == 1
    assert d.text.count("approved with the question before it (A)") == 2
