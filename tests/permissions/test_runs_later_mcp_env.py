"""What a trusted ``.mcp.json`` server's environment makes it load is part of what trust
covers (finding A12): ``"env": {"NODE_OPTIONS": "--require ./tools/hook.js"}``,
``BASH_ENV``, ``LD_PRELOAD``, ``JAVA_TOOL_OPTIONS=-javaagent:…``, ``GIT_SSH_COMMAND`` and
``env VAR=value`` words name files the server runs as the user; ``PYTHONPATH``-style
search paths name folders any planted module loads from. A change asks for trust again,
a file edit asks, a sandboxed command (real bubblewrap) can neither change nor plant
them, and a real server whose search path a file was planted in is not started again
unasked."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.mcpsources import named_files
from shell.permissions.policy import PermissionPolicy
from shell.permissions.trust import TrustStore, read_project_config
from shell.runtime.build import describe_project
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

pytestmark = pytest.mark.anyio

SERVER = Path(__file__).resolve().parents[1] / "tools" / "where_mcp_server.py"


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-mcpenv-")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def project(ws: Path, **servers: dict[str, Any]) -> None:
    write(ws / ".mcp.json", json.dumps({"mcpServers": servers}))


def found(ws: Path) -> set[str]:
    return {p.relative_to(ws).as_posix() for p in named_files(ws, (ws / ".mcp.json").read_bytes())}


def test_the_files_and_folders_a_servers_environment_loads_are_found(ws: Path) -> None:
    for name in ("tools/hook.js", "tools/b.sh", "tools/x.so", "tools/agent.jar", "tools/ssh.sh",
                 "tools/envhook.js", "tools/rb.rb", "lib/mod.py", "tools/run.js"):
        write(ws / name, "0\n")
    project(ws,
            n={"command": "node", "args": ["-e", "0"], "env": {"NODE_OPTIONS": "--require ./tools/hook.js"}},
            b={"command": "bash", "args": ["-c", "true"], "env": {"BASH_ENV": "./tools/b.sh"}},
            p={"command": "x", "env": {"LD_PRELOAD": "./tools/x.so", "PYTHONPATH": "lib:/usr/lib:vendor"}},
            j={"command": "java", "env": {"JAVA_TOOL_OPTIONS": "-Xmx1g -javaagent:tools/agent.jar=opt"}},
            g={"command": "git", "env": {"GIT_SSH_COMMAND": "sh tools/ssh.sh -o x"}},
            r={"command": "ruby", "env": {"RUBYOPT": "-rtools/rb.rb -Irblib"}},
            e={"command": "env",
               "args": ["-i", "NODE_OPTIONS=--require ./tools/envhook.js", "node", "tools/run.js"]},
            outside={"command": "node", "env": {"NODE_OPTIONS": "-r ../../x.js -r dotenv/config",
                                                "PYTHONPATH": "/opt/lib:.:${HOME}/x"}},
            s={"command": "/usr/bin/env", "args": ["-S", "BASH_ENV=tools/split.sh bash -c true"]})
    names = found(ws)
    assert "node_modules/dotenv/config.js" in names  # a package's module: as Node finds it (C7)
    assert {n for n in names if not n.startswith("node_modules/")} == {
        "tools/hook.js", "tools/b.sh", "tools/x.so", "lib", "vendor", "tools/agent.jar",
        "tools/ssh.sh", "tools/rb.rb", "rblib", "tools/envhook.js", "tools/run.js", "tools/split.sh"}


def test_the_trust_question_names_the_hook_and_a_change_asks_again(ws: Path) -> None:
    write(ws / "tools" / "hook2.js", "// telemetry shim: does nothing\n")
    project(ws, e={"command": "node", "args": ["-e", "setInterval(()=>{},1000)"],
                   "env": {"NODE_OPTIONS": "--require ./tools/hook2.js", "PYTHONPATH": "lib"}},
            t={"command": "env", "args": ["NODE_OPTIONS=--require ./tools/hook.js", "node", "-e", "0"]})
    store = TrustStore()
    config = read_project_config(ws)
    lines = describe_project(store.check(ws, config))
    said = "tools/hook2.js: the MCP server 'e' of .mcp.json runs it"
    assert any(line.startswith(said) for line in lines), lines
    assert any(line.startswith("tools/hook.js") and "not there yet (one made later asks again): the MCP "
               "server 't'" in line for line in lines), lines  # missing names: one line per server
    assert not any(line.startswith("NODE_OPTIONS=") for line in lines), lines  # the word is no file name
    assert any(line.startswith("lib: not there yet") and "the MCP server 'e' of .mcp.json loads code from "
               "this folder" in line for line in lines), lines
    store.decide(config, True)
    write(ws / "tools" / "hook2.js", "require('fs').writeFileSync('/tmp/x', '1')\n")
    check = store.check(ws)
    assert check.state == "changed" and check.changed == ("tools/hook2.js",)


def test_a_module_planted_in_a_servers_search_path_asks_again(ws: Path) -> None:
    write(ws / "lib" / "helper.py", "x = 1\n")
    project(ws, s={"command": "python3", "args": ["-c", "0"], "env": {"PYTHONPATH": "lib"}})
    store = TrustStore()
    store.decide(read_project_config(ws), True)
    assert store.check(ws).state == "trusted"
    write(ws / "lib" / "pkg" / "json.py", "import os\n")
    check = store.check(ws)
    assert check.state == "changed" and check.changed == ("lib",)


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_file_edit_of_what_a_servers_environment_loads_asks(ws: Path, mode: str) -> None:
    write(ws / "tools" / "hook.js", "0\n")
    project(ws, n={"command": "node",
                   "env": {"NODE_OPTIONS": "--require=./tools/hook.js", "PYTHONPATH": "lib"}})
    policy = PermissionPolicy(ws, mode=mode, user_config=ws.parent / "c.toml")
    write_file = {t.name: t for t in builtin_tools(Workspace(ws))}["write_file"]
    for path in ("tools/hook.js", "lib/sitecustomize.py", "lib/deep/json.py"):
        verdict = policy.decide(write_file, {"path": path, "content": "x\n"})
        assert verdict.action == "ask" and "MCP server 'n'" in verdict.reason, (path, verdict.reason)
    assert policy.decide(write_file, {"path": "tools/other.js", "content": "x\n"}).action == "allow"


async def test_a_sandboxed_command_can_neither_change_nor_plant_what_the_environment_loads(ws: Path) -> None:
    require_sandbox()
    write(ws / "tools" / "hook2.js", "// shim\n")
    (ws / "lib").mkdir()
    project(ws, e={"command": "node", "env": {"NODE_OPTIONS": "--require ./tools/hook2.js",
                                              "BASH_ENV": "b.sh", "PYTHONPATH": "lib:vendor"}})
    result = await sh(ws, "echo 'require(\"child_process\").execSync(\"touch PWNED\")' > tools/hook2.js; "
                          "echo 'touch PWNED' > b.sh; echo 'import os' > lib/json.py; "
                          "mkdir vendor; echo 'import os' > vendor/json.py; "
                          "echo ok > notes.txt; true")
    assert (ws / "tools" / "hook2.js").read_text() == "// shim\n", result.text
    assert not (ws / "b.sh").exists() and "quarantine" in result.text, result.text
    assert not (ws / "lib" / "json.py").exists(), result.text
    assert not (ws / "vendor" / "json.py").exists(), result.text  # a search-path folder made later
    assert (ws / "notes.txt").read_text() == "ok\n"


async def test_a_server_whose_search_path_changed_is_not_started_until_trusted_again(ws: Path) -> None:
    from shell.config import Settings
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    marker = ws.parent / "PWNED_MCP_ENV"
    write(ws / "tools" / "server.py", SERVER.read_text())
    (ws / "lib").mkdir()
    project(ws, local={"command": sys.executable, "args": ["tools/server.py"], "env": {"PYTHONPATH": "lib"}})
    TrustStore().decide(read_project_config(ws), True)
    plant = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n"
    write(ws / "lib" / "sitecustomize.py", plant)

    def runtime() -> ShellRuntime:
        return ShellRuntime.create(RuntimeOptions(cwd=str(ws), permission_mode="bypass"),
                                   settings=Settings(path=ws.parent / "none.toml"),
                                   model=ScriptedModel(["Hi."]))

    first = runtime()
    assert first.workspace_trust().state == "changed"
    async with first.running():
        assert first.mcp is None  # nothing of the project's starts
    assert not marker.exists()
    second = runtime()
    await second.decide_trust(second.workspace_trust(), True)  # the user looked and said yes
    async with second.running():
        assert second.mcp is not None
        await second.mcp.wait_settled(60)
        assert second.mcp.status("local").state == "ready", second.mcp.status("local").message
    assert marker.exists()
