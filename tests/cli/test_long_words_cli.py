"""Finding T5 through the console script: ``echo GITHUB_TOKEN=ghp_<36 characters>``
(a line a model writes about secrets) never came back: the check for lines that only
append names to ``.gitignore`` tried every split of each long word (a repetition
inside a repetition), ~4x longer per two characters, on the thread that answers Esc
and Ctrl+Q. The call runs, or is judged, at once now; the pure check is linear in
the line's length."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from shell.permissions.ignorelines import only_appends_ignore_lines

from ..sandboxing import require_sandbox
from .conftest import RunCli

LINE = "echo GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def test_a_command_with_a_long_token_word_is_judged_and_runs(
    run_cli: RunCli, script: Callable[[list[Any]], str]
) -> None:
    require_sandbox()
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": LINE}, "id": "c1"}]}, "Done."]
    r = run_cli("-p", "go", "--model", script(turns), "--approve", "always", "--no-session",
                "--output-format", "json", timeout=120)  # the old code took hours (it was killed)
    assert r.returncode == 0, r.stderr
    results = [str(m["content"]) for m in json.loads(r.stdout)["messages"] if m.get("role") == "tool"]
    assert len(results) == 1 and "GITHUB_TOKEN=" in results[0], results


def test_the_ignore_append_check_still_tells_appends_from_reads() -> None:
    long_word = "a" * 5000  # past MAX_LENGTH with the rest: refused by length, not by time
    assert not only_appends_ignore_lines(f"echo {long_word} >> .gitignore")
    assert only_appends_ignore_lines("echo " + "b" * 3000 + " .env >> .gitignore")
    assert not only_appends_ignore_lines("echo " + "b" * 3000 + " x")
    assert only_appends_ignore_lines("echo .env 'x y' >> a/.gitignore && printf .pem >> .dockerignore")
    assert not only_appends_ignore_lines("cat .env >> .gitignore")
