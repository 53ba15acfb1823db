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


# -- finding G9: spellings that still ran under `deny run_shell(rm:*)` ------------------

G9_RESOLVED = [
    r"$'\x72m' -rf x1", "$'rm' x", r"$'\162\155' x", "{rm,-rf,x2}", "rm{,} x", "/usr/bin/{rm,x}",
    "find . -name x8 -exec rm -rf {} +", r"find . -execdir rm {} \;", "find . -ok rm {} ';'", "fd -x rm",
    "flock /tmp/lk rm -rf x13", "flock -w 3 /tmp/l -c 'rm -rf x'", "chrt 10 rm x", "taskset -c 0 rm x",
    "taskset 0x1 rm x", "ionice -c 3 rm x", "chronic rm x", "unbuffer rm x", "busybox rm -rf x",
    "env -S 'rm -rf x'", "exec -a foo rm x", "builtin rm x", "watch -n 1 rm -rf x", "watch 'rm -rf x'",
    "su -c 'rm x'", "sg wheel 'rm x'", "parallel rm ::: a b", "sudo -s 'rm x'",
    "git -c alias.z='!rm -rf x7' z", "GIT_PAGER='rm -rf x' git log", "git -c core.pager='rm x' log",
    "git rebase --exec 'rm x' HEAD~2", "git bisect run rm x", "git submodule foreach 'rm -rf x'",
    # tester finding H14
    "setpriv rm f35", "setpriv --reuid 0 rm x", "valgrind rm f23", "valgrind --tool=none rm x",
    "gdb -batch -ex run --args rm f24", "rlwrap rm f32", "chroot / rm f7", "pkexec rm f11",
    "pkexec -u root rm x",
    "screen -dm rm f6", "screen -S s -dm rm x", "ssh localhost rm f8", "ssh -p 22 -i key host 'rm -rf x'",
]
G9_KNOWN_AT_RUN_TIME = [
    "echo 'rm -rf x3' | sh", "bash <<< 'rm -rf x9'", "source <(echo rm -rf x10)", ". <(echo rm x)",
    "R=r; M=m; $R$M -rf x15", "echo cm0gLXJmIHgK | base64 -d | bash", "curl -s x | sh -s", "ls | parallel",
    "bash <(curl x)", "sh /dev/stdin", "eval \"$CMD\"", "$(which rm) x", "/bin/r? x",
    "git -c include.path=/tmp/x status", "BASH_ENV=/tmp/x bash -c 'ls'",
    "tmux new -d 'rm f5'", "tmux new-session -d -s x rm", "expect -c 'spawn rm f17'", "at now <<< 'rm f18'",
    "echo 'rm x' | batch", "screen -S s -X stuff 'rm x\n'",
]


@pytest.mark.parametrize("command", G9_RESOLVED)
def test_a_deny_rule_sees_through_decoding_braces_wrappers_and_exec(command: str) -> None:
    assert DENY.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "deny"


@pytest.mark.parametrize("command", G9_KNOWN_AT_RUN_TIME)
def test_a_line_whose_command_is_known_only_at_run_time_is_denied(command: str) -> None:
    """Even when the line never spells rm (`base64 -d | bash`): the text cannot say what runs."""
    assert DENY.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "deny"


@pytest.mark.parametrize("command", G9_KNOWN_AT_RUN_TIME[:4])
def test_an_ask_rule_asks_for_a_line_known_only_at_run_time(command: str) -> None:
    rules = RuleSet([parse_rule("run_shell(curl:*)", "ask", "user")])
    assert rules.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "ask"


ENV_SPELLINGS = [
    "env --ch . rm -rf x", "env --chd=. rm x", "env --un HOME rm -rf x", "env -vS'rm -rf x'",
    "env -u HOME -iS'rm -rf x'", "env -iS 'rm -rf x'", "env --split 'rm -rf x'", "env -C. rm x",
    "env -S'FOO=1 rm' x", "env -S 'env --ch / rm' x", "env -- rm x", "env - rm x", "env -0v rm x",
]


@pytest.mark.parametrize("command", ENV_SPELLINGS)
def test_a_deny_rule_reads_env_as_env_reads_it(command: str) -> None:
    """env's options read as GNU env reads them (shortened long options, -S clustered after a
    flag): ``env --ch . rm -rf x`` read ``.`` as the command and ran under ``deny rm``."""
    assert DENY.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "deny"


@pytest.mark.parametrize("command", ["env -P /x rm x", "env $OPTS rm x", "env -S\"$LINE\" ls"])
def test_an_env_option_not_known_until_it_runs_asks(command: str) -> None:
    """An option GNU env refuses (another env may take it: BSD's ``-P``) or one from an expansion."""
    rules = RuleSet([parse_rule("run_shell(curl:*)", "ask", "user")])
    assert rules.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "ask"


def test_env_with_plain_options_still_runs_what_it_names() -> None:
    allow = RuleSet([parse_rule("run_shell(ls:*)", "ask", "user")])
    assert allow.judge("run_shell", {"command": "env -i -u HOME FOO=1 echo hi"}, Path("/tmp"))[0] is None


PUSH = RuleSet([parse_rule("run_shell(git push:*)", "deny", "user")])


@pytest.mark.parametrize("command", [
    "git -C . push", "git --no-pager push", "git -c core.x=1 push", "git --git-dir=.git push", "git -P push",
    "git --work-tree=. push", "git -c k=v push", "git -C repo -c a=b push origin", "git --git-dir .git push",
    "git --namespace x push", "git $(echo push)", "git -c alias.p=push p", "env -C /x git -C y push",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p",
])
def test_gits_global_options_do_not_hide_the_subcommand(command: str) -> None:
    assert PUSH.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "deny"


ORDINARY = [
    "find . -name '*.py'", "git log", "echo rm", "ls -la", "git rm x", "cat farm.txt", "grep -r 'rm' .",
    "find . -type f -delete", "python -m pytest", "git -c color.ui=never log", "git -C repo status",
    "echo {a,b}", "ls *.py", "[ -f x ] && echo y", "cat <<< hi", "echo hi | grep h", "timeout 5 pytest -q",
    "xargs -n1 echo", "find . -exec grep -l foo {} +", "bash script.sh", "sh -c 'echo hi'", "make -j2",
    "echo $'a\\tb'", "GIT_PAGER=cat git log", "env FOO=1 python x.py", "printf '%s\\n' rm",
    "git commit -m \"$(cat msg)\"", "source .venv/bin/activate && pytest", '. "$HOME/.cargo/env"',
    "flock /tmp/l make", "nice -n 5 echo rm", "git -C repo log --oneline", "bash --version",
    "tmux ls", "ssh host uptime", "valgrind ./a.out", "gdb -batch -ex bt ./core", "screen -ls",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_commands_stay_untouched_by_these_rules(command: str) -> None:
    for rules in (DENY, PUSH):
        assert rules.judge("run_shell", {"command": command}, Path("/tmp"))[0] is None


MORE_SPELLINGS = [
    "alias r='rm -rf'", "trap 'rm -rf x' EXIT", "script -qc 'rm x' /dev/null", "su -lc 'rm x'",
    "git config alias.z '!rm -rf x' && git z", "git config core.pager 'rm x'",
]


@pytest.mark.parametrize("command", MORE_SPELLINGS)
def test_lines_that_keep_a_command_for_later_are_read_too(command: str) -> None:
    assert DENY.judge("run_shell", {"command": command}, Path("/tmp"))[0] == "deny"


def test_git_config_making_an_alias_for_push_is_stopped_by_a_push_rule() -> None:
    assert PUSH.judge("run_shell", {"command": "git config alias.p push; git p"}, Path("/tmp"))[0] == "deny"
    assert PUSH.judge("run_shell", {"command": "git config user.name x"}, Path("/tmp"))[0] is None


def test_the_model_is_told_why_a_line_known_only_at_run_time_was_denied(tmp_path: Path) -> None:
    from shell.permissions.policy import PermissionPolicy
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    shell = next(t for t in builtin_tools(Workspace(tmp_path)) if t.name == "run_shell")
    policy = PermissionPolicy(tmp_path, user_rules=[parse_rule("run_shell(rm:*)", "deny", "user")],
                              user_config=tmp_path / "config.toml", mode="bypass")
    verdict = policy.decide(shell, {"command": "echo cm0gLXJmIHgK | base64 -d | sh"})
    assert verdict.action == "deny" and "known only when it runs" in verdict.reason
    plain = policy.decide(shell, {"command": "rm -rf x"})
    assert plain.action == "deny" and "known only" not in plain.reason
    assert policy.decide(shell, {"command": "ls | grep x"}).action == "allow"


def test_always_for_a_wrapper_the_deny_rules_see_through_keeps_the_whole_line(tmp_path: Path) -> None:
    """`fd:*` or `flock:*` kept from one approval would allow `fd -x ANYTHING` from then on."""
    from shell.permissions.policy import PermissionPolicy
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    shell = next(t for t in builtin_tools(Workspace(tmp_path)) if t.name == "run_shell")
    policy = PermissionPolicy(tmp_path, user_config=tmp_path / "config.toml")
    for line in ("fd -x wc -l", "flock /tmp/l make", "chronic make", "faketime 2020-01-01 date",
                 "trap 'x' EXIT"):
        assert policy.suggest(shell, {"command": line}) == (f"run_shell({line})",), line
