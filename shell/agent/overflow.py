"""A message whose reply failed before any answer is taken back out of the history.

Why: the history is what every later request sends, and user turns in a row are
sent as one (:mod:`shell.providers.turns`). A message the provider could not take
(a long paste, a large attachment, on a small-context local model) kept there made
each later message fail the same way, and the only way out was /clear, which throws
the good part away too. Compaction runs before each model call
(``on_compress_context``); when the request still does not fit, the reply's own
input is the part to give back: the history is then as it was before the message,
and the front end returns its text to the user to shorten, attach less, or send
again after /compact.

Any other failed call (connection refused, a 500, a rate limit a retrying layer
gave up on) is the same for the message: kept, it went out glued to the user's next
one ("delete the logs" failed, then "no, just list them" sent both), and the user
who retypes it sent it twice. So it is taken back too, the way Esc before the first
word takes it back (:meth:`shell.agent.reply.Reply.withdraw_unanswered`): only the
failure that ends the reply counts (a retrying ``on_model_call`` that then succeeds
is not one).

So is any other error that ends the reply there (finding E1): a middleware that
raised (``transform_system_prompt``, an ``on_model_call`` before its first chunk),
a ChatModel that raised something other than a :class:`ModelError`, a limit that
stopped the first turn (``StopReply``: the turn it stopped is not kept either). The
error told the user to switch the layer off and carry on; kept, the message they
had changed their mind about went out glued to the next one.

Only when the input is still the end of the history: once the model has answered
(a partial answer, a turn, tool results), the failure is not the message's alone,
and nothing is taken out.
"""

from __future__ import annotations

from collections.abc import Sequence

from shell.core.messages import Message
from shell.core.model import ModelError

OVERFLOW_ADVICE = (
    "Your message was taken back out of the conversation, so the ones after it are not stuck "
    "behind it: if it was long, shorten it or attach less (or /compact first), then send it again."
)
"""Added to the provider's error when the input that did not fit was taken back."""

FAILED_ADVICE = (
    "No answer had arrived, so your message was taken back out of the conversation: it is not "
    "sent again with your next one. Send it again when the model can answer."
)
"""Added to the provider's error when the input of any other failed call was taken back."""

STOPPED_ADVICE = (
    "No answer had arrived, so your message was taken back out of the conversation: it is not "
    "sent again with your next one."
)
"""Added to any other error (a middleware's, a ChatModel's own) when the input was taken back."""


def withdrawn_advice(exc: BaseException) -> str:
    """What the error adds when the input was taken back because of ``exc``."""
    if not isinstance(exc, ModelError):
        return STOPPED_ADVICE
    return OVERFLOW_ADVICE if exc.context_overflow else FAILED_ADVICE


def take_back(history: list[Message], input: Sequence[Message], exc: BaseException) -> tuple[Message, ...]:
    """Remove ``input`` from the end of ``history`` when ``exc`` ended the reply (the
    model call failed, the context overflowed, a middleware raised or stopped it) and
    nothing of an answer joined the history after it; the messages removed (none
    otherwise). A cancel is not an error here (Esc has its own rule)."""
    if not isinstance(exc, Exception) or not input:
        return ()
    n = len(input)
    if len(history) < n or any(a is not b for a, b in zip(history[-n:], input, strict=True)):
        return ()
    del history[-n:]
    return tuple(input)
