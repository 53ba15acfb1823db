"""What a trusted workspace's ``.mcp.json`` servers run is part of what trust covers
(K10): the script (``python3 tools/server.py``, ``node ./mcp/server.js``) or the
interpreter inside the workspace (``.venv/bin/python``) that agent-shell starts as the
user, outside the sandbox. A change to one asks for trust again, naming it; a file edit
of one asks in accept-edits and auto; a sandboxed command (real bubblewrap) can neither
change nor plant one; and a real server whose script a command tried to change is
not started again unasked."""

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
    yield from later_workspace(monkeypatch, ".agent-shell-test-mcpruns-")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def project(ws: Path, **servers: dict[str, Any]) -> None:
    write(ws / ".mcp.json", json.dumps({"mcpServers": servers}))


def verdict(ws: Path, path: str, mode: str) -> Any:
    policy = PermissionPolicy(ws, mode=mode, user_config=ws.parent / "c.toml")
    tools = {t.name: t for t in builtin_tools(Workspace(ws))}
    return policy.decide(tools["write_file"], {"path": path, "content": "x\n"})


def test_the_files_a_server_runs_are_found_and_nothing_else(ws: Path) -> None:
    write(ws / "tools" / "server.py", "print()\n")
    write(ws / "mcp" / "server.js", "0\n")
    write(ws / "data" / "notes.txt", "x\n")
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "bin" / "python").symlink_to(sys.executable)
    project(ws,
            py={"command": "python3", "args": ["tools/server.py", "--data", "data"]},
            node={"command": "node", "args": ["./mcp/server.js", "--config=data/notes.txt"]},
            venv={"command": ".venv/bin/python", "args": ["-m", "srv"]},
            built={"command": "node", "args": ["dist/index.js"]},  # not built yet: a script all the same
            sub={"command": "python3", "args": ["run.py"], "cwd": "tools"},
            outside={"command": "python3", "args": ["../../elsewhere.py", "${HOME}/x.py", "/usr/bin/env"]},
            remote={"url": "https://example.org/mcp"})
    named = named_files(ws, (ws / ".mcp.json").read_bytes())
    found = {p.relative_to(ws).as_posix(): why.alone for p, why in named.items()}
    assert set(found) == {"tools/server.py", "mcp/server.js", "data/notes.txt", ".venv/bin/python",
                          "dist/index.js", "tools/run.py",
                          "srv.py", "srv/__init__.py", "srv/__main__.py"}  # -m srv: one planted runs (Q27)
    assert "'py'" in found["tools/server.py"] and "outside the sandbox" in found["tools/server.py"]


def test_a_change_to_the_script_asks_for_trust_again_and_says_what_changed(ws: Path) -> None:
    write(ws / "tools" / "server.py", "print('server')\n")
    project(ws, local={"command": "python3", "args": ["tools/server.py"]})
    store = TrustStore()
    config = read_project_config(ws)
    assert "tools/server.py" in config.files
    lines = describe_project(store.check(ws, config))
    said = "tools/server.py: the MCP server 'local' of .mcp.json runs it"
    assert any(line.startswith(said) for line in lines)
    store.decide(config, True)
    assert store.check(ws).state == "trusted"
    write(ws / "tools" / "server.py", "import os; os.system('touch PWNED')\nprint('server')\n")
    check = store.check(ws)
    assert check.state == "changed"
    assert check.changed == ("tools/server.py",)
    assert any("changed since you trusted it: tools/server.py" in line for line in describe_project(check))


@pytest.mark.parametrize("mode", ["accept-edits", "auto"])
def test_a_file_edit_of_what_a_server_runs_asks(ws: Path, mode: str) -> None:
    write(ws / "tools" / "server.py", "print()\n")
    project(ws, local={"command": "python3", "args": ["tools/server.py"]})
    found = verdict(ws, "tools/server.py", mode)
    assert found.action == "ask" and "MCP server 'local'" in found.reason, found.reason
    assert verdict(ws, "tools/helper.py", mode).action == "allow"


async def test_a_sandboxed_command_can_neither_change_nor_plant_what_a_server_runs(ws: Path) -> None:
    require_sandbox()
    write(ws / "tools" / "server.py", "print('server')\n")
    project(ws, local={"command": "python3", "args": ["tools/server.py"]},
            built={"command": "node", "args": ["dist/index.js"]})
    result = await sh(ws, "sed -i '1i import os; os.system(\"touch PWNED\")' tools/server.py; "
                          "mkdir -p dist && echo 'require(\"child_process\").execSync(\"touch PWNED\")' "
                          "> dist/index.js; echo ok > notes.txt; true")
    assert (ws / "tools" / "server.py").read_text() == "print('server')\n", result.text
    assert not (ws / "dist" / "index.js").exists() and "quarantine" in result.text, result.text
    assert (ws / "notes.txt").read_text() == "ok\n"


async def test_a_server_whose_script_changed_is_not_started_until_trusted_again(ws: Path) -> None:
    from shell.config import Settings
    from shell.providers.scripted import ScriptedModel
    from shell.runtime import RuntimeOptions, ShellRuntime

    marker = ws.parent / "PWNED_MCP_SCRIPT"
    write(ws / "tools" / "server.py", SERVER.read_text())
    project(ws, local={"command": sys.executable, "args": ["tools/server.py"]})
    TrustStore().decide(read_project_config(ws), True)
    text = SERVER.read_text().replace("from __future__ import annotations\n", "")
    plant = f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n"
    write(ws / "tools" / "server.py", plant + text)  # changed outside the sandbox (by the user, say)

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


def test_a_hostile_mcp_json_hangs_nothing(ws: Path) -> None:
    import os
    import threading

    os.mkfifo(ws / "pipe")
    project(ws, a={"command": "python3", "args": ["pipe", "/dev/zero", "a\x00b.py", "x" * 5000 + ".py"]},
            b={"command": "./pipe"}, c="not an object", d={"command": 42})
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(read_project_config(ws)), daemon=True)
    worker.start()
    worker.join(30)
    assert done, "reading the project config hung on a FIFO"
    assert done[0].contents["pipe"] == b"<not a regular file>"


def test_a_module_a_folder_and_a_shell_string_name_what_they_run(ws: Path) -> None:
    """Finding Q27: ``python3 -m tools.srv``, ``node tools/pkg``, ``python3 tools`` and
    ``bash -c "node tools/a.js"`` run files of the workspace as surely as ``python3
    tools/srv.py`` does: each is fingerprinted and guarded like a script argument."""
    for name in ("tools/__init__.py", "tools/srv.py", "tools/__main__.py", "tools/a.js",
                 "tools/pkg/index.js", "tools/pkg/lib/start.js", "tools/other.py"):
        write(ws / name, "0\n")
    write(ws / "tools" / "pkg" / "package.json", json.dumps({"main": "lib/start.js"}))
    write(ws / "loop" / "package.json", json.dumps({"main": "."}))
    project(ws,
            s={"command": "python3", "args": ["-m", "tools.srv"]},
            v={"command": "uv", "args": ["run", "python", "-mtools.srv"]},
            n={"command": "node", "args": ["tools/pkg"]},
            d={"command": "python3", "args": ["tools"]},
            a={"command": "bash", "args": ["-c", "node tools/a.js && exec sh -c 'sh tools/b.sh'"]},
            loop={"command": "node", "args": ["loop"]})
    named = named_files(ws, (ws / ".mcp.json").read_bytes())
    found = {p.relative_to(ws).as_posix() for p in named}
    assert found == {"tools/__init__.py", "tools/srv.py", "tools/srv/__init__.py", "tools/srv/__main__.py",
                     "tools/pkg/index.js", "tools/pkg/package.json", "tools/pkg/lib/start.js",
                     "tools/__main__.py", "tools/a.js", "tools/b.sh", "loop/package.json"}
    config = read_project_config(ws)
    assert {"tools/srv.py", "tools/__init__.py", "tools/a.js", "tools/pkg/index.js"} <= set(config.files)


async def test_a_sandboxed_command_cannot_change_the_module_a_server_runs(ws: Path) -> None:
    require_sandbox()
    write(ws / "tools" / "__init__.py", "")
    write(ws / "tools" / "srv.py", "print('server')\n")
    write(ws / "tools" / "helper.txt", "x\n")
    project(ws, s={"command": "python3", "args": ["-m", "tools.srv"]},
            a={"command": "bash", "args": ["-c", "node tools/a.js"]})
    write(ws / "tools" / "a.js", "0\n")
    result = await sh(ws, 'for f in tools/*; do echo "#x" >> $f; done; true')
    assert (ws / "tools" / "srv.py").read_text() == "print('server')\n", result.text
    assert (ws / "tools" / "__init__.py").read_text() == "", result.text
    assert (ws / "tools" / "a.js").read_text() == "0\n", result.text
    assert (ws / "tools" / "helper.txt").read_text() == "x\n#x\n"
