"""The keyboard stays with the prompt, and Ctrl+C cancels before it quits.

Each test here is a defect a user met (issue 17): typing lost after F2 hid the
panel that had the focus, a clicked switch that kept the focus so the next
"ok go" toggled it, thoughts and span headers as Tab stops, Ctrl+C asking to
quit while a reply ran.
"""

from __future__ import annotations

import pytest
from textual.widgets._collapsible import CollapsibleTitle

from shell.agent import AssistantMessage, TextBlock, ThinkingBlock, ToolCallBlock
from shell.tui.app import AgentShellApp
from shell.tui.widgets.middleware_panel import MiddlewareRow

from .helpers import SIZE, Shout, make_agent, send, wait_for

pytestmark = pytest.mark.anyio


def _switch(app: AgentShellApp, name: str) -> MiddlewareRow:
    return next(r for r in app.query(MiddlewareRow) if r.mw_name == name)


async def _tab_to_a_switch(pilot: object, app: AgentShellApp) -> MiddlewareRow:
    for _ in range(40):
        if isinstance(app.focused, MiddlewareRow):
            return app.focused
        await pilot.press("tab")  # type: ignore[attr-defined]
    raise AssertionError(f"no switch took the focus (last: {app.focused!r})")


def _app() -> AgentShellApp:
    agent, _ = make_agent([], middleware=[Shout()])
    return AgentShellApp(agent, model_label="scripted")


async def _open_panel(pilot: object, app: AgentShellApp) -> None:
    await pilot.press("f2")  # type: ignore[attr-defined]
    await wait_for(pilot, lambda: app.side.shown and app.panel.loaded)
    await pilot.pause()  # type: ignore[attr-defined]  # laid out: clicks land on the rows


async def test_f2_hiding_the_panel_gives_the_keys_back_to_the_prompt() -> None:
    app = _app()
    agent = app.agent
    async with app.run_test(size=SIZE) as pilot:
        await _open_panel(pilot, app)
        await _tab_to_a_switch(pilot, app)
        await pilot.press("f2")
        await pilot.pause()
        assert app.focused is app.prompt
        await pilot.press(*"ok go")
        assert app.prompt.text == "ok go"
        assert agent.middleware.is_enabled("Shout")


async def test_typing_while_a_switch_has_the_focus_goes_to_the_prompt() -> None:
    app = _app()
    agent = app.agent
    async with app.run_test(size=SIZE) as pilot:
        await _open_panel(pilot, app)
        await _tab_to_a_switch(pilot, app)
        await pilot.press(*"ok go")  # the space must not toggle the switch
        assert app.prompt.text == "ok go"
        assert agent.middleware.is_enabled("Shout")
        assert app.focused is app.prompt


async def test_a_clicked_switch_does_not_keep_the_focus() -> None:
    app = _app()
    agent = app.agent
    async with app.run_test(size=SIZE) as pilot:
        await _open_panel(pilot, app)
        await pilot.click(_switch(app, "Shout"))
        await wait_for(pilot, lambda: not agent.middleware.is_enabled("Shout"))
        await pilot.pause()
        assert app.focused is app.prompt
        await pilot.press(*"ok go", "space")
        assert app.prompt.text == "ok go "
        assert not agent.middleware.is_enabled("Shout")  # toggled once, by the click


async def test_thoughts_and_span_headers_are_not_tab_stops() -> None:
    turns = [
        AssistantMessage((ThinkingBlock("Let me look."), TextBlock("Reading."),
                          ToolCallBlock("c1", "read_note", {"path": "a.txt"}))),
        AssistantMessage((ThinkingBlock("Again."), ToolCallBlock("c2", "read_note", {"path": "b.txt"}))),
        "Done.",
    ]
    agent, _ = make_agent(turns)
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "read both")
        await wait_for(pilot, lambda: not app.busy)
        await pilot.pause()
        assert len(app.query(CollapsibleTitle)) >= 4  # two thoughts, two spans
        stops = [w for w in app.screen.focus_chain if isinstance(w, CollapsibleTitle)]
        assert stops == []
        await pilot.press("tab", "tab")
        await pilot.press(*"hi")
        assert app.prompt.text.endswith("hi")


async def test_ctrl_c_cancels_a_running_reply_and_quits_only_when_idle() -> None:
    agent, _ = make_agent(["word " * 400], delay=0.02, chunk_size=2)
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await send(pilot, "talk a lot")
        await wait_for(pilot, lambda: app.busy and app.status.state == "streaming")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.busy)
        assert app.last_reply is not None and app.last_reply.stop_reason == "cancelled"
        assert app.is_running and app.return_code is None
        await pilot.press(*"draft")
        await pilot.press("ctrl+c")  # idle, with text: clears it
        assert app.prompt.text == "" and app.is_running
        await pilot.press("ctrl+c")  # idle, empty: says how to quit
        await pilot.pause()
        assert app.is_running and app.return_code is None
        await pilot.press("ctrl+c")  # the second press quits
        await pilot.pause()
        assert app.return_code == 0


async def test_a_long_paste_is_a_chip_and_is_sent_whole() -> None:
    """21 KB pasted: the prompt holds one short token, the sent message is a few
    lines and a summary (not 30 of 40 rows), and the model gets every byte."""
    from textual import events

    from shell.frontend.paste import size_label
    from shell.tui.widgets.user_message import UserMessage

    log = "".join(f"2026-11-23 16:{i // 60:02d}:{i % 60:02d} INFO worker {i} finished its batch\n"
                  for i in range(420))
    assert 20_000 < len(log) < 24_000
    agent, model = make_agent(["Read it."])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"why did this fail? ")
        app.prompt.post_message(events.Paste(log.replace("\n", "\r")))  # as a terminal pastes lines
        await pilot.pause()
        assert app.prompt.text == f"why did this fail? [Pasted text #1: {size_label(log)}]"
        assert size_label(log).startswith("420 lines, 2")
        assert app.prompt.outer_size.height <= 3
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.busy)
        sent = model.requests[0].messages[-1].text
        assert sent == "why did this fail? " + log
        shown = app.query_one(UserMessage)
        assert shown.text == sent  # the whole text, kept
        assert shown.outer_size.height <= 7
        assert "more lines (" in str(shown.render()) and "in all; sent in full)" in str(shown.render())


async def test_backspace_after_a_paste_removes_it_whole_and_an_edited_one_is_not_sent() -> None:
    """One Backspace turned ``[Pasted text #1: …]`` into its words: the 1.4 MB paste was
    dropped and the placeholder sent instead, with no word (finding K19)."""
    from textual import events

    log = "".join(f"line {i}\n" for i in range(2_000))
    agent, model = make_agent(["Read it.", "Again."])
    app = AgentShellApp(agent, model_label="scripted")
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press(*"why? ")
        app.prompt.post_message(events.Paste(log))
        await wait_for(pilot, lambda: "[Pasted text #1:" in app.prompt.text)
        await pilot.press("backspace")  # meant for a trailing space: the paste goes whole
        await wait_for(pilot, lambda: app.prompt.text == "why? ")
        await pilot.press("ctrl+z")  # and comes back
        await wait_for(pilot, lambda: "[Pasted text #1:" in app.prompt.text)
        token = app.prompt.text[len("why? "):]
        app.prompt.move_cursor((0, len("why? ")))
        await pilot.press("delete")  # Delete in front of it: the same
        await wait_for(pilot, lambda: app.prompt.text == "why? ")
        # a placeholder broken some other way (a character typed into it) is not sent
        app.prompt.load_text("why? " + token[:-3] + "x" + token[-3:])
        app.prompt.move_cursor(app.prompt.document.end)
        await pilot.press("enter")
        await pilot.pause()
        assert not model.requests, "the placeholder's words were sent without the paste"
        assert app.prompt.text.startswith("why? [Pasted text #1")  # nothing lost
        assert any("no longer attached" in str(n.message) for n in app._notifications)
        app.prompt.load_text("why? " + token)
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.busy and bool(model.requests))
        assert model.requests[0].messages[-1].text == "why? " + log


async def test_a_short_paste_lands_once() -> None:
    """A three-line paste, as the app receives it from the terminal: in the prompt once."""
    from textual import events

    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(events.Paste("alpha\rbeta\rgamma"))
        await pilot.pause()
        assert app.prompt.text == "alpha\nbeta\ngamma"


async def test_typing_after_help_closes_it_and_reaches_the_prompt() -> None:
    """/help then typing: every key was swallowed by the help screen until Esc."""
    from shell.tui.screens.help import HelpScreen

    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready)
        await send(pilot, "/help")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press(*"quit it")  # q too: it used to close the help and vanish
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert app.prompt.text == "quit it"
        assert app.focused is app.prompt


async def test_keys_typed_fast_while_help_closes_keep_their_order() -> None:
    """Keys that reached the help before it had gone (a terminal delivers a burst at
    once) follow the first one to the prompt, in order."""
    from textual import events

    from shell.tui.screens.help import HelpScreen

    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        driver = app._driver
        assert driver is not None
        for ch in "abc":  # no waiting in between: all three reach the help screen
            driver.send_message(events.Key(ch, ch))
        await wait_for(pilot, lambda: app.prompt.text == "abc")
        assert not isinstance(app.screen, HelpScreen)


async def test_escape_still_closes_help_without_typing() -> None:
    from shell.tui.screens.help import HelpScreen

    app = _app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
        assert app.prompt.text == ""
