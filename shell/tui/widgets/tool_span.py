"""A tool call, live: status, name, argument summary and duration in the header;
arguments and result (highlighted, diffs for file edits) when expanded.

Arguments fill in as ``ToolCallDelta`` JSON arrives; the status follows the
events (preparing → checking permission…, when the check is slow → awaiting approval →
running → done / error / blocked / rejected). A span renders only from its
:class:`~shell.frontend.reply.CallView`, so it can be rebuilt at will.
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakKeyDictionary, WeakMethod

from textual.app import App, ComposeResult
from textual.color import Color
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Static
from textual.widgets._collapsible import CollapsibleTitle

from shell.core.textsafety import json_text, map_strings, sanitize, sanitize_line
from shell.frontend.reply import CallView

RESULT_LINES = 40
TITLE_CHROME = 2
"""Columns of the header's content that are not its label: the collapse symbol."""
MIN_SUMMARY = 8
"""Narrower than this, the argument summary is left out of the header."""
TITLE_STYLES: dict[str, str] = {
    "error": "$error", "blocked": "$warning", "rejected": "$warning", "cancelled": "$warning",
    "interrupted": "$warning", "approval": "bold $warning",
}
"""The header's colour by status (the rest: the header's own, ``$foreground``)."""
BORDERS: dict[str, str] = {"error": "error", "approval": "warning", "done": "success"}
"""The left border's theme colour by status (the rest: the stylesheet's ``$secondary``)."""
_theme_colors: WeakKeyDictionary[App[object], tuple[str, dict[str, Color]]] = WeakKeyDictionary()
"""Each app's border colours, for the theme they were made for (asking the app for its
variables costs ~1 ms)."""


def border_color(app: App[object], status: str) -> Color | None:
    """The border colour a status gets in the app's theme; None for the stylesheet's."""
    name = BORDERS.get(status)
    if name is None:
        return None
    theme, colors = _theme_colors.get(app, ("", {}))
    if theme != app.theme or not colors:
        variables = app.get_css_variables()
        colors = {n: Color.parse(variables[n]) for n in set(BORDERS.values())}
        _theme_colors[app] = (app.theme, colors)
    return colors[name]


class SpanTitle(CollapsibleTitle):
    """The header line, fitted to its width each time it renders: the label is
    made for the width it is drawn at, so no resize event can leave it stale."""

    DEFAULT_CSS = """
    SpanTitle { width: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, make_label: Callable[[int], str]) -> None:
        # Held weakly: the span that owns this title gives one of its methods, and a
        # strong link back made every span a cycle that only a full garbage
        # collection could free (see ``shell.tui.unlink``).
        self._label_ref = WeakMethod(make_label)
        super().__init__(
            label=Content(make_label(0)), collapsed_symbol="▶", expanded_symbol="▼", collapsed=True
        )
        self.status_style = ""
        """A style for the whole line (see ``TITLE_STYLES``): drawn, not a CSS class."""

    def render(self) -> Content:
        symbol = self.collapsed_symbol if self.collapsed else self.expanded_symbol
        # The width from the last layout (``size`` asks the compositor for a region,
        # which with the layout dirty computed the whole screen's, per span, per frame)
        width = max(0, self.outer_size.width - self.styles.gutter.width)
        line = Content.assemble(symbol, " ", self._make_label(width))
        return line.stylize(self.status_style) if self.status_style else line

    def _make_label(self, width: int) -> str:
        make_label = self._label_ref()
        return make_label(width) if make_label is not None else ""


class ToolSpan(Collapsible):
    """Collapsed by default; click the header to see arguments and result (the header
    is no Tab stop: the keyboard stays with the prompt)."""

    DEFAULT_CSS = """
    ToolSpan { border: none; border-left: outer $secondary; margin: 1 0 0 0; padding: 0;
        background: $surface; }
    ToolSpan > CollapsibleTitle { padding: 0 1; color: $foreground; }
    ToolSpan > Contents { padding: 0 1 0 2; height: auto; }
    ToolSpan .span-label { color: $text-muted; margin-top: 1; }
    ToolSpan .span-args, ToolSpan .span-asked, ToolSpan .span-result { background: $panel; padding: 0 1; }
    ToolSpan Button { min-width: 10; height: 1; border: none; margin: 0; background: $panel; }
    """

    def __init__(self, state: CallView, *, collapsed: bool = True) -> None:
        self.state = state
        self._show_all = False
        self._status = ""
        self._body_built = False
        self._styled = False
        # Content, not str: a str title is parsed as markup, and arguments are the
        # model's words ("[/bold]" in a path raised MarkupError and stopped the reply).
        self._plain_title = self._make_title(0)
        super().__init__(title=Content(self._plain_title), collapsed=collapsed)  # type: ignore[arg-type]
        self._title = self._header = SpanTitle(self._make_title)
        self._title.can_focus = False
        self._title.collapsed = collapsed

    def compose(self) -> ComposeResult:
        yield self._title
        with self.Contents():
            if not self.collapsed:
                yield from self._body()

    def _body(self) -> list[Widget]:
        """Arguments and result, built when first shown: a collapsed span is three
        widgets, not eight (every layout pass walks every mounted widget, and a turn
        can bring hundreds of spans)."""
        self._body_built = True
        show_all = Button("show all", id="show-all", compact=True)
        show_all.display = self._can_show_more()
        asked_label = Static("the model asked for", classes="span-label", id="asked-label")
        asked = Static(self._asked_renderable(), classes="span-asked")
        asked_label.display = asked.display = self.state.asked_args is not None
        return [
            Static(self._args_label(), classes="span-label", id="args-label"),
            Static(self._args_renderable(), classes="span-args"),
            asked_label,
            asked,
            Static("result", classes="span-label", id="result-label"),
            Static(self._result_renderable(), classes="span-result"),
            show_all,
        ]

    def _can_show_more(self) -> bool:
        return not self._show_all and len(self._result_lines()) > RESULT_LINES

    def _make_title(self, width: int) -> str:
        """Icon, name, argument summary, then status and duration. The summary gets
        what the width leaves, so the status and duration are never cut off."""
        s = self.state
        tail = s.label
        if s.duration_s is not None:
            tail += f" · {s.duration_s:.1f}s"
        if s.modified:
            tail += f" · modified by {s.modified_by or 'you'}"
        if s.progress and s.status == "running":
            tail += f" · {s.progress}"
        if s.warning:
            done = [w for w in ("moved out", "NOT written") if w in s.warning]
            tail += f" · ⚠ files that run later {' / '.join(done) or 'touched'} (see result)"
        head = f"{s.icon} {s.name}"
        room = (width or 100) - TITLE_CHROME - len(head) - len(tail) - len("  — ") - len(" ()")
        summary = s.summary(room) if room >= MIN_SUMMARY else ""
        if summary:
            head += f" ({summary})"
        return sanitize_line(f"{head}  — {tail}")

    def on_mount(self) -> None:
        self._styled = True  # (``is_mounted`` is not yet True while Mount is handled)
        self._apply_status()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, _theme: object) -> None:
        self._status = ""
        self._apply_status()

    @property
    def status_shown(self) -> str:
        """The status the span is styled for (the call's, once drawn)."""
        return self._status

    def _apply_status(self) -> None:
        """The status's colours, changed only when the status does, and never as a CSS
        class: a class restyled the span and all it holds (the stylesheet matched again
        for each node, ~0.8 ms a node: 2.4 ms a change, three changes a call). The
        header's colour is drawn with its line; the border is the span's own style."""
        status = self.state.status
        if status == self._status or not self._styled:
            return
        self._status = status
        self._header.status_style = TITLE_STYLES.get(status, "")
        color = border_color(self.app, status)
        if color is None:
            if self.styles.clear_rule("border_left"):
                self.refresh()
        else:
            self.styles.border_left = ("outer", color)

    def _args_renderable(self) -> Content:
        from ..highlight import syntax  # Pygments: not on the way to the first screen


        text = sanitize(self.state.args_json())
        if not text:
            return Content("…")
        return syntax(text, "json")

    def _args_label(self) -> Content:
        """``arguments``, or whose they are when they are not the model's."""
        s = self.state
        # Content, not str: a middleware's name is not markup
        return Content(f"arguments (as run, modified by {sanitize_line(s.modified_by or 'you')})"
                       if s.modified else "arguments")

    def _asked_renderable(self) -> Content:
        """The model's own arguments, kept beside a changed call's (empty otherwise)."""
        from ..highlight import syntax

        asked = self.state.asked_args
        if asked is None:
            return Content("")
        return syntax(sanitize(json_text(map_strings(asked, str), indent=2)), "json")

    def _result_lines(self) -> list[str]:
        body = self.state.diff or self.state.result
        return sanitize(body).splitlines()

    def _result_renderable(self) -> Content:
        from ..highlight import syntax

        s = self.state
        lines = self._result_lines()
        if not lines:
            pending = s.status in ("streaming", "checking", "approval", "running")
            return Content("(no result yet)" if pending else "(empty)")
        if not self._show_all and len(lines) > RESULT_LINES:
            hidden = len(lines) - RESULT_LINES
            lines = [*lines[:RESULT_LINES], f"… {hidden} more lines"]
        text = "\n".join(lines)
        if s.diff:
            return syntax(text, "diff")
        if s.is_error:
            return Content(text).stylize("bold")
        lexer = "json" if text.lstrip()[:1] in "[{" else "text"
        return syntax(text, lexer)

    def _sync_body(self) -> None:
        if not self.is_mounted or not self._body_built:
            return
        statics = self.query(".span-args, .span-result").results(Static)
        args, result = list(statics)
        args.update(self._args_renderable())
        self.query_one("#args-label", Static).update(self._args_label())
        asked = self.query_one(".span-asked", Static)
        asked.update(self._asked_renderable())
        asked.display = self.query_one("#asked-label", Static).display = self.state.asked_args is not None
        result.update(self._result_renderable())
        self.query_one("#show-all", Button).display = self._can_show_more()

    def update_state(self) -> None:
        """Re-render from ``state`` (call after changing it); what did not change is
        left alone (a turn of 1,000 calls brings several events per call).

        The header is one line whatever it says, so a change repaints that line and
        lays nothing out: the plain title is set without its watcher (which would
        update the header's label, a layout of the whole screen at the next frame),
        and the header is marked dirty by region (a refresh without one asks for
        the header's size, which, for a span out of view after a layout change,
        computes the whole screen's map there and then)."""
        title = self._make_title(0)
        if title != self._plain_title:
            self._plain_title = title
            label = Content(title)
            self.set_reactive(Collapsible.title, label)  # type: ignore[misc]  # a str reactive; Content: no markup
            self._title.set_reactive(CollapsibleTitle.label, label)  # (what it draws is its render)
        self._apply_status()
        header = self._title
        header.refresh(Region(0, 0, max(1, header.outer_size.width), 1))
        if not self.collapsed:
            self._sync_body()

    def show(self, state: CallView) -> None:
        """Show another call (a span reused for a newer call as the older one
        leaves the window: a turn of 1,000 calls builds about a window's worth of
        spans, not 1,000). Collapsed spans only (see ``SpanEntry.take``)."""
        self.state = state
        self._show_all = False
        self._plain_title = ""
        self.update_state()

    def _watch_collapsed(self, collapsed: bool) -> None:
        super()._watch_collapsed(collapsed)
        if collapsed:
            return
        if self._body_built:
            self._sync_body()
        elif self.is_mounted:
            self.query_one(Collapsible.Contents).mount_all(self._body())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "show-all":
            event.stop()
            self._show_all = True
            self._sync_body()
