"""File names a repository can hold that are not plain text: bytes that are not UTF-8
(a legacy Latin-1 name), a newline, an escape sequence. A tool result shows each on
one line and sendable (``name\\xff.txt``, ``nl\\nfake.txt``), and the model can use
the name as shown. Before, one Latin-1 name ended every real provider's conversation
that listed it (``UnicodeEncodeError``), and a newline forged an entry of its own."""

from __future__ import annotations

import os

import pytest

from shell.core.textsafety import utf8_json
from shell.tools.workspace import Workspace

from .conftest import Call

pytestmark = pytest.mark.anyio


@pytest.fixture
def named(workspace: Workspace) -> Workspace:
    root = os.fsencode(workspace.root)
    for name in (b"name\xff.txt", b"nl\nfake_line.txt", b"esc\x1b[2J.txt"):
        with open(os.path.join(root, name), "wb") as fh:
            fh.write(b"hello " + name.split(b".")[0][:2] + b"\n")
    return workspace


async def test_list_dir_glob_and_grep_show_such_names_escaped_on_one_line(
    named: Workspace, call: Call
) -> None:
    listing = (await call("list_dir")).text
    assert listing.splitlines()[1:] == [
        "esc\\x1b[2J.txt  (9 B)", "name\\xff.txt  (9 B)", "nl\\nfake_line.txt  (9 B)"]
    glob = (await call("glob", pattern="*")).text
    assert glob.splitlines() == ["esc\\x1b[2J.txt", "name\\xff.txt", "nl\\nfake_line.txt"]
    grep = (await call("grep", pattern="hello")).text
    assert sorted(grep.splitlines()) == [
        "esc\\x1b[2J.txt:1: hello es", "name\\xff.txt:1: hello na", "nl\\nfake_line.txt:1: hello nl"]
    for text in (listing, glob, grep):
        utf8_json({"content": text}).decode("utf-8")  # sendable as it is
        assert "\udcff" not in text and "\x1b" not in text


async def test_a_name_as_shown_can_be_read_and_edited(named: Workspace, call: Call) -> None:
    read = await call("read_file", path="name\\xff.txt")
    assert not read.is_error and "hello na" in read.text and read.details["path"] == "name\\xff.txt"
    assert "hello nl" in (await call("read_file", path="nl\\nfake_line.txt")).text
    edit = await call("edit_file", path="nl\\nfake_line.txt", old_string="hello", new_string="bye")
    assert not edit.is_error
    assert "bye nl" in (await call("read_file", path="nl\\nfake_line.txt")).text
    assert "nl\\nfake_line.txt  (7 B)" in (await call("list_dir")).text  # the same file, edited


async def test_a_real_file_named_with_a_backslash_still_wins(workspace: Workspace, call: Call) -> None:
    (workspace.root / "a\\x41.txt").write_text("literal\n")
    (workspace.root / "aA.txt").write_text("other\n")
    assert "literal" in (await call("read_file", path="a\\x41.txt")).text
