"""Findings U1, U2, U7 through the console script, with real bubblewrap and real git: one
``run_shell`` call in ``auto`` mode printed a read-denied committed file unasked, by
running git where the check did not look. Now each asks, and ``--approve never`` refuses
it, so the denied content reaches neither the model nor the output.

- U1: a push to a bare relative name copies the history into a repository no rule
  covers, and ``git -C q`` lays it out there (the sandbox hides the workspace's paths);
- U2: git's builtins under their dashed names (``git --exec-path``/git-show) are git;
- U7: a replace ref or a HEAD written earlier in the line changes what git resolves
  after the check looked.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_quiet_cli import ASKED, INI, PLAN, committed, deny, git, run

__all__ = ["deny"]

CURRENT = {
    "U1 push to a relative name, checkout there": "git init -q q; git push -q q HEAD:refs/heads/x; "
                                                  "git -C q checkout -q x; cat q/secrets/plan.txt",
    "U1 a copied .git reset there": "mkdir q && cp -r .git q/ && rm q/.git/index && git -C q reset -q --hard "
                                    "&& cat q/secrets/plan.txt",
    "U1 cd into a copied .git": "mkdir q && cp -r .git q/ && rm q/.git/index && cd q && git reset -q --hard "
                                "&& grep -r TOP . --exclude-dir=.git",
    "U2 git-show by its path": "{exec_path}/git-show HEAD~0 | grep -a TOPSECRET",
    "U2 git-grep by its path": "{exec_path}/git-grep -h TOPSECRET HEAD",
    "U7 a replace ref in the same line": "mkdir -p .git/refs/replace && "
                                         "echo {plan} > .git/refs/replace/{head} && git show --stat HEAD",
}
HISTORY_ONLY = {
    "U1 branch and reset in the pushed copy": "git init -q -b main q; git push -q q HEAD~1:refs/heads/x; "
                                              "git -C q branch -f main x; git -C q reset -q --hard; "
                                              "cat q/secrets/*",
    "U7 HEAD written in the same line": "echo {first} > .git/HEAD; git reset -q --hard; "
                                        "grep -r TOP . --exclude-dir=.git",
}


@pytest.mark.parametrize("name", sorted(CURRENT))
def test_git_run_where_the_check_did_not_look_asks(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path, name: str
) -> None:
    require_sandbox()
    plan = committed(workspace)
    head = git(workspace, "rev-parse", "HEAD").strip()
    exec_path = git(workspace, "--exec-path").strip()
    sent, shown = run(run_cli, script, deny, CURRENT[name].format(plan=plan, head=head, exec_path=exec_path))
    assert PLAN not in shown and INI not in shown, (name, shown)
    assert ASKED in sent, (name, sent)
    assert git(workspace, "status", "--porcelain") == ""
    assert not (workspace / ".git" / "refs" / "replace" / head).exists()


def test_a_copy_into_a_folder_of_the_repository_then_git_there_asks(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path
) -> None:
    """U1 with a folder that existed when the line was read (an earlier call made it): it
    was in the workspace's repository then, a repository of its own once the copy ran."""
    require_sandbox()
    committed(workspace)
    (workspace / "q").mkdir()
    line = "cp -r . /tmp/c && cp -r /tmp/c/. q/ && git -C q reset -q --hard && cat q/secrets/plan.txt"
    sent, shown = run(run_cli, script, deny, line)
    assert PLAN not in shown and INI not in shown, shown
    assert ASKED in sent, sent
    assert list((workspace / "q").iterdir()) == []


@pytest.mark.parametrize("name", sorted(HISTORY_ONLY))
def test_git_laying_out_history_where_the_check_did_not_look_asks(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path, name: str
) -> None:
    require_sandbox()
    committed(workspace, then_removed=True)
    first = git(workspace, "rev-list", "--max-parents=0", "HEAD").strip()
    head = git(workspace, "rev-parse", "HEAD").strip()
    sent, shown = run(run_cli, script, deny, HISTORY_ONLY[name].format(first=first))
    assert PLAN not in shown and INI not in shown, (name, shown)
    assert ASKED in sent, (name, sent)
    assert git(workspace, "rev-parse", "HEAD").strip() == head
    assert not (workspace / "secrets").exists() and not (workspace / "q").exists()
