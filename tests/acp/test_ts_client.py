"""The same conversation through the TypeScript reference client
(``@agentclientprotocol/sdk``, run with node): a second, independent implementation
of the protocol agrees with ours. Its zod schemas check every message we send.

Needs node and ``.ci/setup.d/acp.sh`` (installs the SDK into ``.ci/node``); under
``CI=true`` a missing part fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT

SDK = ROOT / ".ci" / "node" / "node_modules" / "@agentclientprotocol" / "sdk"
CLIENT = Path(__file__).with_name("ts_client.mjs")


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (SDK / "dist" / "v1" / "stable" / "acp.js").is_file():
        return f"the TypeScript ACP SDK is not in {SDK} (run .ci/setup.d/acp.sh)"
    return None


@pytest.fixture
def sdk() -> Path:
    missing = _missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{missing}: CI must run the reference client")
        pytest.skip(missing)
    return SDK


def test_the_reference_client_holds_the_same_conversation(
    sdk: Path, script: Any, workspace: Path, acp_env: dict[str, str]
) -> None:
    todos = [{"content": "Check the notes", "status": "in_progress"}]
    turns = [
        "Hello from agent-shell, in several small pieces.",
        {"tool_calls": [{"name": "write_file", "args": {"path": "a.txt", "content": "a\n"}, "id": "w1"}]},
        "Wrote a.txt.",
        {"tool_calls": [{"name": "write_file", "args": {"path": "b.txt", "content": "b\n"}, "id": "w2"}]},
        "I did not write b.txt.",
        {"tool_calls": [{"name": "write_todos", "args": {"todos": todos}, "id": "t1"}]},
        "Planned.",
        {"tool_calls": [{"name": "run_shell", "args": {"command": "sleep 30"}, "id": "s1"}]},
        "never said",
    ]
    command = [sys.executable, "-m", "shell", "acp", "--model", script(turns)]
    done = subprocess.run(
        ["node", str(CLIENT), str(sdk), str(workspace), "--", *command],
        capture_output=True,
        text=True,
        env=acp_env,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])

    assert summary["protocolVersion"] == 1 and summary["loadSession"] is True
    assert summary["modes"] == ["default", "plan", "accept-edits", "auto", "bypass"]
    options = {o[0]: o for o in summary["options"]}
    assert options["mode"][1:] == ["select", "default"]
    assert options["middleware.TodoList"][1:] == ["select", "off"], (
        "no boolean support announced: on/off select"
    )
    assert summary["todoListAfterSwitch"] == "on"

    assert summary["stops"] == ["end_turn", "end_turn", "end_turn", "end_turn", "cancelled"]
    assert summary["hello"] == "Hello from agent-shell, in several small pieces."
    assert summary["helloChunks"] > 3
    assert [p["toolCallId"] for p in summary["permissions"]] == ["w1", "w2"], "write_todos (think) never asks"
    assert summary["permissions"][0]["options"] == [
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    assert summary["statuses"]["w1"] == ["pending", "in_progress", "completed"]
    assert summary["statuses"]["w2"][-1] == "failed"
    assert summary["aExists"] is True and summary["bExists"] is False
    assert summary["kinds"] == {"w1": "edit", "w2": "edit", "t1": "think", "s1": "execute"}
    assert summary["plan"] == [["Check the notes", "in_progress"]]
    assert summary["statuses"]["s1"][-1] == "failed"
    assert summary["cancelMs"] < 500
    assert summary["sessionId"] in summary["listed"]
    assert summary["replayedUser"] == "hellowrite a.txtwrite b.txtplan itwait"
