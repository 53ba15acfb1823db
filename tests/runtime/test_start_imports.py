"""What the start builds and what waits for the first command (issue 21, ready time).

The command machinery (run_shell, the sandbox's check around a command, the
policy's check of an edit to what runs later) is imported at its first use, not
while the shell starts. These tests hold that line, and that a command run in a
fresh process, with nothing imported ahead, is as confined as ever: its
workspace's secret file reads as empty.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shell.tools import builtin, shell_cmd

from ..sandboxing import require_sandbox

SECRET = "sk-live-0123456789abcdefghijklmnop"

SCRIPT = textwrap.dedent(
    """
    import json, sys

    import anyio

    from shell.config import load_config
    from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResultMessage
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime
    from shell.tools.builtin import COMMAND_MODULES

    root, config, command = sys.argv[1:4]
    turn = AssistantMessage((ToolCallBlock("c1", "run_shell", {"command": command}),))
    rt = ShellRuntime.create(
        RuntimeOptions(cwd=root, record=False, middleware_later=True),  # as the TUI builds it
        settings=load_config(config), model=ScriptedModel([turn, "Done."]),
    )
    at_start = [m for m in COMMAND_MODULES if m in sys.modules]

    async def ask(request):
        raise AssertionError(f"asked about {request.call.name}")

    async def main():
        rt.ask = ask
        async for _ in rt.reply("go"):
            pass

    anyio.run(main)
    result = next(m.text for m in rt.agent.messages if isinstance(m, ToolResultMessage))
    now = [m for m in ("shell.tools.shell_cmd", "shell.permissions.runslater") if m in sys.modules]
    print(json.dumps({"at_start": at_start, "after": now, "result": result}))
    """
)


def _run(tmp_path: Path, command: str) -> dict[str, object]:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".env").write_text(f"API_KEY={SECRET}\n")
    config = tmp_path / "config.toml"
    config.write_text('[permissions]\nmode = "auto"\n')
    env = {**os.environ, "AGENT_SHELL_CONFIG_DIR": str(tmp_path / "cfg"),
           "AGENT_SHELL_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(root), str(config), command],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_the_start_imports_no_command_machinery_and_the_first_command_is_confined(tmp_path: Path) -> None:
    """Built as the TUI builds it, the runtime has not imported what a command needs;
    the first command imports it, runs in the sandbox unasked (auto mode), and reads
    the workspace's .env as empty (named by no word of the command line)."""
    require_sandbox()
    found = _run(tmp_path, "cat \"$(printf '.%s' env)\"; echo read-done")
    assert found["at_start"] == [], found
    assert found["after"] == ["shell.tools.shell_cmd", "shell.permissions.runslater"], found
    assert "read-done" in str(found["result"]), found
    assert SECRET not in str(found["result"]), found


def test_run_shell_says_the_timeout_the_command_runs_with() -> None:
    """The schema's default (what the model reads) is the timeout the command gets."""
    assert builtin.RUN_SHELL_TIMEOUT == shell_cmd.DEFAULT_TIMEOUT


@pytest.mark.parametrize("name", builtin.COMMAND_MODULES)
def test_each_command_module_exists(name: str) -> None:
    """A module renamed or removed would leave the warm-up importing nothing for it."""
    __import__(name)
    assert name in sys.modules


def test_reading_the_config_leaves_the_core_unimported(tmp_path: Path) -> None:
    """The line mode reads the config before its first prompt: that imports neither
    the messages nor the tools nor the model protocol (``shell.core`` loads each
    on first use), and every name the package offers still resolves."""
    (tmp_path / "config.toml").write_text('theme = "x"\n')
    code = ("import sys\nfrom shell.config import load_config\n"
            f"load_config({str(tmp_path / 'config.toml')!r})\n"
            "print(sorted(m for m in sys.modules if m.startswith('shell.core.')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.strip()
    for heavy in ("shell.core.messages", "shell.core.tools", "shell.core.model", "shell.core.approvals"):
        assert heavy not in loaded, loaded
    import shell.core
    from shell.core import messages, tools

    assert [name for name in shell.core.__all__ if getattr(shell.core, name, None) is None] == []
    assert shell.core.Message is messages.Message and shell.core.tool is tools.tool
    with pytest.raises(AttributeError):
        _ = shell.core.NoSuchName  # type: ignore[attr-defined]
