"""The workspace walk on trees a repository or a command can make hostile: very
deep folders and huge ``.gitignore`` files must not stall the shell (J9, J10)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.tools.capture import WorkspaceCapture
from shell.tools.ignore import DIR_FLAGS, WalkStats, walk_entries, walk_files


def _make_chain(root: Path, depth: int, leaf: str) -> None:
    """``root/x/x/…/x/leaf`` ``depth`` levels deep, made through descriptors (the path
    is longer than the kernel takes in one piece)."""
    fd = os.open(root, DIR_FLAGS)
    try:
        for _ in range(depth):
            os.mkdir("x", dir_fd=fd)
            child = os.open("x", DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        os.close(os.open(leaf, os.O_CREAT | os.O_WRONLY, dir_fd=fd))
    finally:
        os.close(fd)


def _remove_chain(root: Path, depth: int, leaf: str) -> None:
    """Undo :func:`_make_chain` without recursion (``shutil.rmtree`` recurses per level)."""
    fds = [os.open(root, DIR_FLAGS)]
    for _ in range(depth):
        fds.append(os.open("x", DIR_FLAGS, dir_fd=fds[-1]))
    os.unlink(leaf, dir_fd=fds[-1])
    os.close(fds.pop())
    while fds:
        os.rmdir("x", dir_fd=fds[-1])
        os.close(fds.pop())


@pytest.fixture
def deep(tmp_path: Path) -> Iterator[Path]:
    _make_chain(tmp_path, 1500, "bottom.txt")
    (tmp_path / "top.txt").write_text("top\n")
    yield tmp_path
    _remove_chain(tmp_path, 1500, "bottom.txt")


def test_a_1500_level_folder_is_walked_to_the_bottom(deep: Path) -> None:
    names = [found.name for found in walk_entries(deep, deep)]
    assert names == ["top.txt", "bottom.txt"]


def test_the_rewind_capture_scans_a_1500_level_folder_completely(deep: Path) -> None:
    snap = WorkspaceCapture(deep).snapshot()
    assert snap.complete and snap.why == ""
    assert sorted(snap.files) == ["top.txt", "x/" * 1500 + "bottom.txt"]


def test_rules_from_the_root_still_apply_at_the_bottom_of_a_deep_folder(deep: Path) -> None:
    (deep / ".gitignore").write_text("bottom.txt\n")
    assert [found.name for found in walk_entries(deep, deep)] == [".gitignore", "top.txt"]


def test_a_huge_gitignore_is_capped_and_the_walk_finishes_and_says_so(tmp_path: Path) -> None:
    rules = "*.log\n!keep.log\n" + "".join(f"*nomatch_{n}*.tmp\n" for n in range(10_000)) + "*.py\n"
    (tmp_path / ".gitignore").write_text(rules)
    src = tmp_path / "src"
    src.mkdir()
    for n in range(300):
        (src / f"f{n}.py").write_text("")
    (src / "a.log").write_text("")
    (src / "keep.log").write_text("")
    stats = WalkStats()
    found = {p.name for p in walk_files(tmp_path, tmp_path, stats)}
    assert "keep.log" in found and "a.log" not in found
    assert "f299.py" in found  # `*.py` is rule 10 003, past the cap: not applied
    assert any(".gitignore has more than 5000 rules" in note and "5003 were not applied" in note
               for note in stats.notes())


def _walk_names(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in walk_files(root, root)}


def _touch(root: Path, *rels: str) -> None:
    for rel in rels:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")


def test_the_last_matching_rule_wins_across_every_kind_of_rule(tmp_path: Path) -> None:
    # a suffix rule, a many-wildcard glob, a literal name: whichever comes last decides
    (tmp_path / ".gitignore").write_text("*.log\n!*d*b*g*.log\ndebug.log\n!a/b\n/a/b\n")
    _touch(tmp_path, "x.log", "dbg-1.log", "debug.log", "a/b", "c/a/b")
    assert _walk_names(tmp_path) == {".gitignore", "dbg-1.log", "c/a/b"}


def test_directory_only_rules_skip_files_of_that_name(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("build/\n*.d/\nout*/\n")
    _touch(tmp_path, "build/x", "sub/build", "lib.d/x", "lib.d.txt", "outdir/x", "out.txt")
    assert _walk_names(tmp_path) == {".gitignore", "sub/build", "lib.d.txt", "out.txt"}


def test_anchored_and_double_star_rules(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("/top.txt\ndocs/*.md\n**/cache\nlogs/**/debug\n")
    _touch(tmp_path, "top.txt", "sub/top.txt", "docs/a.md", "docs/x/a.md", "a/b/cache/f", "cache/f",
           "logs/debug", "logs/a/b/debug", "keep.txt")
    assert _walk_names(tmp_path) == {".gitignore", "sub/top.txt", "docs/x/a.md", "keep.txt"}


def test_a_nested_gitignore_overrides_its_parent_below_itself_only(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.tmp\nsecret*\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / ".gitignore").write_text("!keep.tmp\n/gen.py\n")
    _touch(tmp_path, "a.tmp", "keep.tmp", "pkg/keep.tmp", "pkg/b.tmp", "pkg/gen.py", "pkg/sub/gen.py",
           "pkg/secret.txt")
    assert _walk_names(tmp_path) == {".gitignore", "pkg/.gitignore", "pkg/keep.tmp", "pkg/sub/gen.py"}


def test_an_ignored_folder_is_not_entered_so_nothing_below_comes_back(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("node_modules\n!node_modules/keep.js\n")
    _touch(tmp_path, "node_modules/keep.js", "node_modules/x.js", "a.js")
    assert _walk_names(tmp_path) == {".gitignore", "a.js"}
