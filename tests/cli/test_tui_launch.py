"""The TUI launched as a user launches it: ``python -m shell`` on a pseudo-terminal.

Start-up errors are one line and exit code 2; ``--continue`` shows the last session;
what is typed before the screen opens is sent.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import RunCli


def run_on_pty(
    args: list[str], env: dict[str, str], timeout: float = 30, quit_on: bytes | None = None,
    cwd: Path | None = None, type_at_once: bytes = b"", quit_keys: bytes = b"\x11",
) -> tuple[int, str]:
    """Run ``args`` on a pseudo-terminal; with ``quit_on``, press Ctrl+Q once that
    text has been drawn; ``type_at_once`` is typed right after the launch, before
    the app has the terminal; ``quit_keys`` (Ctrl+Q) is what quits. Returns the exit
    code and everything drawn."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, stdin=follower, stdout=follower, stderr=follower, env=env, cwd=cwd)
    os.close(follower)
    if type_at_once:
        os.write(leader, type_at_once)
    seen = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([leader], [], [], 0.05)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:
                    break
                seen += chunk
                if b"\x1b[6n" in chunk:
                    os.write(leader, b"\x1b[1;1R")
                if quit_on is not None and quit_on in seen:
                    os.write(leader, quit_keys)
                    quit_on = None
            elif proc.poll() is not None:
                break
        return proc.wait(timeout=5), seen.decode(errors="replace")
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(leader)


def test_bad_model_in_the_tui_is_one_line_and_exit_2(cli_env: dict[str, str], workspace: Path) -> None:
    code, output = run_on_pty([sys.executable, "-m", "shell", "--model", "nope:x"], cli_env, cwd=workspace)
    assert code == 2
    assert "agent-shell: Unknown model 'nope:x'" in output
    assert "Traceback" not in output


def test_continue_in_the_tui_shows_the_last_session(
    cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str], run_cli: RunCli
) -> None:
    model = script(["Noted the word kiwi."])
    first = run_cli("-p", "remember kiwi", "--model", model)
    assert first.returncode == 0, first.stderr
    args = [sys.executable, "-m", "shell", "--continue", "--model", model]
    code, output = run_on_pty(args, cli_env, quit_on=b"kiwi.", cwd=workspace)
    assert "Noted the word kiwi." in output.replace("\x1b", "")
    assert code == 0


def test_a_message_typed_before_the_screen_opens_is_sent(
    cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    """Type at once after launching: the terminal, still in cooked mode, turns Enter
    into a line feed; the shell sends it rather than adding a new line."""
    args = [sys.executable, "-m", "shell", "--model", script(["The early bird was heard."]), "--no-session"]
    code, output = run_on_pty(args, cli_env, quit_on=b"was heard.", cwd=workspace, type_at_once=b"early\r")
    assert "The early bird was heard." in output
    assert code == 0


def test_a_message_on_the_command_line_is_the_first_message(
    cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    """``agent-shell "list the files"`` opens the shell and sends that message (it was
    a usage error); the scripted model answers only once it has been asked."""
    model = script(["Here are the files you asked about."])
    args = [sys.executable, "-m", "shell", "list the files", "--model", model, "--no-session"]
    code, output = run_on_pty(args, cli_env, quit_on=b"you asked about.", cwd=workspace)
    assert "Here are the files you asked about." in output
    assert code == 0


def test_a_message_on_the_command_line_in_the_line_mode(
    cli_env: dict[str, str], workspace: Path, script: Callable[[list[Any]], str]
) -> None:
    model = script(["Listing them now."])
    args = [sys.executable, "-m", "shell", "--plain", "--model", model, "--no-session", "list the files"]
    code, output = run_on_pty(args, cli_env, quit_on=b"them now.", cwd=workspace, quit_keys=b"/quit\r")
    assert "list the files" in output and "Listing them now." in output
    assert code == 0
