"""Which nested repositories a command line names (:mod:`shell.permissions.historyplaces`): the
ones searched for it when the walk's first 16 did not include them."""

from __future__ import annotations

from pathlib import Path

from shell.permissions.historyplaces import named_repositories


def test_the_repositories_a_line_spells_are_named_and_no_others(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for repo in ("p1", "p2", "p3", "deep/er/p4", "q5"):
        (root / repo / ".git").mkdir(parents=True)
    (root / ".git").mkdir()
    (tmp_path / "outside" / ".git").mkdir(parents=True)
    (root / "p1" / "src").mkdir()

    def named(command: str, searched: tuple[Path, ...] = ()) -> set[str]:
        return {p.relative_to(root).as_posix() for p in named_repositories(command, root.resolve(), searched)}

    assert named("git -C p1/src log -p") == {"p1"}
    assert named("cd deep/er/p4 && git log -p; GIT_DIR=p2/.git git show") == {"deep/er/p4", "p2"}
    assert named("git --git-dir=p3/.git log -p; env -Cq5 git log -p") == {"p3", "q5"}
    assert named("for d in p*; do git -C $d log -p; done") == {"p1", "p2", "p3"}
    assert named(f"git -C {tmp_path / 'outside'} log -p; git -C ../outside log -p; git log -p .") == set()
    assert named("git -C p1 log -p", (root.resolve() / "p1",)) == set()
