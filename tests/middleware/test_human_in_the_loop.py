"""HumanInTheLoop: who asks, the three decisions, parallel asks, always-allow."""

from __future__ import annotations

from typing import Any

import pytest

from middleware.human_in_the_loop import HumanInTheLoop
from shell.agent import (
    ApprovalDecision,
    ApprovalRequest,
    AssistantMessage,
    Tool,
    ToolCallBlock,
    ToolResultMessage,
    tool,
)
from shell.agent.loop import Agent
from shell.core.events import ApprovalRequested, ApprovalResolved, Event, ReplyEnd, ToolExecutionEnd
from shell.providers.scripted import ScriptedModel

pytestmark = pytest.mark.anyio


def make_tools(ran: list[tuple[str, dict[str, Any]]]) -> list[Tool]:
    @tool
    def write_file(path: str, text: str) -> str:
        """Write a file."""
        ran.append(("write_file", {"path": path, "text": text}))
        return f"wrote {path}"

    @tool(read_only=True)
    def read_file(path: str) -> str:
        """Read a file."""
        ran.append(("read_file", {"path": path}))
        return "contents"

    @tool
    def delete(path: str) -> str:
        """Delete a file."""
        ran.append(("delete", {"path": path}))
        return "deleted"

    return [write_file, read_file, delete]


def calls(*blocks: ToolCallBlock) -> AssistantMessage:
    return AssistantMessage(blocks)


def write(call_id: str = "c1", path: str = "a.txt") -> ToolCallBlock:
    return ToolCallBlock(call_id, "write_file", {"path": path, "text": "hi"})


async def run(agent: Agent, text: str = "go") -> list[Event]:
    return [e async for e in agent.reply(text)]


def results(agent: Agent) -> dict[str, ToolResultMessage]:
    return {m.call_id: m for m in agent.messages if isinstance(m, ToolResultMessage)}


class Asker:
    """An ``ask`` that answers from a table keyed by call id (default approve)."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers = answers or {}
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Any:
        self.requests.append(request)
        return self.answers.get(request.call.id, ApprovalDecision.approve())


async def test_write_tool_asks_and_read_only_tool_does_not() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1"), ToolCallBlock("c2", "read_file", {"path": "a"})), "done"])
    ask = Asker()
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    events = await run(agent)
    assert [r.call.id for r in ask.requests] == ["c1"]
    assert sorted(name for name, _ in ran) == ["read_file", "write_file"]
    assert [e.call_id for e in events if isinstance(e, ApprovalRequested)] == ["c1"]
    resolved = [e for e in events if isinstance(e, ApprovalResolved)]
    assert resolved[0].decision.type == "approve"
    request = ask.requests[0]
    assert request.allowed_decisions == ("approve", "edit", "reject")
    assert request.args == {"path": "a.txt", "text": "hi"}
    assert request.description.startswith("Tool execution requires approval")
    assert "write_file" in request.description and "a.txt" in request.description


async def test_interrupt_on_overrides_the_read_only_default() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1"), ToolCallBlock("c2", "read_file", {"path": "a"})), "done"])
    ask = Asker()
    mw = HumanInTheLoop({"write_file": False, "read_file": True})
    agent = Agent(model, tools=make_tools(ran), middleware=[mw], ask=ask)
    await run(agent)
    assert [r.call.id for r in ask.requests] == ["c2"]


async def test_reject_default_message_and_tool_not_run() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), "ok"])
    ask = Asker({"c1": ApprovalDecision.reject()})
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    events = await run(agent)
    assert ran == []
    result = results(agent)["c1"]
    assert result.is_error and result.text == "The user rejected the call to write_file; it was not run."
    end = next(e for e in events if isinstance(e, ToolExecutionEnd))
    assert end.blocked
    # The model read the rejection on its next call.
    assert model.requests[1].messages[-1] == result


async def test_reject_with_a_message_the_model_reads() -> None:
    model = ScriptedModel([calls(write("c1")), "ok"])
    ask = Asker({"c1": ApprovalDecision.reject("Use b.txt instead")})
    agent = Agent(model, tools=make_tools([]), middleware=[HumanInTheLoop()], ask=ask)
    await run(agent)
    assert results(agent)["c1"].text == "Use b.txt instead"


async def test_edit_runs_with_new_args_and_keeps_the_call_id() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), "ok"])
    ask = Asker({"c1": ApprovalDecision.edit({"path": "b.txt", "text": "bye"})})
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    await run(agent)
    assert ran == [("write_file", {"path": "b.txt", "text": "bye"})]
    result = results(agent)["c1"]
    assert not result.is_error and result.text.endswith("\nwrote b.txt")


async def test_the_model_reads_the_arguments_an_edited_call_ran_with() -> None:
    """The history's call keeps the model's arguments; the model read them next to the
    result of the user's, and went on as if its own had run (finding T2). The result
    it reads now says what ran."""
    model = ScriptedModel([calls(write("c1")), "ok"])
    ask = Asker({"c1": ApprovalDecision.edit({"path": "b.txt", "text": "bye"})})
    agent = Agent(model, tools=make_tools([]), middleware=[HumanInTheLoop()], ask=ask)
    await run(agent)
    told = model.requests[1].messages[-1]
    assert isinstance(told, ToolResultMessage) and told.call_id == "c1"
    assert told.text == ('[The user edited the arguments before this call ran; it ran with: '
                         '{"path": "b.txt", "text": "bye"}]\nwrote b.txt')


async def test_the_model_reads_the_arguments_a_middleware_changed() -> None:
    """A middleware's before_tool_call change misled the model as the user's edit did
    (finding V1): the result it reads names the middleware and what ran."""
    from middleware.base import Middleware
    from middleware.context import ToolCallContext
    from middleware.types import BeforeToolCallResult

    class Later(Middleware):
        async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
            return BeforeToolCallResult(args={**ctx.args, "path": ctx.args["path"] + ".bak"})

    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), "ok"])
    agent = Agent(model, tools=make_tools(ran), middleware=[Later()], ask=Asker())
    await run(agent)
    assert ran == [("write_file", {"path": "a.txt.bak", "text": "hi"})]
    told = model.requests[1].messages[-1]
    assert isinstance(told, ToolResultMessage)
    assert told.text == ('[Middleware Later changed the arguments before this call ran; it ran with: '
                         '{"path": "a.txt.bak", "text": "hi"}]\nwrote a.txt.bak')


async def test_an_approved_call_reads_as_the_tool_answered() -> None:
    model = ScriptedModel([calls(write("c1")), "ok"])
    agent = Agent(model, tools=make_tools([]), middleware=[HumanInTheLoop()],
                  ask=Asker({"c1": ApprovalDecision.approve()}))
    await run(agent)
    assert results(agent)["c1"].text == "wrote a.txt"  # no note: it ran as the model asked


async def test_edit_with_invalid_args_is_an_error_and_the_tool_does_not_run() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), "ok"])
    ask = Asker({"c1": ApprovalDecision.edit({"path": 3})})
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    await run(agent)
    assert ran == []
    result = results(agent)["c1"]
    assert result.is_error and "edited arguments were invalid" in result.text
    assert "text" in result.text  # the missing field is named


async def test_decision_outside_allowed_decisions_never_runs() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), "ok"])
    ask = Asker({"c1": ApprovalDecision.edit({"path": "x", "text": "y"})})
    mw = HumanInTheLoop({"write_file": {"allowed_decisions": ["approve", "reject"]}})
    agent = Agent(model, tools=make_tools(ran), middleware=[mw], ask=ask)
    await run(agent)
    assert ask.requests[0].allowed_decisions == ("approve", "reject")
    assert ran == []
    result = results(agent)["c1"]
    assert result.is_error
    assert "'edit' is not allowed for write_file" in result.text and "approve, reject" in result.text


async def test_description_string_callable_and_prefix() -> None:
    model = ScriptedModel([calls(write("c1"), ToolCallBlock("c2", "delete", {"path": "z"})), "ok"])
    ask = Asker()
    seen: list[tuple[str, str, dict[str, Any]]] = []

    def describe(call: ToolCallBlock, t: Tool, args: dict[str, Any]) -> str:
        seen.append((call.id, t.name, args))
        return f"Delete {args['path']}?"

    mw = HumanInTheLoop(
        {"write_file": {"description": "Writing a file"}, "delete": {"description": describe}},
        description_prefix="Please check",
    )
    agent = Agent(model, tools=make_tools([]), middleware=[mw], ask=ask, tool_execution="sequential")
    await run(agent)
    assert [r.description for r in ask.requests] == ["Writing a file", "Delete z?"]
    assert seen == [("c2", "delete", {"path": "z"})]
    # The prefix is used by the default description.
    model2 = ScriptedModel([calls(write("c1")), "ok"])
    ask2 = Asker()
    agent2 = Agent(
        model2, tools=make_tools([]), middleware=[HumanInTheLoop(description_prefix="Please check")], ask=ask2
    )
    await run(agent2)
    assert ask2.requests[0].description.startswith("Please check\n\nTool: write_file")


async def test_mutating_calls_are_asked_in_the_models_order_with_mixed_decisions() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel(
        [
            calls(
                write("c1", "a.txt"),
                write("c2", "b.txt"),
                ToolCallBlock("c3", "delete", {"path": "c.txt"}),
                ToolCallBlock("c4", "read_file", {"path": "d.txt"}),
            ),
            "done",
        ]
    )
    answers = {
        "c1": ApprovalDecision.approve(),
        "c2": ApprovalDecision.edit({"path": "b2.txt", "text": "edited"}),
        "c3": ApprovalDecision.reject("not that one"),
    }
    pending: list[str] = []

    async def ask(request: ApprovalRequest) -> ApprovalDecision:
        pending.append(request.call.id)  # calls that change things run one at a time, in order
        return answers[request.call.id]

    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    events = await run(agent)
    assert pending == ["c1", "c2", "c3"]
    assert sorted(ran, key=lambda r: r[1]["path"]) == [
        ("write_file", {"path": "a.txt", "text": "hi"}),
        ("write_file", {"path": "b2.txt", "text": "edited"}),
        ("read_file", {"path": "d.txt"}),
    ]
    res = results(agent)
    assert res["c1"].text == "wrote a.txt" and not res["c1"].is_error
    assert res["c2"].text.endswith("]\nwrote b2.txt")  # said to have run as edited
    assert res["c3"].is_error and res["c3"].text == "not that one"
    assert res["c4"].text == "contents"
    # Results are in call order in the history, whatever order the answers came in.
    order = [m.call_id for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert order == ["c1", "c2", "c3", "c4"]
    requested = {e.call_id for e in events if isinstance(e, ApprovalRequested)}
    resolved = {e.call_id: e.decision.type for e in events if isinstance(e, ApprovalResolved)}
    assert requested == {"c1", "c2", "c3"}
    assert resolved == {"c1": "approve", "c2": "edit", "c3": "reject"}
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_always_allow_is_kept_in_session_state_across_replies() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel(
        [
            calls(write("c1")),
            "one",
            calls(write("c2"), ToolCallBlock("c3", "delete", {"path": "x"})),
            "two",
        ]
    )
    ask = Asker({"c1": ApprovalDecision.approve(always=True), "c3": ApprovalDecision.reject()})
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    await run(agent)
    assert agent.session_state["HumanInTheLoop"] == {"always_allow": ["write_file"]}
    await run(agent, "again")
    # write_file no longer asks; delete still does.
    assert [r.call.id for r in ask.requests] == ["c1", "c3"]
    assert [name for name, _ in ran] == ["write_file", "write_file"]


async def test_always_allow_restored_from_a_saved_session() -> None:
    model = ScriptedModel([calls(write("c1")), "ok"])
    ask = Asker()
    agent = Agent(model, tools=make_tools([]), middleware=[HumanInTheLoop()], ask=ask)
    agent.session_state["HumanInTheLoop"] = {"always_allow": ["write_file"]}
    await run(agent)
    assert ask.requests == []


async def test_no_ask_rejects_with_a_message() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), "ok"])
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()])
    events = await run(agent)
    assert ran == []
    result = results(agent)["c1"]
    assert result.is_error and "No one was there to approve" in result.text
    assert any(isinstance(e, ApprovalResolved) and e.decision.type == "reject" for e in events)
    assert isinstance(events[-1], ReplyEnd) and events[-1].stop_reason == "end_turn"


async def test_an_answer_that_is_not_a_decision_blocks() -> None:
    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), "ok"])

    async def ask(request: Any) -> Any:
        return "yes please"

    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    await run(agent)
    assert ran == []
    assert results(agent)["c1"].is_error


def test_bad_config_is_refused() -> None:
    with pytest.raises(ValueError, match="allowed_decisions"):
        HumanInTheLoop({"x": {"allowed_decisions": ["maybe"]}})  # type: ignore[list-item]
    with pytest.raises(ValueError, match="unknown keys"):
        HumanInTheLoop({"x": {"allow": ["approve"]}})  # type: ignore[typeddict-unknown-key]
    with pytest.raises(TypeError):
        HumanInTheLoop({"x": "yes"})  # type: ignore[dict-item]


async def test_without_a_policy_approve_the_rest_covers_the_same_tool_in_this_turn_only() -> None:
    """Five writes in one turn: one answer for this one and the rest; a delete of the same
    turn is still asked, and so is the next turn's write."""
    ran: list[tuple[str, dict[str, Any]]] = []
    delete = ToolCallBlock("d1", "delete", {"path": "a"})
    batch = calls(write("c1", "a"), write("c2", "b"), delete, write("c3", "c"))
    model = ScriptedModel([batch, "ok", calls(write("c4", "d")), "done"])
    ask = Asker({"c1": ApprovalDecision.approve(rest=True)})
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop()], ask=ask)
    events = await run(agent)
    assert [r.call.id for r in ask.requests] == ["c1", "d1"]
    assert [name for name, _ in ran] == ["write_file", "write_file", "delete", "write_file"]
    covered = [e.call_id for e in events if isinstance(e, ApprovalResolved) and e.decision.rest]
    assert covered == ["c1", "c2", "c3"]
    place = ask.requests[0].batch
    assert place is not None and (place.index, place.size, place.later_same_tool) == (0, 4, 2)
    await run(agent, "again")
    assert [r.call.id for r in ask.requests] == ["c1", "d1", "c4"]


async def test_always_is_offered_only_where_the_config_allows_it() -> None:
    """A per-call sign-off (``["approve", "reject"]``) offers no "always" in any front
    end (they offer it only with rules to keep), and an "always" answer that comes
    anyway is taken for this call only: the next call asks again (finding R19)."""
    from shell.frontend.approval import choices

    ran: list[tuple[str, dict[str, Any]]] = []
    model = ScriptedModel([calls(write("c1")), calls(write("c2")), "ok"])
    ask = Asker({"c1": ApprovalDecision.approve(always=True), "c2": ApprovalDecision.approve()})
    mw = HumanInTheLoop({"write_file": {"allowed_decisions": ["approve", "reject"]}})
    agent = Agent(model, tools=make_tools(ran), middleware=[mw], ask=ask)
    await run(agent)
    assert [r.call.id for r in ask.requests] == ["c1", "c2"]
    assert all(r.suggested_rules == () for r in ask.requests)
    assert [c.decision for c in choices(ask.requests[0])] == ["approve", "reject"]
    listed = HumanInTheLoop({"write_file": {"allowed_decisions": ["approve", "reject", "always"]}})
    model = ScriptedModel([calls(write("c1")), calls(write("c2")), "ok"])
    ask = Asker({"c1": ApprovalDecision.approve(always=True)})
    agent = Agent(model, tools=make_tools(ran), middleware=[listed], ask=ask)
    await run(agent)
    assert [r.call.id for r in ask.requests] == ["c1"]  # remembered: c2 ran without asking
    assert "always" in [c.decision for c in choices(ask.requests[0])]
    assert ask.requests[0].allowed_decisions == ("approve", "reject")


async def test_an_interrupt_on_name_that_is_no_tool_is_said_once() -> None:
    """{"read_fiel": True} asked nothing and said nothing: read_file ran unasked (the
    check ToolCallLimit and LLMToolEmulator share, finding V5)."""
    from shell.core.events import Notice

    ran: list[tuple[str, dict[str, Any]]] = []
    read = ToolCallBlock("c1", "read_file", {"path": "a"})
    model = ScriptedModel([calls(read), "ok", calls(replace_id(read, "c2")), "ok"])
    ask = Asker()
    agent = Agent(model, tools=make_tools(ran), middleware=[HumanInTheLoop({"read_fiel": True})], ask=ask)
    told = [e for e in await run(agent) + await run(agent) if isinstance(e, Notice)]
    assert [(n.level, n.source) for n in told] == [("warning", "HumanInTheLoop")]
    assert "no tool is named 'read_fiel'" in told[0].text
    assert "'read_fiel' looks like 'read_file'" in told[0].text


def replace_id(call: ToolCallBlock, call_id: str) -> ToolCallBlock:
    return ToolCallBlock(call_id, call.name, dict(call.args))
