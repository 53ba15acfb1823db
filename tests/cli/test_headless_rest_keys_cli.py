"""``-p`` on a terminal offers ``Y`` (approve the rest of this tool) and ``N`` (reject the
rest); they were read as ``y`` / ``n`` (finding E16), so the next call asked again and the
capitals could never be chosen. A word (``Yes``) is still read as its lower-case letter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

Script = Callable[[list[Any]], str]

THREE = {"text": "Making.", "tool_calls": [  # file writes: a command's question also names the
    {"name": "write_file", "args": {"path": name, "content": name}}  # secret files found so far, which
    for name in ("one", "two", "three")]}  # may change mid-batch (then Y rightly asks again)


def _run(terminal: Any, script: Script, answers: list[tuple[str, str]]) -> Any:
    t = terminal("-p", "make them", "--approve", "ask", "--no-session", "--model", script([THREE, "Done."]),
                 columns=200)
    for wanted, reply in answers:
        t.expect(wanted)
        t.send(reply)
    assert t.close() == 0
    return t


def test_capital_n_rejects_the_rest_after_one_question(
    terminal: Any, script: Script, workspace: Path
) -> None:
    t = _run(terminal, script, [("Allow? [", "N\r"), ("Reason", "not now\r")])
    assert t.text.count("Allow? [") == 1, t.text
    assert not any((workspace / name).exists() for name in ("one", "two", "three"))


def test_capital_y_approves_the_rest_after_one_question(
    terminal: Any, script: Script, workspace: Path
) -> None:
    t = _run(terminal, script, [("Allow? [", "Y\r")])
    assert t.text.count("Allow? [") == 1, t.text
    assert all((workspace / name).read_text() == name for name in ("one", "two", "three"))


def test_a_word_answers_for_this_call_only(terminal: Any, script: Script, workspace: Path) -> None:
    t = _run(terminal, script, [("Allow? [", "Yes\r"), ("call 2 of 3", "n\r"), ("Reason", "\r"),
                                ("call 3 of 3", "no\r"), ("Reason", "\r")])
    assert t.text.count("Allow? [") == 3, t.text
    assert (workspace / "one").read_text() == "one"
    assert not (workspace / "two").exists() and not (workspace / "three").exists()
