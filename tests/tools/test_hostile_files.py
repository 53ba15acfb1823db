"""A hostile repository: symlink loops, symlinks swapped between check and use, a
400 MB line, backtracking patterns. None of it fails a whole search, reads
outside the workspace, loads a file whole, or freezes the shell."""

from __future__ import annotations

import os
import stat
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from shell.tools import file_edits, files
from shell.tools.files import MAX_LINE_CHARS
from shell.tools.nofollow import FileToolError
from shell.tools.search import grep_files
from shell.tools.workspace import Workspace

from .conftest import Call

pytestmark = pytest.mark.anyio


@pytest.fixture
def loops(workspace: Workspace) -> Path:
    root = workspace.root
    (root / "a.txt").write_text("hello world\n")
    (root / "sub").mkdir()
    (root / "sub" / "b.txt").write_text("hello sub\n")
    (root / "self").symlink_to("self")
    (root / "x").symlink_to("y")
    (root / "y").symlink_to("x")
    (root / "sub" / "up").symlink_to("..")
    return root


async def test_a_symlink_loop_is_skipped_and_said_by_grep_glob_and_list_dir(loops: Path, call: Call) -> None:
    grep = await call("grep", pattern="hello")
    assert grep.text.splitlines()[:2] == ["a.txt:1: hello world", "sub/b.txt:1: hello sub"]
    assert grep.text.endswith("(3 symlink loops skipped (self, x, y))")
    glob = await call("glob", pattern="**/*")
    assert glob.text == "a.txt\nsub/b.txt\n(3 symlink loops skipped (self, x, y))"
    listing = await call("list_dir")
    assert "self@ -> self (a symlink loop)" in listing.text and "a.txt  (12 B)" in listing.text
    below = await call("list_dir", path="sub")
    assert "up@ -> .." in below.text and "b.txt" in below.text


async def test_a_search_over_the_tree_leaves_out_files_that_hold_secrets(
    workspace: Workspace, call: Call
) -> None:
    """`grep -r KEY .` must not hand .env to the model unasked (read_file .env asks):
    such files are left out of a tree search, and the result says so."""
    root = workspace.root
    (root / ".env").write_text("OPENAI_API_KEY=sk-test-123456789abcdef\n")
    (root / "deploy").mkdir()
    (root / "deploy" / "server.pem").write_text("KEY material\n")
    (root / "app.py").write_text("KEY = os.environ['OPENAI_API_KEY']\n")
    (root / ".env.example").write_text("OPENAI_API_KEY=\n")
    result = await call("grep", pattern="KEY")
    assert "sk-test" not in result.text and "KEY material" not in result.text
    assert "app.py:1:" in result.text and ".env.example:1:" in result.text
    assert "2 files that usually hold secrets (.env, keys) not searched" in result.text


async def test_a_link_to_a_secret_file_is_left_out_like_the_file(workspace: Workspace, call: Call) -> None:
    """``notes.txt -> .env``: the link's own name says nothing, its target does."""
    root = workspace.root
    (root / ".env").write_text("KEY=sk-test-123456789abcdef\n")
    (root / "notes.txt").symlink_to(".env")
    result = await call("grep", pattern="KEY")
    assert "sk-test" not in result.text
    assert "2 files that usually hold secrets" in result.text


async def test_a_backtracking_pattern_cannot_freeze_grep(workspace: Workspace, call: Call) -> None:
    (workspace.root / "dashes.txt").write_text(("-" * 5000 + "\n") * 200)
    started = time.monotonic()
    result = await call("grep", pattern="(-+)+x")
    took = time.monotonic() - started
    assert result.text.startswith("No matches for '(-+)+x' in . (1 files searched).")
    assert took < 5  # Python's engine: longer than the age of the universe (2^5000 paths per line)


async def test_a_pattern_re2_cannot_take_is_refused_with_what_to_do(workspace: Workspace, call: Call) -> None:
    (workspace.root / "a.txt").write_text("abab\n")
    with pytest.raises(FileToolError, match=r"look-around .* and backreferences .* are not supported"):
        await call("grep", pattern=r"(ab)\1")
    with pytest.raises(FileToolError, match=r"look-around"):
        await call("grep", pattern=r"a(?=b)")
    assert (await call("grep", pattern=r"^a(b)a")).text == "a.txt:1: abab"


def test_grep_lines_and_numbers_match_pythons_idea_of_lines(tmp_path: Path) -> None:
    f = tmp_path / "t.txt"
    f.write_bytes(b"one\r\ntwo b\r\n\r\nthree b\nb")
    result = grep_files(f, r"b$", None, tmp_path, lambda p: p.name)
    assert result.text == "t.txt:2: two b\nt.txt:4: three b\nt.txt:5: b"


async def test_a_directory_swapped_for_a_symlink_after_the_check_is_not_followed(
    workspace: Workspace, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("OUTSIDE secret\n")
    d = workspace.root / "d"
    d.mkdir()
    (d / "f.txt").write_text("INSIDE\n")
    checked = workspace.resolve("d/f.txt")  # what the workspace check returns
    d.rename(tmp_path / "hidden")
    d.symlink_to(outside)  # the swap, between the check and the open
    with pytest.raises(FileToolError, match=r"changed while it was being opened \(a symlink appeared"):
        files.read_text_window(checked, "d/f.txt", 1, 10)
    with pytest.raises(FileToolError, match="changed while it was being opened"):
        file_edits.write_text(checked, "d/f.txt", "overwritten")
    assert (outside / "f.txt").read_text() == "OUTSIDE secret\n"  # not written through either


async def test_read_file_under_a_symlink_swapping_race_never_returns_an_outside_file(
    workspace: Workspace, tmp_path: Path, call: Call
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("OUTSIDE secret\n")
    d, hidden = workspace.root / "d", tmp_path / "hidden"
    d.mkdir()
    (d / "f.txt").write_text("INSIDE\n")
    stop = threading.Event()

    def swap() -> None:
        while not stop.is_set():
            os.rename(d, hidden)
            d.symlink_to(outside)
            time.sleep(0.0001)
            d.unlink()
            os.rename(hidden, d)
            time.sleep(0.0001)

    swapper = threading.Thread(target=swap)
    swapper.start()
    seen = {"inside": 0, "refused": 0, "outside": 0}
    try:
        for _ in range(1500):
            try:
                text = (await call("read_file", path="d/f.txt")).text
            except Exception:
                seen["refused"] += 1
                continue
            seen["outside" if "OUTSIDE" in text else "inside"] += 1
    finally:
        stop.set()
        swapper.join()
    assert seen["outside"] == 0, seen
    assert seen["inside"] > 0  # the race was run, not refused outright


async def test_a_400_mb_line_is_read_in_pieces(workspace: Workspace, call: Call) -> None:
    big = workspace.root / "one-line.json"
    with big.open("wb") as f:
        f.write(b"first\n")
        for _ in range(64):
            f.write(b"x" * (1 << 20))  # 64 MiB here: enough to see whether it is held whole
        f.write(b"\nlast\n")
    tracemalloc.start()
    try:
        result = await call("read_file", path="one-line.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    lines = result.text.splitlines()
    assert lines[0] == "     1\tfirst" and lines[2] == "     3\tlast"
    assert lines[1] == (
        f"     2\t{'x' * MAX_LINE_CHARS}… [line cut at {MAX_LINE_CHARS} characters; "
        f"the whole line is {64 << 20:,} bytes]"
    )
    assert peak < 8 << 20, f"{peak:,} bytes held at once"


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
async def test_new_files_get_the_mode_the_umask_gives(
    workspace: Workspace, call: Call, umask: int, mode: int
) -> None:
    old = os.umask(umask)
    try:
        await call("write_file", path="new/made.txt", content="hi\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((workspace.root / "new" / "made.txt").stat().st_mode) == mode


async def test_an_existing_file_keeps_its_mode_when_written(workspace: Workspace, call: Call) -> None:
    script = workspace.root / "run.sh"
    script.write_text("echo a\n")
    script.chmod(0o750)
    await call("write_file", path="run.sh", content="echo b\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750 and script.read_text() == "echo b\n"
