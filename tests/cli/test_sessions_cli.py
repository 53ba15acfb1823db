"""``agent-shell sessions``: this directory's sessions, every directory's, and a full-text
search; ``--fork`` refused without a session to fork."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .conftest import RunCli


def test_list_and_search_from_the_command_line(run_cli: RunCli, script: Callable[[list[Any]], str]) -> None:
    done = run_cli("-p", "tell me about the pangolin", "--model", script(["Scaly anteaters."]))
    assert done.returncode == 0, done.stderr
    listed = run_cli("sessions")
    assert listed.returncode == 0 and "tell me about the pangolin" in listed.stdout
    found = run_cli("sessions", "--search", "anteaters")
    assert found.returncode == 0 and "[anteaters]" in found.stdout.replace("[Scaly] ", "")
    assert "tell me about the pangolin" in found.stdout
    missing = run_cli("sessions", "--search", "narwhal")
    assert "No session mentions 'narwhal'" in missing.stdout
    bad = run_cli("sessions", "--search", "  ")
    assert bad.returncode == 2 and "needs words" in bad.stderr


def test_fork_needs_a_session_to_fork(run_cli: RunCli) -> None:
    done = run_cli("--fork", "--plain")
    assert done.returncode == 2 and "--fork goes with --continue or --resume" in done.stderr
