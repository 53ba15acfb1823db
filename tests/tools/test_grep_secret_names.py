"""A search over the tree leaves out files the one list calls secret by their folder
too: ``.idea/workspace.xml`` holds run configurations' environment variables
(``OPENAI_API_KEY``), while a ``workspace.xml`` elsewhere is an ordinary file."""

from __future__ import annotations

import pytest

from shell.tools.workspace import Workspace

from .conftest import Call

pytestmark = pytest.mark.anyio


async def test_grep_leaves_out_jetbrains_workspace_xml_and_vim_swap_files(
    workspace: Workspace, call: Call
) -> None:
    root = workspace.root
    (root / ".idea").mkdir()
    idea = '<env name="OPENAI_API_KEY" value="sk-test-idea0123456789"/>\n'
    (root / ".idea" / "workspace.xml").write_text(idea)
    (root / "..env.local.swp").write_text("OPENAI_API_KEY=sk-test-swap0123456789\n")
    (root / "docs").mkdir()
    (root / "docs" / "workspace.xml").write_text("<OPENAI_API_KEY>documented here</OPENAI_API_KEY>\n")
    result = await call("grep", pattern="OPENAI_API_KEY")
    assert "sk-test" not in result.text, result.text
    assert "docs/workspace.xml:1:" in result.text
    assert "2 files that usually hold secrets (.env, keys) not searched" in result.text
