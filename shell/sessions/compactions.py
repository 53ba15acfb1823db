"""The compactions a session file holds, read back: a ``history`` record that put a
summary in place of earlier turns follows the messages it replaced, so a resumed
session still knows what the user saw (``/export`` writes that, ``/compact show``
shows it), not only the summary the model is sent."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from shell.core.messages import Message, SystemMessage
from shell.core.summaryrecord import summary_of


@dataclass(frozen=True, slots=True)
class LoadedCompaction:
    """One compaction found in a session file."""

    before: list[Message]
    """The history as the record found it."""
    summary: Message
    """The summary message that stands in for ``before[head:head + replaced]``."""
    head: int
    replaced: int


def compaction_in(before: Sequence[Message], after: Sequence[Message]) -> LoadedCompaction | None:
    """The compaction that turned ``before`` into ``after``, None when ``after`` is not
    that shape (system messages, a new summary, then the tail ``before`` ended with)."""
    head = next((i for i, m in enumerate(after) if not isinstance(m, SystemMessage)), None)
    if head is None or summary_of(after[head]) is None:
        return None
    if head < len(before) and before[head] == after[head]:
        return None  # the summary was there already: not this record's
    kept = len(after) - head - 1
    replaced = len(before) - head - kept
    if replaced < 1 or (kept and list(before[-kept:]) != list(after[-kept:])):
        return None
    return LoadedCompaction(list(before), after[head], head, replaced)


def pointed_at(found: Sequence[LoadedCompaction], messages: Sequence[Message]) -> list[LoadedCompaction]:
    """``found`` with each summary that is in ``messages`` as an equal copy (a later
    record wrote the history again) pointed at that copy, which is the one a
    resumed history holds."""
    out = []
    for compaction in found:
        if not any(m is compaction.summary for m in messages):
            same = next((m for m in messages if m == compaction.summary), None)
            if same is not None:
                compaction = dataclasses.replace(compaction, summary=same)
        out.append(compaction)
    return out
