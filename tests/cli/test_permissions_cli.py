"""Permissions where a user meets them: the console script, on a real terminal.

Each test replays an attack from issue 13 or checks a promise of README's
"Permissions" section: the hidden tail of a padded command is shown before it is
approved (line mode and headless), a saved "always" restored by --continue does
not beat a stricter command line, plan mode refuses writes, bypass runs them,
rules in the user config hold."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli

Script = Callable[[list[Any]], str]

PADDED = "pytest -q tests/unit/test_everything_is_fine.py" + " " * 300 + "; touch pwned"


def shell_call(command: str) -> dict[str, Any]:
    return {"text": "Running the tests.", "tool_calls": [{"name": "run_shell", "args": {"command": command}}]}


def test_line_mode_shows_the_hidden_tail_before_asking(
    terminal: Any, script: Script, workspace: Path
) -> None:
    t = terminal("--plain", "--no-session", "--model", script([shell_call(PADDED), "Stopped."]))
    t.expect("\u203a")  # the prompt
    t.send("run the tests\r")
    t.expect("[n] reject")
    shown = t.text
    assert "touch pwned" in shown, "the tail after the padding must be on screen before the question"
    assert "2. touch pwned" in shown  # and named as a command of its own
    t.send("n")
    t.expect("reason")
    t.send("\r")
    t.expect("Stopped.")
    t.send("/quit\r")
    assert t.close() == 0
    assert not (workspace / "pwned").exists()


def test_headless_ask_shows_the_hidden_tail_before_asking(
    terminal: Any, script: Script, workspace: Path
) -> None:
    t = terminal("-p", "run the tests", "--approve", "ask", "--no-session", "--model",
                 script([shell_call(PADDED), "Stopped."]))
    t.expect("Allow? [")
    assert "touch pwned" in t.text and "2. touch pwned" in t.text
    assert "…" not in t.text.split("Allow?")[0].split("run_shell")[-1]  # nothing cut
    t.send("n\r")
    t.expect("Reason")
    t.send("\r")
    assert t.close() == 0
    assert not (workspace / "pwned").exists()


def test_a_restored_always_does_not_beat_approve_never(
    terminal: Any, run_cli: RunCli, script: Script, workspace: Path
) -> None:
    """Issue 13: a saved "always allow run_shell" came back with --continue and ran
    under --approve never."""
    first = terminal("-p", "touch it", "--approve", "ask", "--model",
                     script([shell_call("mkdir -p first"), "Done."]))
    first.expect("Allow? [")
    first.send("a\r")
    first.expect("remembered in session: run_shell(mkdir:*)")
    assert first.close() == 0
    assert (workspace / "first").exists()
    again = run_cli("-p", "touch again", "--continue", "--approve", "never", "--output-format", "json",
                    "--model", script([shell_call("mkdir second"), "Not run."]))
    assert again.returncode == 0, again.stderr
    assert not (workspace / "second").exists()
    messages = json.loads(again.stdout)["messages"]
    refused = [m for m in messages if m["type"] == "ToolResultMessage"][-1]
    assert refused["is_error"] and "--approve never" in json.dumps(refused)
    loose = run_cli("-p", "touch again", "--continue", "--model", script([shell_call("mkdir third"), "Ran."]))
    assert loose.returncode == 0, loose.stderr
    assert (workspace / "third").exists(), "without a stricter command line the session's rule holds"


def test_plan_mode_refuses_writes_and_tells_the_model(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    write = {"tool_calls": [{"name": "write_file", "args": {"path": "a.txt", "content": "x"}}]}
    r = run_cli("-p", "write", "--permission-mode", "plan", "--approve", "never", "--output-format", "json",
                "--model", script([write, "Here is the plan."]))
    assert r.returncode == 0, r.stderr
    assert not (workspace / "a.txt").exists()
    result = json.loads(r.stdout)
    tool_result = next(m for m in result["messages"] if m["type"] == "ToolResultMessage")
    assert "Plan mode" in json.dumps(tool_result)


def test_bypass_and_approve_always_run_without_asking(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    for flags, name in ((["--permission-mode", "bypass"], "a"), (["--approve", "always"], "b")):
        r = run_cli("-p", "touch", *flags, "--model", script([shell_call(f"touch {name}"), "Done."]))
        assert r.returncode == 0, r.stderr
        assert (workspace / name).exists()
    clash = run_cli("-p", "x", "--approve", "always", "--permission-mode", "plan")
    assert clash.returncode == 2 and "--approve always" in clash.stderr


def test_rules_in_the_user_config_hold(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[permissions]\nallow = ["run_shell(touch:*)"]\ndeny = ["run_shell(rm *)"]\n')
    r = run_cli("-p", "go", "--approve", "never", "--model",
                script([shell_call("touch ok"), "one", shell_call("touch no; rm ok"), "two"]))
    assert r.returncode == 0, r.stderr
    assert (workspace / "ok").exists()  # allowed by the rule, unasked under --approve never
    model = script([shell_call("touch no2 && rm ok"), "x"])
    r2 = run_cli("-p", "go", "--approve", "always", "--model", model)
    assert r2.returncode == 0
    assert (workspace / "ok").exists() and not (workspace / "no2").exists()  # deny holds even in bypass


def test_bypass_reads_outside_the_workspace_unasked_and_default_does_not(
    terminal: Any, script: Script, workspace: Path
) -> None:
    """Bypass means nothing asks, the workspace's edge included; every other mode asks
    (here a person answers no, so nothing outside is read)."""
    outside = workspace.parent / "outside-notes.txt"
    outside.write_text("the outside words\n")
    read = {"text": "Reading.", "tool_calls": [{"name": "read_file", "args": {"path": str(outside)}}]}
    t = terminal("-p", "read it", "--permission-mode", "bypass", "--no-session", "--output-format", "jsonl",
                 "--model", script([read, "Done."]))
    assert t.close() == 0
    assert "the outside words" in t.text and "Allow?" not in t.text
    t = terminal("-p", "read it", "--approve", "ask", "--no-session", "--output-format", "jsonl",
                 "--model", script([read, "Done."]))
    t.expect("Allow? [")
    assert "outside the workspace" in t.text
    t.send("n\r")
    t.expect("Reason")
    t.send("\r")
    assert t.close() == 0
    assert "the outside words" not in t.text


def write_outside(path: Path) -> dict[str, Any]:
    args = {"path": str(path), "content": "written outside\n"}
    return {"text": "Writing.", "tool_calls": [{"name": "write_file", "args": args}]}


def test_a_write_outside_the_workspace_is_one_complete_question(
    terminal: Any, script: Script, workspace: Path
) -> None:
    """Issue 13: the policy showed the diff without saying the file is outside, then the
    fence asked again with only the path. Now: one question that says both, and
    approving it writes the file."""
    outside = workspace.parent / "elsewhere" / "notes.txt"
    outside.parent.mkdir()
    t = terminal("-p", "write it", "--approve", "ask", "--no-session", "--output-format", "jsonl",
                 "--model", script([write_outside(outside), "Done."]), columns=200)
    t.expect("Allow? [")
    asked = t.text
    assert f"{outside} is outside the workspace {workspace}" in asked
    allows = "allows exactly that file (nothing next to it) outside the workspace for the rest of this"
    assert allows in " ".join(asked.split())
    assert "+written outside" in asked  # the diff, in the same question
    assert f"+++ {outside}" in asked  # an absolute path, not git's b/ prefix
    t.send("y\r")
    t.expect("Done.")
    assert t.close() == 0
    assert t.text.count("Allow? [") == 1, "the fence asked a second time"
    assert outside.read_text() == "written outside\n"


def test_an_allowed_write_outside_still_meets_the_fence_once(
    terminal: Any, script: Script, workspace: Path
) -> None:
    """When the policy lets the call run unasked (here an allow rule), the fence asks,
    once; answered no, nothing is written."""
    outside = workspace.parent / "elsewhere2" / "notes.txt"
    outside.parent.mkdir()
    t = terminal("-p", "write it", "--approve", "ask", "--no-session", "--output-format", "jsonl",
                 "--allow", f"write_file({outside.parent}/*)",
                 "--model", script([write_outside(outside), "Done."]), columns=200)
    t.expect("Allow? [")
    assert "outside the workspace" in t.text and "+written outside" not in t.text  # the fence's question
    t.send("n\r")
    t.expect("Reason")
    t.send("\r")
    assert t.close() == 0
    assert t.text.count("Allow? [") == 1 and not outside.exists()


def test_rules_on_the_command_line_hold_for_the_run(run_cli: RunCli, script: Script, workspace: Path) -> None:
    """`--allow` lets a CI job run its tests unasked under `--approve never`; `--deny`
    holds even under `--approve always`; a rule that cannot be read stops the run."""
    allowed = run_cli("-p", "go", "--approve", "never", "--allow", "run_shell(touch:*)", "--no-session",
                      "--model", script([shell_call("touch ok"), "one", shell_call("echo hi > no"), "two"]))
    assert allowed.returncode == 0, allowed.stderr
    assert (workspace / "ok").exists() and not (workspace / "no").exists()
    denied = run_cli("-p", "go", "--approve", "always", "--deny", "run_shell(rm:*)", "--no-session",
                     "--model", script([shell_call("rm ok"), "done"]))
    assert denied.returncode == 0, denied.stderr
    assert (workspace / "ok").exists()
    bad = run_cli("-p", "go", "--allow", "run_shell(", "--no-session")
    assert bad.returncode == 2 and "--allow: cannot read the rule 'run_shell('" in bad.stderr


def test_an_unreadable_deny_rule_in_the_config_stops_the_run(
    run_cli: RunCli, script: Script, workspace: Path, cli_env: dict[str, str]
) -> None:
    """A typo in a deny rule must not drop the rule and run what it was meant to stop."""
    (workspace / "src").mkdir()
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[permissions]\nmode = "bypass"\ndeny = ["run_shell(rm -rf:*", "run_shell(curl:*)"]\n')
    r = run_cli("-p", "go", "--no-session", "--model", script([shell_call("rm -rf src"), "done"]))
    assert r.returncode == 2, r.stderr
    assert "cannot read the rule 'run_shell(rm -rf:*'" in r.stderr and str(config) in r.stderr
    assert (workspace / "src").is_dir()
    config.write_text('[permissions]\nallow = ["run_shell(touch:*"]\n')  # a bad allow only asks more
    ok = run_cli("-p", "go", "--no-session", "--approve", "never", "--model", script(["done"]))
    assert ok.returncode == 0 and "cannot read the rule" in ok.stderr
