"""/copy: code blocks, OSC 52 and tmux, a clear word where it cannot copy."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path
from typing import Any

import pytest

from shell.commands import default_commands
from shell.config import Settings
from shell.frontend.clipboard import code_blocks, copy_text
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime


def runtime(ws: Path, turns: list[Any], **options: Any) -> ShellRuntime:
    opts = RuntimeOptions(cwd=str(ws), **options)
    return ShellRuntime.create(opts, settings=Settings(path=ws / "none.toml"), model=ScriptedModel(turns))



def test_code_blocks() -> None:
    text = "intro\n```python\nprint(1)\n```\nmid\n~~~\nraw ``` inside\n~~~\n````\nopen to the end"
    assert code_blocks(text) == ["print(1)", "raw ``` inside", "open to the end"]


def test_copy_by_osc52_and_through_tmux() -> None:
    written: list[str] = []
    done = copy_text("héllo", written.append, env={"TERM": "xterm"}, which=lambda _: None)
    assert done.ok and written == ["\x1b]52;c;" + base64.b64encode("héllo".encode()).decode() + "\x07"]
    ran: list[tuple[list[str], bytes]] = []

    def run(argv: list[str], input: bytes, **_: Any) -> subprocess.CompletedProcess[bytes]:
        ran.append((argv, input))
        return subprocess.CompletedProcess(argv, 0)

    written.clear()
    done = copy_text("in tmux", written.append, env={"TMUX": "x", "TERM": "tmux"},
                     which=lambda name: f"/bin/{name}", run=run)
    assert done.ok and "tmux" in done.how and ran == [(["/bin/tmux", "load-buffer", "-w", "-"], b"in tmux")]
    assert written == []


def test_copy_says_when_it_cannot() -> None:
    done = copy_text("x", None, env={}, which=lambda _: None)
    assert not done.ok and "Nothing was copied" in done.note


@pytest.mark.anyio
async def test_the_copy_command(tmp_path: Path) -> None:
    rt = runtime(tmp_path, ["Here:\n```sh\nls -la\n```\nand\n```\necho \x1b[2J\n```"])
    commands = default_commands()
    assert (await commands.run(rt, "/copy")).error  # nothing yet
    async for _ in rt.reply("show me"):
        pass
    whole = await commands.run(rt, "/copy")
    assert whole.action == "copy" and whole.data.startswith("Here:")
    second = await commands.run(rt, "/copy 2")
    assert second.data == "echo ␛[2J"  # a control in a code block cannot reach the clipboard
    bad = await commands.run(rt, "/copy 3")
    assert bad.error and "it has 2" in bad.text


@pytest.mark.anyio
async def test_copy_sees_the_reply_on_screen_before_it_joins_the_history(tmp_path: Path) -> None:
    """`/copy 1` typed as a reply appeared said "Nothing to copy yet": the text was on
    screen, but the model's message joins the history only once its stream ends."""
    from shell.core.events import TextBlockDelta

    text = "Here:\n```sh\nls -la\n```\n" + "and more to come. " * 20
    opts = RuntimeOptions(cwd=str(tmp_path))
    rt = ShellRuntime.create(opts, settings=Settings(path=tmp_path / "none.toml"),
                             model=ScriptedModel([text], delay=0.001, chunk_size=8))
    commands = default_commands()
    seen, copied = "", []
    async for event in rt.reply("show me"):
        if isinstance(event, TextBlockDelta):
            seen += event.delta
            in_history = any(m.role == "assistant" for m in rt.agent.messages)
            if "ls -la\n```" in seen and not in_history:  # on screen, its stream not ended
                copied.append(await commands.run(rt, "/copy 1"))
    assert copied and all((c.action, c.data) == ("copy", "ls -la") for c in copied), copied[:1]
