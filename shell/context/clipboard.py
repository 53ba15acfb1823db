"""An image from the system clipboard, where a tool can read one.

Terminals paste text only, so a screenshot on the clipboard is read with the
platform's own tool: ``wl-paste`` (Wayland), ``xclip`` (X11), ``pngpaste``
(macOS; else ``osascript``), PowerShell on Windows. Each runs with a timeout and
its output is capped at the largest image a provider takes; whatever fails is a
sentence for the user, never an exception.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from shell.core.programs import host_environment, resolve, which

from .attachments import MAX_IMAGE_BYTES

TIMEOUT = 3.0


def _commands() -> list[list[str]]:
    out: list[list[str]] = []
    if os.environ.get("WAYLAND_DISPLAY") and which("wl-paste"):
        out.append(["wl-paste", "--no-newline", "--type", "image/png"])
    if os.environ.get("DISPLAY") and which("xclip"):
        out.append(["xclip", "-selection", "clipboard", "-t", "image/png", "-o"])
    if sys.platform == "darwin" and which("pngpaste"):
        out.append(["pngpaste", "-"])
    return out


def read_image() -> bytes | str:
    """The clipboard's image (PNG bytes), or why there is none."""
    commands = _commands()
    if sys.platform == "darwin" and not commands:
        return _osascript()
    if sys.platform == "win32":
        return _powershell()
    if not commands:
        return ("no clipboard tool found: install wl-clipboard (Wayland) or xclip (X11), "
                "or save the image and use /image PATH")
    last = "the clipboard holds no image"
    for command in commands:
        try:
            done = subprocess.run(resolve(command), capture_output=True, timeout=TIMEOUT, check=False,
                                  env=host_environment())
        except (OSError, subprocess.TimeoutExpired) as exc:
            last = f"{command[0]} failed: {exc}"
            continue
        if done.returncode == 0 and done.stdout:
            return done.stdout[: MAX_IMAGE_BYTES + 1]
    return last


def _via_file(command: list[str], path: Path) -> bytes | str:
    try:
        subprocess.run(resolve(command), capture_output=True, timeout=TIMEOUT, check=False,
                       env=host_environment())
        data = path.read_bytes()[: MAX_IMAGE_BYTES + 1] if path.exists() else b""
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{command[0]} failed: {exc}"
    return data or "the clipboard holds no image"


def _osascript() -> bytes | str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "clip.png"
        script = (f'set f to (open for access POSIX file "{path}" with write permission)\n'
                  "write (the clipboard as «class PNGf») to f\nclose access f")
        return _via_file(["osascript", "-e", script], path)


def _powershell() -> bytes | str:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "clip.png"
        script = ("Add-Type -AssemblyName System.Windows.Forms; $i = [Windows.Forms.Clipboard]::GetImage(); "
                  f"if ($i) {{ $i.Save('{path}') }}")
        return _via_file(["powershell", "-NoProfile", "-Command", script], path)
