"""What a resumed conversation shows of itself in the line mode (shell.frontend.recap)."""

from __future__ import annotations

from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage
from shell.frontend.recap import ANSWER_LINES, recap


def test_the_last_question_and_the_answer_after_it() -> None:
    seen = recap([
        UserMessage("one"), AssistantMessage((TextBlock("first"),)),
        UserMessage("two"), AssistantMessage((TextBlock("Let me look."), ToolCallBlock("c1", "ls", {}))),
        ToolResultMessage("c1", "ls", "a.txt"), AssistantMessage((TextBlock("There is a.txt."),)),
    ])
    assert (seen.messages, seen.said, seen.answer, seen.left_out) == (6, "two", "There is a.txt.", 0)


def test_a_question_with_no_answer_yet() -> None:
    seen = recap([UserMessage("one"), AssistantMessage((TextBlock("first"),)), UserMessage("cut off")])
    assert (seen.said, seen.answer) == ("cut off", "")


def test_a_long_answer_is_cut_and_a_cut_fence_is_closed() -> None:
    text = "Here:\n```python\n" + "\n".join(f"x = {i}" for i in range(40)) + "\n```\nDone."
    seen = recap([UserMessage("code"), AssistantMessage((TextBlock(text),))])
    lines = seen.answer.splitlines()
    assert lines[:2] == ["Here:", "```python"] and lines[-1] == "```"
    assert len(lines) == ANSWER_LINES + 1 and seen.left_out == len(text.splitlines()) - ANSWER_LINES
