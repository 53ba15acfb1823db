"""A command line naming a path a deny rule on reading covers asks (finding M8): the
sandbox hides the path in the work tree, but ``git show HEAD:config/secrets/db.txt``
printed the committed file, unasked in auto."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.core.tools import Tool
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

DENY = ("read_file(config/secrets/**)",)


def decide(root: Path, command: str, deny: tuple[str, ...] = DENY) -> tuple[str, str]:
    rules, problems = parse_rules({"deny": list(deny)}, "user")
    assert not problems
    policy = PermissionPolicy(root, user_rules=rules, user_config=root / "config.toml", mode="auto",
                              sandboxed=lambda _: True, load_project=False)
    shell: Tool = next(t for t in builtin_tools(Workspace(root)) if t.name == "run_shell")
    verdict = policy.decide(shell, {"command": command})
    return verdict.action, verdict.reason


@pytest.mark.parametrize("command", [
    "git show HEAD:config/secrets/db.txt",
    "cat config/secrets/db.txt",
    "git log -p -- config/secrets/db.txt | head",
    "bash -c 'git show HEAD:\"config/secrets/db.txt\"'",
    "git show HEAD:./config/secrets/db.txt",
])
def test_a_command_naming_a_read_denied_path_asks_and_says_which_rule(tmp_path: Path, command: str) -> None:
    action, reason = decide(tmp_path, command)
    assert action == "ask", reason
    assert "config/secrets" in reason and "deny read_file(config/secrets/**)" in reason


@pytest.mark.parametrize("command", ["git status --short", "ls config", "cat README.md", "pytest -q tests/"])
def test_other_commands_run_as_the_mode_says(tmp_path: Path, command: str) -> None:
    assert decide(tmp_path, command)[0] == "allow"


def test_without_a_deny_rule_on_reading_nothing_more_asks(tmp_path: Path) -> None:
    assert decide(tmp_path, "cat config/secrets/db.txt", deny=())[0] == "allow"
