"""Git LFS objects are the repository's history too (finding A6): a commit names only a
file's sha256, its bytes live in ``.git/lfs/objects`` and often nowhere else. A command
that removes them is said, and ``/rewind`` puts them back. Real bubblewrap, git, git-lfs."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from shell.rewind import apply_rewind, plan_rewind
from shell.sessions import SessionStore

from .test_git_history_kept import _git, _run

BINARY = bytes(range(256)) * 4


def require_git_lfs() -> None:
    """Skip where git-lfs is missing; under CI it must be there (.ci/setup.d/gitlfs.sh)."""
    if shutil.which("git-lfs") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("git-lfs is missing: CI must run the Git LFS tests (.ci/setup.d/gitlfs.sh)")
        pytest.skip("git-lfs is not installed")


def lfs_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose tool.bin is an LFS object only the local store holds (the
    commit that had it was followed by one that removed it): the object's path."""
    require_git_lfs()
    ws = tmp_path / "ws"
    ws.mkdir()
    _git(ws, "init", "-q", "-b", "main")
    _git(ws, "config", "user.email", "t@t")
    _git(ws, "config", "user.name", "t")
    _git(ws, "lfs", "install", "--local")
    _git(ws, "lfs", "track", "*.bin")
    (ws / "tool.bin").write_bytes(BINARY)
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "c1")
    _git(ws, "rm", "-q", "tool.bin")
    _git(ws, "commit", "-qm", "c2")
    oid = hashlib.sha256(BINARY).hexdigest()
    obj = ws / ".git" / "lfs" / "objects" / oid[:2] / oid[2:4] / oid
    assert obj.read_bytes() == BINARY
    return ws, obj


def _quarantined(path: str) -> bytes:
    return Path(path).read_bytes()


def _lays_out(ws: Path) -> bytes | None:
    """tool.bin as ``git checkout HEAD~1 -- tool.bin`` writes it (None: git-lfs failed)."""
    done = subprocess.run(["git", "-C", str(ws), "checkout", "HEAD~1", "--", "tool.bin"], capture_output=True)
    return (ws / "tool.bin").read_bytes() if done.returncode == 0 else None


@pytest.mark.anyio
async def test_removed_lfs_objects_are_said_and_rewind_puts_them_back(
    tmp_path: Path, store: SessionStore
) -> None:
    ws, obj = lfs_repo(tmp_path)
    rt, text = await _run(ws, "rm -rf .git/lfs")
    assert not obj.exists() and _lays_out(ws) is None  # the binary is gone: the smudge filter fails
    assert "this command removed git history" in text and "1 Git LFS object file(s)" in text
    plan = plan_rewind(rt, 1)
    assert "1 Git LFS object file(s) put back" in plan.describe()
    outcome = apply_rewind(rt, plan, "files")
    assert "Git LFS object file(s) put back" in outcome.describe()
    assert obj.read_bytes() == BINARY
    assert _lays_out(ws) == BINARY


@pytest.mark.anyio
async def test_an_lfs_object_rewritten_in_place_is_taken_out_not_laid_out(
    tmp_path: Path, store: SessionStore
) -> None:
    """git-lfs checks only a local object's size: same-size bytes written over it were
    what the user's next checkout wrote into tool.bin, shown as the user's own change."""
    ws, obj = lfs_repo(tmp_path)
    plant = ("{ printf '#!/bin/sh\\necho PLANTED\\n'; head -c 2000 /dev/zero | tr '\\0' '#'; } "
             f"| head -c {len(BINARY)} > {obj.name}")
    _, text = await _run(ws, f"cd {obj.parent} && chmod u+w {obj.name} && {plant}; echo done")
    assert "not what its name (sha256) says" in text and "moved to" in text
    moved = re.search(r"moved to (\S+?);", text)
    assert moved is not None
    taken = _quarantined(moved.group(1))
    assert taken.startswith(b"#!/bin/sh\necho PLANTED") and len(taken) == len(BINARY)  # git-lfs took it
    assert not obj.exists()
    assert _lays_out(ws) is None  # no remote has it: git-lfs says so rather than write the planted bytes
    assert not (ws / "tool.bin").exists() or b"PLANTED" not in (ws / "tool.bin").read_bytes()


@pytest.mark.anyio
async def test_lfs_objects_an_honest_add_writes_say_nothing(tmp_path: Path, store: SessionStore) -> None:
    ws, obj = lfs_repo(tmp_path)
    add = "head -c 3000 /dev/zero > big.bin && git add big.bin && git commit -qm c3 && echo ok"
    _, text = await _run(ws, add)
    assert "ok" in text and "Git LFS" not in text and "sha256" not in text
    assert obj.read_bytes() == BINARY
    oid = hashlib.sha256(bytes(3000)).hexdigest()
    assert (ws / ".git" / "lfs" / "objects" / oid[:2] / oid[2:4] / oid).is_file()  # git-lfs ran
