"""Many finished calls of one tool in one reply, as one row: ``▶ read_file ⨉ 412
(410 ok, 2 failed)``; opened (click, or Tab to it and Enter), one line per call.

A reply of 1,000 ``read_file`` calls is one line a user can take in, not a
thousand spans to scroll past. Only calls that went well are folded into it: a
failed, blocked or rejected call, and one still running or awaiting approval,
stays a span of its own under the row (see :mod:`shell.tui.grouping`). The row
renders from the calls it is given, so it can be rebuilt at will.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Collapsible, Static
from textual.widgets._collapsible import CollapsibleTitle

from shell.core.textsafety import sanitize_line
from shell.frontend.reply import CallView, call_lines

COUNTED = (("done", "ok"), ("error", "failed"), ("blocked", "blocked"), ("rejected", "rejected"),
           ("cancelled", "cancelled"), ("interrupted", "interrupted"))
"""What the row counts, in this order; the rest is counted as still running."""
TIMES = "\N{MULTIPLICATION SIGN}"


def group_label(name: str, calls: Sequence[CallView]) -> str:
    """``read_file ⨉ 412 (410 ok, 2 failed)``: the tool, how many calls, how they ended."""
    counts: Counter[str] = Counter(call.status for call in calls)
    parts = [f"{counts[status]} {word}" for status, word in COUNTED if counts[status]]
    live = len(calls) - sum(counts[status] for status, _ in COUNTED)
    if live:
        parts.append(f"{live} running")
    return sanitize_line(f"{name} {TIMES} {len(calls)} ({', '.join(parts)})")


class CallGroup(Collapsible):
    """Collapsed by default; its body (a line per call) is built when first opened."""

    DEFAULT_CSS = """
    CallGroup { border: none; border-left: outer $secondary; margin: 1 0 0 0; padding: 0;
        background: $surface; }
    CallGroup > CollapsibleTitle { padding: 0 1; color: $foreground; width: 1fr; text-wrap: nowrap;
        text-overflow: ellipsis; }
    CallGroup > Contents { padding: 0 1 0 2; height: auto; }
    CallGroup .group-calls { color: $text-muted; }
    """

    def __init__(self, name: str, calls: Sequence[CallView], *, collapsed: bool = True) -> None:
        self.tool_name = name
        self.calls = calls
        self._label = group_label(name, calls)
        super().__init__(title=Content(self._label), collapsed=collapsed)  # type: ignore[arg-type]
        # (its header is a Tab stop, unlike a span's: Enter opens it; a reply has few groups)
        self._body: Static | None = None

    @property
    def label(self) -> str:
        return self._label

    def compose(self) -> ComposeResult:
        yield self._title
        with self.Contents():
            if not self.collapsed:
                yield self._make_body()

    def _make_body(self) -> Static:
        self._body = Static(self._lines(), classes="group-calls")
        return self._body

    def _lines(self) -> Content:
        return Content("\n".join(line for call in self.calls for line in call_lines(call, 100)))

    def update_calls(self) -> None:
        """Count again (a call of the group ended, or more were folded in)."""
        label = group_label(self.tool_name, self.calls)
        if label != self._label:
            self._label = label
            content = Content(label)
            self.set_reactive(Collapsible.title, content)  # type: ignore[misc]  # (Content: no markup)
            # one line, as wide as the conversation: repainted, not laid out (the label's
            # watcher lays out the screen, and the counts change a few times a second)
            title = self._title
            title.set_reactive(CollapsibleTitle.label, content)
            symbol = title.collapsed_symbol if title.collapsed else title.expanded_symbol
            title.update(Content.assemble(symbol, " ", content), layout=False)
        if self._body is not None and not self.collapsed:
            self._body.update(self._lines())

    def _watch_collapsed(self, collapsed: bool) -> None:
        super()._watch_collapsed(collapsed)
        if collapsed or not self.is_mounted:
            return
        if self._body is None:
            self.query_one(Collapsible.Contents).mount(self._make_body())
        else:
            self._body.update(self._lines())
