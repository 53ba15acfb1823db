"""The side panel (F2): two tabs, Middleware and Trace.

It owns only showing, hiding and which tab is open, and tells each tab whether it
is the one on screen: the middleware switches refresh their stats and the trace
view keeps Tracing's tree on only while they are seen, so a hidden panel costs
nothing.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import TabbedContent, TabPane

from ..replylog import ReplyLog
from .middleware_panel import MiddlewarePanel, Switches
from .trace_view import TraceView

MIDDLEWARE_TAB = "tab-middleware"
TRACE_TAB = "tab-trace"


class SidePanel(Vertical):
    """Docked at the right; hidden until F2 (or ``/trace``) opens it."""

    DEFAULT_CSS = """
    SidePanel { dock: right; width: 52; max-width: 50%; height: 1fr; background: $surface;
        border-left: tall $panel; display: none; }
    SidePanel.-shown { display: block; }
    SidePanel TabbedContent { height: 1fr; }
    SidePanel TabPane { padding: 0 1; height: 1fr; }
    SidePanel ContentSwitcher { height: 1fr; }
    """

    def __init__(
        self, stack: Any, switches: Switches | None = None, *, id: str | None = None,
        replies: ReplyLog | None = None,
    ) -> None:
        super().__init__(id=id)
        self.stack = stack
        self.switches = switches
        self.replies = replies

    def compose(self) -> ComposeResult:
        with TabbedContent(initial=MIDDLEWARE_TAB):
            with TabPane("Middleware", id=MIDDLEWARE_TAB):
                yield MiddlewarePanel(self.stack, self.switches, id="panel")
            with TabPane("Trace", id=TRACE_TAB):
                yield TraceView(self.stack, id="trace", replies=self.replies)

    @property
    def middleware(self) -> MiddlewarePanel:
        return self.query_one(MiddlewarePanel)

    @property
    def trace(self) -> TraceView:
        return self.query_one(TraceView)

    @property
    def shown(self) -> bool:
        return self.has_class("-shown")

    @property
    def tab(self) -> str:
        return self.query_one(TabbedContent).active

    def toggle(self) -> None:
        self.set_shown(not self.shown)

    def open(self, tab: str) -> None:
        """Show the panel on ``tab`` (``MIDDLEWARE_TAB`` or ``TRACE_TAB``)."""
        self.query_one(TabbedContent).active = tab
        self.set_shown(True)

    def set_shown(self, shown: bool) -> None:
        self.set_class(shown, "-shown")
        self._sync()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        event.stop()
        self._sync()

    def _sync(self) -> None:
        tab = self.tab
        self.middleware.set_shown(self.shown and tab == MIDDLEWARE_TAB)
        self.trace.set_active(self.shown and tab == TRACE_TAB)
