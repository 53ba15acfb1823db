"""Caps on what the git checks read, once hit, must not pass the rest as clean (tester
findings L7, L8): a rebase to-do padded past 4 MiB before its ``exec`` line, a replace
ref after 9 MB of packed tags or 20,000 loose ones, new loose objects past the number
hashed. Against the real bubblewrap and git."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from shell.permissions import gitobjects, gitrefs
from shell.tools import after_check

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh
from .test_git_state import MAKEFILE, committed, rebase_stopped

pytestmark = pytest.mark.anyio

PAD = ("python3 -c \"import sys; open(sys.argv[1], 'a').write(('#' + 'p' * 199 + '\\n') * 22000)\" ")
"""4.4 MB in 22,000 comment lines (git's own --continue is slow on many more lines)."""


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitcaps-")


async def test_an_exec_line_after_4_mib_of_comments_in_the_rebase_to_do_is_taken_out(ws: Path) -> None:
    """L7: 54,000 comment lines (4.3 MB), then ``exec touch ~/PWN_TODO``: the user's
    ``git rebase --continue`` ran it."""
    require_sandbox()
    rebase_stopped(ws)
    todo = ".git/rebase-merge/git-rebase-todo"
    result = await sh(ws, PAD + todo + f" && echo 'exec touch ../PWNED' >> {todo} && tail -1 {todo}")
    assert "touch ../PWNED" in result.text.splitlines()[0]  # it did write, inside the sandbox
    assert (ws / todo).stat().st_size > 4 * 1024 * 1024
    assert "rebase to-do" in result.text and "exec touch ../PWNED" in result.text
    git(ws, "rebase", "--continue")
    assert not (ws.parent / "PWNED").exists()
    assert git(ws, "log", "--format=%s").split() == ["c3", "c2", "init"]


def _evil_replace(ws: Path) -> tuple[str, str, str]:
    """A committed workspace and an evil Makefile blob in its object store: HEAD, the
    real Makefile's blob and the evil one (what a planted replace ref would swap)."""
    committed(ws)
    blob = git(ws, "rev-parse", "HEAD:Makefile").strip()
    (ws.parent / "evil").write_text("all:\n\ttouch ../PWNED\n")
    evil = git(ws, "hash-object", "-w", str(ws.parent / "evil")).strip()
    return git(ws, "rev-parse", "HEAD").strip(), blob, evil


async def test_a_replace_ref_after_9_mb_of_packed_tags_is_removed(ws: Path) -> None:
    """L8: 150,000 ``refs/tags/v0.N`` lines, then ``<evil> refs/replace/<Makefile's blob>``
    in packed-refs: the ref was kept and the user's ``git checkout -- Makefile`` wrote it."""
    require_sandbox()
    head, blob, evil = _evil_replace(ws)
    write = ("python3 -c \"import sys; c, b, e = sys.argv[1:]; f = open('.git/packed-refs', 'w'); "
             "f.write('# pack-refs with: peeled\\n'); "
             "f.writelines(f'{c} refs/tags/v0.{i}\\n' for i in range(150000)); "
             f"f.write(f'{{e}} refs/replace/{{b}}\\n')\" {head} {blob} {evil} && git show HEAD:Makefile")
    result = await sh(ws, write)
    assert "PWNED" in result.text  # it did take, inside the sandbox
    assert (ws / ".git" / "packed-refs").stat().st_size > 8 * 1024 * 1024
    await anyio.to_thread.run_sync(after_check.finish, 300)  # under load the check goes on in its thread
    assert git(ws, "replace", "-l") == ""
    assert git(ws, "show", "HEAD:Makefile") == MAKEFILE
    assert "replace ref" in result.text or "it goes on" in result.text  # under load, said with the next one


async def test_a_replace_ref_after_20000_loose_tags_is_removed(ws: Path) -> None:
    """L8's loose variant: 20,000 loose tags were read, then the walk stopped."""
    require_sandbox()
    head, blob, evil = _evil_replace(ws)
    write = ("python3 -c \"import os, sys; c, b, e = sys.argv[1:]; os.makedirs('.git/refs/tags/pad'); "
             "[open(f'.git/refs/tags/pad/v{i}', 'w').write(c + '\\n') for i in range(20500)]; "
             f"open(f'.git/refs/replace/{{b}}', 'w').write(e + '\\n')\" {head} {blob} {evil} "
             "&& git show HEAD:Makefile")
    (ws / ".git" / "refs" / "replace").mkdir(exist_ok=True)
    result = await sh(ws, write)
    assert "PWNED" in result.text
    await anyio.to_thread.run_sync(after_check.finish, 300)
    assert git(ws, "replace", "-l") == ""
    assert git(ws, "show", "HEAD:Makefile") == MAKEFILE
    assert "replace ref" in result.text
    assert "more refs than agent-shell reads" in result.text


def test_packed_refs_past_the_cap_still_yield_every_replace_ref(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Replace refs on either side of a chunk boundary past the cap are all found."""
    monkeypatch.setattr(gitrefs, "MAX_PACKED", 1000)
    monkeypatch.setattr(gitrefs, "CHUNK", 100)
    lines = [f"{i:040x} refs/tags/t{i}\n" for i in range(300)]
    lines[5] = f"{1:040x} refs/replace/{'a' * 40}\n"
    lines[150] = f"{2:040x} refs/replace/{'b' * 40}\n"
    lines.append(f"{3:040x} refs/replace/{'c' * 40}")  # no line end
    (tmp_path / "packed-refs").write_text("".join(lines))
    refs = gitrefs.read(tmp_path)
    assert not refs.complete
    assert {n for n in refs.names() if n.startswith("refs/replace/")} == {
        f"refs/replace/{c * 40}" for c in "abc"}
    assert refs.value(f"refs/replace/{'c' * 40}") == f"{3:040x}"


async def test_new_objects_past_the_hashed_number_are_not_passed_unsaid(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The new loose objects hashed after one command are capped: a forged one past the
    cap is either caught or the result says the rest were not checked."""
    require_sandbox()
    monkeypatch.setattr(gitobjects, "MAX_CHECKED", 5)
    committed(ws)
    forge = ("python3 -c \"import os, zlib; e = b'all:\\n\\tevil\\n'; "
             "[open(f'.git/objects/ff/{i:038x}', 'wb').write(zlib.compress(b'blob %d\\0' % len(e) + e)) "
             "for i in range(40) if os.makedirs('.git/objects/ff', exist_ok=True) is None]\"")
    result = await sh(ws, forge)
    fanout = ws / ".git" / "objects" / "ff"
    left = list(fanout.glob("*")) if fanout.exists() else []
    assert not left or "not checked" in result.text
