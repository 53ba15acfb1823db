"""The side panel's Middleware tab (F2): every middleware in order, a switch
each, its description and live stats.

Stats are read from ``MiddlewareStack.stats`` a few times a second, and only while
the tab is visible (``SidePanel`` says when); a row (one widget) is redrawn only
when what it shows changed, since each redraw re-lays out the panel (done
for every row at every tick, an idle shell with the panel open used ~30% of a core).
Flipping a switch calls the runtime's
``set_middleware`` at once; the stack reads its toggles at every hook, so the change
applies at the next hook, also in the middle of a reply. A middleware that raised is marked, with its error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.events import Click
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from shell.core.textsafety import sanitize

REFRESH_S = 0.25


@dataclass(frozen=True, slots=True)
class Switches:
    """How the panel reads and flips a switch: the shell's runtime, where
    HumanInTheLoop's switch means "ask me" and its gate stays on (deny rules and
    plan mode hold with it off); by default the stack itself."""

    is_on: Callable[[str], bool]
    set_on: Callable[[str, bool], object]


class MiddlewareRow(Widget, can_focus=True):
    """One middleware in one widget: its switch and name, description, stats (and its
    last error) drawn as lines of text. Space, Enter or a click on its first line flips
    it. It was 7 widgets (a Switch, a Label, Statics in two containers): 20 rows took
    ~0.9 s of CPU to build, seconds on a loaded machine before the panel showed."""

    DEFAULT_CSS = """
    MiddlewareRow { height: auto; padding: 0 0 1 0; }
    MiddlewareRow:focus { background: $boost; }
    MiddlewareRow:focus > .mw-row--on, MiddlewareRow:focus > .mw-row--off { text-style: bold reverse; }
    MiddlewareRow > .mw-row--on { color: $text-success; text-style: bold; }
    MiddlewareRow > .mw-row--off { color: $text-muted; }
    MiddlewareRow > .mw-row--name { color: $foreground; text-style: bold; }
    MiddlewareRow > .mw-row--muted { color: $text-muted; }
    MiddlewareRow > .mw-row--error { color: $error; }
    """
    COMPONENT_CLASSES = {"mw-row--on", "mw-row--off", "mw-row--name", "mw-row--muted", "mw-row--error"}
    BINDINGS = [Binding("space,enter", "flip", "Switch", show=False)]

    class Toggled(Message):
        """The user flipped the switch (the panel applies it)."""

        def __init__(self, row: MiddlewareRow, value: bool) -> None:
            super().__init__()
            self.row = row
            self.value = value

    def __init__(self, name: str, description: str, enabled: bool) -> None:
        super().__init__(classes="" if enabled else "-off")
        self.mw_name = name
        self.description = description
        self.value = enabled
        """What the switch shows: on or off."""
        self.stats = ""
        self.error: str | None = None
        self._shown: tuple[bool, str, str | None] | None = None

    def render(self) -> Text:
        style = self.get_component_rich_style
        on = self.value
        failed = bool(self.error)
        text = Text(no_wrap=False)
        text.append("■ on " if on else "□ off", style=style("mw-row--on" if on else "mw-row--off"))
        name = style("mw-row--error" if failed else "mw-row--name" if on else "mw-row--muted")
        text.append(" " + sanitize(self.mw_name), style=name)
        muted = style("mw-row--muted")
        if self.description:
            text.append("\n" + sanitize(self.description), style=muted)
        text.append("\n" + self.stats, style=muted)
        if failed:
            text.append("\n✗ " + sanitize(self.error or ""), style=style("mw-row--error"))
        return text

    def action_flip(self) -> None:
        self.value = not self.value
        self.set_class(not self.value, "-off")
        self.refresh()
        self.post_message(self.Toggled(self, self.value))

    def on_click(self, event: Click) -> None:
        if event.y == 0:  # the switch's line (the rest is there to read, and to select)
            self.action_flip()

    def show(self, enabled: bool, stats: str, error: str | None) -> None:
        """Show the switch, stats line and error; nothing is redrawn when they are the
        same (a redraw of the row re-lays out the panel)."""
        shown = (enabled, stats, error)
        if shown == self._shown:
            return
        self._shown = shown
        lines = (self.error is None) != (error is None)  # its height changes
        self.value, self.stats, self.error = enabled, stats, error
        self.set_class(not enabled, "-off")
        self.set_class(bool(error), "-failed")
        self.refresh(layout=lines or self.size.height == 0)

    def forget_shown(self) -> None:
        """The switch was flipped by hand: the next ``show`` sets it again, also back
        if the flip was refused."""
        self._shown = None


class MiddlewarePanel(VerticalScroll):
    """The switches; ``stack`` is the agent's ``MiddlewareStack``."""

    DEFAULT_CSS = """
    MiddlewarePanel { height: 1fr; background: $surface; scrollbar-size-vertical: 1; }
    MiddlewarePanel > #mw-title { color: $text-muted; padding: 0 0 1 0; }
    MiddlewarePanel > #mw-loading { color: $text-muted; }
    MiddlewarePanel > #mw-rows { height: auto; display: none; }
    """

    def __init__(self, stack: Any, switches: Switches | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stack = stack
        self.switches = switches or Switches(stack.is_enabled, stack.set_enabled)
        self.failed: dict[str, str] = {}
        self._built = False
        self._rows: list[MiddlewareRow] = []

    def compose(self) -> ComposeResult:
        yield Static("Switches apply at the next hook · F2 hides", id="mw-title")
        if not len(self.stack):
            yield Static("No middleware in the stack.", classes="mw-desc")
        else:
            yield Static(f"Loading {len(self.stack)} middleware…", id="mw-loading")
        yield Vertical(id="mw-rows")

    async def build_rows(self) -> None:
        """The rows, made the first time the panel is shown: a row per middleware is
        most of the app's widgets, and the first frame should not wait for them.

        A row is one widget (it was 7: 20 rows took ~0.9 s of CPU); the panel still
        says "Loading…" from its first frame and the rows are mounted into a hidden
        box, shown together once all are composed."""
        if self._built:
            return
        self._built = True
        rows = [
            MiddlewareRow(name, getattr(self.stack.get(name), "description", ""), self.switches.is_on(name))
            for name in self.stack.names()
        ]
        box = self.query_one("#mw-rows", Vertical)
        await box.mount_all(rows)
        self._rows = rows
        self.refresh_stats()
        box.display = True  # an inline style: a class would restyle every row again
        await self.query("#mw-loading").remove()

    def _start_building(self) -> None:
        if not self._built:  # once, however often F2 was pressed meanwhile
            self.run_worker(self.build_rows(), group="rows")

    @property
    def loaded(self) -> bool:
        """The rows are built and on show (until then the panel says "Loading…")."""
        return bool(self._rows) and self.query_one("#mw-rows").display

    def on_mount(self) -> None:
        self._timer = self.set_interval(REFRESH_S, self.refresh_stats, pause=True)

    @property
    def shown(self) -> bool:
        """On screen: the side panel is open on this tab."""
        return self.has_class("-shown")

    def set_shown(self, shown: bool) -> None:
        self.set_class(shown, "-shown")
        if shown:
            if not self._built:
                # after the frame that shows the panel ("Loading…"): started at once,
                # the building held that frame back for seconds on a busy machine
                self.call_after_refresh(self._start_building)
            self.refresh_stats()
            self._timer.resume()
        else:
            self._timer.pause()

    def rows(self) -> list[MiddlewareRow]:
        """The rows, once built (kept in a list: a DOM query at every tick matched
        CSS selectors against every widget of the panel)."""
        return list(self._rows)

    def refresh_stats(self) -> None:
        for row in self.rows():
            name = row.mw_name
            if name not in self.stack:
                continue
            stats = self.stack.stats(name)
            hooks = ", ".join(f"{h} {s.calls}" for h, s in stats.hooks.items()) or "no hooks"
            calls = f"{stats.calls} call{'' if stats.calls == 1 else 's'}"
            line = f"{calls} · {stats.time_s * 1000:.1f} ms · {hooks}"
            row.show(self.switches.is_on(name), line, self.failed.get(name) or stats.last_error)

    def mark_failed(self, name: str, error: str) -> None:
        self.failed[name] = error
        self.refresh_stats()

    def on_middleware_row_toggled(self, event: MiddlewareRow.Toggled) -> None:
        event.stop()
        self.switches.set_on(event.row.mw_name, event.value)
        event.row.forget_shown()
        self.refresh_stats()  # a refused flip goes back at once
