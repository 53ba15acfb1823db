"""A message that does not fit the model's context is taken back out of the history.

Why: the history is what every later request sends. A message the provider could
not take (a long paste, a large attachment, on a small-context local model) kept
there makes each later message fail the same way, and the only way out was /clear,
which throws the good part away too. Compaction runs before each model call
(``on_compress_context``); when the request still does not fit, the reply's own
input is the part to give back: the history is then as it was before the message,
and the front end returns its text to the user to shorten, attach less, or send
again after /compact.

Only when the input is still the end of the history: once the model has answered
(a turn, tool results), the overflow is not the message's alone, and nothing is
taken out.
"""

from __future__ import annotations

from collections.abc import Sequence

from shell.core.messages import Message
from shell.core.model import ModelError

WITHDRAWN_ADVICE = (
    "Your message was taken back out of the conversation, so the ones after it are not stuck "
    "behind it: if it was long, shorten it or attach less (or /compact first), then send it again."
)
"""Added to the provider's error when the input was taken back."""


def take_back(history: list[Message], input: Sequence[Message], exc: BaseException) -> tuple[Message, ...]:
    """Remove ``input`` from the end of ``history`` when ``exc`` says the request did
    not fit the context; the messages removed (none otherwise)."""
    if not (isinstance(exc, ModelError) and exc.context_overflow) or not input:
        return ()
    n = len(input)
    if len(history) < n or any(a is not b for a, b in zip(history[-n:], input, strict=True)):
        return ()
    del history[-n:]
    return tuple(input)
