"""Tool-call ids as each provider's API takes them, mapped when it would refuse them.

Why: the history keeps every call's id as the model that made it wrote it, and
a conversation outlives its provider (``/model``, ``--continue`` onto another
provider, a ModelFallback across providers). llama.cpp's ids are 61 characters
("call__0_run_shell_cmpl-…") and OpenAI's API refuses more than 40 (400 "string
too long" on every later request); Kimi's "functions.list_dir:0" breaks the
pattern Anthropic's API demands of ``tool_use.id`` (^[a-zA-Z0-9_-]+$). Each
provider builds its request through one :class:`CallIds`: an id its API takes
goes as it is; any other becomes ``call_`` and 32 hex digits of its SHA-256 (a
call and its result get the same one, in every request, since it depends on the
id alone), and the history is left as it is.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

PREFIX = "call_"
DIGITS = 32
"""Hex digits of the hash in a mapped id (128 bits: ``call_`` + 32 = 37 characters)."""


@dataclass(frozen=True, slots=True)
class IdRule:
    """What one provider's API takes as a tool-call id."""

    provider: str
    max_length: int
    pattern: re.Pattern[str]

    def takes(self, call_id: str) -> bool:
        return 0 < len(call_id) <= self.max_length and self.pattern.fullmatch(call_id) is not None


OPENAI_IDS = IdRule("OpenAI", 40, re.compile(r"[\x21-\x7e]+"))
"""OpenAI's chat API: at most 40 characters (what is printable and has no space is
taken; other OpenAI-compatible servers send back their own ids, Kimi's included)."""
ANTHROPIC_IDS = IdRule("Anthropic", 64, re.compile(r"[A-Za-z0-9_-]+"))
"""Anthropic's ``tool_use.id`` pattern; 64 is the longest its own ids come near
(and what Bedrock takes)."""


class CallIds:
    """The ids of one request under ``rule``: :meth:`wire` maps each id once, the
    same way for a call and its result. Collision-free within the request: a
    mapped id another id already went as (only by a 128-bit coincidence, or a
    model that copied one) is hashed again with a counter."""

    __slots__ = ("_sent", "_used", "rule")

    def __init__(self, rule: IdRule) -> None:
        self.rule = rule
        self._sent: dict[str, str] = {}
        self._used: set[str] = set()

    def wire(self, call_id: object) -> str:
        """The id to send for ``call_id`` (as it is when the provider takes it)."""
        original = str(call_id)
        known = self._sent.get(original)
        if known is not None:
            return known
        sent = original if self.rule.takes(original) else mapped(original)
        salt = 0
        while sent in self._used:
            salt += 1
            sent = mapped(f"{original}\x00{salt}")
        self._sent[original] = sent
        self._used.add(sent)
        return sent


def mapped(call_id: str) -> str:
    """``call_`` and 32 hex digits of ``call_id``'s SHA-256: taken by every provider."""
    return PREFIX + hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()[:DIGITS]
