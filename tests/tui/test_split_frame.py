"""The main screen draws a frame in two turns of the event loop (its layout, then its
render), so a key press can be handled between them; what waits for the next refresh
still runs once the frame is drawn, and the screen shows what it should."""

from __future__ import annotations

import pytest
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.widgets import Static

from shell.tui.screens.main_layout import MainLayout
from shell.tui.screens.split_frame import SplitFrameScreen

from .helpers import wait_for

pytestmark = pytest.mark.anyio


class Page(App[None]):
    def get_default_screen(self) -> SplitFrameScreen[None]:
        return Frames()


class Frames(SplitFrameScreen[None]):
    def compose(self) -> ComposeResult:
        yield Static("first", id="text")


def test_the_main_screen_splits_its_frames() -> None:
    assert issubclass(MainLayout, SplitFrameScreen)


async def test_layout_and_render_run_in_different_turns_and_after_refresh_means_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events: list[str] = []
    layout = SplitFrameScreen._refresh_layout
    render = Compositor.render_update

    def logged_layout(self: SplitFrameScreen[None], *args: object, **kwargs: object) -> None:
        events.append("layout start")
        layout(self, *args, **kwargs)  # type: ignore[arg-type]
        events.append("layout end")

    def logged_render(self: Compositor, *args: object, **kwargs: object) -> object:
        events.append("render")
        return render(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SplitFrameScreen, "_refresh_layout", logged_layout)
    monkeypatch.setattr(Compositor, "render_update", logged_render)
    app = Page()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        events.clear()
        app.query_one("#text", Static).update("second\nand a line more")  # a new height: a layout
        app.screen.call_after_refresh(lambda: events.append("after refresh"))
        # the update timer's frame (pilot.pause() would force one, drawn whole at once)
        await wait_for(pilot, lambda: "after refresh" in events)
        assert "layout start" in events
        start = events.index("layout start")
        assert events[start + 1] == "layout end"  # nothing rendered inside the layout's turn
        assert "render" in events[start + 2 :]
        assert events.index("after refresh") > events.index("render", start)
        shown = [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]
        assert shown[:2] == ["second", "and a line more"]


async def test_a_resized_screen_is_laid_out_and_drawn_in_one_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the update timer's frames are split. A screen ``Resize`` laid out the split
    way re-sent itself a ``Resize`` at every frame at start-up (the conversation 19 then
    20 rows, for ever): the app never settled and Ctrl+Q at the trust dialog hung."""
    events: list[str] = []
    layout = SplitFrameScreen._refresh_layout
    render = Compositor.render_update

    def logged_layout(self: SplitFrameScreen[None], *args: object, **kwargs: object) -> None:
        events.append("layout start")
        layout(self, *args, **kwargs)  # type: ignore[arg-type]
        events.append("layout end")

    def logged_render(self: Compositor, *args: object, **kwargs: object) -> object:
        events.append("render")
        return render(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SplitFrameScreen, "_refresh_layout", logged_layout)
    monkeypatch.setattr(Compositor, "render_update", logged_render)
    app = Page()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        events.clear()
        await pilot.resize_terminal(30, 8)
        await pilot.pause()
        assert "layout start" in events
        start = events.index("layout start")
        assert events[start : start + 3] == ["layout start", "render", "layout end"]
        shown = [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]
        assert len(shown) == 8 and shown[0] == "first"

