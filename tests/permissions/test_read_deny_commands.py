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


def tracked_repo(root: Path, *, track: bool = True) -> None:
    import subprocess

    (root / "config" / "secrets").mkdir(parents=True)
    (root / "config" / "secrets" / "db.txt").write_text("TOPSECRETPLAN\n")
    (root / "README.md").write_text("hi\n")
    if not track:
        (root / ".gitignore").write_text("config/secrets/\n")
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)


@pytest.mark.parametrize("command", [
    "git grep -h . HEAD", "git log -p | grep -i top", "git archive HEAD | tar -xO", "git show",
    "git diff HEAD~1", "git -C . log --patch", "git stash show -p", "bash -c 'git log -S TOP'",
    "git clone . /tmp/c && cat /tmp/c/README.md", "git --work-tree=/tmp/w checkout -f HEAD",
])
def test_git_history_readers_ask_while_a_read_deny_names_a_tracked_path(tmp_path: Path, command: str) -> None:
    """Tester finding N2: these printed the denied file's committed content unasked (auto)."""
    tracked_repo(tmp_path)
    action, reason = decide(tmp_path, command)
    assert action == "ask", (command, reason)
    assert "config/secrets" in reason and "deny read_file(config/secrets/**)" in reason
    assert "git's history" in reason


@pytest.mark.parametrize("command", ["git status", "git diff", "git log --oneline -5", "git show --stat",
                                     "git add -A && git commit -m wip", "git diff README.md"])
def test_git_commands_that_print_no_history_contents_stay_as_the_mode_says(tmp_path: Path,
                                                                          command: str) -> None:
    tracked_repo(tmp_path)
    assert decide(tmp_path, command)[0] == "allow", command


def test_history_readers_do_not_ask_when_git_tracks_nothing_a_rule_denies(tmp_path: Path) -> None:
    tracked_repo(tmp_path, track=False)
    assert decide(tmp_path, "git log -p")[0] == "allow"
    assert decide(tmp_path, "git log -p", deny=())[0] == "allow"


@pytest.mark.parametrize("command", ["git status --short; grep -r TOP .", "true || git; grep -r TOP .",
                                     "npm test && git add -A"])
def test_a_line_running_git_beside_other_programs_runs_as_the_mode_says(tmp_path: Path, command: str) -> None:
    """Verify round P1: a line of git commands saw tracked denied files as staged, and
    `grep` beside git read them; so such a line asked. No line sees a copy of them now (git
    leaves them as staged through the index: :mod:`shell.permissions.gitmarks`), so there
    is nothing to ask about (tests/permissions/test_read_deny_git.py runs such lines). A
    command word known only at run time (``x=grep; $x …``) asks: it may as well be
    ``x=git; $x log -p`` (tests/permissions/test_git_quiet.py)."""
    tracked_repo(tmp_path)
    assert decide(tmp_path, command)[0] == "allow", command


def test_an_allow_rule_is_no_grant_to_read_denied_history(tmp_path: Path) -> None:
    """Verify round P2: ``allow run_shell(git log:*)`` let ``git log -p`` print a denied
    file's committed content unasked."""
    tracked_repo(tmp_path)
    allow = ["run_shell(git log:*)", "run_shell(grep:*)"]
    rules, problems = parse_rules({"deny": list(DENY), "allow": allow}, "user")
    assert not problems
    policy = PermissionPolicy(tmp_path, user_rules=rules, user_config=tmp_path / "config.toml", mode="auto",
                              sandboxed=lambda _: True, load_project=False)
    shell: Tool = next(t for t in builtin_tools(Workspace(tmp_path)) if t.name == "run_shell")
    for command in ("git log -p", "git log -p -- config/secrets/db.txt", "grep -r TOP config/secrets"):
        verdict = policy.decide(shell, {"command": command})
        assert verdict.action == "ask", (command, verdict)
    assert policy.decide(shell, {"command": "git log --oneline"}).action == "allow"


@pytest.mark.parametrize("hide", ["config/secrets", "ABS"])
@pytest.mark.parametrize("command", ["git log -p | grep -i top", "git grep TOP HEAD",
                                     "git show HEAD:config/secrets/db.txt"])
def test_a_folder_the_config_hides_is_asked_about_as_a_deny_rule_is(tmp_path: Path, hide: str,
                                                                    command: str) -> None:
    """Verify round P8: with ``[sandbox] hide`` (relative or absolute) and no deny rule, git's
    history readers and a line naming the folder printed its committed content unasked."""
    from shell.permissions.sandbox import Sandbox

    tracked_repo(tmp_path)
    rules, _ = parse_rules({}, "user")
    policy = PermissionPolicy(tmp_path, user_rules=rules, user_config=tmp_path / "config.toml", mode="auto",
                              sandboxed=lambda _: True, load_project=False)
    policy.sandbox = Sandbox(tmp_path, hidden=[str(tmp_path / "config/secrets") if hide == "ABS" else hide])
    shell: Tool = next(t for t in builtin_tools(Workspace(tmp_path)) if t.name == "run_shell")
    verdict = policy.decide(shell, {"command": command})
    assert verdict.action == "ask", (command, verdict)
    assert "config/secrets" in verdict.reason and "[sandbox] hide" in verdict.reason
    assert policy.decide(shell, {"command": "git log --oneline"}).action == "allow"
