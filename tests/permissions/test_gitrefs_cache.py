"""The refs a sandboxed command moved are said even when the check reads ref files
from its cache (``gitrefs.RefCache``: a file whose inode, size, mtime and ctime are
as before is not opened again). A command that rewrites a ref in place with the same
size and puts its mtime back must still be caught: the ctime gives it away."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions import gitrefs
from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace

A = "a" * 40
B = "b" * 40


def settle() -> None:
    """Wait past the cache's racy window: a ref changed within it is never taken from the cache."""
    time.sleep(gitrefs.RACY_NS / 1e9 + 0.05)


def refs_dir(tmp_path: Path, count: int) -> Path:
    heads = tmp_path / "refs" / "heads"
    heads.mkdir(parents=True)
    for n in range(count):
        (heads / f"b{n}").write_text(A + "\n")
    return tmp_path


def test_a_ref_rewritten_in_place_with_its_mtime_put_back_is_read_anew(tmp_path: Path) -> None:
    gitdir = refs_dir(tmp_path, 50)
    cache = gitrefs.RefCache()
    settle()
    assert gitrefs.read(gitdir, cache).value("refs/heads/b7") == A
    ref = gitdir / "refs" / "heads" / "b7"
    was = os.stat(ref)
    with open(ref, "r+") as fh:  # in place: the same inode, the same size
        fh.write(B + "\n")
    os.utime(ref, ns=(was.st_atime_ns, was.st_mtime_ns))
    now = gitrefs.read(gitdir, cache)
    assert now.value("refs/heads/b7") == B
    assert now.value("refs/heads/b8") == A


def test_refs_added_and_removed_since_the_cached_read_are_seen(tmp_path: Path) -> None:
    gitdir = refs_dir(tmp_path, 20)
    cache = gitrefs.RefCache()
    settle()
    before = gitrefs.read(gitdir, cache)
    (gitdir / "refs" / "heads" / "b3").unlink()
    (gitdir / "refs" / "tags").mkdir()
    (gitdir / "refs" / "tags" / "v1").write_text(B + "\n")
    after = gitrefs.read(gitdir, cache)
    assert before.value("refs/heads/b3") == A and after.value("refs/heads/b3") is None
    assert after.value("refs/tags/v1") == B
    assert after.names() == before.names() - {"refs/heads/b3"} | {"refs/tags/v1"}


def test_a_ref_changed_just_before_it_was_read_is_not_trusted_from_the_cache(tmp_path: Path) -> None:
    gitdir = refs_dir(tmp_path, 3)
    cache = gitrefs.RefCache()
    gitrefs.read(gitdir, cache)  # written just now: inside the racy window, so not cached
    assert not cache.known(str(gitdir))
    settle()
    gitrefs.read(gitdir, cache)
    assert len(cache.known(str(gitdir))) == 3


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-refcache-")


@pytest.mark.anyio
async def test_the_second_command_in_a_sandbox_that_moves_a_branch_in_place_is_said(ws: Path) -> None:
    """Two commands in one sandbox (its cache warm from the first): the second rewrites
    another branch's ref file in place, same size, mtime put back (``touch -r``)."""
    require_sandbox()
    git(ws, "init", "-q", "-b", "main")
    (ws / "a").write_text("1\n")
    git(ws, "add", "a")
    git(ws, "commit", "-qm", "one")
    git(ws, "branch", "release")
    (ws / "a").write_text("2\n")
    git(ws, "commit", "-qam", "two")
    first, second = git(ws, "rev-parse", "HEAD~1").strip(), git(ws, "rev-parse", "HEAD").strip()
    settle()
    box = Sandbox(ws)
    quiet = await run_command("echo hello", box.workspace, 30, lambda _: None, sandbox=box)
    assert "git refs" not in quiet.text
    settle()
    moved = await run_command(
        f"cp -p .git/refs/heads/release /tmp/was && printf '{second}\\n' 1<> .git/refs/heads/release && "
        "touch -r /tmp/was .git/refs/heads/release && echo done",
        box.workspace, 30, lambda _: None, sandbox=box)
    assert "done" in moved.text
    assert f"branch release: moved from {first[:12]} to {second[:12]}" in moved.text
