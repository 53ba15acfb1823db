"""The main screen shows what a slash command did.

A command's result is data (:class:`~shell.commands.CommandResult`): an action for
the screen (quit, help, the trace, the rewind dialog, a message to send, text to
copy), a conversation changed (new, resumed, rewound), or text to show.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .main_actions import KeyActions

if TYPE_CHECKING:
    from shell.commands import CommandResult


class CommandResults(KeyActions):
    """Results of slash commands, shown on the main screen."""

    async def show_result(self, line: str, result: CommandResult) -> None:
        from ..entries import AssistantEntry, NoticeEntry
        from ..widgets.side_panel import TRACE_TAB

        if result.action == "quit":
            self.app.exit(0)
            return
        if result.action == "help":
            self.action_help()
            return
        if result.action == "trace":
            self.side.open(TRACE_TAB)
            return
        if result.action == "rewind_dialog":
            self.shell.flow.open_rewind()
            return
        if result.action == "send" and isinstance(result.data, str):  # a custom command's message
            await self.submit_message(result.data)
            return
        if result.action == "copy" and isinstance(result.data, str):
            copied = self.shell.flow.copy(result.data)
            said = f"Copied {len(result.data):,} characters through {copied.how}. {copied.note}".strip()
            await self.conversation.add(NoticeEntry("info" if copied.ok else "warning",
                                                    said if copied.ok else copied.note))
            return
        await self._apply(result)
        if line.startswith("/model") and not result.error:
            self.status.model_label = self.shell.model_label
        self.show_usage()
        self.show_staged()
        if result.text:
            if result.error:
                entry: Any = NoticeEntry("error", result.text)
            elif result.action == "notice":
                entry = NoticeEntry(str(result.data or "info"), result.text)
            else:
                entry = AssistantEntry(result.text)
            await self.conversation.add(entry)
        self.panel.refresh_stats()

    async def _apply(self, result: CommandResult) -> None:
        """What a command changed in the conversation: a new one, a resumed one, one
        rewound (its message back in the prompt)."""
        from ..history import entries_from_messages

        rewound = result.action in ("rewind", "fork") and getattr(result.data, "conversation", False)
        if result.action in ("new", "resume") or rewound:
            await self.conversation.clear_entries()
            self.todos.set_todos([])
            if result.action in ("resume", "rewind", "fork"):
                entries = entries_from_messages(self.runtime.agent.messages, self.runtime.call_outcomes,
                                                self.runtime.call_notes, self.runtime.call_edits,
                                                self.runtime.call_editors)
                await self.conversation.add_many(entries)
        if rewound:
            self.give_back(result.data.text)
