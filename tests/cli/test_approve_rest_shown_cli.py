""""Approve the rest" approves only what was seen (finding E4): a reply whose first
call is a harmless ``ls`` and whose later calls are ``ls; rm -f important.txt``,
``ls $(rm …)`` and ``ls > important.txt`` asked the user about ``ls`` alone, and
``[Y] approve the rest (this tool)`` ran all four. The --plain question now prints
every later call Y covers, whole, before it takes the key, and the key says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from shell.plain import PROMPT

COMMANDS = ("ls", "ls; rm -f important.txt", "ls $(rm -f important.txt)", "ls > important.txt")
MULTI = {"text": "Listing.", "tool_calls": [{"name": "run_shell", "args": {"command": c}} for c in COMMANDS]}


def test_the_plain_question_lists_every_call_y_approves_before_the_key(
    terminal: Any, workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    (workspace / "important.txt").write_text("keep me\n", encoding="utf-8")
    t = terminal("--plain", "--no-session", "--model", script([MULTI, "Done."]), columns=200)
    t.expect(PROMPT.strip())
    t.send("multi\r")
    t.expect("[Y] approve this and the 3 run_shell calls listed")
    question = t.text[t.text.index("? run_shell"):]
    for place, command in enumerate(COMMANDS[1:], 2):
        assert f"call {place} of 4: run_shell" in question
        assert f"command: {command}" in question, question
    assert "approve the rest (this tool)" not in question and "like this" not in question
    t.send("n")  # having read them, the user says no
    t.send("\r")
    t.expect("? run_shell")  # the next call is asked on its own
    t.send("N")
    t.send("\r")
    t.expect("Done.")
    t.send("/quit\r")
    assert t.close() == 0
    assert (workspace / "important.txt").read_text(encoding="utf-8") == "keep me\n"
