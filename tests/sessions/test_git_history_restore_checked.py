"""What ``/rewind`` puts back of the repository's history is what was kept, or it is said
(finding U14, second round). The kept objects are hard links to the repository's files,
so a sandboxed command can change both in place; refs and reflogs were written by
whatever ran before. Real bubblewrap, real git."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shell.rewind import apply_rewind, plan_rewind
from shell.sessions import SessionStore
from tests.sessions.test_git_history_kept import _fails, _git, _repo, _run

EVIL = "import zlib,sys; open(sys.argv[1],'wb').write(zlib.compress(b'blob 5\\0evil\\n'))"
"""A hostile rewrite of a loose object in place (same inode): a valid object, another content."""


def _object_path(ws: Path, name: str) -> Path:
    return ws / ".git" / "objects" / name[:2] / name[2:]


@pytest.mark.anyio
async def test_an_object_rewritten_in_place_then_deleted_is_not_put_back_and_the_rewind_says_so(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    head = _git(ws, "rev-parse", "HEAD").strip()
    blob = _git(ws, "rev-parse", "HEAD:a.txt").strip()
    rel = f".git/objects/{blob[:2]}/{blob[2:]}"
    rt, _ = await _run(ws, f'chmod u+w {rel} && python3 -c "{EVIL}" {rel} && rm -rf .git/objects .git/refs')
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert _fails(ws, "cat-file", "-e", blob)  # the changed content did not come back under its name
    assert _git(ws, "cat-file", "-t", head).strip() == "commit"  # the rest did
    assert "NOT put back" in outcome and f"{blob[:2]}/{blob[2:]}" in outcome, outcome
    assert "does not hash to its name" in outcome


@pytest.mark.anyio
async def test_a_pack_whose_index_was_rewritten_comes_back_with_an_index_made_from_the_pack(
    tmp_path: Path, store: SessionStore
) -> None:
    """An index maps names to places in the pack: a changed one would hand git other
    bytes under an object's name, and its own checksum proves nothing. It is made anew."""
    ws = _repo(tmp_path)
    _git(ws, "gc", "-q")
    log = _git(ws, "log", "--format=%H %s")
    spoil = ("import sys; f=open(sys.argv[1],'r+b'); f.seek(8+1024+3); b=f.read(1); f.seek(8+1024+3); "
             "f.write(bytes([b[0]^255]))")
    rt, _ = await _run(ws, f'for i in .git/objects/pack/*.idx; do chmod u+w "$i"; python3 -c "{spoil}" "$i"; '
                           "done; rm -rf .git/objects .git/refs")
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert "NOT put back" not in outcome, outcome
    assert _git(ws, "log", "--format=%H %s") == log
    assert _git(ws, "fsck", "--no-dangling", "--full") == ""


@pytest.mark.anyio
async def test_a_pack_changed_in_place_is_not_put_back(tmp_path: Path, store: SessionStore) -> None:
    ws = _repo(tmp_path)
    _git(ws, "gc", "-q")
    (pack,) = (ws / ".git" / "objects" / "pack").glob("*.pack")
    spoil = ("import sys; f=open(sys.argv[1],'r+b'); f.seek(40); b=f.read(1); f.seek(40); "
             "f.write(bytes([b[0]^1]))")
    rt, _ = await _run(ws, f'chmod u+w .git/objects/pack/{pack.name} && python3 -c "{spoil}" '
                           f".git/objects/pack/{pack.name} && rm -rf .git/objects")
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert not (ws / ".git" / "objects" / "pack" / pack.name).exists()
    assert f"pack/{pack.name} (its content does not hash to its name)" in outcome, outcome


@pytest.mark.anyio
async def test_refs_git_would_not_write_are_said_not_written_and_nothing_lands_outside_dot_git(
    tmp_path: Path, store: SessionStore
) -> None:
    """Left by an earlier command: a HEAD naming a path outside, packed-refs lines with
    ``..`` and a nested name under a ``refs/heads`` the command then makes a symlink out."""
    ws = _repo(tmp_path)
    head = _git(ws, "rev-parse", "HEAD").strip()
    (ws / ".git" / "HEAD").write_text("ref: ../../../outside\n")
    names = ("refs/heads/a..b", "refs/heads/feature/x", "refs/tags/ok", "refs/tags/x.lock")
    (ws / ".git" / "packed-refs").write_text("".join(f"{head} {name}\n" for name in names))
    away = tmp_path / "away"
    away.mkdir()
    out = "ln -s ../../../away .git/refs/heads"
    rt, _ = await _run(ws, f"rm -rf .git/HEAD .git/packed-refs .git/refs/heads && {out}")
    outcome = apply_rewind(rt, plan_rewind(rt, 1), "files").describe()
    assert not (ws / ".git" / "HEAD").exists()
    assert list(away.iterdir()) == []
    assert (ws / ".git" / "refs" / "tags" / "ok").read_text() == f"{head}\n"
    assert not (ws / ".git" / "refs" / "tags" / "x.lock").exists()
    said = "3 ref(s) not put back, not refs git would write (HEAD, refs/heads/a..b, refs/tags/x.lock)"
    assert said in outcome, outcome
    assert not _anywhere(tmp_path, "outside")


def _anywhere(top: Path, name: str) -> bool:
    return any(name in names or name in dirs for _, dirs, names in os.walk(top))


@pytest.mark.anyio
async def test_a_10_mb_packed_refs_is_not_kept_and_the_command_says_so(
    tmp_path: Path, store: SessionStore
) -> None:
    ws = _repo(tmp_path)
    head = _git(ws, "rev-parse", "HEAD").strip()
    lines = "".join(f"{head} refs/tags/t{n:07d}\n" for n in range(175_000))
    (ws / ".git" / "packed-refs").write_text("# pack-refs with: peeled fully-peeled sorted \n" + lines)
    assert (ws / ".git" / "packed-refs").stat().st_size > 10 * 2**20
    rt, text = await _run(ws, "rm .git/packed-refs")
    assert "packed-refs (10." in text and "is over the 4 MB a checkpoint keeps" in text, text
    apply_rewind(rt, plan_rewind(rt, 1), "files")
    assert not (ws / ".git" / "refs" / "tags").exists() or not any((ws / ".git" / "refs" / "tags").iterdir())
    assert _git(ws, "rev-parse", "HEAD").strip() == head


def _own_bytes(store_objects: Path, gitdir: Path) -> int:
    """What the store holds that the repository does not: what it costs."""
    total = 0
    for folder, _, names in os.walk(store_objects):
        for name in names:
            rel = Path(folder, name).relative_to(store_objects)
            if not (gitdir / "objects" / rel).exists():
                total += (Path(folder) / name).stat().st_size
    return total


def test_the_old_packs_of_each_gc_stay_within_the_checkpoints_limit_and_it_is_said(tmp_path: Path) -> None:
    """Each ``git repack -ad`` writes a new pack of everything and deletes the old one, which
    the store keeps: without a bound, a few gcs of a big repository fill the disk."""
    from shell.sessions import gitkeep
    from shell.sessions.checkpoints import Checkpoints

    ws = _repo(tmp_path)
    limit = 1024 * 1024
    cp = Checkpoints(tmp_path / "cp", max_total=limit)
    cp.begin_turn("go", offset=None, history_len=0)
    said = []
    for n in range(6):
        before = cp.git_before(ws)
        assert before is not None
        (ws / f"r{n}.bin").write_bytes(os.urandom(300 * 1024))
        _git(ws, "add", "-A")
        _git(ws, "commit", "-qm", f"r{n}")
        _git(ws, "repack", "-adq")
        said.append(cp.git_after(ws, before))
        (store_objects,) = (tmp_path / "cp" / "git").glob("*/objects")
        blobs = sum(f.stat().st_size for f in (tmp_path / "cp" / "blobs").rglob("*") if f.is_file())
        assert _own_bytes(store_objects, ws / ".git") + blobs <= limit
    assert any("reached the checkpoints' limit" in s for s in said), said
    log = _git(ws, "log", "--format=%H %s")
    assert cp.git_before(ws) is not None  # a command that then deletes every object
    state = gitkeep.last_state(cp, str(ws / ".git"), len(cp.raw))
    assert state is not None
    subprocess.run(["rm", "-rf", str(ws / ".git" / "objects")], check=True)
    assert gitkeep.restore(cp, state, apply=True)
    assert _git(ws, "log", "--format=%H %s") == log


def test_a_packed_refs_too_big_to_read_now_puts_no_ref_back_and_says_why(tmp_path: Path) -> None:
    """A ref put back as a loose file hides the packed one of the same name: when the
    packed-refs a command left cannot be read (over 32 MB), no ref is put back blindly."""
    from shell.sessions import gitkeep
    from shell.sessions.checkpoints import Checkpoints

    ws = _repo(tmp_path)
    first = _git(ws, "rev-list", "--max-parents=0", "HEAD").strip()
    _git(ws, "tag", "v1")
    cp = Checkpoints(tmp_path / "cp")
    cp.begin_turn("go", offset=None, history_len=0)
    assert cp.git_before(ws) is not None
    (ws / ".git" / "refs" / "tags" / "v1").unlink()  # the command moves v1 into a huge packed-refs
    with (ws / ".git" / "packed-refs").open("w") as out:
        out.write(f"{first} refs/tags/v1\n")
        out.write(("#" + "x" * 1023 + "\n") * (33 * 1024))
    state = gitkeep.last_state(cp, str(ws / ".git"), len(cp.raw))
    assert state is not None
    said = gitkeep.restore(cp, state, apply=True)
    assert not (ws / ".git" / "refs" / "tags" / "v1").exists()
    assert any("packed-refs could not be read" in s for s in said), said


@pytest.mark.anyio
async def test_objects_emptied_in_place_are_not_said_to_be_kept(tmp_path: Path, store: SessionStore) -> None:
    """Finding X1: the keep links to the repository's own files, so a command that
    empties them in place empties the kept copies too. The result said "They were kept
    before it ran: /rewind … puts them back"; it now says they cannot come back."""
    ws = _repo(tmp_path)
    _, text = await _run(ws, 'for f in .git/objects/??/*; do chmod u+w "$f"; : > "$f"; done; echo done')
    assert "done" in text
    assert "They were kept before it ran" not in text, text
    assert "changed" in text and "/rewind cannot put them back" in text and "git fetch" in text, text


@pytest.mark.anyio
async def test_a_pack_changed_in_place_then_removed_is_not_said_to_be_kept(
    tmp_path: Path, store: SessionStore
) -> None:
    """The pack twin of finding X1 (seen with X8): a pack rewritten in place, then gone
    (the command removed it, or the check after it moved it out), was said to be kept;
    its kept copy is the same file."""
    ws = _repo(tmp_path)
    _git(ws, "gc", "-q")
    (pack,) = (ws / ".git" / "objects" / "pack").glob("*.pack")
    spoil = ("import sys; f=open(sys.argv[1],'r+b'); f.seek(40); b=f.read(1); f.seek(40); "
             "f.write(bytes([b[0]^1]))")
    rel = f".git/objects/pack/{pack.name}"
    _, text = await _run(ws, f'chmod u+w {rel} && python3 -c "{spoil}" {rel} && rm -f .git/objects/pack/*; '
                             "echo done")
    assert "done" in text
    assert "They were kept before it ran" not in text, text
    assert "/rewind cannot put them back" in text and pack.name in text, text
