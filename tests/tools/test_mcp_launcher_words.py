"""The package launcher of a server the user told to start in the workspace is found
however the line spells it (finding C8): ``npm --yes exec srv``, ``npm -y x -- srv``,
``env [VAR=…] npx srv`` get ``--prefix`` (npm then does not run the workspace's
``node_modules/srv``); ``bun [flags] x|run srv`` and ``sh -c "npx srv"`` (a string
cannot be given a flag) are refused while the workspace holds that package, as
``bunx`` is. Through the functions the server start calls, and once with real npm."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from shell.tools.mcp_config import McpServerSpec
from shell.tools.mcp_launch import launch_problem, private_cwd, start_args


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("AGENT_SHELL_DATA_DIR", str(tmp_path / "data"))
    workspace = tmp_path / "ws"
    package = workspace / "node_modules" / "srv"
    package.mkdir(parents=True)
    marker = tmp_path / "PLANTED_RAN"
    (package / "package.json").write_text(json.dumps({"name": "srv", "version": "1.0.0",
                                                      "bin": {"srv": "cli.js"}}))
    plant = f"require('fs').writeFileSync({str(marker)!r}, 'x')\n"
    (package / "cli.js").write_text("#!/usr/bin/env node\n" + plant)
    (package / "cli.js").chmod(0o755)
    (workspace / "node_modules" / ".bin").mkdir()
    (workspace / "node_modules" / ".bin" / "srv").symlink_to("../srv/cli.js")
    (workspace / "package.json").write_text(json.dumps({"name": "w", "dependencies": {"srv": "1.0.0"}}))
    return workspace


def spec(ws: Path, command: str, *args: str) -> McpServerSpec:
    return McpServerSpec(name="u", command=command, args=args, cwd=str(ws))


@pytest.mark.parametrize(("command", "args", "launcher_at"), [
    ("npm", ("--yes", "exec", "srv"), 0),
    ("npm", ("-y", "x", "--", "srv"), 0),
    ("npm", ("--loglevel", "silent", "exec", "srv"), 0),
    ("npm", ("--unknown-flag", "value", "x", "srv"), 0),
    ("env", ("npx", "-y", "srv"), 1),
    ("/usr/bin/env", ("-i", "-u", "X", "--", "PATH=/usr/bin", "npm", "exec", "srv"), 6),
    ("npx", ("-y", "srv"), 0),
])
def test_npm_behind_its_flags_or_env_gets_the_private_prefix(
        ws: Path, command: str, args: tuple[str, ...], launcher_at: int) -> None:
    started = start_args(spec(ws, command, *args))
    words = [command, *started]
    assert words[launcher_at + 1: launcher_at + 3] == ["--prefix", str(private_cwd())], started
    assert [w for w in started if w not in ("--prefix", str(private_cwd()))] == list(args)
    assert launch_problem(spec(ws, command, *args)) == ""


@pytest.mark.parametrize(("command", "args"), [
    ("npm", ("run", "x")), ("npm", ("start",)), ("node", ("server.js", "npx")), ("bun", ("server.ts",)),
])
def test_other_lines_are_left_as_they_are(ws: Path, command: str, args: tuple[str, ...]) -> None:
    assert start_args(spec(ws, command, *args)) == list(args)
    assert launch_problem(spec(ws, command, *args)) == ""


@pytest.mark.parametrize(("command", "args", "said"), [
    ("bun", ("--bun", "x", "srv"), "bunx has no switch"),
    ("bun", ("run", "srv"), "bunx has no switch"),
    ("bun", ("--cwd", ".", "x", "srv@1.0.0"), "bunx has no switch"),
    ("sh", ("-c", "npx -y srv"), "shell string"),
    ("bash", ("-lc", "cd . && npm --yes exec srv"), "shell string"),
    ("env", ("-S", "npx -y srv"), "shell string"),
    ("env", ("FOO=1", "sh", "-c", "bunx srv"), "bunx has no switch"),
])
def test_launchers_that_cannot_be_given_a_prefix_are_refused_while_the_package_is_planted(
        ws: Path, command: str, args: tuple[str, ...], said: str) -> None:
    problem = launch_problem(spec(ws, command, *args))
    assert problem.startswith("not started") and said in problem and "node_modules" in problem, problem
    shutil.rmtree(ws / "node_modules")
    assert launch_problem(spec(ws, command, *args)) == ""  # nothing planted: fetched from the registry


def test_a_projects_own_server_keeps_its_line(ws: Path) -> None:
    own = McpServerSpec(name="p", command="npm", args=("--yes", "exec", "srv"), cwd=str(ws), project=True)
    assert start_args(own) == ["--yes", "exec", "srv"] and launch_problem(own) == ""


def test_real_npm_behind_its_global_flag_does_not_run_the_planted_package(ws: Path, tmp_path: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed")
    env = {**os.environ, "npm_config_offline": "true", "npm_config_cache": str(tmp_path / "npm-cache"),
           "npm_config_update_notifier": "false"}
    started = start_args(spec(ws, npm, "--yes", "exec", "srv"))
    for words in (started, ["--yes", "exec", "srv"]):
        assert not (tmp_path / "PLANTED_RAN").exists()
        subprocess.run([npm, *words], cwd=ws, env=env, capture_output=True, timeout=120, check=False)
    assert (tmp_path / "PLANTED_RAN").exists()  # the same line without the prefix runs it: the test can fail
