"""The made-up home the home-secret tests share (outside /tmp: the sandbox's /tmp is
private), and how they plant files there and read them back through the sandbox: one
setup, so a change to what a home needs (a variable to clear) is made once."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from shell.permissions.sandbox import Sandbox
from shell.tools.shell_cmd import run_command
from tests.homes import made_home


def sandbox_home(monkeypatch: pytest.MonkeyPatch, prefix: str) -> Iterator[Path]:
    """For a fixture to ``yield from``: a home with an empty ``project`` folder, the
    shell's data dir in it, no ``XDG_CONFIG_HOME`` nor ``ZDOTDIR``; removed after."""
    base = made_home(prefix)
    (base / "project").mkdir()
    monkeypatch.setenv("HOME", str(base))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(base / "data"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("ZDOTDIR", raising=False)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def plant(home: Path, rels: Sequence[str], text: Callable[[str], str]) -> None:
    """Write ``text(rel)`` at each ``rel`` under ``home``."""
    for rel in rels:
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text(rel))


async def cat_in_sandbox(home: Path, rels: Sequence[str], then: str = "") -> str:
    """What a sandboxed command in ``home/project`` prints catting each of ``rels``
    (from home), then running ``then``, then ``echo end``."""
    box = Sandbox(home / "project")
    names = " ".join(f"'{r}'" for r in rels)
    script = f'cd ~ && for f in {names}; do cat "$f" 2>/dev/null; done; {then + "; " if then else ""}echo end'
    result = await run_command(script, box.workspace, 30, lambda _: None, sandbox=box)
    return result.text
