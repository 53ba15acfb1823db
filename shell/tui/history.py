"""A resumed conversation shown again: messages turned back into entries.

When the CLI resumes a session, ``agent.messages`` already holds the history;
the app rebuilds what the user saw (their messages, thinking, answers, tool spans
with their results, group rows of many calls, audio) without replaying any events. The conversation mounts
only the newest of them (``Conversation.add_many``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from shell.context.attachments import split_message
from shell.core.messages import (
    AssistantMessage,
    DataBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    UserMessage,
)
from shell.core.summaryrecord import summary_of
from shell.frontend.reply import CallView, calls_from_messages, end_notice

from .entries import AssistantEntry, AudioEntry, Entry, NoticeEntry, SpanEntry, ThinkingEntry, UserEntry
from .grouping import fold_runs

SUMMARY_SHOWN = "Summary of earlier turns (compacted: the model reads this instead of them):"


def entries_from_messages(
    messages: Sequence[Any], outcomes: Mapping[str, str] | None = None,
    notes: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    edits: Mapping[str, Mapping[str, Any]] | None = None,
    editors: Mapping[str, str] | None = None,
) -> list[Entry]:
    """``outcomes``: the session's calls stopped before they ran (rejected, blocked);
    ``notes``: what the sandbox moved out or did not write for its commands (their ⚠ again)."""
    entries: list[Entry] = []
    calls = calls_from_messages(messages, outcomes, notes, edits, editors)  # as other front ends read them
    for message in messages:
        if (summary := summary_of(message)) is not None:  # a record, not words the user typed
            entries.append(NoticeEntry("info", f"{SUMMARY_SHOWN}\n{summary}"))
        elif isinstance(message, UserMessage):
            words, chips = split_message(message)
            entries.append(UserEntry(words, chips=tuple(chips)))
        elif isinstance(message, AssistantMessage):
            for i, block in enumerate(message.content):
                if isinstance(block, ThinkingBlock) and block.text.strip():
                    entries.append(ThinkingEntry(block.text))
                elif isinstance(block, TextBlock) and block.text:
                    entries.append(AssistantEntry(block.text))
                elif isinstance(block, ToolCallBlock):
                    entries.append(SpanEntry(calls[block.id]))
                elif isinstance(block, DataBlock) and block.media_type.startswith("audio/"):
                    entries.append(AudioEntry(f"history{len(entries)}-{i}", block.media_type, block.data))
            if _cancelled_at(message, calls):  # as it read live: not a finished answer
                entries.append(NoticeEntry("warning", end_notice("cancelled")))
    return fold_runs(entries)  # many calls of one tool in a row: one row, as they were shown live


def _cancelled_at(message: AssistantMessage, calls: Mapping[str, CallView]) -> bool:
    """Whether the reply was cancelled (Esc) at this message: its text was cut off (the
    session keeps it with ``stop_reason="cancelled"``) or its calls were (their results
    say so); a resumed session says "Reply cancelled." there, as the live one did."""
    if message.stop_reason == "cancelled":
        return True
    return any(calls[call.id].status == "cancelled" for call in message.tool_calls if call.id in calls)
