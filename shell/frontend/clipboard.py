"""``/copy``: the last reply, or one of its code blocks, onto the system clipboard.

The terminal does it (OSC 52: the text, base64, in an escape sequence), which
works over ssh and needs nothing installed, in every terminal that allows it
(most do; some ask, some need a setting). Inside tmux the text goes to
``tmux load-buffer -w``, which keeps it in tmux's paste buffer and hands it to
the terminal's clipboard through tmux's own OSC 52 (tmux 3.2+, unless
``set-clipboard off``); an older tmux gets the sequence through passthrough. A
local clipboard tool (``wl-copy``, ``xclip``, ``xsel``, ``pbcopy``) is used as
well when there is a desktop session. Where none of that can work (a dumb
terminal, no terminal) the answer says so and what to do instead.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from shell.core.programs import host_environment
from shell.core.programs import which as find_program

MAX_OSC52_BYTES = 1_000_000
"""Beyond this terminals drop the sequence (many cap far lower; xterm at 100 KB by default)."""
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})([^\n]*)$")


@dataclass(frozen=True, slots=True)
class Copied:
    ok: bool
    how: str
    """What carried it (for the user): ``the terminal (OSC 52)``, ``tmux``, ``xclip``…"""
    note: str = ""


def code_blocks(markdown: str) -> list[str]:
    """The fenced code blocks of ``markdown``, in order, without their fences (an
    unclosed one runs to the end, as Markdown renders it)."""
    blocks: list[str] = []
    current: list[str] | None = None
    fence = ""
    for line in markdown.splitlines():
        match = _FENCE.match(line)
        if current is None:
            if match:
                current, fence = [], match.group(2)
            continue
        closing = match is not None and match.group(2)[0] == fence[0] and len(match.group(2)) >= len(fence)
        if match and closing and not match.group(3).strip():
            blocks.append("\n".join(current))
            current = None
            continue
        current.append(line)
    if current is not None:
        blocks.append("\n".join(current))
    return blocks


def osc52(text: str) -> str:
    return "\x1b]52;c;" + base64.b64encode(text.encode("utf-8", "replace")).decode("ascii") + "\x07"


def copy_text(
    text: str,
    write: Callable[[str], None] | None,
    *,
    env: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = find_program,
    run: Callable[..., subprocess.CompletedProcess[bytes]] = subprocess.run,
) -> Copied:
    """Put ``text`` on the clipboard. ``write`` puts a sequence on the user's
    terminal (None: there is no terminal to ask)."""
    env = os.environ if env is None else env
    data = text.encode("utf-8", "replace")
    ways: list[str] = []
    if env.get("TMUX") and which("tmux"):
        if _run(run, [which("tmux") or "tmux", "load-buffer", "-w", "-"], data):
            ways.append("tmux")
        elif write is not None and len(data) <= MAX_OSC52_BYTES // 2:
            seq = osc52(text).replace("\x1b", "\x1b\x1b")
            write(f"\x1bPtmux;{seq}\x1b\\")
            ways.append("the terminal (OSC 52 through tmux passthrough)")
    elif write is not None and env.get("TERM", "") not in ("dumb", "") and len(data) <= MAX_OSC52_BYTES // 2:
        write(osc52(text))
        ways.append("the terminal (OSC 52)")
    for tool, argv, needs in (
        ("wl-copy", ["wl-copy"], "WAYLAND_DISPLAY"),
        ("xclip", ["xclip", "-selection", "clipboard"], "DISPLAY"),
        ("xsel", ["xsel", "--clipboard", "--input"], "DISPLAY"),
        ("pbcopy", ["pbcopy"], ""),
    ):
        if (needs and not env.get(needs)) or (not needs and sys.platform != "darwin"):
            continue
        found = which(tool)
        if found and _run(run, [found, *argv[1:]], data):
            ways.append(tool)
            break
    if not ways:
        why = "this terminal cannot take it (TERM is dumb or unset)" if write is not None else "no terminal"
        if len(data) > MAX_OSC52_BYTES // 2:
            why = f"it is too long for the terminal ({len(data):,} bytes)"
        return Copied(False, "", f"Nothing was copied: {why}, and no clipboard tool (wl-copy, xclip, xsel) "
                                 "works here. Select the text with the mouse, or /export the conversation.")
    note = ""
    if ways == ["the terminal (OSC 52)"]:
        note = "If nothing was copied, allow clipboard access (OSC 52) in your terminal's settings."
    elif "tmux" in ways[0]:
        note = "tmux keeps it (prefix ]) and passes it on unless `set-clipboard off`."
    return Copied(True, " and ".join(ways), note)


def _run(run: Callable[..., subprocess.CompletedProcess[bytes]], argv: list[str], data: bytes) -> bool:
    try:
        done = run(argv, input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=5,
                   env=host_environment())
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
