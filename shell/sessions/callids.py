"""Tool-call ids made unique while a session file is read back.

Sessions saved before the agent renamed repeated ids hold several calls with one id
(Ollama numbers calls from ``call_0`` in every answer). Every record the file keeps by
call id (the user's rejection, an edit, a quarantine note, a result) then named them
all, and a resumed session showed a call that ran as rejected, with another call's
command (finding T8). A record always follows the call it is about, so the file's
order tells them apart: a repeated id is renamed where its call appears, and the
records after it go to that call.
"""

from __future__ import annotations

from dataclasses import replace

from shell.core.messages import AssistantMessage, Block, Message, ToolCallBlock, ToolResultMessage


class CallIds:
    """Renames the second and later calls with one id (``call_0`` → ``call_0_1``)."""

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._latest: dict[str, str] = {}

    def reset(self) -> None:
        """A ``history`` record: the conversation is the list that follows."""
        self._seen.clear()
        self._latest.clear()

    def of(self, call_id: str) -> str:
        """The id a record about ``call_id`` means: its latest call's."""
        return self._latest.get(call_id, call_id)

    def message(self, message: Message) -> Message:
        if isinstance(message, ToolResultMessage):
            call_id = self.of(message.call_id)
            return message if call_id == message.call_id else replace(message, call_id=call_id)
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            return message
        blocks: list[Block] = []
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                fresh = self._fresh(block.id)
                self._latest[block.id] = fresh
                block = block if fresh == block.id else replace(block, id=fresh)
            blocks.append(block)
        return replace(message, content=tuple(blocks))

    def _fresh(self, call_id: str) -> str:
        fresh, n = call_id, 1
        while fresh in self._seen:
            fresh, n = f"{call_id}_{n}", n + 1
        self._seen.add(fresh)
        return fresh


__all__ = ["CallIds"]
