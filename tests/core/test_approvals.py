"""What every front end shows of an approval request besides the call itself."""

from __future__ import annotations

from shell.agent import ApprovalRequest, ToolCallBlock


def _request(description: str) -> ApprovalRequest:
    call = ToolCallBlock("c1", "run_shell", {})
    return ApprovalRequest(call, None, {"command": "ls"}, description=description)


def test_own_words_drop_the_paragraph_that_restates_the_call() -> None:
    hitl_default = "Tool execution requires approval\n\nTool: run_shell\nArgs: command='ls'"
    assert _request(hitl_default).own_words() == "Tool execution requires approval"
    another_call = "Deletes files.\n\nTool: other\nArgs: x"  # not this call: kept
    assert _request(another_call).own_words() == another_call
    assert _request("Custom reason").own_words() == "Custom reason"
    assert _request("").own_words() == ""
