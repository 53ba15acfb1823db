"""The footer says what Esc does: "esc Cancel reply" while a reply runs, every reply."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from textual.widgets._footer import FooterKey

from shell.agent.loop import Agent
from shell.core.model import ModelChunk, ModelRequest
from shell.providers.scripted import ScriptedModel
from shell.tui.app import AgentShellApp

from .helpers import SIZE, eventually, send, wait_for

pytestmark = pytest.mark.anyio


IDLE = ["shift+tab Mode", "f2 Middleware", "f1 Help", "^q Quit"]


def footer_says(app: AgentShellApp) -> list[str]:
    """What the footer draws now (empty for a moment while it recomposes)."""
    return [f"{key.key_display} {key.description}" for key in app.screen.query(FooterKey)]


def footer_offers(app: AgentShellApp) -> list[str]:
    """What the footer draws once it has read the screen's bindings again."""
    bindings = app.screen.active_bindings.values()
    return [f"{b.binding.key} {b.binding.description}" for b in bindings if b.binding.show]


class HeldModel(ScriptedModel):
    """Streams each turn's first piece, then holds the rest until the test releases
    that turn (``released[n].set()``): the reply lasts as long as the test needs, not
    a time that a busy machine may outlast, or a quick one not reach."""

    def __init__(self, turns: list[str]) -> None:
        super().__init__(turns)
        self.released = [asyncio.Event() for _ in turns]

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        held = False
        async for chunk in super().stream(request):
            yield chunk
            if not held:
                held = True
                await self.released[len(self.requests) - 1].wait()


async def test_the_footer_offers_esc_cancel_reply_during_every_reply_and_not_when_idle() -> None:
    model = HeldModel(["first " * 300, "second " * 300, "third " * 300])
    app = AgentShellApp(Agent(model), model_label="scripted")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.ready and app.main.is_attached)
        for n in range(3):
            await send(pilot, f"reply {n}")
            await wait_for(pilot, lambda: app.busy)
            app.conversation.focus()  # the focus moves during a reply (a click, a span)

            def offered(n: int = n) -> None:
                assert app.busy and "escape Cancel reply" in footer_offers(app), (n, footer_offers(app))

            await eventually(pilot, offered)  # once the focus has moved
            await wait_for(pilot, lambda: "esc Cancel reply" in footer_says(app))
            app.prompt.focus()
            model.released[n].set()
            await wait_for(pilot, lambda: not app.busy)
            assert "escape Cancel reply" not in footer_offers(app)  # idle, Esc cancels nothing
            await wait_for(pilot, lambda: footer_says(app)[:4] == IDLE)


async def test_the_footer_says_what_esc_does_in_the_approval_dialog() -> None:
    """While the user edits a call's arguments, Esc goes back to the question: the
    footer said "esc Cancel reply" there. It follows the dialog's mode."""
    from shell.agent import AssistantMessage, ToolCallBlock

    from .helpers import AskEverything, ask_dialog, scripted_app

    call = AssistantMessage((ToolCallBlock("c1", "write_note", {"path": "a.txt", "text": "hi"}),))
    app, _agent, _ = scripted_app([call, "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)

        def main_footer() -> list[str]:
            return [f"{key.key_display} {key.description}" for key in app.main.query(FooterKey)]

        await wait_for(pilot, lambda: "esc Cancel reply" in main_footer())
        dialog.quiet_until = 0
        await pilot.press("e")
        await wait_for(pilot, lambda: dialog.mode == "edit")
        await wait_for(pilot, lambda: "esc Back to the question" in main_footer())
        assert "esc Cancel reply" not in main_footer()
        await pilot.press("escape")
        await wait_for(pilot, lambda: dialog.mode == "view" and app.busy)  # back, the reply goes on
        await wait_for(pilot, lambda: "esc Cancel reply" in main_footer())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.busy)
        await wait_for(pilot, lambda: not any(k.startswith("esc ") for k in main_footer()))


async def test_the_answer_boxes_show_that_ctrl_s_submits_in_the_footer_and_on_the_box() -> None:
    """The edit box (and the "always" box) are answered with Ctrl+S, which the
    footer did not show (only "esc Back to the question"): the user was left to guess.
    The footer names it for what it does in each box, and the box's buttons say it too."""
    from textual.widgets import Button

    from shell.agent import AssistantMessage, ToolCallBlock

    from .helpers import AskEverything, ask_dialog, scripted_app

    call = AssistantMessage((ToolCallBlock("c1", "write_note", {"path": "a.txt", "text": "hi"}),))
    app, _agent, _ = scripted_app([call, "done"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)

        def main_footer() -> list[str]:
            return [f"{key.key_display} {key.description}" for key in app.main.query(FooterKey)]

        await wait_for(pilot, lambda: "esc Cancel reply" in main_footer())
        assert not any(k.startswith("^s ") for k in main_footer())  # nothing to submit in the question
        dialog.quiet_until = 0
        await pilot.press("e")
        await wait_for(pilot, lambda: "^s Run with these arguments" in main_footer())
        assert "esc Back to the question" in main_footer()
        assert "Ctrl+S" in str(dialog.query_one("#submit-edit", Button).label)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not any(k.startswith("^s ") for k in main_footer()))
        dialog.quiet_until = 0
        await pilot.press("a")
        await wait_for(pilot, lambda: "^s Approve and remember" in main_footer())
        assert "Ctrl+S" in str(dialog.query_one("#submit-always", Button).label)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.busy)
