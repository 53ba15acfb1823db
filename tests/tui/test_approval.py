"""Pilot tests of the approval dialog: approve, edit (valid, invalid), reject, always, queue."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.content import Content
from textual.widgets import Button, Static, TextArea

from middleware import Middleware
from middleware.context import ToolCallContext
from middleware.types import BeforeToolCallResult, ToolRequest
from shell.agent import ApprovalRequest, AssistantMessage, ToolCallBlock, ToolResultMessage
from shell.tui.widgets.notice_line import NoticeLine
from shell.tui.widgets.tool_span import ToolSpan

from .helpers import SIZE, AskEverything, approval_dialog, ask_dialog, scripted_app, send, wait_for

pytestmark = pytest.mark.anyio


def _call(call_id: str = "c1", text: str = "hello") -> AssistantMessage:
    return AssistantMessage((ToolCallBlock(call_id, "write_note", {"path": "a.txt", "text": text}),))


def _results(agent: object) -> list[ToolResultMessage]:
    return [m for m in agent.messages if isinstance(m, ToolResultMessage)]  # type: ignore[attr-defined]


async def test_approve_runs_the_tool() -> None:
    app, agent, _ = scripted_app([_call(), "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        assert "write_note" in str(dialog.query_one("#title", Static).content)
        assert "Write a note" in str(dialog.query_one("#tool-desc", Static).content)
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        assert _results(agent)[0].content == "wrote 5 characters to a.txt"
        assert not _results(agent)[0].is_error


async def test_edit_with_valid_json_runs_with_new_args_and_marks_span() -> None:
    app, agent, _ = scripted_app([_call(), "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        await pilot.press("e")
        editor = dialog.query_one("#editor", TextArea)
        assert editor.has_focus
        editor.load_text('{"path": "b.txt", "text": "edited!"}')
        await pilot.pause()
        assert not dialog.query_one("#submit-edit", Button).disabled
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
        assert _results(agent)[0].content.endswith("\nwrote 7 characters to b.txt")
        span = app.query_one(ToolSpan)
        assert span.state.modified
        assert "modified by you" in str(span.title)


async def test_the_edit_box_shows_hidden_characters_and_keeps_them_if_untouched() -> None:
    """The view warns about invisible text; the edit box must not hide it again (a
    bidi override reorders a raw line, tag characters draw as nothing). It holds them
    as JSON escapes, so saving without a change runs exactly what the model sent."""
    tags = "".join(chr(0xE0000 + ord(c)) for c in "rm -rf ~")
    sent = f"safe\u202etxt.exe{tags}"
    app, agent, _ = scripted_app([_call(text=sent), "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        await pilot.press("e")
        shown = dialog.query_one("#editor", TextArea).text
        assert "\u202e" not in shown and tags not in shown
        assert "\\u202e" in shown and "\\U000e0072" in shown.replace("\\udb40\\udc72", "\\U000e0072")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
        assert _results(agent)[0].content == f"wrote {len(sent)} characters to a.txt"


async def test_edit_with_invalid_json_or_schema_cannot_be_submitted() -> None:
    app, agent, _ = scripted_app([_call(), "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        await pilot.press("e")
        editor = dialog.query_one("#editor", TextArea)
        error = dialog.query_one("#edit-error", Static)
        editor.load_text('{"path": "b.txt", ')
        await pilot.pause()
        assert "Not valid JSON" in str(error.content)
        assert dialog.query_one("#submit-edit", Button).disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert approval_dialog(app) is dialog  # still open
        editor.load_text('{"path": 3, "text": "x"}')
        await pilot.pause()
        assert "Invalid arguments for write_note" in str(error.content)
        assert dialog.query_one("#submit-edit", Button).disabled
        # an argument the tool does not know, or a missing one, is not "valid": the
        # message says what the tool takes, and Ctrl+S does nothing
        editor.load_text('{"path": "c.txt", "text": "ok", "extra": 1}')
        await pilot.pause()
        said = str(error.content)
        assert "Unknown argument: extra" in said and "✓" not in said
        assert "write_note takes: path (string, required), text (string, required)" in said
        assert dialog.query_one("#submit-edit", Button).disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert approval_dialog(app) is dialog and not _results(agent)
        editor.load_text('{"path": "c.txt"}')
        await pilot.pause()
        assert "Missing required argument: text" in str(error.content)
        assert dialog.query_one("#submit-edit", Button).disabled
        editor.load_text('{"path": "c.txt", "text": "ok"}')
        await pilot.pause()
        assert "valid" in str(error.content)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
        assert _results(agent)[0].content.endswith("\nwrote 2 characters to c.txt")


async def test_reject_with_a_reason_the_model_reads() -> None:
    app, agent, model = scripted_app([_call(), "ok, I will not"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        await ask_dialog(app, pilot)
        await pilot.press("n")
        await pilot.press(*"not that file", "enter")
        await wait_for(pilot, lambda: not app.busy)
        result = _results(agent)[0]
        # The model reads that the user said no, and why (a bare reason would read as
        # the tool's own error, which models retry).
        said = "The user rejected the call to write_note; it was not run. Their reason: not that file"
        assert result.is_error and result.content == said
        seen = model.requests[-1].messages
        assert any(isinstance(m, ToolResultMessage) and m.content == said for m in seen)
        assert app.query_one(ToolSpan).state.status == "rejected"


async def test_always_allow_stops_asking_for_that_tool() -> None:
    app, agent, _ = scripted_app([_call("c1"), "one", _call("c2"), "two"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        await pilot.press("a")  # shows the proposed rule; Ctrl+S keeps it (this session)
        assert dialog.query_one("#rules", TextArea).text == "write_note"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
        await send(pilot, "again")
        await wait_for(pilot, lambda: not app.busy and len(_results(agent)) == 2)
        assert approval_dialog(app) is None
        assert all(not r.is_error for r in _results(agent))


class _AskRoutinely(AskEverything):
    """Asks for every call; the question is routine except for ``2.txt`` (as the policy
    asks for a secret file: a reason of its own)."""

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        routine = ctx.args.get("path") != "2.txt"
        request = ApprovalRequest(ctx.call, ctx.tool, dict(ctx.args), routine=routine,
                                  reason="" if routine else "2.txt usually holds secrets")
        decision = await ctx.ask(request)
        return BeforeToolCallResult(block=True, reason="no") if decision.type == "reject" else None


async def test_parallel_calls_queue_with_position_and_approve_all() -> None:
    """A approves the call shown and the waiting routine ones; one that asks for a
    reason of its own was never on screen, so it is still asked."""
    turn = AssistantMessage(
        # read-only calls run in parallel, so their approvals queue (writes would come one by one)
        tuple(ToolCallBlock(f"c{i}", "read_note", {"path": f"{i}.txt"}) for i in range(4))
    )
    app, agent, _ = scripted_app([turn, "done"], middleware=[_AskRoutinely()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        title = lambda: str(dialog.query_one("#title", Static).content)  # noqa: E731
        shown_now = lambda: " ".join(str(w.content) for w in dialog.query(Static))  # noqa: E731
        # each answer's redraw comes a pass or more after the queue changes (later under load)
        await wait_for(pilot, lambda: len(dialog.queue) == 4 and "(1 of 4)" in title())
        assert "(1 of 4)" in str(dialog.query_one("#title", Static).content)
        dialog.quiet_until = 0
        await pilot.press("y")
        await wait_for(pilot, lambda: "(2 of 4)" in title())
        assert "(2 of 4)" in str(dialog.query_one("#title", Static).content)
        assert "approve all 2 routine waiting" in str(dialog.query_one("#keys", Static).content)
        assert "Approve all remaining" in _footer_keys(app)
        dialog.quiet_until = 0
        await pilot.press("A")
        await wait_for(pilot, lambda: len(dialog.queue) == 1 and "(4 of 4)" in shown_now())
        shown = shown_now()
        assert "(4 of 4)" in shown and "path: 2.txt" in shown  # the one with a reason of its own
        dialog.quiet_until = 0
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        assert len(_results(agent)) == 4 and all(not r.is_error for r in _results(agent))


def _footer_keys(app: object) -> str:
    """What the footer offers now (the dialog's keys, shown by the screen below it)."""
    return " ".join(b.description for _, b, enabled, _ in app.screen.active_bindings.values()  # type: ignore[attr-defined]
                    if enabled and b.show)


async def test_approve_all_is_offered_only_with_calls_waiting() -> None:
    """Calls the model made one after another come to the dialog one at a time: with
    nothing waiting, "Approve all remaining" would approve only the call shown, and the
    next would ask again (finding J11)."""
    app, _, _ = scripted_app([_call("c1"), _call("c2"), "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        await ask_dialog(app, pilot)
        await pilot.pause()
        offered = _footer_keys(app)
        assert "Approve" in offered and "Approve all remaining" not in offered


async def test_escape_in_dialog_cancels_the_reply() -> None:
    app, _, _ = scripted_app([_call(), "never"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        await ask_dialog(app, pilot)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy and approval_dialog(app) is None)
        state = app.query_one(ToolSpan).state
        assert state.status in ("blocked", "cancelled"), state
        assert "Reply cancelled." in [n.text for n in app.query(NoticeLine)]


async def test_a_call_longer_than_the_dialog_shows_its_end_before_it_is_approved() -> None:
    """In a small terminal the tail of a long call (a chained command ending in `rm -rf`)
    was below the fold with nothing but a scroll bar thumb, and `y` approved it unseen:
    now the dialog says how much is below, and the first `y` shows the end instead."""
    lines = "\n".join(f"line {i}" for i in range(60)) + "\nTHE-LAST-LINE"
    app, agent, _ = scripted_app([_call(text=lines), "done"], middleware=[AskEverything()])
    async with app.run_test(size=(60, 16)) as pilot:
        dialog = await ask_dialog(app, pilot)
        guard = dialog.query_one("#guard", Static)
        await wait_for(pilot, lambda: "more lines below: y shows the end first" in str(guard.content))
        assert "[y] approve" in str(dialog.query_one("#keys", Static).content)
        dialog.quiet_until = 0
        await pilot.press("y")
        await pilot.pause()
        assert approval_dialog(app) is dialog and _results(agent) == []  # not approved: the end is shown
        assert str(guard.content) == "End of the call shown: press again to decide."
        assert len(str(guard.content)) <= guard.content_region.width  # whole, not cut (finding T4)
        await wait_for(pilot, lambda: dialog._unseen_lines() == 0)
        dialog.quiet_until = 0
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        assert _results(agent)[0].content == f"wrote {len(lines)} characters to a.txt"


class AskAtLength(AskEverything):
    """Asks with a reason as long as the sandbox's (14 lines at 60 columns)."""

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        why = " ".join(f"reason-word-{i}" for i in range(120))
        request = ApprovalRequest(ctx.call, ctx.tool, dict(ctx.args), description=why)
        decision = await ctx.ask(request)
        return None if decision.type == "approve" else BeforeToolCallResult(block=True, reason="no")


async def test_a_long_reason_never_pushes_the_call_or_the_keys_off_a_small_screen() -> None:
    """At 60x20 the sandbox's explanation above the arguments filled the dialog: no
    arguments, no keys, no "below" line, and one `y` ran a command never shown (finding
    R16). The reason now scrolls with the call: the keys stay, the dialog says what is
    below, and the first `y` shows the arguments instead of approving."""
    app, agent, _ = scripted_app([_call(text="THE-ARGUMENT"), "done"], middleware=[AskAtLength()])
    async with app.run_test(size=(60, 20)) as pilot:
        dialog = await ask_dialog(app, pilot)
        guard = dialog.query_one("#guard", Static)
        await wait_for(pilot, lambda: "below: y shows the end first" in str(guard.content))
        keys = dialog.query_one("#keys", Static)
        assert keys.region.height and keys.region.bottom <= app.screen.size.height  # on screen
        dialog.quiet_until = 0
        await pilot.press("y")
        await pilot.pause()
        assert approval_dialog(app) is dialog and _results(agent) == []  # not approved: the call is shown
        await wait_for(pilot, lambda: dialog._unseen_lines() == 0)
        args = dialog.query_one("#args-text", Static)
        assert "THE-ARGUMENT" in str(args.content)
        body = dialog.query_one("#body")
        assert body.region.y <= args.region.y < body.region.bottom  # the arguments are in view
        dialog.quiet_until = 0
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        assert len(_results(agent)) == 1


async def test_a_call_that_fits_is_approved_at_the_first_key() -> None:
    app, agent, _ = scripted_app([_call(), "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        await wait_for(pilot, lambda: dialog._unseen_lines() == 0)  # laid out: it fits
        assert "below" not in str(dialog.query_one("#guard", Static).content)
        dialog.quiet_until = 0
        await pilot.press("y")
        await wait_for(pilot, lambda: not app.busy)
        assert len(_results(agent)) == 1


async def test_a_tall_terminal_shows_a_call_that_fits_in_it_whole() -> None:
    """At 200x60 a 40-line write said "↓ 1 more line below" with the rest of the screen
    free: the dialog grows to the room it has (up to the screen less its border)."""
    lines = "\n".join(f"line {i}" for i in range(40))
    app, _agent, _ = scripted_app([_call(text=lines), "done"], middleware=[AskEverything()])
    async with app.run_test(size=(200, 60)) as pilot:
        dialog = await ask_dialog(app, pilot)
        await wait_for(pilot, lambda: dialog._unseen_lines() == 0)  # once laid out
        assert dialog._unseen_lines() == 0
        assert "below" not in str(dialog.query_one("#guard", Static).content)


async def test_rejecting_the_question_about_a_path_outside_reads_as_a_rejection(tmp_path: Path) -> None:
    """The fence's question (a path outside the workspace) answered "no": the span
    says rejected (it said "✗ … — error") and the model reads the user's "no" and
    reason as for any rejected call, not "write_file failed: OutsideWorkspaceError"."""
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    (tmp_path / "ws").mkdir()
    outside = tmp_path / "OUTSIDE.txt"
    call = AssistantMessage((ToolCallBlock("c1", "write_file", {"path": str(outside), "content": "x"}),))
    app, agent, _ = scripted_app([call, "ok"], tools=builtin_tools(Workspace(tmp_path / "ws")))
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        assert "outside the workspace" in str(dialog.query_one("#req-desc", Static).content)
        await pilot.press("n")
        await pilot.press(*"not there", "enter")
        await wait_for(pilot, lambda: not app.busy)
        result = _results(agent)[0]
        said = "The user rejected the call to write_file; it was not run. Their reason: not there"
        assert result.is_error and str(result.content).startswith(said)
        assert "failed" not in str(result.content) and "OutsideWorkspaceError" not in str(result.content)
        assert str(outside) in str(result.content)  # which path the question was about
        assert app.query_one(ToolSpan).state.status == "rejected"
        assert not outside.exists()
        assert not any("Error" in n.text for n in app.query(NoticeLine))  # no error line either


async def test_after_an_edit_the_outside_question_lists_the_whole_edited_call(tmp_path: Path) -> None:
    """[e] path out.txt -> ../outside.txt: the second, outside-the-workspace question said
    "Arguments (complete): path: …" without the content the call would write."""
    from shell.tools.builtin import builtin_tools
    from shell.tools.workspace import Workspace

    (tmp_path / "ws").mkdir()
    args = {"path": "out.txt", "content": "SECRET PLAN"}
    call = AssistantMessage((ToolCallBlock("c1", "write_file", args),))
    app, _, _ = scripted_app([call, "ok"], tools=builtin_tools(Workspace(tmp_path / "ws")),
                             middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        first = await ask_dialog(app, pilot)
        await pilot.press("e")
        first.query_one("#editor", TextArea).load_text('{"path": "../outside.txt", "content": "SECRET PLAN"}')
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: (d := approval_dialog(app)) is not None and d is not first
                       and "outside the workspace" in str(d.query_one("#req-desc", Static).content))
        second = approval_dialog(app)
        assert second is not None
        assert str(second.query_one("#args-title", Static).content) == "Asked about:"
        listed = str(second.query_one("#args-text", Static).content)
        assert str(tmp_path / "outside.txt") in listed  # the path asked about
        assert "The call's arguments (complete):" in listed
        assert "content: SECRET PLAN" in listed and "path: ../outside.txt" in listed  # as edited
        await pilot.press("n", "enter")
        await wait_for(pilot, lambda: not app.busy)
    assert not (tmp_path / "outside.txt").exists()


class RenamesTheNote(Middleware):
    """An ``on_acting`` layer that writes the note elsewhere than the model asked."""

    async def on_acting(self, ctx: ToolCallContext, request: ToolRequest, next: Any) -> Any:
        return await next(request.override(args={**request.args, "path": "elsewhere.txt"}))


async def test_a_call_an_on_acting_layer_changed_shows_what_ran_and_what_the_model_asked_for() -> None:
    """What the span shows as run is what ran (the layer's path), labelled with who
    changed it; the model's own arguments stay in the expanded view."""
    app, agent, _ = scripted_app([_call(), "done"], middleware=[RenamesTheNote()])
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "write it")
        await wait_for(pilot, lambda: not app.busy)
        assert _results(agent)[0].content == "wrote 5 characters to elsewhere.txt"
        span = app.query_one(ToolSpan)
        assert "elsewhere.txt" in str(span.title) and "a.txt" not in str(span.title)
        assert "modified by an on_acting middleware" in str(span.title)
        span.collapsed = False
        await pilot.pause()
        ran = span.query_one(".span-args", Static).content
        asked = span.query_one(".span-asked", Static)
        assert isinstance(ran, Content) and "elsewhere.txt" in ran.plain
        assert asked.display and "a.txt" in str(asked.content) and "elsewhere" not in str(asked.content)


async def test_the_below_the_fold_hint_belongs_to_the_question_not_the_editor() -> None:
    """V13: at 60x20 the edit view kept "↓ 3 more lines below: y shows the end first",
    where `y` types into the JSON."""
    lines = "\n".join(f"line {i}" for i in range(60))
    app, _, _ = scripted_app([_call(text=lines), "done"], middleware=[AskEverything()])
    async with app.run_test(size=(60, 20)) as pilot:
        dialog = await ask_dialog(app, pilot)
        guard = dialog.query_one("#guard", Static)
        await wait_for(pilot, lambda: "y shows the end first" in str(guard.content))
        dialog.quiet_until = 0
        await pilot.press("e")
        await wait_for(pilot, lambda: dialog.query_one("#editor", TextArea).has_focus)
        await pilot.pause()
        assert not guard.display
        await pilot.press("escape")
        await wait_for(pilot, lambda: dialog.mode == "view")
        await pilot.pause()
        assert guard.display and "y shows the end first" in str(guard.content)


async def test_a_long_text_argument_is_edited_as_text_in_its_own_box() -> None:
    """Finding Y7: a write's content was one escaped JSON line (2,000 lines: 53,000
    characters, each key 0.3-0.5 s to appear). It is now a box of its own holding the
    text as it is; the JSON box holds the rest; what runs is the two put together."""
    text = "".join(f"line {i}: some words here\n" for i in range(2000))
    app, agent, _ = scripted_app([_call(text=text), "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        await pilot.press("e")
        editor = dialog.query_one("#editor", TextArea)
        assert "line 0" not in editor.text and '"path": "a.txt"' in editor.text
        box = dialog.query_one("#text-0", TextArea)
        assert box.text == text  # as it is: no \n escapes
        box.focus()
        box.move_cursor((0, 0))
        await pilot.press(*"NEW ")
        await pilot.pause()
        assert not dialog.query_one("#submit-edit", Button).disabled
        editor.load_text('{"path": "a.txt", "text": "twice"}')  # the text is the box's, not the JSON's
        await pilot.pause()
        assert "edited in its own box below" in str(dialog.query_one("#edit-error", Static).content)
        assert dialog.query_one("#submit-edit", Button).disabled
        editor.load_text('{"path": "b.txt"}')
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
        assert _results(agent)[0].content.endswith(f"wrote {len(text) + 4} characters to b.txt")
