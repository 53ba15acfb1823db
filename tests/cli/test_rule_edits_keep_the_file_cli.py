"""``/permissions … --user`` edits only the line of the list it changes (findings E14,
E15): a config written with dotted keys (``permissions.allow = [...]``) crashed the line
mode with a TOMLDecodeError traceback, and any edit deleted the comments the user wrote
in ``[permissions]`` (why a rule exists is data they wrote)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from shell.plain import PROMPT

Script = Callable[[list[Any]], str]

COMMENTED = (
    "# my config - keep these comments!\n"
    'model = "demo"   # the offline one\n'
    "[permissions]\n"
    "# team rules\n"
    'allow = ["run_shell(git status:*)"]  # status is fine\n'
    'deny = ["run_shell(rm -rf:*)"]\n'
    "\n"
    "# where secrets live\n"
    "[sandbox]\n"
    "hide = []\n"
)


def _edit(terminal: Any, script: Script, cli_env: dict[str, str], text: str, commands: list[str]) -> str:
    """The config after typing ``commands`` in the line mode, which must stay up."""
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    t = terminal("--plain", "--no-session", "--model", script(["unused"]), columns=200)
    t.expect(PROMPT.strip())
    for command in commands:
        t.send(command + "\r")
        t.expect("Added")
    t.send("/quit\r")
    assert t.close() == 0, t.text
    assert "Traceback" not in t.text
    return config.read_text()


def test_a_dotted_key_config_gets_the_rule_on_its_own_line(
    terminal: Any, script: Script, cli_env: dict[str, str]
) -> None:
    text = 'model = "demo"\npermissions.allow = ["run_shell(git status:*)"]  # status\n'
    after = _edit(terminal, script, cli_env, text, ["/permissions allow run_shell(pwd:*) --user"])
    assert after == text.replace('*)"]', '*)", "run_shell(pwd:*)"]')


def test_an_inline_table_is_refused_with_the_fix_and_left_alone(
    terminal: Any, script: Script, cli_env: dict[str, str]
) -> None:
    text = 'model = "demo"\npermissions = { allow = ["run_shell(git status:*)"] }\n'
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"]) / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)
    t = terminal("--plain", "--no-session", "--model", script(["unused"]), columns=200)
    t.expect(PROMPT.strip())
    t.send("/permissions allow run_shell(pwd:*) --user\r")
    t.expect("is written as an inline table")
    t.send("/quit\r")
    assert t.close() == 0, t.text
    assert "Traceback" not in t.text
    assert "edit the file by hand" in " ".join(t.text.split())
    assert config.read_text() == text


def test_adding_and_removing_keep_every_comment(
    terminal: Any, script: Script, cli_env: dict[str, str]
) -> None:
    after = _edit(terminal, script, cli_env, COMMENTED,
                  ["/permissions allow run_shell(ls:*) --user", "/permissions ask fetch_url --user"])
    assert after == COMMENTED.replace(
        'allow = ["run_shell(git status:*)"]  # status is fine\ndeny = ["run_shell(rm -rf:*)"]\n',
        'allow = ["run_shell(git status:*)", "run_shell(ls:*)"]  # status is fine\n'
        'deny = ["run_shell(rm -rf:*)"]\nask = ["fetch_url"]\n',
    )


def test_a_project_file_keeps_its_comments(
    terminal: Any, script: Script, cli_env: dict[str, str], workspace: Path
) -> None:
    from shell.permissions.rules import parse_rule
    from shell.permissions.store import add_rule, project_rules_path

    path = project_rules_path(workspace)
    path.parent.mkdir(parents=True)
    original = '# project rules, reviewed by the team\n# no pushes!\nallow = ["run_shell(ls:*)"]  # CI\n'
    path.write_text(original)
    add_rule(path, None, parse_rule("run_shell(pwd:*)", "allow", "project"))
    assert path.read_text() == original.replace('(ls:*)"]', '(ls:*)", "run_shell(pwd:*)"]')
