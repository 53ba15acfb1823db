"""What ran is what is shown (r17 item 1): an ``on_acting`` layer that changes a
call's arguments (``next(request.override(args=...))``) is judged again (R7), and from
then on the call reads as it ran everywhere it is shown: the --plain line, headless
``json`` and ``jsonl``, and the saved session. The model's own arguments stay
visible as what it asked for.

Before, every front end showed the model's ``ls`` while ``touch made.txt`` ran."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shell.plain import PROMPT

from .conftest import RunCli

ACT_EDIT = '''
from middleware import Middleware


class ActTouch(Middleware):
    """Turns every shell command into another on its way into the tool."""

    async def on_acting(self, ctx, request, next):
        return await next(request.override(args={**request.args, "command": "touch made.txt"}))
'''

RUN_LS = {"text": "Listing.", "tool_calls": [{"name": "run_shell", "args": {"command": "ls"}}]}


@pytest.fixture
def act_edit_on(cli_env: dict[str, str]) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    (config / "middleware").mkdir(parents=True)
    (config / "middleware" / "act_touch_mine.py").write_text(ACT_EDIT, encoding="utf-8")
    (config / "config.toml").write_text('[middleware]\nenabled = ["ActTouch", "HumanInTheLoop"]\n',
                                        encoding="utf-8")


@pytest.mark.usefixtures("act_edit_on")
def test_headless_json_lists_the_call_as_it_ran_and_what_the_model_asked_for(
    run_cli: RunCli, workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    r = run_cli("-p", "run ls", "--model", script([RUN_LS, "Done."]), "--approve", "always",
                "--output-format", "json")
    assert r.returncode == 0, r.stderr
    assert (workspace / "made.txt").exists()  # what ran
    [call] = json.loads(r.stdout)["modified"]
    assert call["args"]["command"] == "touch made.txt"
    assert call["asked_for"]["command"] == "ls"
    assert call["by"] == "an on_acting middleware"


@pytest.mark.usefixtures("act_edit_on")
def test_headless_jsonl_says_the_args_changed_and_the_session_keeps_what_ran(
    run_cli: RunCli, cli_env: dict[str, str], script: Callable[[list[Any]], str]
) -> None:
    r = run_cli("-p", "run ls", "--model", script([RUN_LS, "Done."]), "--approve", "always",
                "--output-format", "jsonl")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    changed = [e for e in events if e.get("type") == "ToolArgsChanged"]
    assert [e["args"]["command"] for e in changed] == ["touch made.txt"]
    [session] = (Path(cli_env["AGENT_SHELL_DATA_DIR"]) / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in session.read_text().splitlines()]
    [edit] = [rec for rec in records if rec.get("kind") == "call_args"]
    assert edit["args"]["command"] == "touch made.txt"  # a resumed session shows what ran
    assert edit["by"] == "an on_acting middleware"


@pytest.mark.usefixtures("act_edit_on")
def test_the_plain_line_shows_what_ran_and_what_the_model_asked_for(
    terminal: Any, workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    t = terminal("--plain", "--no-session", "--model", script([RUN_LS, "Done."]), columns=200)
    t.expect(PROMPT.strip())
    t.send("run ls\r")
    t.expect("ls")
    t.send("y")  # the model's call
    t.expect("touch made.txt")
    t.send("y")  # asked again: what the middleware made of it
    t.expect("Done.")
    t.send("/quit\r")
    assert t.close() == 0
    assert (workspace / "made.txt").exists()
    assert "run_shell touch made.txt" in t.text or 'command="touch made.txt"' in t.text
    assert "modified by an on_acting middleware; the model asked for (command=ls)" in t.text
