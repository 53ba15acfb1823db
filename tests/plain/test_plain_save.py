"""``/save`` (the line mode's last audio block as a WAV) writes by ``/export``'s rules:
it replaced ``calc.py`` with a WAV, wrote outside the workspace and through a planted
link, all unasked (finding R6)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shell.plain_audio import Audio

from .test_plain import line_mode

pytestmark = pytest.mark.anyio


def flat(text: str) -> str:
    """The console's text with its line wraps undone (long temporary paths wrap)."""
    return " ".join(text.split())

PCM = Audio("audio/pcm;rate=24000", b"\x00\x10" * 2400)


async def test_save_never_replaces_a_file_and_writes_a_new_one_by_default(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("precious")
    async with line_mode(ws, []) as d:
        d.shell.last_audio = PCM
        await d.send("/save calc.py\r")
        await d.until(lambda: "already exists; nothing was written" in flat(d.text))
        await d.send("/save\r", then="Saved ")
        await d.send("/quit\r")
    assert (ws / "calc.py").read_text() == "precious"
    assert "/save calc.py --force" in flat(d.text)  # how to replace it, if that was meant
    saved = list((Path(os.environ["AGENT_SHELL_DATA_DIR"]) / "exports").glob("agent-shell-audio-*.wav"))
    assert len(saved) == 1 and saved[0].read_bytes().startswith(b"RIFF")
    assert sorted(p.name for p in ws.iterdir()) == ["calc.py"]  # nothing dropped in the workspace


async def test_save_outside_the_workspace_or_through_a_link_writes_nothing(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    target = tmp_path / "bashrc"
    target.write_text("mine")
    (ws / "voice.wav").symlink_to(target)
    async with line_mode(ws, []) as d:
        d.shell.last_audio = PCM
        await d.send("/save ../x.wav\r")
        await d.until(lambda: "nothing was written. To write there" in flat(d.text))
        await d.send("/save voice.wav\r")
        await d.until(lambda: flat(d.text).count("nothing was written. To write there") == 2)
        await d.send("/save out.wav\r", then="Saved ")
        await d.send("/quit\r")
    assert not (tmp_path / "x.wav").exists() and target.read_text() == "mine"
    assert (ws / "out.wav").read_bytes().startswith(b"RIFF")
    assert "`/save ../x.wav --outside`" in flat(d.text)


async def test_save_never_writes_where_something_runs_later(tmp_path: Path) -> None:
    """V14: a WAV over a git hook or ``.envrc`` would be run by the next checkout or ``cd``."""
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    hook = ws / ".git" / "hooks" / "post-checkout"
    hook.write_text("#!/bin/sh\ntrue\n")
    async with line_mode(ws, []) as d:
        d.shell.last_audio = PCM
        await d.send("/save .git/hooks/post-checkout --force\r")
        await d.until(lambda: "nothing was written, and --force does not change that" in flat(d.text))
        await d.send("/save .envrc\r")
        await d.until(lambda: flat(d.text).count("does not change that") == 2)
        await d.send("/quit\r")
    assert hook.read_text() == "#!/bin/sh\ntrue\n"
    assert not (ws / ".envrc").exists()
    assert "direnv runs when you enter the directory" in flat(d.text)
