"""Finding C13 through the console script, real git and bubblewrap: a secret file in
objects no ref reaches (a dropped stash of an untracked ``.env``; a ``.env`` staged then
unstaged) was printed unasked by the readers of the whole object store (``git fsck
--unreachable`` then ``git show``, ``git cat-file --batch-all-objects --batch``), past
the values net with a ``rev`` or a one-letter shift. Now those readers ask, and so does a
reader naming an unreachable commit by its id; a reachable commit's id stays quiet."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ..sandboxing import require_sandbox
from .conftest import RunCli
from .test_git_history_content_cli import ASKED, GIT_ENV, Script, git, run

TOKEN = "Vv83hdPq2LmXz7Rj"
SHIFTED = TOKEN.translate(str.maketrans("abcdefghijklmnopqrstuvwxyz", "bcdefghijklmnopqrstuvwxyza"))


def dropped_stash(ws: Path) -> str:
    """An untracked ``.env`` stashed with ``-u``, the stash dropped; the dropped stash's id."""
    git(ws, "init", "-q", "-b", "main")
    (ws / "a.txt").write_text("a\n")
    git(ws, "add", ".")
    git(ws, "commit", "-qm", "c0")
    (ws / ".env").write_text(f"TOKEN={TOKEN}\n")
    git(ws, "stash", "-q", "-u")
    stash = subprocess.run(["git", "rev-parse", "stash@{0}"], cwd=ws, check=True, capture_output=True,
                           text=True, env={**GIT_ENV, "PATH": "/usr/bin:/bin"}).stdout.strip()
    git(ws, "stash", "drop", "-q")
    return stash


def test_readers_of_unreachable_objects_ask(run_cli: RunCli, script: Script, workspace: Path) -> None:
    require_sandbox()
    stash = dropped_stash(workspace)
    lines = [
        "git fsck --unreachable --no-reflogs | awk '/commit/{print $3}' | while read c; do "
        "git show --format= -p $c^3; done | rev",
        "git cat-file --batch-all-objects --batch | grep -a TOKEN | rev",
        f"git show --format= -p {stash}^3 | rev",
        f"git cat-file -p {stash[:12]}^3:.env | tr a-z b-za",
    ]
    sent = run(run_cli, script, lines, "auto")
    assert sent.count(ASKED) == len(lines), sent[-3000:]
    assert TOKEN[::-1] not in sent and SHIFTED not in sent and TOKEN not in sent, sent[-3000:]


def test_a_staged_then_unstaged_env_is_not_read_through_the_whole_store(
    run_cli: RunCli, script: Script, workspace: Path
) -> None:
    require_sandbox()
    git(workspace, "init", "-q", "-b", "main")
    (workspace / "a.txt").write_text("a\n")
    git(workspace, "add", "a.txt")
    git(workspace, "commit", "-qm", "c0")
    (workspace / ".env").write_text(f"TOKEN={TOKEN}\n")
    git(workspace, "add", ".env")
    git(workspace, "reset", "-q", ".env")
    (workspace / ".env").write_text("OTHER=Pp41kdSs9NmQw2Zc\n")
    line = "git cat-file --batch-all-objects --batch | grep -a TOKEN | tr a-z b-za"
    sent = run(run_cli, script, [line], "auto")
    assert ASKED in sent and SHIFTED not in sent, sent[-3000:]


def test_a_reachable_commits_id_stays_quiet(run_cli: RunCli, script: Script, workspace: Path) -> None:
    require_sandbox()
    dropped_stash(workspace)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=workspace, check=True, capture_output=True,
                          text=True).stdout.strip()
    sent = run(run_cli, script, [f"git show --stat {head[:10]}", "git log --oneline"], "auto")
    assert ASKED not in sent and "a.txt" in sent and "c0" in sent, sent[-3000:]
