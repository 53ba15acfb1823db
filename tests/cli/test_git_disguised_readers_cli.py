"""Finding C16 through the console script, real git and bubblewrap: git run in a way
the word reading cannot see its subcommand (``echo log -p | xargs git``, a copy of git's
program, an interpreter's code string naming git) printed a removed ``.env``'s key from
history unasked, shifted past the values net (``tr a-zA-Z b-zaB-ZA``). Now each asks while
the history holds a secret file, and an honest ``xargs git add`` in a clean repository
stays quiet."""

from __future__ import annotations

from pathlib import Path

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_history_content_cli import ASKED, TOKEN, Script, git, removed_env, run

SHIFTED = TOKEN.translate(str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                                        "bcdefghijklmnopqrstuvwxyzaBCDEFGHIJKLMNOPQRSTUVWXYZA"))
SHIFT = "grep TOKEN | tr a-zA-Z b-zaB-ZA"
DISGUISED = [
    f"echo log -p | xargs git | {SHIFT}",
    f"echo log | xargs -I{{}} git {{}} -p | {SHIFT}",
    f"cp /usr/bin/git ./g && ./g log -p | {SHIFT}",
    f"python3 -c \"import os; os.system('git log -p')\" | {SHIFT}",
]


def test_git_under_another_name_asks_while_history_holds_a_secret(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    removed_env(workspace)
    sent = run(run_cli, script, DISGUISED, "auto")
    assert sent.count(ASKED) == len(DISGUISED), sent[-3000:]
    assert SHIFTED not in sent and TOKEN not in sent, sent[-3000:]


def test_a_copy_left_by_an_earlier_command_is_still_git(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    removed_env(workspace)
    sent = run(run_cli, script, ["cp /usr/bin/git tool"], "bypass")  # the copy, made with nothing read
    assert (workspace / "tool").exists(), sent[-2000:]
    sent = run(run_cli, script, [f"./tool log -p | {SHIFT}"], "auto")
    assert ASKED in sent and SHIFTED not in sent, sent[-3000:]


def test_honest_xargs_git_stays_quiet_in_a_clean_repository(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    git(workspace, "init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    sent = run(run_cli, script, ["echo a.txt | xargs git add && git status --short"], "auto")
    assert ASKED not in sent and "A  a.txt" in sent, sent[-2000:]
