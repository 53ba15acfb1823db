"""The reducer every front end draws from: a reply's events to its calls, phase and end."""

from __future__ import annotations

from shell.core import events as ev
from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.messages import AssistantMessage, ToolCallBlock, ToolResult, ToolResultMessage, Usage
from shell.frontend.reply import ReplyState, call_lines, calls_from_messages


def feed(state: ReplyState, *events: object) -> None:
    for event in events:
        state.apply(event)


def test_a_call_from_first_delta_to_result() -> None:
    state = ReplyState()
    feed(state, ev.ReplyStart(reply_id="r"), ev.ToolCallStart("c1", "write_file"))
    assert state.phase == "streaming" and state.calls["c1"].status == "streaming"
    for piece in ('{"path"', ': "a.txt"', "}"):
        feed(state, ev.ToolCallDelta("c1", piece))
    assert state.calls["c1"].args_text == '{"path": "a.txt"}'
    feed(state, ev.ToolCallEnd("c1", "write_file", {"path": "a.txt"}))
    call = state.calls["c1"]
    assert call.status == "pending" and call.args == {"path": "a.txt"}
    request = ApprovalRequest(ToolCallBlock("c1", "write_file", {"path": "a.txt"}), None, {"path": "a.txt"})
    feed(state, ev.ApprovalRequested("c1", request))
    assert state.phase == "approval" and call.status == "approval"
    feed(state, ev.ApprovalResolved("c1", ApprovalDecision.edit({"path": "b.txt"})))
    feed(state, ev.ToolExecutionStart("c1", "write_file", {"path": "b.txt"}))
    assert call.decision == "edit" and call.modified and call.status == "running" and state.phase == "tool"
    feed(state, ev.ToolExecutionEnd("c1", ToolResult("wrote", details={"diff": "--- a"}), 0.25))
    assert (call.status, call.result, call.diff, call.duration_s) == ("done", "wrote", "--- a", 0.25)
    assert call_lines(call) == ["✓ write_file path=b.txt · 0.25s",
                                "  modified by you; the model asked for (path=a.txt)"]


def test_args_an_on_acting_layer_changed_are_what_the_call_shows_as_run() -> None:
    """r17: the span, the --plain line and the headless text showed the model's args
    while the layer's ran; the model's stay visible as what it asked for."""
    state = ReplyState()
    feed(state, ev.ToolCallEnd("c1", "run_shell", {"command": "ls"}),
         ev.ToolExecutionStart("c1", "run_shell", {"command": "ls"}),
         ev.ToolArgsChanged("c1", "run_shell", {"command": "touch x"}, edited_by="Act"),
         ev.ToolExecutionEnd("c1", ToolResult("ok"), 0.5))
    call = state.calls["c1"]
    assert call.args == {"command": "touch x"} and call.asked_args == {"command": "ls"}
    assert call_lines(call) == ['✓ run_shell command="touch x" · 0.50s',
                                "  modified by Act; the model asked for (command=ls)"]


def test_args_a_middleware_changed_are_labelled_with_its_name_not_the_users() -> None:
    """Finding R7: a middleware's edit read "modified by you"."""
    from shell.tui.widgets.tool_span import ToolSpan

    state = ReplyState()
    feed(state, ev.ToolCallEnd("c1", "run_shell", {"command": "ls"}),
         ev.ApprovalResolved("c1", ApprovalDecision.approve()),
         ev.ToolExecutionStart("c1", "run_shell", {"command": "touch x"}, edited_by="Normaliser"))
    call = state.calls["c1"]
    assert call.modified and call.modified_by == "Normaliser"
    title = ToolSpan(call)._make_title(200)
    assert "modified by Normaliser" in title and "modified by you" not in title


def test_blocked_error_and_cancelled_calls() -> None:
    state = ReplyState()
    for call_id in ("b", "e", "x"):
        feed(state, ev.ToolCallEnd(call_id, "run_shell", {"command": "ls"}))
    feed(state,
         ev.ToolExecutionEnd("b", ToolResult("Denied by a rule.", is_error=True), 0.0, blocked=True),
         ev.ToolExecutionEnd("e", ToolResult("boom\nmore", is_error=True), 0.1),
         ev.ToolExecutionEnd("x", ToolResult("cancelled", is_error=True, details={"cancelled": True}), 0.1))
    assert {c: v.status for c, v in state.calls.items()} == {"b": "blocked", "e": "error", "x": "cancelled"}
    assert call_lines(state.calls["b"]) == ["⊘ run_shell command=ls · blocked", "  Denied by a rule."]
    assert call_lines(state.calls["e"])[1] == "  boom"


def test_the_end_the_usage_and_what_is_left_live() -> None:
    state = ReplyState()
    feed(state, ev.ModelCallEnd(Usage(10, 2)), ev.ModelCallEnd(Usage(5, 1, unknown=True)),
         ev.ToolCallStart("c1", "read_file"))
    assert state.usage == Usage(15, 3, unknown=True)
    assert state.stop_reason == "error" and state.exit_code == 1  # no end came
    feed(state, ev.ErrorEvent("boom", "model"), ev.ReplyEnd(None, "cancelled", Usage()))
    assert state.errors == [("model", "boom")] and state.exit_code == 130 and state.cancelled
    assert [c.call_id for c in state.finish()] == ["c1"] and state.calls["c1"].status == "cancelled"
    answer = AssistantMessage(("cut",), stop_reason="max_tokens")  # type: ignore[arg-type]
    done = ReplyState()
    done.apply(ev.ReplyEnd(answer, "end_turn", Usage()))
    assert done.shown_stop == "max_tokens" and done.exit_code == 0


def test_deltas_after_a_cancel_are_not_drawn() -> None:
    state = ReplyState()
    feed(state, ev.ToolCallStart("c1", "write_file"), ev.ToolCallDelta("c1", "{"))
    state.cancel()
    feed(state, ev.ToolCallDelta("c1", '"path"'))
    assert state.calls["c1"].args_text == "{"


def test_a_saved_conversation_reads_as_it_ended() -> None:
    messages = [
        AssistantMessage((
            ToolCallBlock("c1", "read_file", {"path": "a"}), ToolCallBlock("c2", "run_shell", {}))),
        ToolResultMessage("c1", "read_file", "text"),
        ToolResultMessage("c2", "run_shell", "failed", is_error=True),
    ]
    calls = calls_from_messages(messages)
    assert calls["c1"].status == "done" and calls["c2"].status == "error"
    assert calls["c1"].args == {"path": "a"}


def test_a_command_that_planted_what_runs_later_is_told_to_the_user_not_only_the_model() -> None:
    """The sandbox moved a planted .envrc and a nested .vscode out: the command itself
    went well (the model reads why in the result), but every front end says it too."""
    state = ReplyState()
    moved = {"quarantined": [".envrc", "sub/.vscode"]}
    feed(state, ev.ToolCallEnd("c", "run_shell", {"command": "make"}),
         ev.ToolExecutionEnd("c", ToolResult("ok\n[exit code 0]", details=moved), 0.2))
    lines = call_lines(state.calls["c"])
    assert lines[0] == "✓ run_shell command=make · 0.20s"
    assert lines[1].startswith("  ⚠ moved out of the workspace") and ".envrc, sub/.vscode" in lines[1]
    feed(state, ev.ToolCallEnd("d", "run_shell", {"command": "ls"}),
         ev.ToolExecutionEnd("d", ToolResult("x", details={"quarantined": []}), 0.1))
    assert len(call_lines(state.calls["d"])) == 1


def test_mcp_progress_reads_as_an_amount_and_the_servers_words_sanitised() -> None:
    """An MCP server's progress shows as "3 of 30 (10%)" with its message, not as a
    Python dict cut at 40 characters; its message cannot draw (finding R9)."""
    state = ReplyState()
    feed(state, ev.ReplyStart(reply_id="r"), ev.ToolExecutionStart("c1", "sdk__slow", {}))
    report = {"progress": 3.005827312001202, "total": 30, "message": "step \x1b[31mthree\nof thirty"}
    feed(state, ev.ToolExecutionUpdate("c1", report))
    progress = state.calls["c1"].progress
    assert progress.startswith("3 of 30 (10%) · step ") and "three" in progress
    assert "\x1b" not in progress and "\n" not in progress and "{" not in progress
    feed(state, ev.ToolExecutionUpdate("c1", {"progress": 12, "total": None, "message": None}))
    assert state.calls["c1"].progress == "12"
    feed(state, ev.ToolExecutionUpdate("c1", {"message": "no answer for 60 s", "waiting": 60}))
    assert state.calls["c1"].progress == "no answer for 60 s"
    feed(state, ev.ToolExecutionUpdate("c1", "one\ntwo"))  # a command's output, as before
    assert state.calls["c1"].progress == "one two"
