"""Helpers for the command-line tests: an isolated environment and the CLI as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def cli_env(tmp_path: Path) -> dict[str, str]:
    """No provider, no user config, no user data: the CLI sees only what a test gives it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "AGENT_SHELL_"))}
    env.update(
        AGENT_SHELL_CONFIG_DIR=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        AGENT_SHELL_DATA_DIR=str(tmp_path / "data" / "agent-shell"),
        OLLAMA_HOST="http://127.0.0.1:9",
        PYTHONUNBUFFERED="1",
    )
    env.pop("EDITOR", None)
    env.pop("VISUAL", None)
    return env


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
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


@pytest.fixture
def run_cli(cli_env: dict[str, str], workspace: Path) -> RunCli:
    """Run ``python -m shell ARGS`` in its own session (so it has no terminal to ask on)."""

    def run(*args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "shell", *args],
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            cwd=workspace,
            env=cli_env,
            timeout=timeout,
            start_new_session=True,
        )

    return run
