"""A server the user told to start in the workspace (``cwd = "workspace"``) whose package
launcher prefers the folder's own ``node_modules`` (finding A15): ``npx -y PKG`` ran a
cloned (or a sandboxed command's planted) ``node_modules/PKG`` as the user, before any
question. ``npx`` now looks for installed packages in the private folder (the server
still runs in the workspace); ``bunx``, which has no such switch, is refused while the
workspace holds the package, and ``/mcp`` and the trust question say why.

Real servers over stdio: ``npx`` of a planted package (offline: nothing is fetched) and
``npx`` of a local package folder that says where it runs."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from shell.commands import default_commands
from shell.core.dirs import data_dir

from .test_mcp_start_dir import WHERE, plant, runtime_for, same, settled, where

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def npx_or_skip() -> str:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed")
    return npx


def offline(tmp_path: Path) -> dict[str, str]:
    return {"npm_config_offline": "true", "npm_config_cache": str(tmp_path / "npm-cache"),
            "npm_config_update_notifier": "false"}


def planted_package(workspace: Path, name: str, marker: Path) -> None:
    package = workspace / "node_modules" / name
    package.mkdir(parents=True)
    manifest = {"name": name, "version": "1.0.0", "bin": {name: "cli.js"}}
    (package / "package.json").write_text(json.dumps(manifest))
    plant(package, "cli.js", marker, shebang="#!/usr/bin/env node")
    (workspace / "node_modules" / ".bin").mkdir(exist_ok=True)
    (workspace / "node_modules" / ".bin" / name).symlink_to(f"../{name}/cli.js")


async def test_npx_in_the_workspace_does_not_run_the_workspaces_node_modules(tmp_path: Path) -> None:
    npx = npx_or_skip()
    workspace, marker = tmp_path / "ws", tmp_path / "PWNED_NPX_CWD"
    planted_package(workspace, "fake-mcp", marker)
    for args in (["-y", "fake-mcp"], ["exec", "-y", "fake-mcp"]):
        command = npx if args[0] == "-y" else os.path.join(os.path.dirname(npx), "npm")
        runtime = runtime_for(workspace, {"fs": {"command": command, "args": args, "cwd": "workspace",
                                                 "env": offline(tmp_path)}})
        async with runtime.running():
            await settled(runtime)
        assert not marker.exists(), args
    assert os.listdir(data_dir() / "mcp-server-cwd") == []


async def test_npx_in_the_workspace_still_runs_its_package_there(tmp_path: Path) -> None:
    npx = npx_or_skip()
    workspace, source = tmp_path / "ws", tmp_path / "where-mcp"
    workspace.mkdir()
    source.mkdir()
    (source / "where.py").write_text(f"#!{sys.executable}\n" + WHERE.read_text())
    (source / "where.py").chmod(0o755)
    (source / "package.json").write_text(json.dumps(
        {"name": "where-mcp", "version": "1.0.0", "bin": {"where-mcp": "where.py"}}))
    runtime = runtime_for(workspace, {"w": {"command": npx, "args": ["-y", f"file:{source}"],
                                            "cwd": "workspace", "env": offline(tmp_path)}})
    async with runtime.running():
        await settled(runtime)
        assert runtime.mcp is not None
        assert runtime.mcp.status("w").state == "ready", runtime.mcp.status("w").message
        said = await where(runtime, "w")
    assert same(said["cwd"], workspace)


async def test_bunx_in_a_workspace_holding_the_package_is_refused_and_says_why(tmp_path: Path) -> None:
    workspace, marker = tmp_path / "ws", tmp_path / "PWNED_BUNX"
    planted_package(workspace, "fake-mcp", marker)
    fake_bunx = tmp_path / "bin" / "bunx"  # stands in for bun: it runs what it is given from .bin
    fake_bunx.parent.mkdir()
    fake_bunx.write_text('#!/bin/sh\nexec "./node_modules/.bin/${1%@*}"\n')
    fake_bunx.chmod(0o755)
    servers = {"b": {"command": str(fake_bunx), "args": ["fake-mcp@1.2.0"], "cwd": "workspace"},
               "x": {"command": "bun", "args": ["x", "--bun", "-p", "fake-mcp", "cli"], "cwd": "workspace"}}
    runtime = runtime_for(workspace, servers)
    async with runtime.running():
        await settled(runtime)
        assert runtime.mcp is not None
        for name in servers:
            status = runtime.mcp.status(name)
            assert status.state == "failed" and "node_modules" in status.message, (name, status.message)
        listed = (await default_commands().run(runtime, "/mcp")).text
        question = runtime.describe_project(runtime.workspace_trust())
    assert not marker.exists()
    assert "bunx has no switch" in listed
    assert any(line.startswith("your server 'b'") and "not started" in line for line in question), question
