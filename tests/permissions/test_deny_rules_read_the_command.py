"""A shell deny rule stops the command however it is spelled: through a path,
quotes, backslashes, wrappers (env, command, nice, sudo, xargs, …), ``bash -c`` and
``eval``; a line that cannot be read but names the command is stopped too. Allow
rules are unchanged: they still match only the words as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.permissions.rules import RuleSet, parse_rule

DENY = RuleSet([parse_rule("run_shell(rm:*)", "deny", "user")])

EVASIONS = [
    "rm -rf x1", "/bin/rm -rf x2", "\\rm -rf x3", "r''m -rf x4", "command rm -rf x5", "env rm -rf x6",
    "echo x7 | xargs rm -rf", "bash -c 'rm -rf x10'", "eval rm -rf x11", "$(echo rm) -rf x12",
    "RM=rm; $RM -rf x13", "nice rm -rf x14", "time rm -rf x15", "sudo -u root rm x16",
    "timeout 5 rm x17", "env -i FOO=1 /usr/bin/rm x18", 'bash -lc "echo hi && rm x19"',
    "exec rm x20", "nohup rm x21 &", "for f in *; do rm $f; done", "sh -c \"sh -c 'rm x22'\"",
]


@pytest.mark.parametrize("command", EVASIONS)
def test_a_deny_rule_holds_however_the_command_is_spelled(command: str) -> None:
    assert DENY.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "deny"


@pytest.mark.parametrize("command", ["ls -la", "echo rm", "git rm x", "command -v rm", "cat farm.txt",
                                     "echo $(date)", "grep -r 'rm' ."])
def test_commands_that_do_not_run_it_are_not_denied(command: str) -> None:
    assert DENY.judge("run_shell", {"command": command}, Path("/tmp"))[0] is None


def test_an_ask_rule_reads_the_command_the_same_way() -> None:
    rules = RuleSet([parse_rule("run_shell(git push:*)", "ask", "user")])
    command = "env GIT_TRACE=1 /usr/bin/git push origin"
    assert rules.judge("run_shell", {"command": command}, Path("/"))[0] == "ask"


def test_allow_rules_still_match_only_the_words_as_written() -> None:
    rules = RuleSet([parse_rule("run_shell(echo:*)", "allow", "user")])
    assert rules.judge("run_shell", {"command": "echo hi"}, Path("/"))[0] == "allow"
    assert rules.judge("run_shell", {"command": "env echo hi"}, Path("/"))[0] is None
