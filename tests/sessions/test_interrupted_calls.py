"""A call stopped in mid-run reads as such after a resume, never as the tool's error:
``cancelled`` (the user's Esc or Ctrl+C) or ``interrupted`` (agent-shell stopped
while it ran, the loader gave it its result), in the TUI, the line mode and
/export; and the next request answers every call (a provider rejects a call without
its result)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from shell.agent import Agent
from shell.config import Settings
from shell.core.messages import AssistantMessage, TextBlock, ToolCallBlock, ToolResultMessage, UserMessage
from shell.core.tools import tool
from shell.frontend.recap import recap
from shell.frontend.reply import calls_from_messages
from shell.providers.scripted import ScriptedModel
from shell.runtime import RuntimeOptions, ShellRuntime
from shell.sessions import INTERRUPTED_RESULT, SessionRecorder, SessionStore, export_markdown, load_session
from shell.sessions.redact import NO_REDACTION
from shell.tui.entries import SpanEntry
from shell.tui.history import entries_from_messages
from tests.helpers import history_is_valid
from tests.plain.test_plain import line_mode

from .util import header, msg, write

pytestmark = pytest.mark.anyio

CALL = AssistantMessage((TextBlock("Running it."), ToolCallBlock("c1", "run_shell", {"command": "sleep 30"})))


def killed_mid_run(store: SessionStore) -> str:
    """A session as a process killed while its command ran leaves it: the call, no result."""
    write(store.path("s1"), [header("s1", cwd="/elsewhere"), msg(UserMessage("go")), msg(CALL)])
    return "s1"


def statuses(messages: list[Any], outcomes: dict[str, str]) -> dict[str, str]:
    return {call_id: call.status for call_id, call in calls_from_messages(messages, outcomes).items()}


async def test_a_call_agent_shell_stopped_reads_interrupted_and_the_next_request_answers_it(
    store: SessionStore, tmp_path: Path
) -> None:
    sid = killed_mid_run(store)
    model = ScriptedModel(["Carrying on."])
    runtime = ShellRuntime.create(RuntimeOptions(cwd=str(tmp_path), record=True),
                                  settings=Settings(path=tmp_path / "none.toml"), model=model)
    runtime.resume(sid)
    messages, outcomes = list(runtime.agent.messages), runtime.call_outcomes
    assert messages[-1] == ToolResultMessage("c1", "run_shell", INTERRUPTED_RESULT, is_error=True)
    assert statuses(messages, outcomes) == {"c1": "interrupted"}  # was "error"
    spans = [e for e in entries_from_messages(messages, outcomes) if isinstance(e, SpanEntry)]
    assert [s.state.label for s in spans] == ["interrupted"]  # the TUI's span
    exported = export_markdown(messages, redactor=NO_REDACTION, outcomes=outcomes)  # /export
    assert "**Tool call interrupted** `run_shell` (c1)" in exported and "Tool error" not in exported
    async with runtime.running():
        async for _ in runtime.reply("go on"):
            pass
    sent = model.requests[-1].messages
    assert ToolResultMessage("c1", "run_shell", INTERRUPTED_RESULT, is_error=True) in sent
    assert history_is_valid(list(sent))
    again = load_session(store.path(sid))  # its result is in the file now: the outcome says why
    assert not again.interrupted and statuses(again.messages, again.outcomes) == {"c1": "interrupted"}
    assert "**Tool call interrupted**" in export_markdown(again, redactor=NO_REDACTION)


@tool
async def slow(seconds: float) -> str:
    """Sleep.

    Args:
        seconds: how long
    """
    await anyio.sleep(seconds)
    return "slept"


async def test_a_call_the_user_cancelled_mid_run_exports_as_cancelled(store: SessionStore) -> None:
    turn = AssistantMessage((TextBlock("hi"), ToolCallBlock("c1", "slow", {"seconds": 30})))
    agent = Agent(ScriptedModel([turn]), tools=[slow])
    with SessionRecorder(store, agent, redactor=NO_REDACTION) as rec:
        async for event in rec.record(agent.reply("go")):
            if type(event).__name__ == "ToolExecutionStart":
                agent.cancel()
    loaded = load_session(rec.path)
    assert statuses(loaded.messages, loaded.outcomes) == {"c1": "cancelled"}
    exported = export_markdown(loaded, redactor=NO_REDACTION)
    assert "**Tool call cancelled** `slow` (c1)" in exported and "Tool error" not in exported


def test_the_line_mode_recap_names_the_calls_that_did_not_finish() -> None:
    result = ToolResultMessage("c1", "run_shell", INTERRUPTED_RESULT, is_error=True)
    seen = recap([UserMessage("go"), CALL, result], {"c1": "interrupted"})
    assert [(c.name, c.status) for c in seen.stopped] == [("run_shell", "interrupted")] and not seen.ended
    said = "The tool call did not complete: the reply was cancelled."
    cancelled = ToolResultMessage("c1", "run_shell", said, is_error=True)
    seen = recap([UserMessage("go"), CALL, cancelled], {"c1": "cancelled"})
    assert [c.status for c in seen.stopped] == ["cancelled"] and seen.ended == "Reply cancelled."
    done = ToolResultMessage("c1", "run_shell", "ok")
    assert recap([UserMessage("go"), CALL, done], {}).stopped == ()


async def test_the_line_mode_shows_a_resumed_interrupted_call(store: SessionStore, tmp_path: Path) -> None:
    sid = killed_mid_run(store)
    async with line_mode(tmp_path, ["Fine."], resume=sid) as d:
        await d.wait_for("Where it left off")
        await d.send("/quit\r")
    text = d.text
    assert "■ run_shell" in text and "interrupted" in text
    assert "The tool call was interrupted: agent-shell stopped before it finished." in text


async def test_the_tui_shows_a_resumed_interrupted_call_as_interrupted(
    store: SessionStore, tmp_path: Path
) -> None:
    from shell.tools.workspace import Workspace
    from shell.tui.app import AgentShellApp
    from shell.tui.widgets.tool_span import ToolSpan
    from tests.tui.helpers import SIZE, wait_for

    sid = killed_mid_run(store)
    options = RuntimeOptions(record=True, cwd=str(tmp_path))
    runtime = ShellRuntime(Agent(ScriptedModel([])), settings=Settings(), workspace=Workspace(tmp_path),
                           options=options)
    runtime.resume(sid)
    app = AgentShellApp(runtime=runtime)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: bool(app.query(ToolSpan)))
        span = app.query_one(ToolSpan)
        assert span.state.status == "interrupted"
        assert "interrupted" in str(span.query_one("CollapsibleTitle").render())  # was "— error"
        await pilot.press("ctrl+q")


def test_export_and_the_editors_replay_say_how_a_stopped_call_ended(tmp_path: Path) -> None:
    """/export labelled a call the user rejected or a rule blocked "Tool error", and the
    ACP replay (session/load) showed an interrupted call as the tool's own failure."""
    from shell.acp.replay import history_updates

    calls = AssistantMessage(tuple(ToolCallBlock(f"c{i}", "run_shell", {"command": "x"}) for i in range(4)))
    results = [ToolResultMessage(f"c{i}", "run_shell", "not run", is_error=True) for i in range(4)]
    messages = [UserMessage("go"), calls, *results]
    outcomes = {"c0": "rejected", "c1": "blocked", "c2": "interrupted"}  # c3: the tool's own error
    exported = export_markdown(messages, redactor=NO_REDACTION, outcomes=outcomes)
    assert "**Tool call rejected by you** `run_shell` (c0)" in exported
    assert "**Tool call blocked by a rule** `run_shell` (c1)" in exported
    assert "**Tool call interrupted** `run_shell` (c2)" in exported
    assert exported.count("**Tool error**") == 1 and "**Tool error** `run_shell` (c3)" in exported
    updates = [u.model_dump() for u in history_updates(messages, {}, lambda name: None, tmp_path, outcomes)]
    ends = {u["tool_call_id"]: u for u in updates if u.get("session_update") == "tool_call_update"}
    first = {cid: str(u["content"][0]["content"]["text"]) for cid, u in ends.items()}
    assert first["c0"] == "Tool call rejected by you." and first["c2"] == "Tool call interrupted."
    assert first["c1"] == "Tool call blocked by a rule." and "rejected" not in first["c3"]
    assert all(u["status"] == "failed" for u in ends.values())  # ACP has no other status for them
