"""A ``.mcp.json`` server started through ``env`` runs what env runs, however its options
are spelled (finding C12): ``--split-string=…``, ``-vS '…'``, ``-C dir`` (relative paths
read from there), ``-u NAME``, ``--``. Those files are fingerprinted by trust and guarded
like any a server runs; an option env does not know names nothing as safe, and the
trust question says the line could not be read."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from shell.permissions.mcpsources import named_files
from shell.permissions.trust import TrustStore, read_project_config
from shell.runtime.build import describe_project
from shell.tools.package_launchers import NPX, launches

from .later_ws import later_workspace

PRELOAD = "NODE_OPTIONS=--require=./tools/x.js node server.js"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for root in later_workspace(monkeypatch, ".agent-shell-test-mcpenvopts-"):
        (root / "tools").mkdir()
        (root / "tools" / "x.js").write_text("0\n")
        (root / "server.js").write_text("0\n")
        yield root


def project(ws: Path, args: list[str]) -> None:
    (ws / ".mcp.json").write_text(json.dumps({"mcpServers": {"s": {"command": "env", "args": args}}}))


def found(ws: Path) -> set[str]:
    return {p.relative_to(ws).as_posix() for p in named_files(ws, (ws / ".mcp.json").read_bytes())}


@pytest.mark.parametrize("args", [
    ["-S", PRELOAD],
    ["--split-string=" + PRELOAD],
    ["--split-string", PRELOAD],
    ["--split=" + PRELOAD],  # a long option shortened, as getopt allows
    ["-vS", PRELOAD],
    ["-iS", PRELOAD],
    ["-vS" + PRELOAD],
    ["-0", "-v", "--", "NODE_OPTIONS=--require=./tools/x.js", "node", "server.js"],
    ["-u", "HOME", "--unset=PATH", "-uX", "NODE_OPTIONS=--require=./tools/x.js", "node", "server.js"],
    ["-C", "tools", "NODE_OPTIONS=--require ./x.js", "node", "../server.js"],
    ["--chdir=tools", "NODE_OPTIONS=--require ./x.js", "node", "../server.js"],
    ["-Ctools", "-S", "NODE_OPTIONS=--require=./x.js node ../server.js"],
    ["-S", "-C tools NODE_OPTIONS=--require=./x.js node ../server.js"],  # options inside the string too
])
def test_env_options_are_read_as_env_reads_them(ws: Path, args: list[str]) -> None:
    project(ws, args)
    assert found(ws) == {"tools/x.js", "server.js"}


def test_a_file_read_from_envs_new_folder_is_fingerprinted(ws: Path) -> None:
    project(ws, ["-C", "tools", "NODE_OPTIONS=--require ./x.js", "node", "../server.js"])
    store = TrustStore()
    store.decide(read_project_config(ws), True)
    assert store.check(ws).state == "trusted"
    (ws / "tools" / "x.js").write_text("require('child_process').execSync('id')\n")
    check = store.check(ws)
    assert check.state == "changed" and check.changed == ("tools/x.js",)


@pytest.mark.parametrize("option", ["-X", "-vX", "--frobnicate", "--i", "--debug=1"])
def test_an_option_env_does_not_know_names_nothing_and_trust_says_so(ws: Path, option: str) -> None:
    project(ws, [option, "NODE_OPTIONS=--require=./tools/x.js", "node", "server.js"])
    assert found(ws) == set()
    config = read_project_config(ws)
    assert "server.js" not in config.runs and "tools/x.js" not in config.runs
    lines = describe_project(TrustStore().check(ws, config))
    assert any("the MCP server 's' of .mcp.json runs could not be read" in line for line in lines), lines


def test_options_after_an_assignment_are_the_command_as_env_runs_them() -> None:
    # env stops reading options at its first assignment: `-u` here is the program (which fails)
    assert launches("env", ["A=1", "-u", "X", "npx", "srv"]) == []
    assert where(["-vu", "X", "-C", "d", "A=1", "npx", "srv"]) == [(NPX, 6)]
    assert where(["--split-string=npx -y srv"]) == [(NPX, -1)]  # in a string: no flag can be given


def where(args: list[str]) -> list[tuple[str, int]]:
    return [(found.kind, found.at) for found in launches("env", args)]
