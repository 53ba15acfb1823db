"""Real MCP servers written with the official SDK (tests/tools/sdk_mcp_server.py),
each a process on 127.0.0.1, over stdio and over streamable HTTP (some over the
older SSE transport too): what a user meets
when such a server dies mid-call, never answers the handshake, floods log messages,
answers 50 MB, lists tools the SDK refuses, or names its tools to collide and deceive."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.textsafety import is_safe
from shell.core.tools import Tool
from shell.tools.builtin import builtin_tools
from shell.tools.mcp import McpManager
from shell.tools.mcp_results import MAX_RESULT_CHARS
from shell.tools.workspace import Workspace

from .conftest import Recorder
from .mcp_servers import free_port, wait_listening

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

SERVER = Path(__file__).with_name("sdk_mcp_server.py")
TRANSPORTS = ["stdio", "http"]


@contextmanager
def _spec(mode: str, transport: str, env: dict[str, str] | None = None) -> Iterator[dict[str, Any]]:
    """The config entry of the SDK server in ``mode``: its command (stdio), or its URL
    once the process listens on 127.0.0.1 (streamable HTTP)."""
    if transport == "stdio":
        yield {"command": sys.executable, "args": [str(SERVER), mode], "env": env or {}}
        return
    port = free_port()
    flag = "--sse" if transport == "sse" else "--http"
    proc = subprocess.Popen([sys.executable, str(SERVER), mode, flag, str(port)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_listening(proc, port, 60, "the SDK server")
        if transport == "sse":
            yield {"type": "sse", "url": f"http://127.0.0.1:{port}/sse"}
        else:
            yield {"type": "http", "url": f"http://127.0.0.1:{port}/mcp"}
    finally:
        proc.kill()
        proc.wait()


@asynccontextmanager
async def _connected(
    mode: str, transport: str, timeout: float = 60, call_timeout: float | None = None
) -> AsyncIterator[McpManager]:
    with _spec(mode, transport) as spec:
        if call_timeout is not None:
            spec["timeout"] = call_timeout
        async with McpManager({"sdk": spec}, connect_timeout=timeout) as mcp:
            await mcp.wait_settled(timeout + 30)
            yield mcp


async def _run(mcp: McpManager, name: str, recorder: Recorder, **args: Any) -> Any:
    tool = {t.name: t for t in mcp.tools()}[f"sdk__{name}"]
    with anyio.fail_after(120):
        return await tool.run(args, recorder.context(tool.name, args))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_server_that_dies_mid_call_fails_the_call_and_is_marked_down(
    transport: str, recorder: Recorder
) -> None:
    """Over HTTP the broken answer said "this call failed, the server is still
    connected" and its tools stayed offered until the next call found it gone."""
    async with _connected("plain", transport) as mcp:
        assert mcp.status("sdk").state == "ready"
        echo = {t.name: t for t in mcp.tools()}["sdk__echo"]
        died = await _run(mcp, "die", recorder)
        assert died.is_error
        assert died.text.startswith("The MCP server 'sdk' went away during the call to sdk__die: ")
        status = mcp.status("sdk")
        assert status.state == "exited"
        if transport == "stdio":
            assert status.reason.endswith("sdk server: dying on purpose")  # its last words: the user's
            assert "ghp_" not in status.message and "ghp_" not in died.text  # never the model's (finding T6)
        else:
            assert status.message.startswith("its answer broke off, then it did not answer a ping")
        assert mcp.tools() == []  # no longer offered to the model
        with anyio.fail_after(10):
            after = await echo.run({"a": "x"}, recorder.context(echo.name, {}))
        assert after.is_error
        assert after.text.startswith("The MCP server 'sdk' is exited: ")
        assert "ghp_" not in after.text and "stderr" not in after.text


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_server_that_never_answers_initialize_neither_blocks_start_up_nor_hangs(
    transport: str,
) -> None:
    with _spec("stall_init", transport) as spec:
        async with McpManager({"sdk": spec}, connect_timeout=3) as mcp:
            # start() returned before any handshake: the shell goes on without its tools
            assert mcp.status("sdk").state == "connecting" and mcp.tools() == []
            await mcp.wait_settled(60)
            status = mcp.status("sdk")
    assert status.state == "failed"
    assert status.message.startswith("no answer to the MCP handshake within 3 s (a first npx or uvx run may "
                                     "still be downloading: start agent-shell again later)")


@pytest.mark.parametrize("transport", [*TRANSPORTS, "sse"])
async def test_a_flood_of_log_messages_does_not_stop_the_answer(transport: str, recorder: Recorder) -> None:
    async with _connected("plain", transport) as mcp:
        result = await _run(mcp, "logs", recorder, n=3000)
        assert result.text == "logged 3000"
        assert mcp.status("sdk").state == "ready"
        again = await _run(mcp, "echo", recorder, a="after")
        assert again.text == "echo after"


@pytest.mark.parametrize("transport", [*TRANSPORTS, "sse"])
async def test_results_of_2_and_50_mb_and_deep_nesting_are_bounded(
    transport: str, recorder: Recorder
) -> None:
    """Over streamable HTTP a 2 MB result failed whole ("Server-sent event exceeded
    the 1048576 byte limit", naming no server) where stdio read it and cut it; over
    the older SSE transport it ended the whole connection, every tool with it."""
    async with _connected("plain", transport) as mcp:
        two = await _run(mcp, "big", recorder, mb=2)
        assert not two.is_error
        assert len(two.text) < MAX_RESULT_CHARS + 1000
        assert f"of {2 << 20:,} characters are shown" in two.text
        fifty = await _run(mcp, "big", recorder, mb=50)
        assert fifty.is_error
        said = "a line longer than 32 MB" if transport == "stdio" else "more than 32 MB in one answer"
        assert fifty.text.startswith(f"Calling sdk__big failed: the MCP server 'sdk' sent {said}")
        deep = await _run(mcp, "deep", recorder, depth=100_000)
        assert not deep.is_error and deep.text.startswith("[[[") and len(deep.text) < MAX_RESULT_CHARS + 1000
        assert mcp.status("sdk").state == "ready"
        again = await _run(mcp, "echo", recorder, a="after")
        assert again.text == "echo after"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_tools_the_sdk_would_refuse_are_skipped_and_the_rest_offered(transport: str) -> None:
    async with _connected("malformed", transport) as mcp:
        status = mcp.status("sdk")
        names = [t.name for t in mcp.tools()]
    assert status.state == "ready"
    assert names == ["sdk__echo", "sdk__logs"]
    assert status.message == (
        "3 tools not offered to the model (sdk__noschema: it is not valid MCP: inputSchema: Field required; "
        "tool #3 of its list: its name is a JSON number, not a string; sdk__strout: it is not valid MCP: "
        "outputSchema.type: Input should be 'object'); tell the server's author"
    )


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_hostile_tool_names_never_shadow_a_built_in_and_are_safe_to_show(
    transport: str, recorder: Recorder, tmp_path: Path
) -> None:
    """read_file, run_shell, a.b next to a_b, escape sequences, a bidi override and
    10,000 characters: every name the model, the screen and the rules see is
    ``sdk__`` and at most 64 model-safe characters, each its own."""
    from shell.permissions.policy import PermissionPolicy
    from shell.permissions.rules import parse_rules

    async with _connected("names", transport) as mcp:
        tools: list[Tool] = mcp.tools()
        names = [t.name for t in tools]
        assert len(names) == len(set(names)) == 13
        assert all(re.fullmatch(r"sdk__[A-Za-z0-9_-]{1,59}", n) for n in names), names
        builtin = {t.name for t in builtin_tools(Workspace(tmp_path))}
        assert {"read_file", "run_shell"} <= builtin and not builtin & set(names)
        assert {"sdk__read_file", "sdk__run_shell", "sdk__a_b"} <= set(names)
        by_remote = {t.remote_name: t for t in tools}  # type: ignore[attr-defined]
        evil = by_remote["evil\x1b[2J\x1b]0;pwn\x07name"]
        assert re.fullmatch(r"sdk__evil__2J__0_pwn_name_[0-9a-f]{8}", evil.name)
        assert re.fullmatch(r"sdk__rm__fr-_[0-9a-f]{8}", by_remote["rm\u202e/fr-"].name)
        assert len(by_remote["n" * 10_000].name) == 64
        result = await evil.run({"a": "x"}, recorder.context(evil.name, {}))
        assert result.text == "hostile tool 4: x"  # the call reaches the tool under its real name
        assert not is_safe(evil.description)  # as the server sent it: every front end shows it sanitised

        rules, problems = parse_rules({"allow": ["sdk__*"], "deny": [evil.name]}, "user")
        assert not problems
        policy = PermissionPolicy(tmp_path, user_rules=rules, user_config=tmp_path / "config.toml")
        assert policy.decide(evil, {}).action == "deny"
        assert policy.decide(by_remote["read_file"], {}).action == "allow"
        read_file = next(t for t in builtin_tools(Workspace(tmp_path)) if t.name == "read_file")
        assert policy.decide(read_file, {"path": "x"}).action != "deny"  # a rule for sdk__* is not one for it
        assert all(is_safe(rule) for t in tools for rule in policy.suggest(t, {}))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_call_that_is_never_answered_is_given_up_and_says_so(
    transport: str, recorder: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stuck tool held the call, the reply and a -p run for the SDK's 600 s, silently:
    now `timeout` seconds without an answer or progress end the call with a clear error,
    the waiting is reported meanwhile, and the server stays usable."""
    from shell.tools import mcp_deadline

    monkeypatch.setattr(mcp_deadline, "WAIT_NOTE_EVERY", 0.3)
    async with _connected("plain", transport, call_timeout=1.5) as mcp:
        stuck = await _run(mcp, "slow", recorder)
        assert stuck.is_error and stuck.details["timed_out"]
        assert stuck.text.startswith("The MCP server 'sdk' did not answer the call to sdk__slow within 1.5 s")
        assert "timeout` under [mcp_servers.sdk]" in stuck.text
        waiting = [p for p in recorder.progress if isinstance(p, dict) and "waiting" in p]
        assert waiting and "waiting for the MCP server 'sdk' (sdk__slow)" in waiting[0]["message"]
        assert mcp.status("sdk").state == "ready"
        assert (await _run(mcp, "echo", recorder, a="still here")).text.endswith("echo still here")
        working = await _run(mcp, "slow", recorder, seconds=3, progress_every=0.3)  # progress: alive
        assert not working.is_error and "slept 3" in working.text


def test_a_timeout_that_is_not_a_number_of_seconds_is_a_clear_error() -> None:
    from shell.tools.mcp_config import parse_server

    assert parse_server("s", {"command": "x", "timeout": 90}).timeout == 90.0
    for bad in ("90", -1, 0, True, 10**9):
        spec = parse_server("s", {"command": "x", "timeout": bad})
        assert spec.error is not None and spec.error.startswith("timeout must be a number of seconds"), bad
