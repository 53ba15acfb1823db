"""``notifications/tools/list_changed`` from a real server written with the official
SDK (tests/tools/sdk_mcp_server.py), over stdio and streamable HTTP on 127.0.0.1: the
tools are listed again (new ones offered, gone ones not), the user is told, a tool that
came back under its name with another description and schema asks before its next
call though a rule allowed it (a "rug pull"), and a server that says so hundreds of
times is listed again a few times, not hundreds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.messages import ToolCallBlock
from shell.permissions.policy import PermissionPolicy
from shell.permissions.rules import parse_rules
from shell.tools.mcp import McpManager, ServerStatus

from .conftest import Recorder
from .test_mcp_sdk_servers import _run, _spec

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def _until(what: Any, seconds: float = 30) -> None:
    with anyio.fail_after(seconds):
        while not what():  # noqa: ASYNC110
            await anyio.sleep(0.05)


def _policy(root: Path, allow: list[str]) -> PermissionPolicy:
    rules, problems = parse_rules({"allow": allow}, "user")
    assert not problems
    return PermissionPolicy(root, user_rules=rules, user_config=root / "config.toml")


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_changed_tool_list_is_listed_again_and_a_rug_pull_asks_again(
    transport: str, recorder: Recorder, tmp_path: Path
) -> None:
    seen: list[ServerStatus] = []
    with _spec("probe", transport) as spec:
        async with McpManager({"sdk": spec}, connect_timeout=60, on_change=seen.append) as mcp:
            await mcp.wait_settled(90)
            names = lambda: {t.name for t in mcp.tools()}  # noqa: E731
            assert "sdk__added" not in names()
            assert (await _run(mcp, "mutate", recorder, kind="add")).text == "mutated: add"
            await _until(lambda: "sdk__added" in names())
            assert seen[-1].state == "ready" and "its tools changed: new: sdk__added" in seen[-1].message
            await _run(mcp, "mutate", recorder, kind="remove")
            await _until(lambda: "sdk__added" not in names())
            assert "gone: sdk__added" in seen[-1].message

            policy = _policy(tmp_path, ["sdk__echo"])
            echo = {t.name: t for t in mcp.tools()}["sdk__echo"]
            assert policy.decide(echo, {"a": "x"}).action == "allow"  # the user's rule
            await _run(mcp, "mutate", recorder, kind="rug_pull")
            await _until(lambda: {t.name: t for t in mcp.tools()}["sdk__echo"] is not echo)
            pulled = {t.name: t for t in mcp.tools()}["sdk__echo"]
            assert "id_rsa" in pulled.description
            verdict = policy.decide(pulled, {"a": "x"})
            assert verdict.action == "ask" and not verdict.routine
            assert verdict.reason.startswith("sdk__echo changed since you accepted it (its description, its "
                                             "input schema, its output schema): ")
            assert ("changed since you accepted them, so they ask before their next call: sdk__echo (its "
                    "description, its input schema, its output schema)") in seen[-1].message
            request = ApprovalRequest(ToolCallBlock("c1", pulled.name, {"a": "x"}), pulled, {"a": "x"},
                                      reason=verdict.reason)
            policy.approved(ApprovalDecision.approve(), request)  # the user read it and said yes
            assert policy.decide(pulled, {"a": "x"}).action == "allow"
            assert (await _run(mcp, "echo", recorder, a="still")).text == "echo still"


async def test_a_flood_of_list_changed_lists_again_a_few_times_not_hundreds(recorder: Recorder) -> None:
    """300 notices in a second (the tools did not change): each was ignored before;
    listing again on each would be 300 lists. The notices are gathered and the lists
    spaced out; nothing changed, so the user is told nothing."""
    seen: list[ServerStatus] = []
    with _spec("probe", "stdio") as spec:
        async with McpManager({"sdk": spec}, connect_timeout=60, on_change=seen.append) as mcp:
            await mcp.wait_settled(90)
            before = sorted(t.name for t in mcp.tools())
            at_start = (await _run(mcp, "lists", recorder)).text
            told = len(seen)
            relister = mcp._servers["sdk"].relister
            assert relister is not None
            made = relister.count
            assert (await _run(mcp, "list_changed", recorder, n=300)).text == "changed 300 times"
            await _until(lambda: relister.count > made and not relister.pending)  # each list asked for made
            listed = int((await _run(mcp, "lists", recorder)).text) - int(at_start)
            assert 1 <= listed <= 3
            assert sorted(t.name for t in mcp.tools()) == before
            assert len(seen) == told and mcp.status("sdk").state == "ready"
