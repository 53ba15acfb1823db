"""What an approval says after the user opened [e]dit: an edit that changed nothing
is an approval of the call as it was, not an "edited" call."""

from __future__ import annotations

from typing import Any

import pytest

from shell.core.approvals import ApprovalDecision, ApprovalRequest
from shell.core.messages import ToolCallBlock
from shell.core.textsafety import json_text
from shell.frontend.approval import decide

pytestmark = pytest.mark.anyio


class EditPrompts:
    """The line mode's questions: [e], then the editor returns ``text``."""

    def __init__(self, text: str) -> None:
        self.text, self.said = text, []  # type: ignore[var-annotated]

    async def key(self, request: ApprovalRequest, offered: list[Any]) -> str | None:
        return "e"

    async def reason(self, request: ApprovalRequest) -> str | None:
        return ""

    async def edited(self, request: ApprovalRequest) -> str | None:
        return self.text

    async def rules(self, request: ApprovalRequest) -> Any:
        return None

    def say(self, text: str, level: str = "info") -> None:
        self.said.append(text)


def request() -> ApprovalRequest:
    call = ToolCallBlock("c1", "write_file", {"path": "out.txt", "content": "hi\n"})
    return ApprovalRequest(call, None, dict(call.args))


async def test_an_edit_left_unchanged_is_an_approval_and_not_called_edited() -> None:
    prompts = EditPrompts(json_text(request().args, indent=2))  # Esc, Enter: the text as shown
    assert await decide(request(), prompts) == ApprovalDecision.approve()
    assert not any("edited" in said for said in prompts.said)
    assert "not changed" in prompts.said[-1]


async def test_a_changed_edit_is_still_an_edit() -> None:
    prompts = EditPrompts('{"path": "other.txt", "content": "hi\\n"}')
    decision = await decide(request(), prompts)
    assert decision == ApprovalDecision.edit({"path": "other.txt", "content": "hi\n"})
    assert prompts.said[-1].startswith("edited: ")


def test_the_line_modes_outside_question_lists_the_whole_call_too() -> None:
    """The question about one path the call reaches lists that path, then every argument
    of the call (the TUI's dialog shows the same, from :func:`args_section`)."""
    from shell.frontend.approval import approval_lines

    call = ToolCallBlock("c1", "write_file", {"path": "../outside.txt", "content": "SECRET PLAN"})
    asked = ApprovalRequest(call, None, {"path": "/abs/outside.txt"})
    lines = approval_lines(asked)
    assert lines.index("  Asked about:") < lines.index("  path: /abs/outside.txt")
    assert lines.index("  The call's arguments (complete):") < lines.index("    content: SECRET PLAN")
    whole = approval_lines(request())
    assert "  content:" in whole and "    hi" in whole and not any("Asked about" in line for line in whole)


def test_a_path_holding_a_newline_forges_no_diff_lines_and_is_warned_about() -> None:
    """Tester finding L5: the diff header printed the name's newlines, so a path could
    draw a ``+++ b/README.md`` header and hunk of its own in the approval."""
    from shell.core import linediff
    from shell.frontend.approval import approval_lines

    name = "x\n+++ b/README.md\n@@ -0,0 +1 @@\n+harmless"
    diff = "".join(linediff.unified_diff([], ["evil\n"], "/dev/null", f"b/{name}")).splitlines()
    assert diff == ["--- /dev/null", "+++ b/x\\n+++ b/README.md\\n@@ -0,0 +1 @@\\n+harmless", "@@ -0,0 +1 @@",
                    "+evil"]
    call = ToolCallBlock("c1", "write_file", {"path": name, "content": "evil\n"})
    lines = approval_lines(ApprovalRequest(call, None, dict(call.args)))
    assert any("The path argument holds a line break or control character" in line for line in lines), lines
    plain = approval_lines(request())
    assert not any("line break" in line for line in plain)
