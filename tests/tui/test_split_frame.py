"""The main screen draws a frame in two turns of the event loop (its layout, then its
render), so a key press can be handled between them; what waits for the next refresh
still runs once the frame is drawn, and the screen shows what it should."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from textual import messages
from textual._compositor import ChopsUpdate, Compositor
from textual.app import App, ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from shell.tui import full_map
from shell.tui.screens.main_layout import MainLayout
from shell.tui.screens.split_frame import SplitFrameScreen

from .helpers import wait_for
from .test_full_map import _placed_as_textual_would

pytestmark = pytest.mark.anyio


class Page(App[None]):
    def get_default_screen(self) -> SplitFrameScreen[None]:
        return Frames()


class Frames(SplitFrameScreen[None]):
    def compose(self) -> ComposeResult:
        yield Static("first", id="text")


async def quiet(events: list[str]) -> None:
    """Wait until no frame has been drawn for a while, then forget what was drawn: under
    load the start-up frames may still be on their way when ``pilot.pause()`` returns,
    and a frame in flight would run an "after refresh" before the test's own layout."""
    while True:
        seen = len(events)
        await asyncio.sleep(0.2)
        if len(events) == seen:
            break
    events.clear()


def test_the_main_screen_splits_its_frames() -> None:
    assert issubclass(MainLayout, SplitFrameScreen)


@pytest.fixture
def events(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the screen does, in order: "layout start", "layout end" around its layout,
    "render" for each render of the compositor."""
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
    return events


async def test_layout_and_render_run_in_different_turns_and_after_refresh_means_drawn(
    events: list[str],
) -> None:
    app = Page()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        await quiet(events)
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


async def test_a_sleep_that_ends_during_the_layout_half_wakes_before_the_render_half(
    events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: the render half was a message the layout half queued, ready before any
    timer that fell due meanwhile, so a task sleeping through the layout (a cursor's
    blink, a progress tick, a key repeat) woke only after the render too: the split
    shortened no wait. It comes after them now, and still before "after refresh"."""
    layout = SplitFrameScreen._refresh_layout
    sleepers: list[asyncio.Task[None]] = []
    armed: list[bool] = []

    async def sleeper(done: asyncio.Future[None]) -> None:
        await done
        events.append("woke")

    def slow_layout(self: SplitFrameScreen[None], *args: object, **kwargs: object) -> None:
        layout(self, *args, **kwargs)  # type: ignore[arg-type]
        if self._in_frame and armed and not sleepers:
            loop = asyncio.get_running_loop()
            done: asyncio.Future[None] = loop.create_future()
            loop.call_later(0.001, done.set_result, None)  # a sleep of 1 ms, as asyncio.sleep makes it
            sleepers.append(loop.create_task(sleeper(done)))
            until = time.perf_counter() + 0.01
            while time.perf_counter() < until:  # ...which ends while the layout runs
                pass

    monkeypatch.setattr(SplitFrameScreen, "_refresh_layout", slow_layout)
    app = Page()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        await quiet(events)
        armed.append(True)
        app.query_one("#text", Static).update("second\nand a line more")  # a layout, in a frame
        app.screen.call_after_refresh(lambda: events.append("after refresh"))
        await wait_for(pilot, lambda: "after refresh" in events and "woke" in events)
        after_layout = events[events.index("layout end") :]
        assert after_layout.index("woke") < after_layout.index("render")
        assert events.index("after refresh") > events.index("render", events.index("layout end"))


async def test_a_resized_screen_is_laid_out_and_drawn_in_one_turn(events: list[str]) -> None:
    """Only the update timer's frames are split. A screen ``Resize`` laid out the split
    way re-sent itself a ``Resize`` at every frame at start-up (the conversation 19 then
    20 rows, for ever): the app never settled and Ctrl+Q at the trust dialog hung."""
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


class Echo(Widget):
    """One line of text that changes without a new size (the prompt, echoing a key)."""

    text = "a"

    def render(self) -> str:
        return self.text


class Typing(SplitFrameScreen[None]):
    DEFAULT_CSS = """
    #box { height: 4; overflow: hidden; }
    #echo { dock: bottom; height: 1; }
    """

    def compose(self) -> ComposeResult:
        with Vertical(id="box"):  # the text grows inside: its layout repaints only the box
            yield Static("first", id="text")
        yield Echo(id="echo")


class TypingPage(App[None]):
    """Records the rows each update it would write to the terminal holds (``App._display``
    writes nothing while a batch is open)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows_written: list[int] = []

    def get_default_screen(self) -> SplitFrameScreen[None]:
        return Typing()

    def _display(self, screen: Screen[object], renderable: object) -> None:
        if isinstance(renderable, ChopsUpdate) and not self._batch_count:
            self.rows_written.extend(y for y, _, _ in renderable.spans)
        super()._display(screen, renderable)  # type: ignore[arg-type]


def _type_in_next_frame(
    monkeypatch: pytest.MonkeyPatch, app: TypingPage, between_halves: Callable[[], None] = lambda: None
) -> list[bool]:
    """Once armed (the list returned gets an item), the next split frame's layout half
    is followed by a key's echo: the echo widget's text changes and its ``Update`` is
    queued before the render half's callback, as a key handled meanwhile queues it."""
    layout = SplitFrameScreen._refresh_layout
    armed: list[bool] = []

    def layout_then_type(self: SplitFrameScreen[None], *args: object, **kwargs: object) -> None:
        if self._in_frame and armed == [True]:
            armed.append(True)
            app.rows_written.clear()
            echo = self.query_one(Echo)
            echo.text = "ab"
            echo.refresh()  # a repaint, no layout
            echo._repaint_required = False  # its Update is the one posted here, as a key's
            self.post_message(messages.Update(echo))
            layout(self, *args, **kwargs)  # type: ignore[arg-type]
            between_halves()
            return
        layout(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SplitFrameScreen, "_refresh_layout", layout_then_type)
    return armed


async def test_a_widget_repainted_between_the_halves_is_drawn_by_the_render_half(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A key typed while a streaming frame is split: the prompt's repaint reached the
    screen after the layout half and Textual's render cleared the dirty set without
    drawing it. The echo then waited for the prompt's next repaint (its cursor's
    blink): one of the late echoes, 1-2 s under a flood in a real terminal, that made
    a18eee5 revert the split."""
    app = TypingPage()
    armed = _type_in_next_frame(monkeypatch, app)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        armed.append(True)
        app.query_one("#text", Static).update("second\nand a line more")  # the frame's layout
        await wait_for(pilot, lambda: len(armed) == 2)
        await wait_for(pilot, lambda: 9 in app.rows_written)  # the echo's row, at the bottom
        assert {0, 1} <= set(app.rows_written)  # and the layout's rows in the same frame


async def test_a_render_half_due_while_a_batch_is_open_is_drawn_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ChatMarkdown.append`` holds ``App.batch_update`` open across its mounts, loop
    turns long. A render half that ran meanwhile was computed and then not written
    (``App._display`` draws nothing in a batch), its regions gone with it: the frame's
    changes, the echo of a key typed during a flood among them, waited for their next
    repaint (the other late echoes of a18eee5)."""
    app = TypingPage()
    batch_open: list[bool] = []
    renders_in_batch: list[bool] = []
    compositor_refresh = SplitFrameScreen._compositor_refresh

    def open_a_batch() -> None:
        app._begin_batch()
        batch_open.append(True)

    def counted(self: SplitFrameScreen[None]) -> None:
        if batch_open and app._batch_count:
            renders_in_batch.append(True)
        compositor_refresh(self)

    armed = _type_in_next_frame(monkeypatch, app, open_a_batch)
    monkeypatch.setattr(SplitFrameScreen, "_compositor_refresh", counted)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        armed.append(True)
        app.query_one("#text", Static).update("second\nand a line more")
        await wait_for(pilot, lambda: bool(batch_open))
        try:
            await wait_for(pilot, lambda: bool(renders_in_batch))  # the render half's turn came
            assert app.rows_written == []
        finally:
            app._end_batch()
        await wait_for(pilot, lambda: 9 in app.rows_written)
        assert {0, 1} <= set(app.rows_written)


class Exploding(Static):
    """A widget whose measure raises once told to: a bug in a widget, met mid-frame."""

    explode = False

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        if self.explode:
            raise RuntimeError("a widget's bug")
        return super().get_content_height(container, viewport, width)  # type: ignore[arg-type]


class Broken(SplitFrameScreen[None]):
    def compose(self) -> ComposeResult:
        yield Exploding("fine", id="boom")


class BrokenPage(App[None]):
    def get_default_screen(self) -> SplitFrameScreen[None]:
        return Broken()


async def test_an_error_in_a_split_frames_layout_ends_the_app_instead_of_spinning() -> None:
    """Textual reports a layout's error and returns without queueing the render: the
    callbacks waiting for that render were queued again at every idle, for ever (the
    app spun at 100 % CPU, screen frozen, instead of ending with the error)."""
    import anyio

    app = BrokenPage()
    with anyio.fail_after(60):
        with pytest.raises(RuntimeError, match="a widget's bug"):
            async with app.run_test(size=(40, 10)) as pilot:
                await pilot.pause()
                widget = app.query_one("#boom", Exploding)
                widget.explode = True
                widget.update("now\ntwo lines")  # a layout, in the update timer's split frame
                app.screen.call_after_refresh(lambda: None)
                while app.is_running:  # noqa: ASYNC110 (the app's own state, no event to wait on)
                    await anyio.sleep(0.05)


class Flood(SplitFrameScreen[None]):
    """A conversation far longer than the screen, growing at its end."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            for n in range(60):
                yield Static(f"line {n}", id=f"s{n}")


class FloodPage(App[None]):
    def get_default_screen(self) -> SplitFrameScreen[None]:
        return Flood()


async def test_a_widget_mounted_between_the_halves_does_not_make_the_render_arrange_every_widget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 21: a flood mounts new blocks between a frame's layout and its render (the
    render waits while ``ChatMarkdown.append`` holds a batch open across its mounts).
    Handed to the compositor by the render, a block not placed yet marked its map of
    every widget out of date, and the first widget drawn arranged the whole
    conversation again from the root inside the render: 2-4 ms at half of a 50 KB
    flood's renders, the longest steps left. The render draws what the layout placed;
    the next layout places the new block, where Textual places it, and draws it."""
    full_map.install()  # as the app does
    layout = SplitFrameScreen._refresh_layout
    render_half = SplitFrameScreen._render_half
    armed: list[bool] = []
    mounted: list[Static] = []
    arrangements_in_render: list[bool] = []
    in_render: list[bool] = []
    arrange_root = Compositor._arrange_root

    def layout_then_mount(self: SplitFrameScreen[None], *args: object, **kwargs: object) -> None:
        layout(self, *args, **kwargs)  # type: ignore[arg-type]
        if self._in_frame and armed == [True]:
            armed.append(True)
            self.app._begin_batch()  # the render waits while the mount runs
            new = Static("the new block", id="new")
            mounted.append(new)
            self.query_one("#scroll", VerticalScroll).mount(new)

    def counted_render(self: SplitFrameScreen[None]) -> None:
        in_render.append(True)
        try:
            render_half(self)
        finally:
            in_render.pop()

    def counted_arrange(self: Compositor, root: Any, size: Any, visible_only: bool = True) -> Any:
        if in_render and not visible_only:
            arrangements_in_render.append(True)
        return arrange_root(self, root, size, visible_only=visible_only)

    monkeypatch.setattr(SplitFrameScreen, "_refresh_layout", layout_then_mount)
    monkeypatch.setattr(SplitFrameScreen, "_render_half", counted_render)
    monkeypatch.setattr(Compositor, "_arrange_root", counted_arrange)
    app = FloodPage()
    async with app.run_test(size=(40, 10)) as pilot:
        scroll = app.query_one("#scroll", VerticalScroll)
        scroll.anchor()  # follows the end, as the conversation does while a reply streams
        await pilot.pause()
        armed.append(True)
        app.query_one("#s59", Static).update("line 59\nand one more")  # a layout, in a frame
        await wait_for(pilot, lambda: len(armed) == 2)
        try:
            await wait_for(pilot, lambda: mounted[0].is_mounted)
            mounted[0].update("the new block, grown")  # a block filled in once mounted
            await wait_for(pilot, lambda: mounted[0] in app.screen._dirty_widgets)
        finally:
            app._end_batch()
        await wait_for(pilot, lambda: not app.screen._dirty_widgets and not app.screen._layout_required)
        assert arrangements_in_render == []
        await wait_for(pilot, lambda: any("the new block, grown" in strip.text
                                          for strip in app.screen._compositor.render_strips()))
        _placed_as_textual_would(app)


class Sized(Static):
    """Says when its ``Resize`` reaches it."""

    def on_resize(self) -> None:
        log = getattr(self.app, "log_events", None)
        if log is not None:
            log.append("resized")


class Resizing(SplitFrameScreen[None]):
    def compose(self) -> ComposeResult:
        yield Sized("first", id="text")


class ResizingPage(App[None]):
    def __init__(self, log_events: list[str]) -> None:
        super().__init__()
        self.log_events = log_events

    def get_default_screen(self) -> SplitFrameScreen[None]:
        return Resizing()


async def test_a_sleep_that_ends_during_the_layout_half_wakes_before_the_widgets_hear_of_it(
    events: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21: the messages a layout posts (``Resize``, ``Show``, ``Hide`` to the
    blocks entering and leaving the view) each woke a widget's message loop ahead of
    any timer that fell due during the layout: ~50 of them a flood's frame, 3.5 ms more
    before a sleep that ended meanwhile woke. They are delivered after those timers
    now, and still reach their widgets."""
    layout = SplitFrameScreen._refresh_layout
    sleepers: list[asyncio.Task[None]] = []
    armed: list[bool] = []

    async def sleeper(done: asyncio.Future[None]) -> None:
        await done
        events.append("woke")

    def slow_layout(self: SplitFrameScreen[None], *args: object, **kwargs: object) -> None:
        if self._in_frame and armed and not sleepers:
            loop = asyncio.get_running_loop()
            done: asyncio.Future[None] = loop.create_future()
            loop.call_later(0.001, done.set_result, None)  # a sleep of 1 ms, as asyncio.sleep makes it
            sleepers.append(loop.create_task(sleeper(done)))
            until = time.perf_counter() + 0.01
            while time.perf_counter() < until:  # ...which ends while the layout runs
                pass
        layout(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(SplitFrameScreen, "_refresh_layout", slow_layout)
    app = ResizingPage(events)
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        await quiet(events)
        armed.append(True)
        app.query_one("#text", Sized).update("second\nand a line more")  # a new size, in a frame
        await wait_for(pilot, lambda: "woke" in events and "resized" in events)
        assert events.index("woke") < events.index("resized")
        shown = [strip.text.rstrip() for strip in app.screen._compositor.render_strips()]
        assert shown[:2] == ["second", "and a line more"]
