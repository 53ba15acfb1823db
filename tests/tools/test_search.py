"""glob and grep, .gitignore handling, caps."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.tools.ignore import GitIgnore, glob_to_regex, parse_ignore_file
from shell.tools.nofollow import FileToolError
from shell.tools.search import MAX_GREP_MATCHES
from shell.tools.workspace import Workspace

pytestmark = pytest.mark.anyio


def _tree(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


@pytest.fixture
def project(workspace: Workspace) -> Path:
    root = workspace.root
    _tree(
        root,
        {
            ".gitignore": "build/\n*.log\n!keep.log\n/top.txt\n",
            "src/app.py": "import os\nTODO = 'fix me'\n",
            "src/lib/util.py": "def helper():\n    pass  # TODO later\n",
            "src/lib/.gitignore": "generated.py\n",
            "src/lib/generated.py": "TODO generated\n",
            "build/out.py": "TODO built\n",
            "debug.log": "TODO log\n",
            "keep.log": "TODO kept\n",
            "top.txt": "TODO top\n",
            "docs/top.txt": "TODO nested top\n",
            "README.md": "# TODO readme\n",
        },
    )
    (root / "blob.bin").write_bytes(b"TODO\x00\x01")
    return root


async def test_grep_respects_gitignore(project: Path, call: Any) -> None:
    result = await call("grep", pattern="TODO")
    found = {line.split(":")[0] for line in result.text.splitlines() if ":" in line and "TODO" in line}
    assert found == {"src/app.py", "src/lib/util.py", "keep.log", "docs/top.txt", "README.md"}
    assert "src/app.py:2: TODO = 'fix me'" in result.text
    assert "binary" in result.text and "ignored by .gitignore" in result.text


def _git_untracked(root: Path) -> list[str]:
    """What git itself lists as untracked and not ignored in a fresh repository at ``root``."""
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    out = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"], cwd=root, capture_output=True, text=True
    )
    return out.stdout.split()


async def test_glob_in_a_git_repo_matches_git(project: Path, call: Any) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    listed = _git_untracked(project)
    result = await call("glob", pattern="**/*")
    assert sorted(_paths(result.text)) == sorted(listed)


async def test_grep_glob_filter_and_path(project: Path, call: Any) -> None:
    result = await call("grep", pattern=r"TODO\b", glob="*.py")
    assert {line.split(":")[0] for line in result.text.splitlines() if "TODO" in line} == {
        "src/app.py",
        "src/lib/util.py",
    }
    result = await call("grep", pattern="TODO", path="src/lib")
    assert result.text.startswith("src/lib/util.py:2:")
    result = await call("grep", pattern="fix", path="src/app.py")
    assert result.text == "src/app.py:2: TODO = 'fix me'"


async def test_grep_cap_says_how_many_more(workspace: Workspace, call: Any) -> None:
    (workspace.root / "many.txt").write_text("hit\n" * (MAX_GREP_MATCHES + 37))
    result = await call("grep", pattern="hit")
    assert result.text.count("many.txt:") == MAX_GREP_MATCHES
    assert "37 more matches not shown" in result.text


async def test_grep_bad_regex_and_no_match(project: Path, call: Any) -> None:
    with pytest.raises(FileToolError, match=r"Invalid regular expression.*backslash"):
        await call("grep", pattern="foo(")
    result = await call("grep", pattern="nothing-like-this")
    assert result.text.startswith("No matches") and not result.is_error


def _paths(text: str) -> list[str]:
    return [line for line in text.splitlines() if not line.startswith(("(", "["))]


async def test_glob(project: Path, call: Any) -> None:
    result = await call("glob", pattern="**/*.py")
    assert _paths(result.text) == ["src/app.py", "src/lib/util.py"]
    assert "ignored by .gitignore" in result.text
    result = await call("glob", pattern="*.py", path="src")
    assert _paths(result.text) == ["src/app.py"]
    result = await call("glob", pattern="*.{md,log}")
    assert _paths(result.text) == ["README.md", "keep.log"]
    result = await call("glob", pattern="*.nothing")
    assert "No files match" in result.text and "**/" in result.text
    assert "No files match '*.nothing' in '.'." in result.text  # H16: not "in .." (path plus full stop)


async def test_glob_refuses_escaping_patterns(project: Path, call: Any) -> None:
    for pattern in ("../*", "/etc/*", "a/../../x"):
        with pytest.raises(FileToolError, match="relative"):
            await call("glob", pattern=pattern)


@pytest.mark.parametrize(
    ("pattern", "yes", "no"),
    [
        ("*.py", ["a.py"], ["d/a.py", "a.pyc"]),
        ("**/*.py", ["a.py", "d/e/a.py"], ["a.txt"]),
        ("src/**", ["src/a", "src/b/c"], ["src", "other/a"]),
        ("a/**/b", ["a/b", "a/x/b", "a/x/y/b"], ["a/xb"]),
        ("?.[ch]", ["x.c", "y.h"], ["xy.c", "x.o"]),
        ("[!a]*", ["b"], ["a"]),
        ("{x,y}.md", ["x.md", "y.md"], ["z.md"]),
    ],
)
def test_glob_to_regex(pattern: str, yes: list[str], no: list[str]) -> None:
    regex = glob_to_regex(pattern)
    assert all(regex.match(p) for p in yes)
    assert not any(regex.match(p) for p in no)


def test_gitignore_rules(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text(
        "# comment\n\n*.o\n!important.o\n/root-only\ndir/\nlogs/**/debug\n\\#hash\n"
    )
    g = GitIgnore(tmp_path)
    assert g.ignored("x.o", False) and g.ignored("a/b/x.o", False)
    assert not g.ignored("important.o", False)
    assert g.ignored("root-only", False) and not g.ignored("sub/root-only", False)
    assert g.ignored("dir", True) and not g.ignored("dir", False)
    assert g.ignored("logs/debug", False) and g.ignored("logs/a/b/debug", False)
    assert g.ignored("#hash", False)
    assert g.ignored(".git", True)
    assert g.ignored_with_parents("dir/inner.txt", False)
    assert not g.ignored_with_parents("keep/inner.txt", False)


def test_nested_gitignore_is_relative_to_its_directory() -> None:
    rules = parse_ignore_file("/gen.py\n", base="pkg")
    assert rules[0].matches("pkg/gen.py", False)
    assert not rules[0].matches("gen.py", False)
    assert not rules[0].matches("pkg/sub/gen.py", False)


async def test_grep_does_not_follow_symlinks_out_of_the_workspace(
    workspace: Workspace, tmp_path: Path, call: Any
) -> None:
    secret = tmp_path / "elsewhere.txt"  # (secret.txt is secret-looking: left out for its name)
    secret.write_text("password=hunter2\n")
    (workspace.root / "innocent.txt").symlink_to(secret)
    (workspace.root / "mine.txt").write_text("password=mine\n")
    result = await call("grep", pattern="password")
    assert "hunter2" not in result.text and "mine.txt:1: password=mine" in result.text
    assert "(1 symlink leading out of the workspace skipped)" in result.text


async def test_grep_counts_every_symlink_leading_out_folders_too(
    workspace: Workspace, tmp_path: Path, call: Any
) -> None:
    """``o -> /tmp/t9`` and ``of.md -> /tmp/t9/outside.md`` were said as "1 symlinks":
    the folder link was not counted, and the plural was wrong (tester finding L1). A
    folder link that stays inside is not counted: its files are searched where they are."""
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "outside.md").write_text("needle outside\n")
    (workspace.root / "o").symlink_to(tmp_path / "out")
    (workspace.root / "of.md").symlink_to(tmp_path / "out" / "outside.md")
    (workspace.root / "src").mkdir()
    (workspace.root / "src" / "a.txt").write_text("needle\n")
    (workspace.root / "same").symlink_to(workspace.root / "src")
    result = await call("grep", pattern="needle")
    assert "outside" not in result.text.split("(")[0]
    assert result.text.startswith("src/a.txt:1: needle")
    assert "(2 symlinks leading out of the workspace skipped)" in result.text


async def test_special_files_are_not_read(workspace: Workspace, call: Any) -> None:
    os.mkfifo(workspace.root / "pipe")
    (workspace.root / "a.txt").write_text("needle\n")
    with anyio.fail_after(5):
        result = await call("grep", pattern="needle")
        assert result.text.startswith("a.txt:1: needle")
        with pytest.raises(FileToolError, match="not a regular file"):
            await call("read_file", path="pipe")
