"""Keep secrets out of session files and exports: :mod:`shell.core.secrets` applied
to messages.

The shapes, the secret names and the values of the environment and config are
the secrets module's (the one policy, shared with traces, ``agent-shell config``,
errors and the prompt history); this adds the walk over a message's blocks.
Data blocks (audio, images) are bytes and pass as they are.
"""

from __future__ import annotations

from typing import Any

from shell.core.messages import (
    AssistantMessage,
    Block,
    HintBlock,
    Message,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from shell.core.secrets import MIN_SECRET_LEN, REDACTED, Secrets, is_secret_name, secret_values

__all__ = ["MIN_SECRET_LEN", "NO_REDACTION", "REDACTED", "Redactor", "is_secret_name", "redact",
           "secret_values"]


class Redactor(Secrets):
    """:class:`~shell.core.secrets.Secrets` that also redacts messages and blocks, and
    remembers what it redacted by context.

    ``DB_PASSWORD=Tr0ub4dor-and-3-horses`` in a tool result is caught by its name;
    the model's answer "the password is Tr0ub4dor-and-3-horses" has no name to go by,
    and was written in clear (finding J3). A value redacted by its context once is
    redacted wherever it appears after, for this redactor's life (one session file,
    one export): the messages are redacted in the order they were said."""

    def text(self, text: str) -> str:
        found: list[bytes] = []
        redacted = self._redact(text, found)
        if found:
            self._learn(v.decode("utf-8", "ignore").strip() for v in found)
        return redacted

    def block(self, block: Block) -> Block:
        """A content block with its text redacted; data blocks (bytes) pass as they are."""
        if isinstance(block, TextBlock):
            return TextBlock(self.text(block.text))
        if isinstance(block, ThinkingBlock):
            return ThinkingBlock(self.text(block.text), block.signature, block.redacted)
        if isinstance(block, HintBlock):
            return HintBlock(self.text(block.text))
        if isinstance(block, ToolCallBlock):
            return ToolCallBlock(block.id, block.name, self.json(block.args))
        return block

    def content(self, content: str | tuple[Any, ...]) -> Any:
        if isinstance(content, str):
            return self.text(content)
        return tuple(self.block(b) for b in content)

    def message(self, message: Message) -> Message:
        """A copy of ``message`` with every text, argument and result redacted."""
        if isinstance(message, SystemMessage):
            return SystemMessage(self.text(message.text))
        if isinstance(message, UserMessage):
            return UserMessage(self.content(message.content))
        if isinstance(message, AssistantMessage):
            return AssistantMessage(self.content(message.content), message.usage, message.stop_reason)
        content = message.content
        redacted = self.content(content)
        if redacted is content:  # nothing to redact: the same message (a large text stays packed)
            return message
        return ToolResultMessage(message.call_id, message.name, redacted, message.is_error)


NO_REDACTION = Redactor(patterns=False)
"""For tests that need the raw text."""


def redact(text: str, redactor: Redactor | None = None) -> str:
    """``text`` with secrets replaced (the environment's redactor when none is given)."""
    return (redactor or Redactor.from_environment()).text(text)
