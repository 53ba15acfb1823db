"""Tab completion in the line mode: slash commands and their arguments, and after ``@``
the workspace's files (the same index and search as the TUI's picker).
"""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from .commands import CommandRegistry
from .context.attachments import MENTION_AT_CURSOR
from .core.textsafety import sanitize_line
from .runtime import ShellRuntime


class SlashCompleter(Completer):
    """Slash commands, then their arguments (middleware names, on/off); and after
    ``@``, the workspace's files (the same index and search as the TUI's picker)."""

    def __init__(self, runtime: ShellRuntime, commands: CommandRegistry) -> None:
        self.runtime = runtime
        self.commands = commands

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        mention = MENTION_AT_CURSOR.search(text)
        if mention is not None:
            for match in self.runtime.file_index.search(mention.group(1), 30):
                path = match.path
                shown = f'@"{path}"' if any(c.isspace() or c == '"' for c in path) else f"@{path}"
                yield Completion(shown, start_position=-len(mention.group(0)),
                                 display=sanitize_line(shown), display_meta="folder" if match.is_dir else "")
            return
        word = text.rsplit(" ", 1)[-1] if " " in text else text
        for value, meta in self.commands.completions(self.runtime, text):
            yield Completion(value, start_position=-len(word), display_meta=meta)

