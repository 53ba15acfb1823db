"""Keys that reach the shell together take effect in the order they were typed.

A terminal hands over several keys in one read when they come fast: an ssh or
mosh link that batches keystrokes, a text expander, tmux ``send-keys``. Textual
delivers a key that is a binding of the focused field (Backspace, Left, Ctrl+W,
a field's Enter) by bubbling it up to the app, one message queue per ancestor,
while the letters after it are inserted by the field at once: "hello wrold", four
Backspaces, "orld", Enter sent "hello wroldorld" (finding J2). What Enter sends is
what the model acts on, so these tests post a whole burst before the app runs and
check what the user would see.
"""

from __future__ import annotations

from typing import Any

import pytest
from textual import events
from textual.widgets import Input

from shell.agent import ToolResultMessage

from .helpers import SIZE, AskEverything, ask_dialog, scripted_app, wait_for
from .test_approval import _call

pytestmark = pytest.mark.anyio


def burst(app: Any, *keys: str) -> None:
    """Post ``keys`` to the app as its driver does for one read of the terminal: all
    queued before any is handled. A one-character key is that character typed."""
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key("space" if key == " " else key, key))
        else:
            app.post_message(events.Key(key, None))


async def test_backspace_left_and_ctrl_w_act_before_the_letters_after_them() -> None:
    app, _, _ = scripted_app(["ok"])
    async with app.run_test(size=SIZE) as pilot:
        burst(app, *"abc", "backspace", *"xyz")
        await pilot.pause()
        assert app.prompt.text == "abxyz"
        app.prompt.clear()
        burst(app, *"abc", "left", "x")
        await pilot.pause()
        assert app.prompt.text == "abxc"
        app.prompt.clear()
        burst(app, *"one two", "ctrl+w", *"three")
        await pilot.pause()
        assert app.prompt.text == "one three"


async def test_enter_sends_the_corrected_text() -> None:
    app, _, model = scripted_app(["ok"])
    async with app.run_test(size=SIZE) as pilot:
        burst(app, *"hello wrold", *["backspace"] * 4, *"orld", "enter")
        await wait_for(pilot, lambda: model.requests and not app.busy)
        assert app.prompt.sent_history == ["hello world"]
        assert model.requests[0].messages[-1].content == "hello world"
        assert app.prompt.text == ""


async def test_a_reason_typed_fast_is_the_reason_the_model_reads() -> None:
    app, agent, _ = scripted_app([_call(), "ok"], middleware=[AskEverything()])
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_dialog(app, pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.focused, Input))
        burst(app, *"not nwo", "backspace", "backspace", *"ow", "enter")
        await wait_for(pilot, lambda: not app.busy)
        assert dialog is not app.screen
        results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
        assert results[0].content.endswith("Their reason: not now")


@pytest.mark.parametrize("key", ["f9", "x", "backspace", "left"])
async def test_the_prompt_hands_each_key_to_keys_in_order_once(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PromptInput called KeysInOrder itself and Textual called it again along the MRO:
    an unbound key had its bindings looked up twice."""
    from shell.tui.widgets.keys_in_order import KeysInOrder

    seen: list[str] = []
    original = KeysInOrder._on_key

    async def counted(self: Any, event: events.Key) -> None:
        seen.append(event.key)
        await original(self, event)

    monkeypatch.setattr(KeysInOrder, "_on_key", counted)
    app, _, _ = scripted_app(["ok"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.focused is app.prompt)
        app.prompt.insert("ab")
        seen.clear()
        burst(app, key)
        await pilot.pause()
        assert seen == [key]
        assert app.prompt.text == {"x": "abx", "backspace": "a"}.get(key, "ab")
