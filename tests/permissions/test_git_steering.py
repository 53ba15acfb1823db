"""Git's files that steer what the user's *next* git command reaches: the shallow list
(finding A1), a linked worktree's ``gitdir`` (A4), an index entry that says a file is
unchanged (A2). A command in the sandbox may write the git directory; these are put
back, or refused, and said. Against the real bubblewrap and git."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from shell.permissions import gitindexstat, gitshallow

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitsteer-")


def _three_commits(ws: Path) -> list[str]:
    git(ws, "init", "-q", "-b", "main")
    for i in (1, 2, 3):
        (ws / f"f{i}.txt").write_text(f"v{i}\n")
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", f"c{i}")
    return git(ws, "rev-list", "HEAD").split()


# -- A4: a linked worktree's admin files ---------------------------------------------------


@pytest.mark.parametrize("how", ["echo /tmp/gone/.git > .git/worktrees/feat/gitdir",
                                 "rm -f .git/worktrees/feat/gitdir"])
async def test_a_linked_worktrees_gitdir_cannot_be_rewritten(ws: Path, how: str) -> None:
    """Finding A4: ``gitdir`` pointed elsewhere (or removed) made the user's next ``git
    worktree prune`` delete the worktree's admin folder: its index with the staged
    work, its HEAD; the checkout was then "not a git repository"."""
    require_sandbox()
    _three_commits(ws)
    feat = ws.parent / "feat"
    git(ws, "worktree", "add", "-q", str(feat), "-b", "feat")
    (feat / "s.txt").write_text("staged work\n")
    git(feat, "add", "s.txt")
    admin = ws / ".git" / "worktrees" / "feat"
    was = (admin / "gitdir").read_bytes()
    result = await sh(ws, how)
    assert (admin / "gitdir").read_bytes() == was, result.text
    git(ws, "worktree", "prune", "--expire=now")
    assert admin.is_dir()
    assert "s.txt" in git(feat, "diff", "--cached", "--name-only")


async def test_the_worktrees_own_git_commands_still_work(ws: Path) -> None:
    """Read-only admin files leave what git writes for a linked worktree writable: its
    index, HEAD, a commit on its branch, a lock and unlock of another one."""
    require_sandbox()
    _three_commits(ws)
    git(ws, "worktree", "add", "-q", str(ws / "wt2"), "-b", "side")
    result = await sh(ws, "cd wt2 && echo x > n.txt && git add n.txt && git commit -qm side-commit && "
                          "git log -1 --format=%s && cd .. && git worktree lock --reason moving wt2")
    assert not result.is_error and "side-commit" in result.text, result.text
    assert "worktrees" not in result.text.split("side-commit", 1)[1], result.text
    assert (ws / ".git" / "worktrees" / "wt2" / "locked").read_text().strip() == "moving"


# -- A1: the shallow list -------------------------------------------------------------------


def _users_gc_keeps(ws: Path, commits: list[str]) -> None:
    """The user's own clean-up later: reflog expired, gc pruning now; every commit still there."""
    git(ws, "reflog", "expire", "--expire=now", "--all")
    git(ws, "gc", "-q", "--prune=now")
    for commit in commits:
        git(ws, "cat-file", "-e", commit)
    assert git(ws, "rev-list", "HEAD").split() == commits


async def test_a_shallow_list_a_command_writes_is_removed_and_said(ws: Path) -> None:
    """Finding A1: ``git rev-parse HEAD > .git/shallow`` made HEAD the start of history;
    the user's next ``git gc`` deleted every older commit."""
    require_sandbox()
    commits = _three_commits(ws)
    result = await sh(ws, "git rev-parse HEAD > .git/shallow && git log --oneline | wc -l")
    assert result.text.startswith("1"), result.text  # it did take, inside the sandbox
    assert not (ws / ".git" / "shallow").exists()
    assert "shallow list" in result.text and "removed" in result.text and commits[0][:12] in result.text
    _users_gc_keeps(ws, commits)


@pytest.mark.parametrize("info", ["kept", "removed first"])
async def test_a_grafts_file_cannot_cut_history_either(ws: Path, info: str) -> None:
    """``info/grafts`` cuts history as the shallow list does (git still reads it, with a
    warning): read-only with ``info/``, and a new ``info/`` holding it is moved out."""
    require_sandbox()
    commits = _three_commits(ws)
    if info == "removed first":
        for entry in (ws / ".git" / "info").iterdir():
            entry.unlink()
        (ws / ".git" / "info").rmdir()
    result = await sh(ws, "mkdir -p .git/info; git rev-parse HEAD > .git/info/grafts")
    assert not (ws / ".git" / "info" / "grafts").exists(), result.text
    _users_gc_keeps(ws, commits)


def test_of_a_list_with_real_boundaries_only_the_cutting_entries_are_taken_out(ws: Path) -> None:
    """A command's list naming a real boundary (a commit whose parent this repository
    lacks, as git fetch --depth writes) beside HEAD: HEAD's entry goes, the other stays."""
    commits = _three_commits(ws)
    tree = git(ws, "rev-parse", "HEAD^{tree}").strip()
    body = f"tree {tree}\nparent {'1' * 40}\nauthor t <t@e> 0 +0000\ncommitter t <t@e> 0 +0000\n\nfetched\n"
    boundary = subprocess.run(["git", "hash-object", "-t", "commit", "--literally", "-w", "--stdin"], cwd=ws,
                              input=body, text=True, capture_output=True, check=True).stdout.strip()
    (ws / ".git" / "shallow").write_text(f"{boundary}\n{commits[0]}\n")
    said = gitshallow.check(ws / ".git", None)
    assert (ws / ".git" / "shallow").read_text() == f"{boundary}\n"
    assert len(said) == 1 and "real boundaries it added kept" in said[0].undone
    assert commits[0][:12] in said[0].undone
    (ws / ".git" / "shallow").write_text(f"{boundary}\n")
    assert gitshallow.check(ws / ".git", None) == []  # the honest boundary alone: kept, unsaid


def _shallow_clone(ws: Path) -> tuple[Path, list[str]]:
    """``ws`` a clone of depth 1 of a three-commit repository kept inside it (``up/``)."""
    up = ws.parent / "up"
    up.mkdir()
    commits = _three_commits(up)
    git(ws.parent, "clone", "-q", "--depth=1", f"file://{up}", str(ws))
    moved = ws / "up"
    up.rename(moved)
    git(ws, "remote", "set-url", "origin", f"file://{moved}")
    (ws / ".git" / "info" / "exclude").write_text("up/\n")
    return moved, commits


async def test_a_changed_shallow_list_is_set_back(ws: Path) -> None:
    require_sandbox()
    _, commits = _shallow_clone(ws)
    git(ws, "fetch", "-q", "--depth=2", "origin")
    was = (ws / ".git" / "shallow").read_bytes()
    assert was.split() == [commits[1].encode()]
    result = await sh(ws, "git rev-parse HEAD >> .git/shallow && git log --oneline | wc -l")
    assert result.text.startswith("1"), result.text
    assert (ws / ".git" / "shallow").read_bytes() == was, result.text
    assert "set back as it was" in result.text and commits[0][:12] in result.text


async def test_git_fetch_deepen_and_unshallow_keep_their_shallow_list(ws: Path) -> None:
    """Git's own writes: each new entry lacks a parent here (fetch --depth), or entries
    only go (--unshallow). Kept, nothing said."""
    require_sandbox()
    _, commits = _shallow_clone(ws)
    result = await sh(ws, "git fetch -q --depth=2 origin && git rev-list HEAD | wc -l")
    assert not result.is_error and "shallow" not in result.text, result.text
    assert result.text.startswith("2")
    assert (ws / ".git" / "shallow").read_text().split() == [commits[1]]
    result = await sh(ws, "git fetch -q --unshallow origin && git rev-list HEAD | wc -l")
    assert not result.is_error and "shallow" not in result.text, result.text
    assert not (ws / ".git" / "shallow").exists()
    _users_gc_keeps(ws, commits)


# -- A2: an index entry that says an edited file is unchanged ------------------------------

APP = "def f():\n    return 1\n"
FORGE_PY = """python3 - "$O" NAME <<'PY'
import hashlib, struct, sys
old, name = bytes.fromhex(sys.argv[1]), sys.argv[2].encode()
data = bytearray(open(".git/index", "rb").read())
_, version, count = struct.unpack(">4sII", data[:12])
off = 12
for _ in range(count):
    flags = struct.unpack(">H", data[off + 60:off + 62])[0]
    length = flags & 0xFFF
    if bytes(data[off + 62:off + 62 + length]) == name:
        data[off + 40:off + 60] = old
    off += (62 + length + 8) // 8 * 8
data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
open(".git/index", "wb").write(bytes(data))
PY
git status --short; echo status-done"""
"""Writes the blob id ``$O`` into NAME's index entry, its stat kept (finding A2's forge.py)."""
FORGE_ENTRY = ("O=$(git rev-parse HEAD:app.py) && echo 'import os; os.system(\"id\")' >> app.py && "
               "touch -d '1 min ago' app.py && git add app.py && " + FORGE_PY.replace("NAME", "app.py", 1))
FORGE_LINK = ("O=$(git rev-parse HEAD:run) && ln -sfn evil.sh run && touch -h -d '1 min ago' run && "
              "git add run && " + FORGE_PY.replace("NAME", "run", 1))


def _app_repo(ws: Path) -> None:
    git(ws, "init", "-q", "-b", "main")
    (ws / "app.py").write_text(APP)
    (ws / "other.py").write_text("x = 1\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "c1")


async def test_an_index_entry_forged_to_hide_an_edit_is_cleared_and_said(ws: Path) -> None:
    """Finding A2: the committed blob's id with the edited file's stat: git status, git
    diff clean, and the edit survived the user's git reset --hard."""
    require_sandbox()
    _app_repo(ws)
    result = await sh(ws, FORGE_ENTRY)
    assert result.text.startswith("status-done"), result.text  # clean inside the sandbox: it did take
    assert "app.py" in result.text and "blob id that is not its content" in result.text
    assert git(ws, "status", "--short") == " M app.py\n"
    assert "os.system" in git(ws, "diff")
    git(ws, "reset", "-q", "--hard")
    assert (ws / "app.py").read_text() == APP


async def test_a_forged_symlink_entry_is_cleared_and_said(ws: Path) -> None:
    """The same for a link: the committed target's blob over a link pointed elsewhere."""
    require_sandbox()
    _app_repo(ws)
    (ws / "run").symlink_to("app.py")
    git(ws, "add", "run")
    git(ws, "commit", "-qm", "link")
    result = await sh(ws, FORGE_LINK)
    assert result.text.startswith("status-done"), result.text
    assert "run" in result.text and "blob id that is not its content" in result.text
    assert git(ws, "status", "--short") == " M run\n"
    git(ws, "reset", "-q", "--hard")
    assert os.readlink(ws / "run") == "app.py"


async def test_a_forged_entry_behind_a_lock_the_command_left_is_said_with_the_way_out(ws: Path) -> None:
    """git's index.lock is never taken away (the user's own git may hold it): the
    entry is then said, with what makes git compare the file again."""
    require_sandbox()
    _app_repo(ws)
    result = await sh(ws, FORGE_ENTRY + " && touch .git/index.lock")
    assert "app.py" in result.text and "FAILED" in result.text, result.text
    assert "touch the file" in result.text
    (ws / ".git" / "index.lock").unlink()
    (ws / "app.py").touch()
    assert git(ws, "status", "--short") == " M app.py\n"


async def test_honest_adds_commits_and_checkouts_say_nothing_of_the_index(ws: Path) -> None:
    require_sandbox()
    _app_repo(ws)
    result = await sh(ws, "echo 'y = 2' >> other.py && git add other.py && git commit -qm c2 && "
                          "git checkout -q -b side && echo z > new.py && git add new.py && git stash -q && "
                          "git stash pop -q && git status --short")
    assert not result.is_error and "index" not in result.text and "blob" not in result.text, result.text
    assert git(ws, "status", "--short") == "A  new.py\n"


@pytest.mark.parametrize("setup", [("-c", "index.version=4"), ("--object-format=sha256",),
                                   ("-c", "index.version=3")])
def test_every_index_format_is_read_as_git_lists_it(ws: Path, setup: tuple[str, ...]) -> None:
    """Version 4 indexes compress each path against the one before; version 3 entries
    may carry extended flags (intent-to-add); a sha-256 repository's ids are 32 bytes."""
    init = ["init", "-q", *setup[-1:]] if setup[0].startswith("--") else ["init", "-q"]
    git(ws, *init)
    if setup[0] == "-c":
        git(ws, "config", *setup[1].split("="))
    for name in ("a/b/c.txt", "a/b/d.txt", "a/bb.txt", "z.txt", "a/b/c/long-name-here.py"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(name)
    git(ws, "add", "-A")
    (ws / "intent.txt").write_text("later\n")
    git(ws, "add", "-N", "intent.txt")
    read = gitindexstat.read(ws / ".git" / "index")
    assert read is not None
    assert sorted(read) == sorted(git(ws, "ls-files", "-z").encode().split(b"\0")[:-1])


async def test_a_filtered_file_git_stores_otherwise_is_not_called_forged(ws: Path) -> None:
    """A clean filter (git-lfs's, here a tr) makes the blob differ from the file: its
    stat may be cleared, but nothing is said and git status stays clean."""
    require_sandbox()
    git(ws, "init", "-q", "-b", "main")
    git(ws, "config", "filter.upper.clean", "tr a-z A-Z")
    (ws / ".gitattributes").write_text("*.dat filter=upper\n")
    (ws / "one.dat").write_text("start\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "c1")
    result = await sh(ws, "echo more >> one.dat && touch -d '1 min ago' one.dat && git add one.dat && "
                          "git status --short")
    assert "blob id" not in result.text, result.text
    assert git(ws, "status", "--short") == "M  one.dat\n"


async def test_a_file_git_stores_with_other_line_ends_is_not_called_forged(ws: Path) -> None:
    """core.autocrlf: the blob holds LF, the file CRLF; git's own add, said nothing of."""
    require_sandbox()
    git(ws, "init", "-q", "-b", "main")
    git(ws, "config", "core.autocrlf", "true")
    (ws / "win.txt").write_bytes(b"one\r\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "c1")
    result = await sh(ws, "printf 'two\\r\\n' >> win.txt && touch -d '1 min ago' win.txt && git add win.txt")
    assert "blob id" not in result.text, result.text
    assert git(ws, "status", "--short") == "M  win.txt\n"
    assert git(ws, "show", ":win.txt") == "one\ntwo\n"


async def test_a_forged_entry_in_a_linked_worktrees_index_is_cleared(ws: Path) -> None:
    require_sandbox()
    _app_repo(ws)
    git(ws, "worktree", "add", "-q", str(ws / "wt"), "-b", "side")
    result = await sh(ws, "cd wt && " + FORGE_ENTRY.replace('".git/index"', '"../.git/worktrees/wt/index"'))
    assert "blob id that is not its content" in result.text, result.text
    assert git(ws / "wt", "status", "--short") == " M app.py\n"


STAMP_AHEAD = """python3 - <<'PY'
import hashlib, struct, time
data = bytearray(open(".git/index", "rb").read())
_, version, count = struct.unpack(">4sII", data[:12])
off = 12
for _ in range(count):
    flags = struct.unpack(">H", data[off + 60:off + 62])[0]
    length = flags & 0xFFF
    if bytes(data[off + 62:off + 62 + length]) == b"app.py":
        now = int(time.time())
        data[off:off + 4] = struct.pack(">I", now + 30)  # ctime: a second still to come
        data[off + 8:off + 12] = struct.pack(">I", now - 600)  # mtime: one a touch -d can set
        data[off + 36:off + 40] = struct.pack(">I", 27)  # the size the planted line will have
    off += (62 + length + 8) // 8 * 8
data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
open(".git/index", "wb").write(bytes(data))
PY
echo stamped"""
"""Finding C9's first command: app.py's entry stamped with a stat no file has yet, which a
later command (index untouched) makes the file match at that second."""


def _entry_stat(ws: Path, name: str) -> dict[str, str]:
    """``git ls-files --debug``'s fields for ``name`` (ctime, mtime, size …)."""
    out = git(ws, "ls-files", "--debug", name)
    fields: dict[str, str] = {}
    for line in out.splitlines()[1:]:
        for part in line.strip().split("  "):
            key, _, value = part.partition(":")
            fields[key.strip()] = value.strip()
    return fields


async def test_an_entry_stamped_ahead_for_a_later_command_to_match_is_cleared_at_once(ws: Path) -> None:
    """Finding C9: an entry a command wrote whose stat matches no file is not "right"
    because git would read the file today: a later command can make the file match
    (ctime at that second, mtime by touch, the size), the index untouched then, and no
    check runs. Its stat is cleared after the first command, unsaid."""
    require_sandbox()
    _app_repo(ws)
    result = await sh(ws, STAMP_AHEAD)
    assert "stamped" in result.text and "blob id" not in result.text, result.text
    entry = _entry_stat(ws, "app.py")
    assert entry["mtime"].startswith("0:") and entry["size"].startswith("0"), entry
    assert git(ws, "status", "--short") == ""  # git reads the file, finds it as committed


SHARED_FORGE = """O=$(git rev-parse HEAD:app.py) && echo 'import os; os.system("id")' >> app.py && \\
touch -d '1 min ago' app.py && python3 - "$O" <<'PY'
import glob, os, struct, sys
old = bytes.fromhex(sys.argv[1])
[shared] = glob.glob(".git/sharedindex.*")
data = bytearray(open(shared, "rb").read())
_, version, count = struct.unpack(">4sII", data[:12])
st = os.stat("app.py")
off = 12
for _ in range(count):
    flags = struct.unpack(">H", data[off + 60:off + 62])[0]
    length = flags & 0xFFF
    if bytes(data[off + 62:off + 62 + length]) == b"app.py":
        mode = struct.unpack(">I", data[off + 24:off + 28])[0]
        data[off:off + 40] = struct.pack(
            ">10I", int(st.st_ctime), st.st_ctime_ns % 10**9, int(st.st_mtime), st.st_mtime_ns % 10**9,
            st.st_dev & 0xFFFFFFFF, st.st_ino & 0xFFFFFFFF, mode, st.st_uid, st.st_gid, st.st_size)
        data[off + 40:off + 60] = old
    off += (62 + length + 8) // 8 * 8
open(shared, "r+b").write(bytes(data))  # its trailing hash kept: git does not check it
PY
git status --short; echo status-done"""
"""Finding C2: A2's forge written into a split index's shared file, ``.git/index`` untouched."""


async def test_an_entry_forged_in_a_split_indexs_shared_file_is_cleared_and_said(ws: Path) -> None:
    require_sandbox()
    git(ws, "init", "-q", "-b", "main")
    (ws / "app.py").write_text(APP)
    hour_ago = time.time() - 3600
    os.utime(ws / "app.py", (hour_ago, hour_ago))  # not racily clean: its entry keeps its stat
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "c1")
    await anyio.sleep(1)  # the index written after the file's second: no entry is racy
    git(ws, "update-index", "--split-index")
    result = await sh(ws, SHARED_FORGE)
    assert "status-done" in result.text, result.text
    assert "app.py" in result.text and "blob id that is not its content" in result.text, result.text
    assert git(ws, "status", "--short") == " M app.py\n"
    git(ws, "reset", "-q", "--hard")
    assert (ws / "app.py").read_text() == APP
