"""The approval dialog: the TUI's answer to ``ask(ApprovalRequest)``.

What is approved is what is seen: the tool, why it asks, the change it would
make (a diff for file edits, the commands of a shell line) and every argument,
whole and wrapped, in one scrolling body that fits an 80x24 terminal. Only the
decisions the request allows are offered: ``y`` approves, ``e`` edits the
arguments as JSON (validated with ``tool.validate`` before it can be submitted),
``n`` rejects with an optional reason the model reads, ``a`` ("always") shows
the rule(s) the policy proposes, editable, and where to keep them (this session,
this project, everywhere). Parallel tool calls queue here: the title says
"2 of 3" and ``A`` approves all those waiting whose question is routine (the rest are asked).

A model turn with many calls that ask: the title says "call 2 of 5 in this reply",
``Y`` approves this call and the later calls of the batch to the same tool that the
dialog lists below the call (whole, in the scrolling body: Y waits until their end
was on screen), those of them that ask the same routine question, ``N`` rejects
this call and every later one of the batch
(with an optional reason). Which later calls ``Y`` covers is the middleware's
decision, call by call, after the permission policy (``HumanInTheLoop``): a later
call the policy denies is refused, one it asks about for a reason of its own (a path
outside the workspace, a file that runs later, a secret) still opens this dialog.
Queued (parallel) calls of the same batch that such an answer covers are answered
here at once.

:class:`~.approval_broker.ApprovalBroker` is the agent's ``ask``: it queues the
requests and opens (and reopens) the one dialog.

A dialog that opens while the user is typing must not turn their sentence into
answers: decision keys are ignored until the keyboard has been quiet for
:attr:`ApprovalScreen.GUARD_S` (counted from the dialog opening, from the last
keystroke in the prompt, and from every key pressed while the guard holds).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Input, Static, TextArea

from shell.core.approvals import (
    ApprovalDecision,
    ApprovalRequest,
    parse_edited_args,
    rejection,
    rest_refusal,
    rest_rejection,
)
from shell.core.textsafety import json_text, sanitize, sanitize_line
from shell.frontend.approval import (
    APPROVE_ALL_KEY,
    KEYS,
    args_section,
    choices,
    edit_decision,
    hidden_warning,
    is_diff,
    rest_counts,
    rest_label,
    rest_lines,
)
from shell.tui.widgets.scope_choice import ScopeChoice
from shell.tui.widgets.text_box import TextBox

from ..highlight import diff_text
from .approval_boxes import SCOPES, box_parts
from .approval_fields import merged, split_texts
from .approval_guards import GuardedQuestion
from .approval_queue import PendingApproval, approvable_together, settle, take_batch_mates

GUARDED = ("approve", "edit", "reject", "always", "approve_all", "approve_rest", "reject_rest")


def check_args(request: ApprovalRequest, text: str) -> tuple[dict[str, Any] | None, str]:
    """Parse and validate edited arguments: ``(args, "")`` or ``(None, error)``."""
    try:
        return parse_edited_args(request, text), ""
    except ValueError as exc:
        return None, str(exc)


class ApprovalScreen(GuardedQuestion):
    """Works through ``queue`` (shared with the app, which appends to it)."""

    GUARD_S: ClassVar[float] = 0.6
    """Quiet keyboard needed before a decision key counts."""

    DEFAULT_CSS = """
    ApprovalScreen { align: center middle; background: $background 60%; }
    ApprovalScreen > #dialog { width: 94%; max-width: 110; height: auto; max-height: 96%;
        border: thick $warning; background: $surface; padding: 0 1; }
    ApprovalScreen #title { text-style: bold; color: $warning; }
    ApprovalScreen #tool-desc, ApprovalScreen #req-desc { color: $text-muted; }
    ApprovalScreen #body { height: auto; max-height: 80vh; }
    /* max-height is fitted to all the room left by the rest (_fit_body) */
    ApprovalScreen #call { height: auto; background: $panel; margin: 1 0 0 0; }
    ApprovalScreen #rest-calls { height: auto; margin: 1 0 0 0; }
    ApprovalScreen .section { color: $text-muted; text-style: italic; }
    ApprovalScreen #keys { color: $foreground; margin: 1 0 0 0; }
    ApprovalScreen #guard { color: $warning; height: 1; }
    ApprovalScreen #edit-box, ApprovalScreen #reject-box, ApprovalScreen #always-box {
        height: auto; display: none; }
    ApprovalScreen.-editing #edit-box, ApprovalScreen.-rejecting #reject-box,
    ApprovalScreen.-always #always-box { display: block; }
    ApprovalScreen.-editing #keys, ApprovalScreen.-rejecting #keys, ApprovalScreen.-always #keys {
        display: none; }
    ApprovalScreen.-editing #body, ApprovalScreen.-always #body { display: none; }
    /* the guard line speaks of the question's keys: `y` types into the editor (V13) */
    ApprovalScreen.-editing #guard, ApprovalScreen.-rejecting #guard, ApprovalScreen.-always #guard {
        display: none; }
    ApprovalScreen #editor { height: auto; min-height: 3; max-height: 14; }
    ApprovalScreen #edit-texts { height: auto; }
    ApprovalScreen #edit-texts TextBox { height: auto; min-height: 3; max-height: 16; }
    /* the boxes' heights are then fitted to the room the rest leaves (_fit_edit) */
    ApprovalScreen #rules { height: auto; min-height: 2; max-height: 6; }
    ApprovalScreen #scope { height: auto; width: 100%; layout: horizontal; border: none; padding: 0; }
    ApprovalScreen #scope RadioButton { width: auto; margin: 0 2 0 0; }
    ApprovalScreen #edit-error, ApprovalScreen #rule-error { color: $error; }
    ApprovalScreen #edit-error.-ok { color: $success; }
    ApprovalScreen .hint { color: $text-muted; }
    ApprovalScreen Horizontal { height: auto; }
    ApprovalScreen Button { margin: 0 1 0 0; }
    """

    BINDINGS = [
        *(Binding(c.key, c.decision, c.label.capitalize()) for c in KEYS),  # the one key map
        Binding(APPROVE_ALL_KEY, "approve_all", "Approve all remaining"),
        # Esc's meaning where the focus is, for the footer: back to the question from a
        # box (edit, reject, always), else cancel the reply (check_action picks one)
        Binding("escape", "back", "Back to the question"),
        Binding("escape", "cancel_reply", "Cancel reply"),
        # Ctrl+S in a box, named for what it does there (the footer showed only Esc)
        Binding("ctrl+s", "submit_edit", "Run with these arguments"),
        Binding("ctrl+s", "submit_always", "Approve and remember"),
    ]

    def __init__(self, queue: list[PendingApproval], *, typed_at: float = 0.0) -> None:
        super().__init__()
        self.queue = queue
        self.resolved = 0
        self.mode = "view"
        self.rejecting_rest = False
        self.closing = False
        """Dismissed: callbacks still queued (a refresh's fitting) find no widgets."""
        """Whether the reason box answers for the rest of the batch too (N, not n)."""
        self._ready = False
        self._seen_end = False
        self.more_below = False
        """Whether the guard line says how much of the call is below the fold."""
        self.quiet_until = max(time.monotonic(), typed_at) + self.GUARD_S

    # -- layout -------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(id="title")
            # why it asks scrolls with the call: a long reason (the sandbox's, a hostile
            # MCP tool's description) above the body pushed the arguments and the keys
            # off a 60x20 screen, and `y` ran a command never shown (finding R16)
            with VerticalScroll(id="body"):
                yield Static(id="tool-desc")
                yield Static(id="req-desc")
                with Vertical(id="call"):
                    yield Static(id="preview-title", classes="section")
                    yield Static(id="preview")
                    yield Static("Arguments (complete):", id="args-title", classes="section")
                    yield Static(id="args-text")
                # the later calls Y approves with this one, whole: in the scrolling body,
                # so Y waits until the end of the list was on screen (_end_unseen)
                yield Static(id="rest-calls")
            yield Static(id="keys")
            yield Static(id="guard")
            # the answers' boxes are filled when first used (see _box): opening the
            # dialog is one step of the loop, and half its widgets were these
            yield Vertical(id="edit-box")
            yield Vertical(id="reject-box")
            yield Vertical(id="always-box")

    async def _box(self, mode: str) -> None:
        """The box of ``mode``, built and mounted at its first use (a dialog answered
        with ``y``, as most are, never builds any)."""
        box = self.query_one(f"#{mode}-box", Vertical)
        if not box.children:
            await box.mount_all(box_parts(mode))

    def on_mount(self) -> None:
        self._ready = True
        self._bindings_changed()
        self.watch(self.query_one("#body", VerticalScroll), "scroll_y", self._show_more, init=False)
        self.show_current()

    @property
    def current(self) -> PendingApproval | None:
        return self.queue[0] if self.queue else None

    def show_current(self) -> None:
        if not self._ready or self.closing:
            return  # on_mount shows the queue as it is then; a closing dialog reopens (broker)
        item = self.current
        if item is None:
            self.dismiss()
            return
        request = item.request
        total = self.resolved + len(self.queue)
        place = request.batch
        if place is not None and place.size > 1:  # a model turn's calls come one by one
            position = f"  (call {place.index + 1:,} of {place.size:,} in this reply)"
        else:
            position = f"  ({self.resolved + 1} of {total})" if total > 1 else ""
        self.query_one("#title", Static).update(
            Text(f"Approve tool call: {sanitize(request.call.name)}{position}")
        )
        tool_desc = request.tool.description if request.tool is not None else "(unknown tool)"
        self.query_one("#tool-desc", Static).update(Text(sanitize(tool_desc.strip().split("\n\n")[0])))
        req_desc = self.query_one("#req-desc", Static)
        description = request.own_words()
        warning = hidden_warning(request)
        shown = Text(sanitize(description))
        if warning:
            shown = Text.assemble((warning, "bold yellow"), "\n" if description else "", shown)
        req_desc.update(shown)
        req_desc.display = bool(description or warning)
        preview = sanitize(request.preview)
        title = self.query_one("#preview-title", Static)
        title.update("Changes:")
        title.display = is_diff(request.preview)
        box = self.query_one("#preview", Static)
        box.update(diff_text(preview) if preview.startswith("--- ") else Text(preview))
        box.display = bool(preview)
        args_title, args = args_section(request)
        self.query_one("#args-text", Static).update(Text(sanitize("\n".join(args))))
        self.query_one("#args-title", Static).update(args_title)
        rest = self.query_one("#rest-calls", Static)
        listed = rest_lines(request)
        rest.update(Text(sanitize("\n".join([line.strip() for line in listed[1:2]] + listed[2:]))))
        rest.display = bool(listed)
        later = rest_counts(request)[1]
        labels = {
            "always": "always…",
            "approve_rest": sanitize_line(rest_label(request)),
            "reject_rest": f"reject all {later:,} after this",
        }
        keys = [f"[{c.key}] {labels.get(c.decision, c.label)}" for c in choices(request)]
        together = len(approvable_together(self.queue, self.current))
        if together > 1 and "approve" in request.allowed_decisions:
            every = "" if together == len(self.queue) else " routine"
            keys.append(f"[{APPROVE_ALL_KEY}] approve all {together}{every} waiting")
        keys.append("[esc] cancel reply")
        self.query_one("#keys", Static).update(Text("   ".join(keys)))
        self.query_one("#body", VerticalScroll).scroll_home(animate=False)
        self._seen_end = False
        self.more_below = False
        self.query_one("#guard", Static).update("")
        self._set_mode("view")
        self.call_after_refresh(self._fit_body)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_body)

    def dismiss(self, result: None = None) -> AwaitComplete:
        self.closing = True  # a Y pressed as the dialog opened closes it before its refresh
        self._bindings_changed()
        return super().dismiss(result)

    def _set_mode(self, mode: str) -> None:
        self.mode = mode
        self._bindings_changed()
        self.set_class(mode == "edit", "-editing")
        self.set_class(mode == "reject", "-rejecting")
        self.set_class(mode == "always", "-always")
        if mode == "edit":
            self.query_one("#editor", TextArea).focus()
            self.call_after_refresh(self._fit_body)  # the text boxes share the dialog's room
        elif mode == "reject":
            self.query_one("#reason", Input).focus()
        elif mode == "always":
            self.query_one("#rules", TextArea).focus()
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
        self.quiet_until = max(self.quiet_until, time.monotonic() + min(self.GUARD_S, 0.3))
        self.show_current()

    def request_gone(self) -> None:
        """A pending ask was withdrawn (the reply was cancelled): refresh or close."""
        self.show_current()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in GUARDED and self.mode != "view":
            return False
        if action in ("back", "cancel_reply"):
            return (action == "back") == (self.mode != "view")
        if action in ("submit_edit", "submit_always"):
            return action == f"submit_{self.mode}"
        item = self.current
        if item is None:
            return True
        offered = {c.decision for c in choices(item.request)}
        if action == "approve":
            return "approve" in offered
        if action == "approve_all":  # only with calls waiting behind this one (finding J11)
            return "approve" in offered and len(approvable_together(self.queue, item)) > 1
        if action in ("edit", "reject", "always", "approve_rest", "reject_rest"):
            return action in offered
        return True

    def action_approve(self) -> None:
        if not self._ignored() and not self._end_unseen():
            self.answer(ApprovalDecision.approve())

    async def action_always(self) -> None:
        item = self.current
        if item is None or self._ignored() or self._end_unseen():
            return
        await self._box("always")
        rules = "\n".join(map(sanitize_line, item.request.suggested_rules))  # nothing hidden in what is saved
        self.query_one("#rules", TextArea).load_text(rules)
        self.query_one("#rule-error", Static).update("")
        self._set_mode("always")

    def action_approve_rest(self) -> None:
        """Y: approve this call and stand for the later ones of its batch to the same
        tool that the dialog listed, as listed, that ask the same routine question (the
        middleware decides each; the queued ones it would cover are answered here)."""
        item = self.current
        if item is None or self._ignored() or self._end_unseen():
            return
        request = item.request
        decision = ApprovalDecision.approve(rest=True)

        listed = {call.id: dict(call.args) for _, call in request.batch.later_same} if request.batch else {}

        def covered(other: ApprovalRequest) -> ApprovalDecision | None:
            same = (other.routine and other.call.name == request.call.name and other.reason == request.reason
                    and "approve" in other.allowed_decisions
                    and listed.get(other.call.id) == dict(other.args))
            return decision if same else None

        self._answer_with_batch(decision, covered)

    def _answer_with_batch(
        self, decision: ApprovalDecision, covered: Callable[[ApprovalRequest], ApprovalDecision | None]
    ) -> None:
        """Answer the current request, and the queued requests of the same batch that
        ``covered`` answers (parallel calls already waiting here)."""
        item = self.current
        if item is not None:
            self.resolved += take_batch_mates(self.queue, item, covered)
            self.answer(decision)

    def action_approve_all(self) -> None:
        """A: the call shown and the waiting ones :func:`approvable_together` takes."""
        if self._ignored() or self._end_unseen():
            return
        items = approvable_together(self.queue, self.current)
        self.queue[:] = [i for i in self.queue if i not in items]
        self.resolved += len(items)
        self.app.run_worker(settle(items, ApprovalDecision.approve()), group="approvals")
        if self.queue:
            self.show_current()
        else:
            self.dismiss()

    async def action_edit(self) -> None:
        item = self.current
        if item is None or self._ignored():
            return
        await self._box("edit")
        rest, texts = split_texts(item.request.args)  # a file's content: edited as text, not one JSON line
        self.query_one("#editor", TextArea).load_text(json_text(rest, indent=2))  # invisible: \u escapes
        boxes = self.query_one("#edit-texts", Vertical)
        await boxes.remove_children()
        await boxes.mount_all(widget for i, (name, text) in enumerate(texts.items()) for widget in (
            Static(Text(f"{sanitize_line(name)}: the text itself (no JSON escapes)"), classes="hint"),
            TextBox(text, id=f"text-{i}", soft_wrap=True, show_line_numbers=False, name=name)))
        self._validate()
        self._set_mode("edit")

    async def action_reject(self) -> None:
        await self._ask_reason(rest=False)

    async def action_reject_rest(self) -> None:
        await self._ask_reason(rest=True)

    async def _ask_reason(self, *, rest: bool) -> None:
        """n or N: the reason box (Enter rejects); its hint says how many calls N refuses."""
        item = self.current
        if item is None or self._ignored():
            return
        await self._box("reject")
        self.rejecting_rest = rest
        later = rest_counts(item.request)[1]
        what = f"Reject this call and the {later:,} after it in this reply. " if rest else ""
        self.query_one("#reject-hint", Static).update(
            f"{what}Why? (optional; the model reads this). Enter rejects, Esc goes back."
        )
        self.query_one("#reason", Input).value = ""
        self._set_mode("reject")

    def action_back(self) -> None:
        if self.mode != "view":
            self._set_mode("view")
            return
        cancel = getattr(self.app, "action_cancel_reply", None)
        if cancel is not None:
            cancel()

    action_cancel_reply = action_back

    def _bindings_changed(self) -> None:
        """The footer (on the screen below, which shows this dialog's keys, see
        ``MainScreen.active_bindings``) is told when what Esc does changes."""
        self.refresh_bindings()
        for screen in self.app.screen_stack:
            if screen is not self:
                screen.refresh_bindings()

    def _validate(self) -> dict[str, Any] | None:
        item = self.current
        if item is None:
            return None
        edited = self.query_one("#editor", TextArea).text
        texts = {box.name: box.text for box in self.query("#edit-texts TextBox").results(TextBox) if box.name}
        try:
            edited = merged(item.request.args, edited, texts) if texts else edited
            args, error = check_args(item.request, edited)
        except ValueError as exc:
            args, error = None, str(exc)
        label = self.query_one("#edit-error", Static)
        label.update(Text(sanitize("✗ " + error) if error else "✓ valid"))
        label.set_class(not error, "-ok")
        self.query_one("#submit-edit", Button).disabled = args is None
        if self.mode == "edit":  # a longer error takes rows from the boxes, not the buttons
            self.call_after_refresh(self._fit_body)
        return args

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        if event.text_area.id == "editor" or (event.text_area.id or "").startswith("text-"):
            self._validate()

    def action_submit(self) -> None:
        if self.mode == "edit":
            args = self._validate()
            item = self.current
            if args is not None and item is not None:
                self.answer(edit_decision(item.request, args))
        elif self.mode == "always":
            self._submit_always()

    def action_submit_edit(self) -> None:
        self.action_submit()

    action_submit_always = action_submit_edit

    def _submit_always(self) -> None:
        text = self.query_one("#rules", TextArea).text
        rules = tuple(line.strip() for line in text.splitlines() if line.strip())
        if not rules:
            self.query_one("#rule-error", Static).update("✗ no rule: give one, or Esc and approve once")
            return
        index = self.query_one("#scope", ScopeChoice).pressed_index
        scope = SCOPES[index if index >= 0 else 0][0]
        self.answer(ApprovalDecision.approve(always=True, rules=rules, scope=scope))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "reason":
            item = self.current
            if item is None:
                return
            if not self.rejecting_rest:
                self.answer(rejection(item.request, event.value))
                return

            def refused(other: ApprovalRequest) -> ApprovalDecision:
                return ApprovalDecision.reject(rest_refusal(other.call.name), rest=True)

            self._answer_with_batch(rest_rejection(item.request, event.value), refused)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "submit-edit":
            self.action_submit()
        elif event.button.id == "submit-always":
            self._submit_always()
        elif event.button.id in ("edit-back", "always-back"):
            self._set_mode("view")
