"""The approval dialog: the TUI's answer to ``ask(ApprovalRequest)``.

Shows the tool, its description and the full arguments. ``y`` approves, ``e``
edits the arguments as JSON (parsed and checked with ``tool.validate`` before it
can be submitted; errors inline), ``n`` rejects with an optional reason the model
will read, ``a`` always allows the tool (``always=True``). Parallel tool calls
queue here: the title says "2 of 3" and ``A`` approves all remaining.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static, TextArea

from shell.core.approvals import ApprovalDecision, ApprovalRequest, parse_edited_args
from shell.textsafety import sanitize

from ..highlight import syntax


@dataclass(eq=False)
class PendingApproval:
    request: ApprovalRequest
    future: asyncio.Future[ApprovalDecision] = field(repr=False)


def check_args(request: ApprovalRequest, text: str) -> tuple[dict[str, Any] | None, str]:
    """Parse and validate edited arguments: ``(args, "")`` or ``(None, error)``."""
    try:
        return parse_edited_args(request, text), ""
    except ValueError as exc:
        return None, str(exc)


class ApprovalScreen(ModalScreen[None]):
    """Works through ``queue`` (shared with the app, which appends to it)."""

    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; background: $background 60%; }
    ApprovalScreen > #dialog { width: 90%; max-width: 110; height: auto; max-height: 90%;
        border: thick $warning; background: $surface; padding: 0 1; }
    ApprovalScreen #title { text-style: bold; color: $warning; }
    ApprovalScreen #tool-desc, ApprovalScreen #req-desc { color: $text-muted; }
    ApprovalScreen #args { height: auto; max-height: 16; background: $panel; margin: 1 0 0 0; }
    ApprovalScreen #keys { color: $foreground; margin: 1 0 0 0; }
    ApprovalScreen #edit-box, ApprovalScreen #reject-box { height: auto; display: none; }
    ApprovalScreen.-editing #edit-box, ApprovalScreen.-rejecting #reject-box { display: block; }
    ApprovalScreen.-editing #keys, ApprovalScreen.-rejecting #keys { display: none; }
    ApprovalScreen.-editing #args { display: none; }
    ApprovalScreen #editor { height: auto; min-height: 4; max-height: 14; }
    ApprovalScreen #edit-error { color: $error; }
    ApprovalScreen #edit-error.-ok { color: $success; }
    ApprovalScreen .hint { color: $text-muted; }
    ApprovalScreen Horizontal { height: auto; }
    ApprovalScreen Button { margin: 0 1 0 0; }
    """

    BINDINGS = [
        Binding("y", "approve", "Approve"),
        Binding("e", "edit", "Edit"),
        Binding("n", "reject", "Reject"),
        Binding("a", "always", "Always allow"),
        Binding("A", "approve_all", "Approve all remaining"),
        Binding("escape", "back", "Back / cancel reply"),
        Binding("ctrl+s", "submit_edit", "Submit edit", show=False),
    ]

    def __init__(self, queue: list[PendingApproval]) -> None:
        super().__init__()
        self.queue = queue
        self.resolved = 0
        self.mode = "view"
        self._ready = False

    # -- layout -------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="title")
            yield Static(id="tool-desc")
            yield Static(id="req-desc")
            with VerticalScroll(id="args"):
                yield Static(id="args-text")
            yield Static(id="keys")
            with Vertical(id="edit-box"):
                yield Static("Edit the arguments (JSON). Ctrl+S submits, Esc goes back.", classes="hint")
                yield TextArea(id="editor", language="json", soft_wrap=True, show_line_numbers=False)
                yield Static(id="edit-error")
                with Horizontal():
                    yield Button(
                        "Run with these arguments", id="submit-edit", variant="primary", compact=True
                    )
                    yield Button("Back", id="edit-back", compact=True)
            with Vertical(id="reject-box"):
                yield Static(
                    "Why? (optional; the model reads this). Enter rejects, Esc goes back.", classes="hint"
                )
                yield Input(placeholder="reason", id="reason")

    def on_mount(self) -> None:
        self._ready = True
        self.show_current()

    @property
    def current(self) -> PendingApproval | None:
        return self.queue[0] if self.queue else None

    def show_current(self) -> None:
        if not self._ready:
            return  # on_mount shows the queue as it is then
        item = self.current
        if item is None:
            self.dismiss()
            return
        request = item.request
        total = self.resolved + len(self.queue)
        position = f"  ({self.resolved + 1} of {total})" if total > 1 else ""
        self.query_one("#title", Static).update(
            Text(f"Approve tool call: {sanitize(request.call.name)}{position}")
        )
        tool_desc = request.tool.description if request.tool is not None else "(unknown tool)"
        self.query_one("#tool-desc", Static).update(Text(sanitize(tool_desc.strip().split("\n\n")[0])))
        req_desc = self.query_one("#req-desc", Static)
        description = request.own_words()
        req_desc.update(Text(sanitize(description)))
        req_desc.display = bool(description)
        args = json.dumps(request.args, indent=2, ensure_ascii=False)
        self.query_one("#args-text", Static).update(syntax(sanitize(args), "json"))
        allowed = request.allowed_decisions
        keys = ["[y] approve"]
        if "edit" in allowed:
            keys.append("[e] edit")
        if "reject" in allowed:
            keys.append("[n] reject")
        keys.append(f"[a] always allow {request.call.name}")
        if len(self.queue) > 1:
            keys.append(f"[A] approve all {len(self.queue)} remaining")
        keys.append("[esc] cancel reply")
        self.query_one("#keys", Static).update(Text("   ".join(keys)))
        self._set_mode("view")

    def _set_mode(self, mode: str) -> None:
        self.mode = mode
        self.set_class(mode == "edit", "-editing")
        self.set_class(mode == "reject", "-rejecting")
        if mode == "edit":
            self.query_one("#editor", TextArea).focus()
        elif mode == "reject":
            self.query_one("#reason", Input).focus()
        else:
            self.set_focus(None)

    # -- answering ----------------------------------------------------------------
    def answer(self, decision: ApprovalDecision) -> None:
        """Resolve the current request and move to the next (or close)."""
        item = self.current
        if item is None:
            return
        self.queue.pop(0)
        self.resolved += 1
        if not item.future.done():
            item.future.set_result(decision)
        self.show_current()

    def request_gone(self) -> None:
        """A pending ask was withdrawn (the reply was cancelled): refresh or close."""
        self.show_current()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.mode != "view" and action in ("approve", "edit", "reject", "always", "approve_all"):
            return False
        item = self.current
        allowed = item.request.allowed_decisions if item is not None else ()
        return not (item is not None and action in ("edit", "reject") and action not in allowed)

    def action_approve(self) -> None:
        self.answer(ApprovalDecision.approve())

    def action_always(self) -> None:
        self.answer(ApprovalDecision.approve(always=True))

    def action_approve_all(self) -> None:
        while self.current is not None:
            item = self.queue.pop(0)
            self.resolved += 1
            if not item.future.done():
                item.future.set_result(ApprovalDecision.approve())
        self.dismiss()

    def action_edit(self) -> None:
        item = self.current
        if item is None:
            return
        editor = self.query_one("#editor", TextArea)
        editor.load_text(json.dumps(item.request.args, indent=2, ensure_ascii=False))
        self._validate()
        self._set_mode("edit")

    def action_reject(self) -> None:
        self.query_one("#reason", Input).value = ""
        self._set_mode("reject")

    def action_back(self) -> None:
        if self.mode != "view":
            self._set_mode("view")
            return
        cancel = getattr(self.app, "action_cancel_reply", None)
        if cancel is not None:
            cancel()

    def _validate(self) -> dict[str, Any] | None:
        item = self.current
        if item is None:
            return None
        args, error = check_args(item.request, self.query_one("#editor", TextArea).text)
        label = self.query_one("#edit-error", Static)
        label.update(Text(("✗ " + error) if error else "✓ valid"))
        label.set_class(not error, "-ok")
        self.query_one("#submit-edit", Button).disabled = args is None
        return args

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id == "editor":
            self._validate()

    def action_submit_edit(self) -> None:
        if self.mode != "edit":
            return
        args = self._validate()
        if args is not None:
            self.answer(ApprovalDecision.edit(args))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "reason":
            reason = event.value.strip()
            self.answer(ApprovalDecision.reject(reason or "The user rejected this tool call."))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "submit-edit":
            self.action_submit_edit()
        elif event.button.id == "edit-back":
            self._set_mode("view")
