"""Shared fixtures: async tests run on asyncio through anyio's pytest plugin, and no
test reads or writes the real user's agent-shell files."""

import pytest

pytest_plugins = ["tests.scripted_cli"]
"""The ``workspace`` and ``script`` fixtures of the tests that run agent-shell as a
subprocess (cli/, acp/); a folder's own ``workspace`` fixture (tools/) overrides it."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The config and data dirs (prompt history, sessions, checkpoints, quarantine,
    trusted workspaces) point at a fresh folder per test, which subprocesses inherit:
    a run of the suite left 1,260 test prompts in the developer's own history, which
    the next real session offered with Up."""
    root = tmp_path_factory.mktemp("agent-shell-home")
    monkeypatch.setenv("AGENT_SHELL_CONFIG_DIR", str(root / "config"))
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(root / "data"))
