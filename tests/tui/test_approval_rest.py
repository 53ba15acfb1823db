"""Pilot tests of "the rest of this batch" in the approval dialog (finding F12): a
model turn with many calls that ask says "call 2 of 5", Y approves the rest that call
the same tool, N rejects the rest with one reason, and neither reaches another turn.
(That approving the rest never skips the permission policy is tested with the real
policy in tests/permissions/test_batch_rest.py.)"""

from __future__ import annotations

import pytest
from textual.widgets import Static

from middleware.human_in_the_loop import HumanInTheLoop
from shell.agent import AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.core.approvals import rest_refusal
from shell.tui.app import AgentShellApp
from shell.tui.screens.approval import ApprovalScreen
from shell.tui.widgets.call_group import CallGroup
from shell.tui.widgets.tool_span import ToolSpan

from .helpers import SIZE, approval_dialog, make_agent, send, wait_for

pytestmark = pytest.mark.anyio


def _writes(n: int, first: int = 1) -> AssistantMessage:
    return AssistantMessage(tuple(
        ToolCallBlock(f"w{i}", "write_note", {"path": f"{i}.txt", "text": f"echo {i}"})
        for i in range(first, first + n)
    ))


def _results(agent: object) -> dict[str, ToolResultMessage]:
    return {m.call_id: m for m in agent.messages if isinstance(m, ToolResultMessage)}  # type: ignore[attr-defined]


def _text(dialog: ApprovalScreen, widget: str) -> str:
    return str(dialog.query_one(widget, Static).content)


async def _opened(app: AgentShellApp, pilot: object, call_id: str) -> ApprovalScreen:
    await wait_for(pilot, lambda: (d := approval_dialog(app)) is not None and bool(d.queue)
                   and d.queue[0].request.call.id == call_id)
    dialog = approval_dialog(app)
    assert dialog is not None
    return dialog


async def test_approve_the_rest_answers_the_later_calls_of_this_turn_only() -> None:
    agent, _ = make_agent([_writes(5), "done", _writes(1, first=6), "again"], middleware=[HumanInTheLoop()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        dialog = await _opened(app, pilot, "w1")
        assert "(call 1 of 5 in this reply)" in _text(dialog, "#title")
        keys = _text(dialog, "#keys")
        assert "[Y] approve this and the 4 write_note calls listed" in keys
        assert "[N] reject all 4 after this" in keys
        await pilot.press("y")
        dialog = await _opened(app, pilot, "w2")
        assert "(call 2 of 5 in this reply)" in _text(dialog, "#title")
        assert "the 3 write_note calls listed" in _text(dialog, "#keys")
        await pilot.press("Y")
        await wait_for(pilot, lambda: not app.busy)
        results = _results(agent)
        assert len(results) == 5 and not any(r.is_error for r in results.values())
        shown = {c.call_id: c.status for g in app.query(CallGroup) for c in g.calls}  # (5 of a tool: a row)
        shown |= {s.state.call_id: s.state.status for s in app.query(ToolSpan)}
        assert shown == {f"w{i}": "done" for i in range(1, 6)}, shown
        await send(pilot, "again")  # a later turn is asked again
        dialog = await _opened(app, pilot, "w6")
        assert "in this reply" not in _text(dialog, "#title") and "[Y]" not in _text(dialog, "#keys")
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        assert len(_results(agent)) == 6


async def test_reject_the_rest_with_one_reason_refuses_every_later_call() -> None:
    agent, _ = make_agent([_writes(5), "ok, stopping"], middleware=[HumanInTheLoop()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await _opened(app, pilot, "w1")
        await pilot.press("y")
        dialog = await _opened(app, pilot, "w2")
        await pilot.press("N")
        await pilot.pause()
        assert "Reject this call and the 3 after it in this reply" in _text(dialog, "#reject-hint")
        await pilot.press(*"wrong files", "enter")
        await wait_for(pilot, lambda: not app.busy)
        results = _results(agent)
        assert not results["w1"].is_error
        assert results["w2"].is_error and "Their reason: wrong files" in str(results["w2"].content)
        for i in (3, 4, 5):
            assert results[f"w{i}"].is_error and results[f"w{i}"].content == rest_refusal("write_note")
        assert approval_dialog(app) is None
        statuses = [s.state.status for s in app.query(ToolSpan)]
        assert statuses.count("rejected") + statuses.count("blocked") == 4, statuses


async def test_queued_parallel_calls_of_the_batch_are_answered_with_the_rest() -> None:
    """Calls that run in parallel queue in the dialog (reads of secret-looking files ask,
    each for its own reason, so Y is not offered): N answers the queued ones too."""
    turn = AssistantMessage(
        tuple(ToolCallBlock(f"r{i}", "read_note", {"path": f"d{i}/.env"}) for i in range(3))
    )
    agent, _ = make_agent([turn, "done"], middleware=[HumanInTheLoop()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        await wait_for(pilot, lambda: (d := approval_dialog(app)) is not None and len(d.queue) == 3)
        dialog = approval_dialog(app)
        assert dialog is not None
        keys = _text(dialog, "#keys")
        assert "[Y]" not in keys and "[N] reject all 2 after this" in keys, keys
        await pilot.press("Y")  # not offered: nothing happens
        await pilot.pause()
        assert len(dialog.queue) == 3
        await pilot.press("N", "enter")
        await wait_for(pilot, lambda: not app.busy)
        results = _results(agent)
        assert len(results) == 3 and all(r.is_error for r in results.values())
        assert sorted(str(r.content) for r in results.values())[1:] == [rest_refusal("read_note")] * 2


async def test_y_lists_every_call_it_approves_and_waits_until_their_end_was_seen() -> None:
    """Finding E4: the dialog asked about the first call alone ("approve 3 more like
    this") while the later ones it approved (``…; rm -f important.txt``) were not shown,
    one hidden behind the dialog. Now each is listed whole in the scrolling body, and Y
    first scrolls to the end of the list when it was never on screen."""
    texts = ["ls", "ls; rm -f important.txt", "ls $(rm -f important.txt)",
             *(f"ls > important{i}.txt" for i in range(12))]
    turn = AssistantMessage(tuple(ToolCallBlock(f"w{i}", "write_note", {"path": f"{i}.txt", "text": text})
                                  for i, text in enumerate(texts)))
    agent, _ = make_agent([turn, "done"], middleware=[HumanInTheLoop()])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "go")
        dialog = await _opened(app, pilot, "w0")
        assert "[Y] approve this and the 14 write_note calls listed" in _text(dialog, "#keys")
        listed = _text(dialog, "#rest-calls")
        for i, text in enumerate(texts[1:], 2):
            assert f"call {i} of 15: write_note" in listed and f"text: {text}" in listed, listed
        await pilot.pause(ApprovalScreen.GUARD_S + 0.1)
        await pilot.press("Y")
        await pilot.pause()
        assert "End of the call shown" in _text(dialog, "#guard")  # the list's end first
        assert not _results(agent)
        await pilot.pause(ApprovalScreen.GUARD_S + 0.1)
        await pilot.press("Y")
        await wait_for(pilot, lambda: not app.busy)
        assert len(_results(agent)) == 15
