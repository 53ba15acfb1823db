"""The policy decides in a worker thread (finding T5: a check slow on hostile input froze
the screen and Esc). What that needs: a change the loop makes while a check runs (a rule
added, the mode switched) is not undone by the check when it ends, nor ignored by it;
a check that takes too long refuses the call (fail closed); the middleware sees the
same verdicts as before."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from middleware import human_in_the_loop
from middleware.human_in_the_loop import Verdict
from shell.config import Settings
from shell.core.messages import ToolResultMessage
from shell.core.tools import Tool
from shell.headless import run_headless
from shell.permissions.policy import PermissionPolicy
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.tools.builtin import builtin_tools
from shell.tools.workspace import Workspace
from tests.tui.test_permissions_tui import call

WAIT = 10.0  # seconds a held check waits at most for the test to let it go (so a failure ends)


def run_shell(root: Path) -> Tool:
    return next(t for t in builtin_tools(Workspace(root)) if t.name == "run_shell")


@pytest.fixture
def policy(tmp_path: Path) -> PermissionPolicy:
    root = tmp_path / "ws"
    root.mkdir()
    return PermissionPolicy(root, user_config=tmp_path / "config.toml", load_project=False)


class Held:
    """Holds the first call of a policy method in its worker thread until ``go``."""

    def __init__(self, real: Any) -> None:
        self.real, self.entered, self.go = real, threading.Event(), threading.Event()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        found = self.real(*args, **kwargs)
        if not self.entered.is_set():
            self.entered.set()
            self.go.wait(WAIT)
        return found


def decide_in_thread(policy: PermissionPolicy, tool: Tool, args: Mapping[str, Any]) -> Iterator[Verdict]:
    """Start ``policy.decide`` in a thread (as the gate does); the generator yields its verdict."""
    out: list[Verdict] = []
    worker = threading.Thread(target=lambda: out.append(policy.decide(tool, args)))
    worker.start()
    yield Verdict("allow", "started")
    worker.join(WAIT)
    yield out[0]


def test_a_rule_added_while_a_check_builds_the_rules_is_not_lost(policy: PermissionPolicy) -> None:
    """The check built the rule set before the rule was added; keeping it would have left
    the new deny rule out of every later decision."""
    tool = run_shell(policy.root)
    held = Held(policy._listing)
    policy._listing = held  # type: ignore[method-assign]
    running = decide_in_thread(policy, tool, {"command": "rm -rf build"})
    next(running)
    assert held.entered.wait(WAIT)
    policy.add_rule("run_shell(rm:*)", "deny", "user")  # the loop, meanwhile: /permissions
    held.go.set()
    next(running)
    verdict = policy.decide(tool, {"command": "rm -rf build"})
    assert verdict.action == "deny", verdict.reason


def test_a_mode_switched_while_a_check_runs_decides_the_call(policy: PermissionPolicy) -> None:
    """Shift+Tab to plan mode while the check of a command runs: the command is refused
    as plan mode refuses it, not asked about as the mode it left would."""
    tool = run_shell(policy.root)
    held = Held(policy._confinement)
    policy._confinement = held  # type: ignore[method-assign]
    running = decide_in_thread(policy, tool, {"command": "make"})
    next(running)
    assert held.entered.wait(WAIT)
    policy.mode = "plan"
    held.go.set()
    verdict = next(running)
    assert verdict.action == "deny" and "Plan mode" in verdict.reason, verdict


def test_deciding_reads_the_session_without_changing_it(policy: PermissionPolicy) -> None:
    """The worker must not add keys to the dict the loop saves; the old list still counts."""
    state: dict[str, Any] = {"always_allow": ["run_shell"]}
    policy._state = lambda: state
    assert policy.decide(run_shell(policy.root), {"command": "make"}).action == "allow"
    assert state == {"always_allow": ["run_shell"]}
    policy.add_rule("read_file(a.txt)", "allow", "session")  # a writer moves the old list over
    assert "always_allow" not in state
    assert [r["rule"] for r in state["rules"]] == ["run_shell", "read_file(a.txt)"]


@pytest.mark.anyio
async def test_a_check_that_takes_too_long_refuses_the_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(human_in_the_loop, "CHECK_SECONDS", 0.2)
    ws = tmp_path / "ws"
    ws.mkdir()
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(ws), record=False, permission_mode="bypass"),
        settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([call("run_shell", command="touch ran.txt"), "Done."]),
    )
    release = threading.Event()
    slow = runtime.permissions._decide

    def stuck(tool: Tool, args: Mapping[str, Any]) -> Verdict:
        release.wait(WAIT)  # a check that does not end (a backtracking pattern, a hung disk)
        return slow(tool, args)

    monkeypatch.setattr(runtime.permissions, "_decide", stuck)
    try:
        await run_headless(runtime, "go", output_format="json", approve="never", out=io.StringIO(),
                           err=io.StringIO())
    finally:
        release.set()
    result = next(m for m in runtime.agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error and "permission check for run_shell took too long" in str(result.content)
    assert not (ws / "ran.txt").exists()


@pytest.mark.anyio
async def test_the_gate_gets_the_policys_verdict_through_the_thread(policy: PermissionPolicy) -> None:
    tool = run_shell(policy.root)
    policy.add_rule("run_shell(rm:*)", "deny", "user")
    verdict = await human_in_the_loop.checked(policy, tool, {"command": "rm x"})
    assert verdict == policy.decide(tool, {"command": "rm x"}) and verdict.action == "deny"


@pytest.mark.anyio
async def test_a_question_whose_details_take_too_long_is_not_asked_and_the_call_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rules "always" would keep and the preview are worked out off the loop too,
    bounded the same way: past it the call is refused, not asked without them."""
    monkeypatch.setattr(human_in_the_loop, "CHECK_SECONDS", 0.2)
    ws = tmp_path / "ws"
    ws.mkdir()
    runtime = ShellRuntime.create(
        RuntimeOptions(cwd=str(ws), record=False), settings=Settings(path=tmp_path / "none.toml"),
        model=ScriptedModel([call("run_shell", command="touch ran.txt"), "Done."]),
    )
    release = threading.Event()
    real = runtime.permissions._details

    def stuck(tool: Tool, args: dict[str, Any]) -> Any:
        release.wait(WAIT)
        return real(tool, args)

    monkeypatch.setattr(runtime.permissions, "_details", stuck)
    try:
        await run_headless(runtime, "go", output_format="json", approve="always", out=io.StringIO(),
                           err=io.StringIO())
    finally:
        release.set()
    result = next(m for m in runtime.agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error and "permission check for run_shell took too long" in str(result.content)
    assert not (ws / "ran.txt").exists()
