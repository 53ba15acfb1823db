"""read_file, list_dir, write_file and edit_file on a temporary workspace."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from shell.core.messages import DataBlock
from shell.tools.builtin import builtin_tools
from shell.tools.files import MAX_LINE_CHARS
from shell.tools.nofollow import FileToolError
from shell.tools.workspace import Workspace

from .conftest import Call

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(40)


async def test_read_file_numbers_lines_like_cat_n(workspace: Workspace, call: Call) -> None:
    (workspace.root / "a.txt").write_text("one\ntwo\nthree\n")
    result = await call("read_file", path="a.txt")
    assert result.text == "     1\tone\n     2\ttwo\n     3\tthree"
    assert not result.is_error


async def test_read_file_window_says_how_to_continue(workspace: Workspace, call: Call) -> None:
    (workspace.root / "big.txt").write_text("".join(f"line {i}\n" for i in range(1, 101)))
    result = await call("read_file", path="big.txt", offset=10, limit=5)
    lines = result.text.splitlines()
    assert lines[0] == "    10\tline 10"
    assert lines[4] == "    14\tline 14"
    assert "lines 10-14 of 100" in lines[5] and "offset=15" in lines[5]


async def test_read_file_offset_past_end(workspace: Workspace, call: Call) -> None:
    (workspace.root / "a.txt").write_text("x\n")
    with pytest.raises(FileToolError, match="past the end"):
        await call("read_file", path="a.txt", offset=5)


async def test_read_file_caps_long_lines_and_total(workspace: Workspace, call: Call) -> None:
    (workspace.root / "wide.txt").write_text("y" * (MAX_LINE_CHARS + 500) + "\n")
    result = await call("read_file", path="wide.txt")
    assert f"line cut at {MAX_LINE_CHARS}" in result.text
    (workspace.root / "huge.txt").write_text(("z" * 1000 + "\n") * 500)
    result = await call("read_file", path="huge.txt")
    assert len(result.text) < 110_000
    assert "output capped" in result.text and "offset=" in result.text


async def test_read_file_binary_is_refused_clearly(workspace: Workspace, call: Call) -> None:
    (workspace.root / "blob.bin").write_bytes(b"\x00\x01\x02\xff" * 100)
    with pytest.raises(FileToolError, match="binary file"):
        await call("read_file", path="blob.bin")


async def test_read_file_image_is_a_data_block(workspace: Workspace, call: Call) -> None:
    (workspace.root / "pic.png").write_bytes(PNG)
    result = await call("read_file", path="pic.png")
    assert isinstance(result.content, tuple)
    data = [b for b in result.content if isinstance(b, DataBlock)]
    assert data and data[0].media_type == "image/png" and data[0].data == PNG


async def test_read_file_missing_and_directory(workspace: Workspace, call: Call) -> None:
    with pytest.raises(FileToolError, match="No such file"):
        await call("read_file", path="nope.txt")
    (workspace.root / "d").mkdir()
    with pytest.raises(FileToolError, match="list_dir"):
        await call("read_file", path="d")


async def test_list_dir(workspace: Workspace, call: Call) -> None:
    (workspace.root / "src").mkdir()
    (workspace.root / "README.md").write_text("hi")
    (workspace.root / "link").symlink_to("README.md")
    result = await call("list_dir")
    lines = result.text.splitlines()
    assert lines[0] == "./"
    assert lines[1] == "src/"
    assert any(line.startswith("README.md  (2 B)") for line in lines)
    assert "link@ -> README.md" in lines
    assert (await call("list_dir", path="src")).text.endswith("(empty directory)")


async def test_write_file_creates_parents_and_reports_diff(workspace: Workspace, call: Call) -> None:
    result = await call("write_file", path="pkg/mod.py", content="x = 1\n")
    assert (workspace.root / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert result.text.startswith("Created pkg/mod.py")
    assert "+x = 1" in result.details["diff"]
    result = await call("write_file", path="pkg/mod.py", content="x = 2\n")
    assert result.text.startswith("Overwrote")
    assert "-x = 1" in result.text and "+x = 2" in result.text


async def test_edit_file_replaces_once_and_returns_a_diff(workspace: Workspace, call: Call) -> None:
    target = workspace.root / "m.py"
    target.write_text("def f():\n    return 1\n")
    result = await call("edit_file", path="m.py", old_string="return 1", new_string="return 2")
    assert target.read_text() == "def f():\n    return 2\n"
    diff = result.details["diff"]
    assert diff.startswith("--- a/m.py\n+++ b/m.py\n")
    assert "-    return 1\n+    return 2\n" in diff
    assert diff in result.text


async def test_edit_file_not_found_tells_the_model_what_to_do(workspace: Workspace, call: Call) -> None:
    (workspace.root / "m.py").write_text("def f():\n    return 1\n")
    with pytest.raises(FileToolError, match=r"not found.*read_file"):
        await call("edit_file", path="m.py", old_string="return 3", new_string="x")
    with pytest.raises(FileToolError, match="whitespace is ignored"):
        await call("edit_file", path="m.py", old_string="def f():\n  return 1", new_string="x")


async def test_edit_file_matching_twice_needs_context(workspace: Workspace, call: Call) -> None:
    target = workspace.root / "m.txt"
    target.write_text("a = 1\nb = 1\nc = 1\n")
    with pytest.raises(FileToolError, match=r"matches 3 times.*lines 1, 2, 3.*replace_all"):
        await call("edit_file", path="m.txt", old_string="= 1", new_string="= 2")
    assert target.read_text() == "a = 1\nb = 1\nc = 1\n"
    result = await call("edit_file", path="m.txt", old_string="= 1", new_string="= 2", replace_all=True)
    assert target.read_text() == "a = 2\nb = 2\nc = 2\n"
    assert result.details["replacements"] == 3


async def test_edit_file_keeps_crlf_and_mode(workspace: Workspace, call: Call) -> None:
    target = workspace.root / "w.bat"
    target.write_bytes(b"echo one\r\necho two\r\n")
    target.chmod(0o755)
    await call("edit_file", path="w.bat", old_string="one", new_string="1")
    assert target.read_bytes() == b"echo 1\r\necho two\r\n"
    assert target.stat().st_mode & 0o777 == 0o755


async def test_edit_file_writes_new_lines_in_a_crlf_file_as_crlf(workspace: Workspace, call: Call) -> None:
    """H10: the model writes ``\n``; a Windows file must not end up with mixed endings,
    and an old_string spanning lines matches the file's CRLF lines."""
    target = workspace.root / "crlf.txt"
    target.write_bytes(b"line one\r\nline two\r\nline three\r\n")
    await call("edit_file", path="crlf.txt", old_string="line two", new_string="line 2\nline 2b")
    assert target.read_bytes() == b"line one\r\nline 2\r\nline 2b\r\nline three\r\n"
    await call("edit_file", path="crlf.txt", old_string="line one\nline 2\n", new_string="top\n")
    assert target.read_bytes() == b"top\r\nline 2b\r\nline three\r\n"
    lf = workspace.root / "lf.txt"
    lf.write_bytes(b"a\nb\n")
    await call("edit_file", path="lf.txt", old_string="a", new_string="x\ny")
    assert lf.read_bytes() == b"x\ny\nb\n"


async def test_a_latin1_text_file_reads_as_text_and_its_edit_is_refused_clearly(
    workspace: Workspace, call: Call
) -> None:
    """H10: legacy source and CSVs are often Latin-1 / CP1252: text, not "a binary file"."""
    latin = workspace.root / "latin.txt"
    latin.write_bytes(b"caf\xe9 latin1\nsecond \x93quoted\x94\n")
    result = await call("read_file", path="latin.txt")
    text = result.content if isinstance(result.content, str) else ""
    assert "café latin1" in text and "second \u201cquoted\u201d" in text
    assert "not UTF-8" in text and "cp1252" in text and "binary" not in text
    with pytest.raises(FileToolError, match=r"cp1252.*not UTF-8.*left as it is"):
        await call("edit_file", path="latin.txt", old_string="second", new_string="2nd")
    assert latin.read_bytes() == b"caf\xe9 latin1\nsecond \x93quoted\x94\n"
    (workspace.root / "noise.bin").write_bytes(b"\xff\xfe" + bytes(range(1, 32)) * 4)
    with pytest.raises(FileToolError, match="binary"):
        await call("read_file", path="noise.bin")


async def test_grep_reads_a_cp1252_file_as_read_file_does(workspace: Workspace, call: Call) -> None:
    """A legacy-encoded file is searched and shown in its characters, not as
    replacement marks, and a pattern with such a character finds it."""
    (workspace.root / "latin.txt").write_bytes(b"caf\xe9 latin1\nsecond \x93quoted\x94\n")
    (workspace.root / "utf8.txt").write_text("caf\u00e9 utf8\n", encoding="utf-8")
    result = await call("grep", pattern="caf\u00e9")
    text = result.content if isinstance(result.content, str) else ""
    assert "latin.txt:1: caf\u00e9 latin1" in text and "utf8.txt:1: caf\u00e9 utf8" in text
    result = await call("grep", pattern="quoted")
    text = result.content if isinstance(result.content, str) else ""
    assert "latin.txt:2: second \u201cquoted\u201d" in text and "\ufffd" not in text


async def test_edit_file_refusals(workspace: Workspace, call: Call) -> None:
    (workspace.root / "b.bin").write_bytes(b"\x00abc")
    with pytest.raises(FileToolError, match="binary"):
        await call("edit_file", path="b.bin", old_string="abc", new_string="x")
    with pytest.raises(FileToolError, match="write_file"):
        await call("edit_file", path="new.txt", old_string="a", new_string="b")
    (workspace.root / "t.txt").write_text("abc")
    with pytest.raises(FileToolError, match="empty"):
        await call("edit_file", path="t.txt", old_string="", new_string="b")
    with pytest.raises(FileToolError, match="same"):
        await call("edit_file", path="t.txt", old_string="abc", new_string="abc")


async def test_no_newline_at_end_is_marked_in_the_diff(workspace: Workspace, call: Call) -> None:
    (workspace.root / "n.txt").write_text("a\nb")
    result = await call("edit_file", path="n.txt", old_string="b", new_string="c")
    assert "\\ No newline at end of file" in result.details["diff"]


def test_every_builtin_has_described_parameters(tools: dict[str, object]) -> None:
    expected = {
        "read_file": (["path", "offset", "limit"], True, "read"),
        "list_dir": (["path"], True, "read"),
        "glob": (["pattern", "path"], True, "search"),
        "grep": (["pattern", "path", "glob"], True, "search"),
        "write_file": (["path", "content"], False, "edit"),
        "edit_file": (["path", "old_string", "new_string", "replace_all"], False, "edit"),
        "run_shell": (["command", "timeout", "network"], False, "execute"),
        # A URL can carry data out (?d=<secret>): a network tool is never read-only.
        "fetch_url": (["url"], False, "fetch"),
    }
    assert set(tools) == set(expected)
    for name, (params, read_only, kind) in expected.items():
        t = tools[name]
        props = t.parameters["properties"]  # type: ignore[attr-defined]
        assert list(props) == params, name
        assert all(p.get("description") for p in props.values()), name
        assert t.read_only is read_only, name  # type: ignore[attr-defined]
        assert t.kind == kind, name  # type: ignore[attr-defined]
        assert t.description  # type: ignore[attr-defined]


def test_paths_in_results_are_workspace_relative(workspace: Workspace) -> None:
    assert workspace.relative(workspace.root / "a" / "b.txt") == "a/b.txt"
    assert workspace.relative(workspace.root) == "."
    assert workspace.relative(Path("/etc/hosts")) == "/etc/hosts"


async def test_list_dir_of_a_workspace_at_the_root(recorder: Any) -> None:
    """`--cwd /` is a workspace too: `list_dir .` lists / (it said "No such directory: ..")."""
    tools = {t.name: t for t in builtin_tools(Workspace(Path("/")))}
    result = await tools["list_dir"].run({"path": "."}, recorder.context("list_dir", {"path": "."}))
    assert not result.is_error, result.text
    assert "etc/" in result.text.splitlines()
