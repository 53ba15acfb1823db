"""What a cancelled reply keeps of the message it was streaming: one policy, so the
screen, the next request and a resumed session read the same.

The rule: the text handed to the front end before the cancel, as far as the front end
had shown it (a screen that draws slower than a flood says how much it drew: see
``Agent.cancel(shown=...)``), and never what arrived after the cancel. A flood is cut
to its first :data:`CANCELLED_KEEP` characters with a marker that says so: the model
reads the marker next turn, a resumed session shows it, and nothing else of the flood
is sent again with every request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .messages import AssistantMessage, Block, HintBlock, Message, TextBlock, ThinkingBlock, ToolCallBlock

CANCELLED_KEEP = 20_000
"""Characters of text and thinking a cancelled message keeps at most (a long answer
fits; a flood is cut: tens of MB sent again with every request would end the
conversation at the model's context limit)."""


def cut_marker(left_out: int) -> str:
    """The note that ends a cancelled message cut to :data:`CANCELLED_KEEP`."""
    return (f"\n\n[… {left_out:,} more characters of this reply are not kept: the reply was "
            f"cancelled, and a cancelled reply keeps its first {CANCELLED_KEEP:,} characters]")


def shown_part(key: str, text: str, shown: Mapping[str, int] | None) -> str:
    """``text`` of block ``key`` as far as the front end showed it (all of it when the
    front end did not say)."""
    if shown is None or key not in shown:
        return text
    return text[: max(0, shown[key])]


def cap_cancelled(blocks: Sequence[Block], keep: int = CANCELLED_KEEP) -> tuple[list[Block], int]:
    """``blocks`` with their text and thinking cut to ``keep`` characters in all (the
    first ones), the marker ending the last one kept; and how many were left out. A
    cut thinking block loses its signature (it signed the whole thought)."""
    total = sum(len(b.text) for b in blocks if isinstance(b, (TextBlock, ThinkingBlock)))
    if total <= keep:
        return list(blocks), 0
    left_out = total - keep
    out: list[Block] = []
    room = keep
    for block in blocks:
        if not isinstance(block, (TextBlock, ThinkingBlock)) or getattr(block, "redacted", False):
            out.append(block)  # a redacted thought has no text to cut, and the API wants it back
            continue
        if room <= 0:
            continue
        if len(block.text) > room:
            block = (TextBlock(block.text[:room]) if isinstance(block, TextBlock)
                     else ThinkingBlock(block.text[:room]))
        room -= len(block.text)
        out.append(block)
    marker = cut_marker(left_out)
    for at in range(len(out) - 1, -1, -1):
        last = out[at]
        if isinstance(last, TextBlock):
            out[at] = TextBlock(last.text + marker)
            break
    else:
        out.append(TextBlock(marker.lstrip()))
    return out, left_out


CUT_NOTES = {
    "cancelled": "[interrupted by the user: this reply was stopped here]",
    "interrupted": "[interrupted: agent-shell stopped before this reply ended]",
}
"""What the model reads at the end of its own message that was cut off, by the
message's ``stop_reason``: without it, the model read its cut answer as finished."""


def as_sent(messages: Sequence[Message]) -> list[Message]:
    """``messages`` as a provider sends them: a message cut off by a cancel (or by
    agent-shell stopping mid-reply, a resumed session's ``interrupted``) ends with a
    :data:`CUT_NOTES` hint. Only in the request: the history and the session keep what
    the screen showed, and the note is added again each time, so it never piles up."""
    return [_noted(m) if isinstance(m, AssistantMessage) and m.stop_reason in CUT_NOTES else m
            for m in messages]


def _noted(message: AssistantMessage) -> AssistantMessage:
    """The note goes after the message's words and before its tool calls (an API
    reads the calls last), a paragraph apart from any text."""
    note = CUT_NOTES[message.stop_reason]
    blocks = list(message.content)
    at = next((i for i, b in enumerate(blocks) if isinstance(b, ToolCallBlock)), len(blocks))
    said = any(isinstance(b, TextBlock) and b.text for b in blocks[:at])
    blocks.insert(at, HintBlock("\n\n" + note if said else note))
    return AssistantMessage(tuple(blocks), message.usage, message.stop_reason)
