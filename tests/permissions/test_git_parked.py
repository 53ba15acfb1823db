"""Where a commit is parked in git's refs (the stash list, notes, other refs) and how the
user drops it: what the second net's warning names (:mod:`shell.permissions.gitparked`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from shell.permissions import githeads, gitparked


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                          capture_output=True, text=True, env=env).stdout


def stashed_three(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.txt").write_text("a\n")
    git(tmp_path, "add", "a.txt")
    git(tmp_path, "commit", "-qm", "a")
    for n in range(3):
        (tmp_path / "a.txt").write_text(f"change {n}\n")
        git(tmp_path, "add", "a.txt")  # each entry's index commit its own
        git(tmp_path, "stash", "-q")
    return tmp_path


def test_every_stash_entry_counts_among_the_tips_not_only_the_top(tmp_path: Path) -> None:
    repo = stashed_three(tmp_path)
    listed = [git(repo, "rev-parse", f"stash@{{{n}}}").strip().encode() for n in range(3)]
    assert sorted(gitparked.tops(repo, repo / ".git") or []) == sorted(listed)  # read from the reflog
    assert sorted(gitparked.tops(repo, None) or []) == sorted(listed)  # asked of git
    tips = githeads.tips(repo, b"", repo / ".git") or ()
    assert all(entry in tips for entry in listed)


def test_a_stash_entry_is_named_by_its_place_in_the_list_also_by_its_index_commit(tmp_path: Path) -> None:
    repo = stashed_three(tmp_path)
    middle = git(repo, "rev-parse", "stash@{1}").strip().encode()
    index = git(repo, "rev-parse", "stash@{1}^2").strip().encode()
    assert gitparked.places(repo, middle) == ["stash@{1}"]
    assert gitparked.places(repo, index) == ["stash@{1}"]
    where, drops = gitparked.parked(repo, index)
    assert where == "the stash entry stash@{1}" and drops.endswith("stash drop stash@{1}`")


def test_other_refs_are_named_with_the_command_that_deletes_each(tmp_path: Path) -> None:
    repo = stashed_three(tmp_path)
    head = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "update-ref", "refs/parked/x", head)
    git(repo, "notes", "add", "-m", "n", head)
    note = git(repo, "rev-parse", "refs/notes/commits").strip().encode()
    assert "refs/parked/x" in gitparked.places(repo, head.encode())
    assert gitparked.places(repo, note) == ["refs/notes/commits"]
    assert gitparked.shown("refs/notes/commits") == "notes ref refs/notes/commits"
    assert gitparked.how_to_drop(repo, "refs/parked/x").endswith("update-ref -d refs/parked/x")
    assert gitparked.how_to_drop(repo, "refs/heads/side").endswith("branch -D side")
