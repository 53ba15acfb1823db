"""``PendingResults``: tool results written before their batch lands in the history.

A finished call's result is shown at once, but it joins ``agent.messages`` only when
every call of its batch is done. The recorder writes it as a ``tool_result`` record
straight away (a crash in between keeps it: the loader uses it instead of an
"interrupted" result), and when the batch lands, a ``results_landed`` record names
the results already in the file instead of writing them twice. This module keeps
what was written until then, to tell whether the landed message is that same one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shell.core.messages import Message, ToolResultMessage
from shell.core.packed_text import pack, unpack

Write = Callable[[dict[str, Any]], None]
"""Appends one record to the session file (:meth:`SessionWriter.write`)."""


class PendingResults:
    """``tool_result`` records in the file whose batch has not landed, by call id."""

    def __init__(self, write: Write) -> None:
        self._write = write
        self._kept: dict[str, dict[str, Any]] = {}  # as encoded, a large text packed

    def write(self, call_id: str, encoded: dict[str, Any]) -> None:
        """Write a finished call's (encoded) result as a ``tool_result`` record, and keep
        it until its batch lands (a large text packed: 1,000 results of a batch would
        otherwise be held twice, see :mod:`shell.core.packed_text`)."""
        self._write({"kind": "tool_result", "message": encoded})
        content = encoded.get("content")
        self._kept[call_id] = {**encoded, "content": pack(content)} if isinstance(content, str) else encoded

    def written_as(self, message: Message, encoded: dict[str, Any]) -> bool:
        """Whether ``message`` (``encoded``) is in the file already, exactly so, as a
        ``tool_result`` record: then it lands by name, not written again."""
        if not isinstance(message, ToolResultMessage):
            return False
        kept = self._kept.get(message.call_id)
        if kept is None:
            return False
        return ({**kept, "content": unpack(kept["content"])} if "content" in kept else kept) == encoded

    def land(self, results: list[Message]) -> None:
        """Results written as ``tool_result`` records reached the history: one
        ``results_landed`` record names them, in order."""
        call_ids = [m.call_id for m in results if isinstance(m, ToolResultMessage)]
        self._write({"kind": "results_landed", "call_ids": call_ids})
        for call_id in call_ids:
            self._kept.pop(call_id, None)

    def clear(self) -> None:
        """The history was rewritten whole (its records hold every result): none pending."""
        self._kept.clear()
