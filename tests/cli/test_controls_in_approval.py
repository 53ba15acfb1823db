"""A control character in an edit's text is shown where it is, and warned about (finding P17).

A model edits ``a.txt`` from "hi" to ``hi\\x1b[2K\\rnothing here``: ``cat a.txt`` then
shows "nothing here" alone (the CR returns the cursor, the text after it overwrites).
The approval's diff showed the CR as a line break, with a false "\\ No newline at end of
file" after "hi", and no warning. Every front end words the question from one text
(``shell.frontend.approval``); the line mode and headless are asked here, through the
console script, as a user meets them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Script = Callable[[list[Any]], str]
OVERWRITE = "hi\x1b[2K\rnothing here"


def edit_to_overwrite(script: Script) -> str:
    call = {"name": "edit_file", "args": {"path": "a.txt", "old_string": "hi", "new_string": OVERWRITE}}
    return script([{"text": "Editing.", "tool_calls": [call]}, "Stopped."])


def assert_shown_in_its_line(text: str) -> None:
    flat = text.replace("\n", "").replace("\r", "")
    assert "+hi\u241b[2K\u240dnothing here" in flat, "the CR is a visible \u240d inside its line"
    assert "No newline at end of file" not in text, "no false end-of-file marker"
    assert "2 control characters (\u241b \u240d)" in flat.replace("  ", " ")


def test_the_line_mode_shows_a_cr_in_new_text_as_an_escape_and_warns(
    terminal: Any, script: Script, workspace: Path
) -> None:
    (workspace / "a.txt").write_text("hi\n", encoding="utf-8")
    t = terminal("--plain", "--no-session", "--model", edit_to_overwrite(script), columns=200)
    t.expect("\u203a")
    t.send("edit it\r")
    t.expect("[n] reject")
    assert_shown_in_its_line(t.text)
    t.send("n")
    t.expect("reason")
    t.send("\r")
    t.expect("Stopped.")
    t.send("/quit\r")
    assert t.close() == 0
    assert (workspace / "a.txt").read_text(encoding="utf-8") == "hi\n"


def test_headless_ask_shows_a_cr_in_old_text_as_an_escape_and_warns(
    terminal: Any, script: Script, workspace: Path
) -> None:
    """The old text too: a write_file over a file that already holds the trick shows its
    removed line whole, and the warning counts it (the old text is in no argument)."""
    (workspace / "a.txt").write_bytes(OVERWRITE.encode() + b"\n")
    call = {"name": "write_file", "args": {"path": "a.txt", "content": "plain\n"}}
    model = script([{"text": "Writing.", "tool_calls": [call]}, "Stopped."])
    t = terminal("-p", "fix it", "--approve", "ask", "--no-session", "--model", model, columns=200)
    t.expect("Allow? [")
    flat = t.text.replace("\n", "").replace("\r", "")
    assert "-hi\u241b[2K\u240dnothing here" in flat
    assert "+plain" in flat and "2 control characters (\u241b \u240d)" in flat
    t.send("n\r")
    t.expect("Reason")
    t.send("\r")
    assert t.close() == 0
    assert (workspace / "a.txt").read_bytes() == OVERWRITE.encode() + b"\n"


def test_a_crlf_file_is_not_warned_about(terminal: Any, script: Script, workspace: Path) -> None:
    """A CR that ends a line with its LF is a Windows line end, not a trick: no warning."""
    (workspace / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    call = {"name": "edit_file", "args": {"path": "a.txt", "old_string": "two\r\n", "new_string": "2\r\n"}}
    model = script([{"text": "Editing.", "tool_calls": [call]}, "Stopped."])
    t = terminal("-p", "edit", "--approve", "ask", "--no-session", "--model", model, columns=200)
    t.expect("Allow? [")
    assert "+2" in t.text and "control character" not in t.text
    t.send("n\r")
    t.expect("Reason")
    t.send("\r")
    assert t.close() == 0
