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

Names the same (finding B6): a call keeps the tool name the model wrote, and
gpt-oss writes "repo_browser.open_file", Kimi "functions.read_file", a hostile
server anything (ESC, U+202E). The call fails as an unknown tool, rightly, but
OpenAI's API checks the names in the history against ^[a-zA-Z0-9_-]{1,64}$
(Anthropic's ``tool_use.name`` the same) and refused every later request of the
session. :func:`wire_name` sends such a name with each other character made
``_`` and 8 hex digits of its SHA-256 after it: the same in every request, never
the name of a real tool by accident, and the tool's result (already "Unknown
tool …" to the model) stays as it was.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

PREFIX = "call_"
DIGITS = 32
"""Hex digits of the hash in a mapped id (128 bits: ``call_`` + 32 = 37 characters)."""

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""A tool name OpenAI's and Anthropic's APIs take, in a request's tools and history alike."""
NAME_DIGITS = 8
_NOT_IN_A_NAME = re.compile(r"[^A-Za-z0-9_-]+")


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


def wire_name(name: object) -> str:
    """The tool name to send for ``name``: as it is when the APIs take it, else its
    legal characters (runs of others made one ``_``, at most 55) and 8 hex digits of
    its SHA-256, e.g. ``repo_browser_open_file_3f0c…``. Stable: it depends on the
    name alone, so a call is named the same in every request."""
    original = str(name)
    if TOOL_NAME.fullmatch(original):
        return original
    digest = hashlib.sha256(original.encode("utf-8", "surrogatepass")).hexdigest()[:NAME_DIGITS]
    stem = _NOT_IN_A_NAME.sub("_", original).strip("_")[: 64 - NAME_DIGITS - 1] or "tool"
    return f"{stem}_{digest}"
