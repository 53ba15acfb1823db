"""Finding U5: the history check started a hardened git for every git part of a line, so a
hostile model's one line of thousands (``git checkout -q main; `` 6,000 times) held the
shell for tens of seconds before anything ran. The same command again is judged once, and
a line of more different git commands than the check judges one by one asks."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from shell.permissions import githardened
from shell.permissions.githistory import MAX_JUDGED, history_reader

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_quiet_cli import ASKED, committed, deny, git, run

__all__ = ["deny"]


def _counted(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    real = githardened.run

    def counting(args: Any, **kwargs: Any) -> subprocess.CompletedProcess[bytes] | None:
        calls.append(args)
        return real(args, **kwargs)

    monkeypatch.setattr(githardened, "run", counting)
    return calls


def test_the_same_git_command_many_times_in_a_line_is_judged_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    committed(tmp_path)
    git(tmp_path, "branch", "b2")
    once = _counted(monkeypatch)
    assert history_reader("git checkout -q b2", tmp_path) == ""
    runs = len(once)
    many = _counted(monkeypatch)
    line = "; ".join(["git checkout -q b2", "git show --stat HEAD~0..HEAD"] * 200)
    assert history_reader(line, tmp_path) == ""
    assert runs >= 1 and len(many) <= runs + 2, len(many)


def test_more_different_git_commands_than_are_judged_one_by_one_is_a_reader(tmp_path: Path) -> None:
    committed(tmp_path)
    line = "; ".join(f"git log -{n} --oneline" for n in range(1, MAX_JUDGED + 2))
    assert "git commands in one line" in history_reader(line, tmp_path)
    assert history_reader("; ".join(f"git log -{n} --oneline" for n in range(1, MAX_JUDGED)), tmp_path) == ""


def test_a_long_line_of_git_commands_asks_through_the_cli(
    run_cli: RunCli, script: Callable[[list[Any]], str], deny: Path, workspace: Path
) -> None:
    require_sandbox()
    committed(workspace)
    line = "; ".join(f"git log -{n} --oneline" for n in range(1, 2000))  # ~40 KB
    sent, _ = run(run_cli, script, deny, line)
    assert ASKED in sent, sent[-2000:]
