"""A write_file of a 100 000-line file with every other line changed (tester finding
I3), where a user meets it: headless in accept-edits the file is written and the
run ends with a result that says what changed (it hung after the write, computing
its result diff); a headless question shows the cut diff and can be answered (it
never came). The generous timeouts only catch the old hang."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

Script = Callable[[list[Any]], str]
LINES = 100_000
OLD = "".join(f"line {i} original\n" for i in range(LINES))
NEW = "".join(f"line {i} {'CHANGED' if i % 2 == 0 else 'original'}\n" for i in range(LINES))
TOTALS = "50000 lines removed and 50000 added in all"


def _rewrite() -> dict[str, Any]:
    call = {"name": "write_file", "args": {"path": "big.txt", "content": NEW}}
    return {"text": "Rewriting.", "tool_calls": [call]}


def test_accept_edits_writes_a_huge_rewrite_and_tells_the_model_a_cut_diff(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    (workspace / "big.txt").write_text(OLD)
    done = run_cli("-p", "rewrite it", "--permission-mode", "accept-edits", "--output-format", "json",
                   "--no-session", "--model", script([_rewrite(), "Rewritten."]), timeout=120)
    assert done.returncode == 0, done.stderr
    assert (workspace / "big.txt").read_text() == NEW
    told = json.dumps(json.loads(done.stdout))
    assert "Overwrote big.txt" in told and "Rewritten." in told


def test_a_headless_question_about_a_huge_rewrite_shows_a_cut_diff(
    terminal: Any, script: Script, workspace: Path
) -> None:
    (workspace / "big.txt").write_text(OLD)
    t = terminal("-p", "rewrite it", "--approve", "ask", "--no-session", "--model",
                 script([_rewrite(), "Stopped."]), columns=200)
    t.expect("Allow? [", timeout=60)
    assert "+line 0 CHANGED" in t.text and TOTALS in t.text
    t.send("n\r")
    t.expect("Reason")
    t.send("\r")
    assert t.close() == 0
    assert (workspace / "big.txt").read_text() == OLD
