"""Ctrl+C while ``agent-shell acp`` builds a session's runtime (``session/new``): the
build ran in the event loop's thread, where asyncio's own SIGINT handler only marks
the main task cancelled, so the Ctrl+C went unread until the build ended (the line
mode had the same race). Now it ends the process at once, exit code 130."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

SLOW_BUILD = """
import sys, time
from shell.runtime import ShellRuntime
real = ShellRuntime.create
def slow(*args, **kwargs):
    print("building", file=sys.stderr, flush=True)
    time.sleep(20)  # a slow start: a big config, a slow disk
    print("built", file=sys.stderr, flush=True)
    return real(*args, **kwargs)
ShellRuntime.create = slow
from shell.cli import main
sys.exit(main(["acp", "--model", "demo"]))
"""


def test_ctrl_c_while_a_sessions_runtime_is_built_ends_acp_at_once(
    acp_env: dict[str, str], workspace: Path
) -> None:
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": 1, "clientCapabilities": {}}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/new",
         "params": {"cwd": str(workspace), "mcpServers": []}},
    ]
    process = subprocess.Popen([sys.executable, "-c", SLOW_BUILD], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=acp_env, cwd=workspace)
    try:
        assert process.stdin is not None and process.stderr is not None
        process.stdin.write("".join(json.dumps(f) + "\n" for f in frames).encode())
        process.stdin.flush()  # (stdin stays open: the editor is still there)
        said = b""
        while b"building" not in said:
            line = process.stderr.readline()
            assert line, said
            said += line
        os.kill(process.pid, signal.SIGINT)
        _, rest = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    log = (said + rest).decode("utf-8", "replace")
    assert "built" not in log.replace("building", ""), log
    assert process.returncode == 130, log
