"""Finding Q9 through the real console script, real git and bubblewrap: while a deny
rule on reading names a committed file, git's history readers ask. A list of readers kept
missing spellings (``git log -U1``, ``--unified``, ``--binary``, ``whatchanged``, an alias,
``checkout-index --prefix``), and a file untracked after its commit counted as not held
(P1 #14). Now every git command asks but those known to print no contents, history is
asked as well as the index, and the everyday commands still run unasked."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..sandboxing import require_sandbox
from .conftest import RunCli

Script = Callable[[list[Any]], str]
SECRET = "TOPSECRETPLAN"
CONFIG = '[permissions]\nmode = "auto"\ndeny = ["read_file(secrets/**)"]\n'
LEAKING = ["git log -U1", "git log --unified=1", "git log --binary", "git whatchanged -U0",
           "git show -s --format=%H HEAD | xargs -I{} git log -U3 {}", "git -c alias.v=grep v -h . HEAD",
           "git -c alias.v=show v HEAD~1", "git checkout-index -a -f --prefix=out/ && cat out/*/*",
           "git restore --source HEAD~1 --worktree -- . && cat */*.txt",
           "git read-tree --prefix=copy/ HEAD && git checkout-index -a -f --prefix=o2/ && cat o2/copy/*/*"]
EVERYDAY = ["git status", "git log --oneline", "git diff --stat HEAD~1",
            "echo more >> README.md && git add -A && git commit -qm wip && git log --oneline -1"]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def _repository(cli_env: dict[str, str], workspace: Path) -> None:
    config = Path(cli_env["AGENT_SHELL_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "config.toml").write_text(CONFIG)
    (workspace / "secrets").mkdir()
    (workspace / "secrets" / "plan.txt").write_text(f"{SECRET}\n")
    (workspace / "README.md").write_text("hello\n")
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "start")
    (workspace / "README.md").write_text("hello again\n")
    git(workspace, "commit", "-qam", "second")


def _run(run_cli: RunCli, script: Script, commands: list[str]) -> tuple[list[str], list[str], str]:
    """Each call's result and the questions asked, in auto with ``--approve never``."""
    turns = [{"tool_calls": [{"name": "run_shell", "args": {"command": c}, "id": f"c{i}"}
                             for i, c in enumerate(commands)]}, "Done."]
    r = run_cli("-p", "look around", "--model", script(turns), "--approve", "never", "--no-session",
                "--output-format", "jsonl", timeout=240)
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in r.stdout.splitlines()]
    results = [json.dumps(e.get("result")) for e in events if e.get("type") == "ToolExecutionEnd"]
    asked = [e["request"]["reason"] for e in events if e.get("type") == "ApprovalRequested"]
    return results, asked, r.stdout


def test_every_git_command_that_may_print_history_asks_while_a_deny_rule_names_it(
    run_cli: RunCli, cli_env: dict[str, str], script: Script, workspace: Path
) -> None:
    require_sandbox()
    _repository(cli_env, workspace)
    results, asked, out = _run(run_cli, script, LEAKING)
    assert SECRET not in out
    assert len(results) == len(LEAKING) and all("was not run" in r for r in results), results
    assert len(asked) == len(LEAKING) and all("secrets" in a and "read_file(secrets/**)" in a for a in asked)
    assert not (workspace / "out").exists(), "nothing was laid out"


def test_everyday_git_commands_still_run_unasked(
    run_cli: RunCli, cli_env: dict[str, str], script: Script, workspace: Path
) -> None:
    require_sandbox()
    _repository(cli_env, workspace)
    results, asked, out = _run(run_cli, script, EVERYDAY)
    assert asked == [] and SECRET not in out
    assert all("[exit code 0]" in r for r in results), results
    assert "README.md" in results[2] and "wip" in results[3]
    assert git(workspace, "log", "--format=%s") == "wip\nsecond\nstart\n"


def test_a_file_once_committed_then_untracked_still_counts_as_held(
    run_cli: RunCli, cli_env: dict[str, str], script: Script, workspace: Path
) -> None:
    """P1 #14: ``git rm --cached`` and an ignore line took the file out of the index, not out
    of history; ``git log -p`` printed its old content unasked."""
    require_sandbox()
    _repository(cli_env, workspace)
    git(workspace, "rm", "-rq", "--cached", "secrets")
    (workspace / ".gitignore").write_text("secrets/\n")
    git(workspace, "add", ".gitignore")
    git(workspace, "commit", "-qm", "untrack")
    results, asked, out = _run(run_cli, script, ["git log -p | grep -i top", "git show HEAD~1 | grep TOP",
                                                 "git log --oneline"])
    assert SECRET not in out
    assert "was not run" in results[0] and "was not run" in results[1]
    assert len(asked) == 2 and "[exit code 0]" in results[2] and "untrack" in results[2]
