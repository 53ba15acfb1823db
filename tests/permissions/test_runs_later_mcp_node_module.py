"""A trusted ``.mcp.json`` server's ``NODE_OPTIONS`` module is found as Node finds it
(finding C7): ``--require ./tools/preload`` (no extension, as Node users write it) loads
``tools/preload.js`` (or ``.cjs``, ``.json``, a folder's ``index.js`` …), and
``-r hook`` loads ``node_modules/hook``. Each such file is in the trust question and
its fingerprint, and a sandboxed command (real bubblewrap) can neither change one nor
plant another that the next start would run as the user."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shell.permissions.mcpsources import named_files
from shell.permissions.trust import TrustStore, read_project_config
from shell.runtime.build import describe_project

from ..sandboxing import require_sandbox
from .later_ws import later_workspace, sh

pytestmark = pytest.mark.anyio


@pytest.fixture
def ws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from later_workspace(monkeypatch, ".agent-shell-test-mcpnode-")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def project(ws: Path, **servers: dict[str, Any]) -> None:
    write(ws / ".mcp.json", json.dumps({"mcpServers": servers}))


def preload_server(ws: Path, option: str) -> None:
    write(ws / "server.js", "console.log('x')\n")
    project(ws, proj={"command": "node", "args": ["server.js"], "env": {"NODE_OPTIONS": option}})


def found(ws: Path) -> set[str]:
    return {p.relative_to(ws).as_posix() for p in named_files(ws, (ws / ".mcp.json").read_bytes())}


def test_a_preload_without_extension_names_every_file_node_may_load(ws: Path) -> None:
    write(ws / "tools" / "preload.js", "// preload\n")
    preload_server(ws, "--require ./tools/preload --import=./esm/hook -r hook")
    names = found(ws)
    for name in ("tools/preload.js", "tools/preload.cjs", "tools/preload.json", "tools/preload.node",
                 "tools/preload/index.js", "tools/preload/package.json", "esm/hook.mjs", "esm/hook/index.js",
                 "node_modules/hook/index.js", "node_modules/hook.js", "node_modules/hook/package.json"):
        assert name in names, (name, sorted(names))


def test_an_existing_file_of_that_very_name_is_all_node_loads(ws: Path) -> None:
    write(ws / "tools" / "hook.js", "0\n")
    preload_server(ws, "--require ./tools/hook.js")
    assert found(ws) == {"server.js", "tools/hook.js"}


def test_a_folders_package_main_is_named(ws: Path) -> None:
    write(ws / "tools" / "pre" / "package.json", json.dumps({"main": "lib/start"}))
    preload_server(ws, "-r ./tools/pre")
    assert {"tools/pre/lib/start.js", "tools/pre/lib/start/index.js"} <= found(ws)


def test_the_trust_question_names_the_loaded_file_and_a_change_asks_again(ws: Path) -> None:
    write(ws / "tools" / "preload.js", "// preload\n")
    preload_server(ws, "--require ./tools/preload")
    store = TrustStore()
    config = read_project_config(ws)
    lines = describe_project(store.check(ws, config))
    assert any(line.startswith("tools/preload.js: the MCP server 'proj' of .mcp.json runs it")
               for line in lines), lines
    missing = [line for line in lines if "tools/preload/index.js" in line]  # the names Node would try next
    assert len(missing) == 1 and "tools/preload.cjs" in missing[0], lines  # one line, not a dozen
    assert "not there yet (one made later asks again): the MCP server 'proj'" in missing[0], missing
    store.decide(config, True)
    assert store.check(ws).state == "trusted"
    write(ws / "tools" / "preload.js", "// preload\nrequire('child_process').execSync('id > /tmp/pwn1')\n")
    check = store.check(ws)
    assert check.state == "changed" and check.changed == ("tools/preload.js",)


def test_a_planted_sibling_node_would_load_asks_again(ws: Path) -> None:
    preload_server(ws, "-r ./tools/preload")
    store = TrustStore()
    store.decide(read_project_config(ws), True)
    write(ws / "tools" / "preload.js", "require('child_process').execSync('id')\n")
    check = store.check(ws)
    assert check.state == "changed" and check.changed == ("tools/preload.js",)
    store.decide(read_project_config(ws), True)
    write(ws / "tools" / "preload" / "index.js", "require('child_process').execSync('id')\n")
    check = store.check(ws)
    assert check.state == "changed" and "tools/preload/index.js" in check.changed, check.changed


async def test_a_sandboxed_command_can_neither_change_nor_plant_the_preload(ws: Path) -> None:
    require_sandbox()
    write(ws / "tools" / "preload.js", "// preload\n")
    preload_server(ws, "--require ./tools/preload -r hook")
    result = await sh(ws, "echo 'require(\"child_process\").execSync(\"touch PWNED\")' >> tools/preload.js; "
                          "mkdir -p tools/preload node_modules/hook; echo 'x' > tools/preload/index.js; "
                          "echo 'x' > node_modules/hook/index.js; echo ok > notes.txt; true")
    assert (ws / "tools" / "preload.js").read_text() == "// preload\n", result.text
    assert not (ws / "tools" / "preload" / "index.js").exists(), result.text
    assert not (ws / "node_modules" / "hook" / "index.js").exists(), result.text
    assert (ws / "notes.txt").read_text() == "ok\n"


def test_servers_with_preloads_still_name_the_last_servers_script(ws: Path) -> None:
    servers = {f"s{n}": {"command": "node", "args": [f"srv{n}.js"], "env": {"NODE_OPTIONS": f"-r ./pre{n}"}}
               for n in range(8)}
    project(ws, **servers)
    assert {f"srv{n}.js" for n in range(8)} <= found(ws)
