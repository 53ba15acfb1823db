"""``[middleware.HumanInTheLoop]``'s documented options act in the shell (finding E8):
``interrupt_on = { read_file = true }`` read every file unasked, ``run_shell = false``
and ``description_prefix`` were accepted and did nothing, without a word."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

Script = Callable[[list[Any]], str]

READ = [{"text": "Reading.", "tool_calls": [{"name": "read_file", "args": {"path": "app.py"}}]}, "Done."]
LS = [{"text": "Listing.", "tool_calls": [{"name": "run_shell", "args": {"command": "ls"}}]}, "Done."]


def _config(cli_env: dict[str, str], text: str) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(text)


def test_true_makes_a_read_ask(
    run_cli: RunCli, script: Script, cli_env: dict[str, str], workspace: Path
) -> None:
    (workspace / "app.py").write_text("SECRET_SAUCE = 1\n")
    _config(cli_env, "[middleware.HumanInTheLoop]\ninterrupt_on = { read_file = true }\n")
    r = run_cli("-p", "read app.py", "--approve", "never", "--no-session", "--output-format", "json",
                "--model", script(READ))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert [c["name"] for c in out["refused"]] == ["read_file"]
    assert "SECRET_SAUCE" not in r.stdout


def test_false_is_said_not_silently_dropped(run_cli: RunCli, script: Script, cli_env: dict[str, str]) -> None:
    _config(cli_env, "[middleware.HumanInTheLoop]\ninterrupt_on = { run_shell = false }\n")
    r = run_cli("-p", "hi", "--no-session", "--model", script(["ok"]))
    assert r.returncode == 0, r.stderr
    assert "run_shell = false has no effect here" in " ".join(r.stderr.split())
    assert '[permissions] allow = ["run_shell"]' in " ".join(r.stderr.split())


def test_description_prefix_leads_the_question(
    terminal: Any, script: Script, cli_env: dict[str, str]
) -> None:
    _config(cli_env, '[middleware.HumanInTheLoop]\ndescription_prefix = "CAREFUL: production box"\n')
    t = terminal("-p", "list", "--approve", "ask", "--no-session", "--model", script(LS), columns=200)
    t.expect("Allow? [")
    assert "CAREFUL: production box" in t.text, t.text
    t.send("n\r")
    t.expect("Reason")
    t.send("\r")
    assert t.close() == 0
