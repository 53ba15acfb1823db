"""Which tool calls of a reply fold into a group row, and when.

A *run* is calls of one tool that a reply made one after another, nothing else
between them in the conversation. Once a run has ``GROUP_MIN`` calls, those that
went well ("done") leave the conversation and are counted in one row at the run's
top (``▶ read_file ⨉ 412 (410 ok, 2 failed)``, :class:`~.widgets.call_group.CallGroup`).
A call that failed, was blocked or rejected, or is still running or awaiting
approval is never folded: it stays a span of its own under the row; nor is a span
the user opened.

A resumed session is shown the same way (:func:`fold_runs`).

Folding is done a batch at a time (``FOLD_EVERY_S``): taking entries out of the
conversation is one pass over it, and a turn of 1,000 calls ends hundreds a second.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from shell.frontend.reply import CallView

from .entries import Entry, GroupEntry, SpanEntry

GROUP_MIN = 5
"""Fewer calls of a tool in a row than this stay spans (two reads are clearer as two)."""
FOLD_EVERY_S = 0.25
"""Finished calls are folded this often (and once more as the reply ends)."""


@dataclass(eq=False)
class Run:
    """Calls of one tool in a row, and their group row once there is one."""

    name: str
    spans: list[SpanEntry] = field(default_factory=list)
    calls: list[CallView] = field(default_factory=list)
    group: GroupEntry | None = None

    def add(self, entry: SpanEntry) -> None:
        self.spans.append(entry)
        self.calls.append(entry.state)

    def foldable(self) -> list[SpanEntry]:
        """The spans to fold now: those that went well, once the run is long enough."""
        if len(self.spans) < GROUP_MIN:
            return []
        return [s for s in self.spans if not s.folded and s.state.status == "done" and not s.opened()]

    def first_shown(self) -> SpanEntry | None:
        """The run's first span still in the conversation (the group row goes there)."""
        return next((s for s in self.spans if not s.folded), None)


def fold_runs(entries: list[Entry]) -> list[Entry]:
    """Entries rebuilt from a saved conversation, each run of ``GROUP_MIN`` or more calls
    of one tool as its group row, then the run's calls that did not go well (as a live
    reply leaves them)."""
    out: list[Entry] = []
    run: list[SpanEntry] = []

    def close() -> None:
        if len(run) >= GROUP_MIN:
            out.append(GroupEntry(run[0].state.name, [s.state for s in run]))
            out.extend(s for s in run if s.state.status != "done")
        else:
            out.extend(run)
        run.clear()

    for entry in entries:
        if isinstance(entry, SpanEntry) and (not run or run[0].state.name == entry.state.name):
            run.append(entry)
            continue
        close()
        if isinstance(entry, SpanEntry):
            run.append(entry)
        else:
            out.append(entry)
    close()
    return out
