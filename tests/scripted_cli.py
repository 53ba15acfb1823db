"""What the tests that run agent-shell as a subprocess share (the command line's and
the ACP agent's): an environment with no provider and no user config or data, a
workspace folder, and model scripts written to files for ``--model scripted:FILE``.

Imported by ``tests/cli/conftest.py`` and ``tests/acp/conftest.py`` so that both kinds
of subprocess start from the same isolation.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def provider_free_env(tmp_path: Path) -> dict[str, str]:
    """This process's environment without any provider key or agent-shell setting, with
    config and data under ``tmp_path`` and Ollama pointed at a closed port: the
    subprocess sees only what a test gives it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_"))}
    env.update(
        AGENT_SHELL_CONFIG_DIR=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        AGENT_SHELL_DATA_DIR=str(tmp_path / "data" / "agent-shell"),
        OLLAMA_HOST="http://127.0.0.1:9",
    )
    return env


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """An empty folder the subprocess runs in."""
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def script(tmp_path: Path) -> Callable[[list[Any]], str]:
    """Write a ``scripted:FILE`` model script; returns the ``--model`` spec."""
    count = 0

    def write(turns: list[Any]) -> str:
        nonlocal count
        count += 1
        path = tmp_path / f"script{count}.json"
        path.write_text(json.dumps(turns), encoding="utf-8")
        return f"scripted:{path}"

    return write
