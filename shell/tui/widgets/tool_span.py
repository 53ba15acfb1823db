"""A tool call, live: status, name, argument summary and duration in the header;
arguments and result (highlighted, diffs for file edits) when expanded.

Arguments fill in as ``ToolCallDelta`` JSON arrives; the status follows the
events (preparing → awaiting approval → running → done / error / blocked / rejected). A
span renders only from its :class:`~shell.frontend.reply.CallView`, so it can be rebuilt at will.
"""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakMethod

from textual.app import ComposeResult
from textual.content import Content
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets import Button, Collapsible, Static
from textual.widgets._collapsible import CollapsibleTitle

from shell.core.textsafety import sanitize, sanitize_line
from shell.frontend.reply import CallView

RESULT_LINES = 40
TITLE_CHROME = 2
"""Columns of the header's content that are not its label: the collapse symbol."""
MIN_SUMMARY = 8
"""Narrower than this, the argument summary is left out of the header."""


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

    def render(self) -> Content:
        symbol = self.collapsed_symbol if self.collapsed else self.expanded_symbol
        # The width from the last layout (``size`` asks the compositor for a region,
        # which with the layout dirty computed the whole screen's, per span, per frame)
        width = max(0, self.outer_size.width - self.styles.gutter.width)
        return Content.assemble(symbol, " ", self._make_label(width))

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
    ToolSpan.-error { border-left: outer $error; }
    ToolSpan.-error > CollapsibleTitle { color: $error; }
    ToolSpan.-blocked > CollapsibleTitle, ToolSpan.-rejected > CollapsibleTitle,
    ToolSpan.-cancelled > CollapsibleTitle { color: $warning; }
    ToolSpan.-approval { border-left: outer $warning; }
    ToolSpan.-approval > CollapsibleTitle { color: $warning; text-style: bold; }
    ToolSpan.-done { border-left: outer $success; }
    ToolSpan > Contents { padding: 0 1 0 2; height: auto; }
    ToolSpan .span-label { color: $text-muted; margin-top: 1; }
    ToolSpan .span-args, ToolSpan .span-result { background: $panel; padding: 0 1; }
    ToolSpan Button { min-width: 10; height: 1; border: none; margin: 0; background: $panel; }
    """

    def __init__(self, state: CallView, *, collapsed: bool = True) -> None:
        self.state = state
        self._show_all = False
        self._status = ""
        self._body_built = False
        # Content, not str: a str title is parsed as markup, and arguments are the
        # model's words ("[/bold]" in a path raised MarkupError and stopped the reply).
        self._plain_title = self._make_title(0)
        super().__init__(title=Content(self._plain_title), collapsed=collapsed)  # type: ignore[arg-type]
        self._title = SpanTitle(self._make_title)
        self._title.can_focus = False
        self._title.collapsed = collapsed
        self._apply_classes()

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
        return [
            Static("arguments", classes="span-label"),
            Static(self._args_renderable(), classes="span-args"),
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
            tail += " · modified by you"
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

    def _apply_classes(self) -> None:
        """One class for the status, changed only when the status does: each change
        restyles the span and all it holds (once: the old class goes without a restyle)."""
        status = self.state.status
        if status == self._status:
            return
        if self._status:
            self.remove_class(f"-{self._status}", update=False)
        self.add_class(f"-{status}")
        self._status = status

    def _args_renderable(self) -> Content:
        from ..highlight import syntax  # Pygments: not on the way to the first screen


        text = sanitize(self.state.args_json())
        if not text:
            return Content("…")
        return syntax(text, "json")

    def _result_lines(self) -> list[str]:
        body = self.state.diff or self.state.result
        return sanitize(body).splitlines()

    def _result_renderable(self) -> Content:
        from ..highlight import syntax

        s = self.state
        lines = self._result_lines()
        if not lines:
            pending = s.status in ("streaming", "approval", "running")
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
        header = self._title
        header.refresh(Region(0, 0, max(1, header.outer_size.width), 1))
        self._apply_classes()
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
