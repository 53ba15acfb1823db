"""``shell.tui.full_map``: the compositor's map of every widget is not arranged again
in the middle of a frame when what Textual would arrange is the map it holds (issue 21:
~240 whole-conversation arrangements in a 25 KB flood, 5-9 ms of the longest renders),
and every widget is still placed where Textual places it."""

from __future__ import annotations

from typing import Any

import pytest
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from shell.tui import full_map

full_map.install()

pytestmark = pytest.mark.anyio


class Long(App[None]):
    """Far more lines than the screen holds: most widgets out of view."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="scroll"):
            for n in range(60):
                yield Static(f"line {n}", id=f"s{n}")


@pytest.fixture
def full_arrangements(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """One item per arrangement of every widget (``visible_only=False``) other than a
    layout's own (``reflow``)."""
    calls: list[bool] = []
    in_reflow: list[bool] = []
    arrange_root = Compositor._arrange_root
    reflow = Compositor.reflow

    def counted(self: Compositor, root: Any, size: Any, visible_only: bool = True) -> Any:
        if not visible_only and not in_reflow:
            calls.append(True)
        return arrange_root(self, root, size, visible_only=visible_only)

    def flagged(self: Compositor, *args: Any) -> Any:
        in_reflow.append(True)
        try:
            return reflow(self, *args)
        finally:
            in_reflow.pop()

    monkeypatch.setattr(Compositor, "_arrange_root", counted)
    monkeypatch.setattr(Compositor, "reflow", flagged)
    return calls


def _placed_as_textual_would(app: App[None]) -> None:
    compositor = app.screen._compositor
    assert compositor.root is not None
    fresh, _ = compositor._arrange_root(compositor.root, compositor.size, visible_only=False)
    for widget, geometry in fresh.items():
        assert compositor.find_widget(widget).region == geometry.region, widget


async def test_a_repaint_out_of_view_does_not_arrange_every_widget_again(
    full_arrangements: list[bool],
) -> None:
    app = Long()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        full_arrangements.clear()
        app.query_one("#s50", Static).refresh()  # out of view: a repaint, no layout
        app.query_one("#s1", Static).refresh()  # in view: drawn, its region asked for
        await pilot.pause()
        assert app.screen._compositor.find_widget(app.query_one("#s50", Static)).region.y == 50
        assert full_arrangements == []
        _placed_as_textual_would(app)


async def test_a_layout_keeps_its_map_of_every_widget(full_arrangements: list[bool]) -> None:
    app = Long()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        app.query_one("#scroll", VerticalScroll).scroll_to(y=1, animate=False)  # only the view laid out
        await pilot.pause()
        full_arrangements.clear()
        app.query_one("#s3", Static).update("three\nlines\nnow")  # a new height: a layout
        await pilot.pause()
        assert full_arrangements == []  # the layout's own only
        region = app.screen._compositor.find_widget(app.query_one("#s40", Static)).region
        assert region.y == 42 - 1  # (scrolled by 1)
        assert full_arrangements == []
        _placed_as_textual_would(app)


async def test_a_widget_mounted_out_of_view_is_placed(full_arrangements: list[bool]) -> None:
    app = Long()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        await app.query_one("#scroll", VerticalScroll).mount(Static("new", id="new"))
        await pilot.pause()
        assert app.screen._compositor.find_widget(app.query_one("#new", Static)).region.y == 60
        _placed_as_textual_would(app)
