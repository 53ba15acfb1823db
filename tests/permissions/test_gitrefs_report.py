"""What the result says about the git refs a command changed: the first 20 by name and
how many more (a command that made 150,000 tags made 150,000 entries, to name 20), and a
replace ref it removed, always and first, whatever else it moved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions import gitrefs
from shell.permissions.gitrefs import Refs

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh
from .test_git_state import committed

A = "a" * 40
B = "b" * 40
REPLACE = f"refs/replace/{'c' * 40}"


def tags(count: int) -> dict[str, str]:
    return {f"refs/tags/v{n:06d}": B for n in range(count)}


def test_150000_new_tags_are_named_20_and_counted_and_a_removed_replace_ref_comes_first(
        tmp_path: Path) -> None:
    was = Refs(loose={"refs/heads/main": A}, packed={REPLACE: A})
    now = Refs(loose={"refs/heads/main": A}, packed=tags(150_000))
    entries = gitrefs.changed({tmp_path: was}, [], {tmp_path: now})
    assert len(entries) <= gitrefs.MAX_NOTED + 2
    said = gitrefs.report(entries).splitlines()
    assert said[1] == f"  {REPLACE}: deleted (it was at {A[:12]}: git update-ref {REPLACE} {A} puts it back)"
    assert said[2] == f"  tag v000000: new, at {B[:12]}"
    assert said[21] == f"  tag v000019: new, at {B[:12]}"
    assert said[22] == "  and 149,980 more (git for-each-ref lists them)"


def test_a_replace_ref_removed_from_loose_refs_among_moved_branches_is_named(tmp_path: Path) -> None:
    branches = {f"refs/heads/b{n:02d}": A for n in range(30)}
    was = Refs(loose={**branches, REPLACE: B}, packed={})
    now = Refs(loose={name: B for name in branches}, packed={})
    said = gitrefs.report(gitrefs.changed({tmp_path: was}, [], {tmp_path: now}))
    assert f"{REPLACE}: deleted" in said.splitlines()[1]
    assert "branch b00: moved from" in said and "branch b19: moved from" in said
    assert "branch b20" not in said and "and 10 more" in said


def test_a_replace_ref_added_or_changed_is_left_to_the_put_back_and_a_packed_ref_shadowed_is_not_moved(
        tmp_path: Path) -> None:
    was = Refs(loose={"refs/heads/x": A}, packed={"refs/heads/x": B, REPLACE: A})
    now = Refs(loose={"refs/heads/x": A}, packed={REPLACE: B, f"refs/replace/{'d' * 40}": A})
    assert gitrefs.changed({tmp_path: was}, [], {tmp_path: now}) == []


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-gitreport-")


@pytest.mark.anyio
async def test_a_command_that_deletes_the_users_replace_ref_among_30_new_tags_is_said(ws: Path) -> None:
    require_sandbox()
    committed(ws)
    blob = git(ws, "rev-parse", "HEAD:Makefile").strip()
    (ws.parent / "mine").write_text("test:\n\tpytest\n")
    mine = git(ws, "hash-object", "-w", str(ws.parent / "mine")).strip()
    git(ws, "replace", blob, mine)
    result = await sh(ws, "for n in $(seq 10 39); do git tag v$n; done && git replace -d $(git replace -l)")
    assert f"refs/replace/{blob}: deleted (it was at {mine[:12]}" in result.text
    assert "tag v10: new" in result.text and "and 10 more" in result.text
