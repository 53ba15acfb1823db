"""The trace view (the side panel's Trace tab): each reply as a tree of spans.

reply > model calls and tool calls, with durations, token counts, tool status,
approvals and errors, and the time each middleware spent in the reply. The spans
are the ``Tracing`` middleware's own ``TraceSpan`` objects (``Tracing.traces``),
which it updates in place as the reply runs; ``CustomEvent("trace")`` only says
*something changed*. So this view never redraws on an event: it marks itself
dirty and a timer syncs the tree at most ``REFRESH_S`` apart, and only while the
view is open. Nodes are added and relabelled, never rebuilt, so what the user
expanded or selected stays put.

Tracing costs nothing until something asks for its tree, so opening the view
switches ``tree`` on (and the middleware, if it was off, saying so once); closing
it puts both back as the user had them. Replies that Tracing did not see (sent
before the view was first opened, or while it was closed) are listed all the
same, from the main screen's :class:`~shell.tui.replylog.ReplyLog`: their tools,
time and tokens. Every reply keeps the one number the log gave it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from .. import tracefmt
from ..replylog import ReplyLog, ReplyRecord

REFRESH_S = 0.25
TRACING = "Tracing"
HINT = "Replies, newest first: model calls, tools, middleware time."
EMPTY = "No reply yet: each reply appears here, live."
NO_TRACING = "Tracing is not in the middleware stack: each reply shows its tools only."
UNTRACED = "Replies sent while the view was closed show their tools only (Tracing was off for them)."
UNTREED = ("Replies sent while the view was closed show their tools only: Tracing was on, but it keeps "
           "the tree this view draws only while the view is open")
"""The note when Tracing was on for some of them: only its tree was off (R18)."""


class TraceView(Vertical):
    """Shows ``Tracing.traces`` (newest reply first) from the agent's middleware ``stack``."""

    DEFAULT_CSS = """
    TraceView { height: 1fr; }
    TraceView #trace-note { color: $text-muted; padding: 0 0 1 0; }
    TraceView Tree { height: 1fr; background: $surface; padding: 0; scrollbar-size-vertical: 1;
        overflow-x: hidden; }
    TraceView > .trace--ok { color: $success; }
    TraceView > .trace--error { color: $error; }
    TraceView > .trace--warning { color: $warning; }
    TraceView > .trace--running { color: $accent; }
    TraceView > .trace--muted { color: $foreground-muted; }
    TraceView > .trace--name { color: $foreground; text-style: bold; }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "trace--ok",
        "trace--error",
        "trace--warning",
        "trace--running",
        "trace--muted",
        "trace--name",
    }

    def __init__(
        self, stack: Any, *, id: str | None = None, clock: Callable[[], float] = time.time,
        replies: ReplyLog | None = None,
    ) -> None:
        super().__init__(id=id)
        self.stack = stack
        self.replies = replies if replies is not None else ReplyLog()
        """The replies sent (numbered), whether Tracing saw them or not."""
        self.clock = clock
        """What "now" is for spans still running (tests pass a fixed one)."""
        self.active = False
        self.dirty = True
        self._span_nodes: dict[int, TreeNode[Any]] = {}  # id(span or marker) -> node
        self._labels: dict[int, str] = {}
        self._numbers: dict[int, int] = {}  # id(root) -> reply number, in order of arrival
        self._settled: set[int] = set()  # roots drawn after they closed: never change again
        self._with_middleware: set[int] = set()  # roots whose middleware times are shown
        self._counter = 0
        self._restore: tuple[bool, bool] | None = None  # (enabled, tree) before we opened
        self._told = False

    def compose(self) -> ComposeResult:
        yield Static("", id="trace-note")
        tree: Tree[Any] = Tree("replies", id="trace-tree")
        tree.show_root = False
        tree.guide_depth = 2
        yield tree

    def on_mount(self) -> None:
        self._timer = self.set_interval(REFRESH_S, self._tick, pause=True)

    @property
    def span_tree(self) -> Tree[Any]:
        return self.query_one("#trace-tree", Tree)

    @property
    def tracing(self) -> Any:
        return self.stack.get(TRACING) if TRACING in self.stack else None

    # -- open and close ---------------------------------------------------------------
    def set_active(self, active: bool) -> None:
        """Opened (the Trace tab is visible) or closed."""
        if active == self.active:
            return
        self.active = active
        if active:
            self._switch_on()
            self.dirty = True
            self.redraw()
            self._timer.resume()
        else:
            self._timer.pause()
            self._switch_back()

    def _switch_on(self) -> None:
        tracing = self.tracing
        note = self.query_one("#trace-note", Static)
        if tracing is None:
            note.update(Text(NO_TRACING))
            return
        was_on = bool(self.stack.is_enabled(TRACING))
        self._restore = (was_on, bool(tracing.tree))
        tracing.tree = True
        if not was_on:
            self.stack.set_enabled(TRACING, True)
            if not self._told:
                self._told = True
                self.notify("Tracing switched on while the trace view is open.", title="Trace")
        note.update(Text(HINT))

    def _switch_back(self) -> None:
        tracing, restore, self._restore = self.tracing, self._restore, None
        if tracing is None or restore is None:
            return
        was_on, had_tree = restore
        tracing.tree = had_tree
        if not was_on and self.stack.is_enabled(TRACING):
            self.stack.set_enabled(TRACING, False)

    # -- updates ----------------------------------------------------------------------
    def changed(self) -> None:
        """A span opened or closed somewhere: redraw at the next tick (cheap to call)."""
        self.dirty = True

    def _tick(self) -> None:
        tracing = self.tracing
        traces = tracing.traces if tracing is not None else ()
        running = any(r.end is None for r in traces) or any(r.ended is None for r in self.replies.records)
        if self.dirty or running or len(self._numbers) != len(traces) + len(self.replies.records):
            self.redraw()

    def redraw(self) -> None:
        """Sync the tree with ``Tracing.traces`` and the reply log (new nodes added,
        labels updated), oldest first, so the newest lands on top."""
        self.dirty = False
        tracing = self.tracing
        if not self.is_mounted:
            return
        roots = list(tracing.traces) if tracing is not None else []
        traced = {str(r.attributes.get("agent_shell.reply.id", "")): r for r in roots}
        items: list[tuple[float, Any]] = [(r.start, r) for r in roots]
        untraced = [r for r in self.replies.records if r.reply_id and r.reply_id not in traced]
        items += [(r.started, r) for r in untraced]
        alive = {id(item) for _, item in items}
        for key in [k for k in self._numbers if k not in alive]:  # fell out of ``keep``
            self._forget(key)
        if tracing is None:
            note = NO_TRACING
        else:
            note = HINT + (" " + _untraced_note(untraced) if untraced else "") if items else EMPTY
        self.query_one("#trace-note", Static).update(Text(note))
        now = self.clock()
        styles = self._styles()
        for _, item in sorted(items, key=lambda pair: pair[0]):
            if isinstance(item, ReplyRecord):
                self._sync_record(item, now, styles)
            else:
                self._sync_root(item, now, styles)

    def _number(self, key: int, reply_id: str) -> int:
        """The log's number for the reply (the one the user has seen), else the next."""
        number = self.replies.number_of(reply_id)
        if number is None:
            self._counter += 1
            number = self._counter
        self._numbers[key] = number
        return number

    def _new_reply_node(self, data: Any) -> TreeNode[Any]:
        for older in self.span_tree.root.children:
            older.collapse()
        first = self.span_tree.root.children[0] if self.span_tree.root.children else None
        node = self.span_tree.root.add("", data=data, before=first, expand=True)
        self._span_nodes[id(data)] = node
        return node

    def _sync_record(self, record: ReplyRecord, now: float, styles: dict[str, Style]) -> None:
        """A reply Tracing did not see: its calls, from the front-end core's state."""
        key = id(record)
        if key in self._settled:
            return
        node = self._span_nodes.get(key)
        if node is None:
            self._numbers[key] = record.number
            node = self._new_reply_node(record)
        self._relabel(node, key, tracefmt.record_label(record, now, styles))
        for call in record.state.calls.values():
            child = self._span_nodes.get(id(call))
            if child is None:
                child = self._span_nodes[id(call)] = node.add_leaf("")
            self._relabel(child, id(call), tracefmt.call_label(call, styles))
        if record.ended is not None:
            self._settled.add(key)

    def _styles(self) -> dict[str, Style]:
        return {
            role: self.get_component_rich_style(f"trace--{role}", partial=True)
            for role in ("ok", "error", "warning", "running", "muted", "name")
        }

    def _sync_root(self, root: Any, now: float, styles: dict[str, Style]) -> None:
        key = id(root)
        if key in self._settled:
            return
        node = self._span_nodes.get(key)
        if node is None:
            self._number(key, str(root.attributes.get("agent_shell.reply.id", "")))
            node = self._new_reply_node(root)
        self._relabel(node, key, tracefmt.label(root, now, self._numbers[key], styles))
        for child in root.children:
            self._sync_span(node, child, now, styles)
        for event in root.events:
            if id(event) not in self._span_nodes:
                self._span_nodes[id(event)] = node.add_leaf(tracefmt.event_label(event, styles))
        times = tracefmt.middleware_times(root)
        if times and key not in self._with_middleware:
            self._with_middleware.add(key)
            mw = node.add(tracefmt.middleware_label(times, styles), expand=False)
            for name, seconds in times:
                mw.add_leaf(tracefmt.middleware_row(name, seconds, styles))
        if root.end is not None:
            self._settled.add(key)

    def _forget(self, key: int) -> None:
        node = self._span_nodes.pop(key)
        root: Any = node.data
        if isinstance(root, ReplyRecord):
            for call in root.state.calls.values():
                self._span_nodes.pop(id(call), None)
                self._labels.pop(id(call), None)
        else:
            for span in root.walk():
                self._span_nodes.pop(id(span), None)
                self._labels.pop(id(span), None)
            for event in root.events:
                self._span_nodes.pop(id(event), None)
        node.remove()
        self._numbers.pop(key)
        self._settled.discard(key)
        self._with_middleware.discard(key)

    def _sync_span(self, parent: TreeNode[Any], span: Any, now: float, styles: dict[str, Style]) -> None:
        key = id(span)
        node = self._span_nodes.get(key)
        if node is None:
            node = parent.add("", data=span, expand=True, allow_expand=bool(span.children))
            self._span_nodes[key] = node
        self._relabel(node, key, tracefmt.label(span, now, None, styles))
        for child in span.children:
            self._sync_span(node, child, now, styles)

    def _relabel(self, node: TreeNode[Any], key: int, label: Text) -> None:
        plain = label.plain
        if self._labels.get(key) != plain:
            self._labels[key] = plain
            node.set_label(label)

    def lines(self) -> list[str]:
        """The visible tree as plain text lines (tests, and a copyable summary)."""
        out: list[str] = []

        def visit(node: TreeNode[Any], depth: int) -> None:
            for child in node.children:
                out.append("  " * depth + str(child.label))
                if child.is_expanded:
                    visit(child, depth + 1)

        visit(self.span_tree.root, 0)
        return out


def _untraced_note(untraced: list[ReplyRecord]) -> str:
    """Why replies have no tree: Tracing was off for them, or only its tree was."""
    on = sum(r.tracing_on for r in untraced)
    if not on:
        return UNTRACED
    return UNTREED + (" (and off for some of them)." if on < len(untraced) else ".")
