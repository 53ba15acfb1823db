"""``PII``: find personal data and block, redact, mask or hash it (LangChain's
PIIMiddleware).

``PII(pii_type, strategy="redact", detector=None, apply_to_input=True,
apply_to_output=False, apply_to_tool_results=False)``. Built-in types: ``email``,
``credit_card`` (Luhn-checked, so order numbers are left alone), ``ip`` (IPv4,
each octet checked), ``mac_address`` and ``url``. Any other type name needs a
``detector``: a regex string, or a callable ``text -> matches`` where a match is
a ``(start, end)`` pair, a ``{"start", "end"}`` dict, an ``re.Match`` or the
matched string itself.

Strategies: ``block`` raises :class:`PIIDetectionError` (the reply ends with an
``ErrorEvent`` naming this middleware; the error never quotes the data),
``redact`` writes ``[REDACTED_EMAIL]``, ``mask`` keeps a recognisable tail
(``****-****-****-1234``, ``j***@example.com``), ``hash`` writes a deterministic
``<email_hash:1a2b3c4d>`` so equal values stay equal for the model.

Where each source is handled, and why:

- input (user messages): the new input is rewritten in ``on_reply``, before it
  enters the history, so the model, the history and the saved session only ever
  hold the cleaned text, and ``block`` stops a reply before anything is stored
  (a blocked message left in the history would be sent again next time). User
  messages already in the history (from before the middleware was switched on)
  are cleaned in ``transform_context``, the model's view; ``block`` does not
  re-check them there, it would fail every later reply.
- output (the assistant's text): ``after_model_response`` replaces the message,
  so the history and the next model call get the cleaned text. The live stream
  has already been shown by then; to hide it from the screen too, the UI would
  have to buffer, which defeats streaming.
- tool results: ``after_tool_call`` replaces the text the model reads.

Several instances fit in one stack: each is named ``PII[<pii_type>]``.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any, ClassVar, Literal, TypeAlias

from shell.core.events import Event
from shell.core.messages import AssistantMessage, Message, TextBlock, ToolResult, UserMessage

from .base import Middleware, ReplyNext
from .context import HookContext, ToolCallContext
from .types import AfterToolCallResult, ReplyRequest, StopReply, TurnAction

Strategy = Literal["block", "redact", "mask", "hash"]
Span: TypeAlias = tuple[int, int]
Detector: TypeAlias = "str | re.Pattern[str] | Callable[[str], Iterable[Any]]"

BUILTIN_TYPES = ("email", "credit_card", "ip", "mac_address", "url")

_EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b")
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_IPV4 = re.compile(r"(?<![\d.])(?:\d{1,3}\.){3}\d{1,3}(?![\d.]*\d)")
_MAC = re.compile(
    r"(?<![0-9A-Fa-f:-])[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}(?![0-9A-Fa-f:-])"
)
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"'`]+")
_URL_TRAILING = ".,;:!?)]}'\""


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum every payment card number satisfies."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def _emails(text: str) -> list[Span]:
    return [m.span() for m in _EMAIL.finditer(text)]


def _cards(text: str) -> list[Span]:
    spans = []
    for m in _CARD.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            spans.append(m.span())
    return spans


def _ips(text: str) -> list[Span]:
    spans = []
    for m in _IPV4.finditer(text):
        try:
            ipaddress.IPv4Address(m.group())
        except ValueError:
            continue
        spans.append(m.span())
    return spans


def _macs(text: str) -> list[Span]:
    return [m.span() for m in _MAC.finditer(text)]


def _urls(text: str) -> list[Span]:
    spans = []
    for m in _URL.finditer(text):
        start, end = m.span()
        while end > start and text[end - 1] in _URL_TRAILING:
            end -= 1
        spans.append((start, end))
    return spans


_BUILTIN_DETECTORS: dict[str, Callable[[str], list[Span]]] = {
    "email": _emails,
    "credit_card": _cards,
    "ip": _ips,
    "mac_address": _macs,
    "url": _urls,
}


def _spans_of(text: str, found: Iterable[Any]) -> list[Span]:
    """Normalise what a custom detector returned to sorted, non-overlapping spans."""
    spans: list[Span] = []
    for item in found:
        if isinstance(item, re.Match):
            spans.append(item.span())
        elif isinstance(item, str):
            spans.extend(m.span() for m in re.finditer(re.escape(item), text) if item)
        elif isinstance(item, dict):
            spans.append((int(item["start"]), int(item["end"])))
        else:
            start, end = item
            spans.append((int(start), int(end)))
    result: list[Span] = []
    for start, end in sorted(set(spans)):
        if 0 <= start < end <= len(text) and (not result or start >= result[-1][1]):
            result.append((start, end))
    return result


def _mask(pii_type: str, value: str) -> str:
    if pii_type == "email":
        local, _, domain = value.partition("@")
        return f"{local[:1]}***@{domain}"
    if pii_type == "credit_card":
        return "****-****-****-" + re.sub(r"\D", "", value)[-4:]
    if pii_type == "ip":
        return "***.***.***." + value.rsplit(".", 1)[-1]
    if pii_type == "mac_address":
        sep = value[2]
        return sep.join(["**"] * 5) + sep + value[-2:]
    if pii_type == "url":
        if "://" in value:
            return value.split("://", 1)[0] + "://***"
        return "www.***" if value.startswith("www.") else "***"
    keep = 4 if len(value) > 4 else 0
    return "*" * (len(value) - keep) + value[len(value) - keep :]


class PIIDetectionError(StopReply):
    """Raised by the ``block`` strategy. It names the type and the count, never the data."""

    def __init__(self, pii_type: str, count: int, where: str) -> None:
        super().__init__(f"Detected {count} {pii_type} value{'s' if count != 1 else ''} in {where}; blocked")
        self.pii_type = pii_type
        self.count = count
        self.where = where


class PII(Middleware):
    """Detect personal data (emails, card numbers, ...) and block, redact, mask or hash it."""

    builtin: ClassVar[bool] = True

    def __init__(
        self,
        pii_type: str,
        strategy: Strategy = "redact",
        detector: Detector | None = None,
        *,
        apply_to_input: bool = True,
        apply_to_output: bool = False,
        apply_to_tool_results: bool = False,
    ) -> None:
        if strategy not in ("block", "redact", "mask", "hash"):
            raise ValueError(f"strategy must be 'block', 'redact', 'mask' or 'hash', not {strategy!r}")
        self._detect: Callable[[str], list[Span]]
        if detector is None:
            if pii_type not in _BUILTIN_DETECTORS:
                known = ", ".join(BUILTIN_TYPES)
                raise ValueError(f"{pii_type!r} is not a built-in PII type ({known}); give it a detector")
            self._detect = _BUILTIN_DETECTORS[pii_type]
        elif isinstance(detector, (str, re.Pattern)):
            pattern = re.compile(detector)
            self._detect = lambda text: [m.span() for m in pattern.finditer(text) if m.end() > m.start()]
        elif callable(detector):
            custom = detector
            self._detect = lambda text: _spans_of(text, custom(text))
        else:
            raise TypeError("detector must be a regex string, a compiled pattern or a callable")
        self.pii_type = pii_type
        self.strategy = strategy
        self.apply_to_input = apply_to_input
        self.apply_to_output = apply_to_output
        self.apply_to_tool_results = apply_to_tool_results
        self.name = f"PII[{pii_type}]"

    # -- the text operations -------------------------------------------------------
    def detect(self, text: str) -> list[Span]:
        """The spans of ``pii_type`` found in ``text``."""
        return self._detect(text) if text else []

    def replacement(self, value: str) -> str:
        """What one detected value becomes under this strategy (not ``block``)."""
        if self.strategy == "redact":
            return f"[REDACTED_{self.pii_type.upper()}]"
        if self.strategy == "mask":
            return _mask(self.pii_type, value)
        digest = hashlib.sha256(value.encode()).hexdigest()[:8]
        return f"<{self.pii_type}_hash:{digest}>"

    def clean(self, text: str, where: str, *, block: bool = True) -> str:
        """``text`` with every match replaced; with the block strategy, raise instead."""
        spans = self.detect(text)
        if not spans:
            return text
        if self.strategy == "block":
            if block:
                raise PIIDetectionError(self.pii_type, len(spans), where)
            return text
        parts, last = [], 0
        for start, end in spans:
            parts.append(text[last:start])
            parts.append(self.replacement(text[start:end]))
            last = end
        parts.append(text[last:])
        return "".join(parts)

    def _clean_blocks(self, content: Any, where: str, *, block: bool = True) -> Any:
        if isinstance(content, str):
            return self.clean(content, where, block=block)
        return tuple(
            TextBlock(self.clean(b.text, where, block=block)) if isinstance(b, TextBlock) else b
            for b in content
        )

    def _clean_user(self, message: Message, *, block: bool = True) -> Message:
        if not isinstance(message, UserMessage):
            return message
        content = self._clean_blocks(message.content, "user input", block=block)
        return message if content == message.content else UserMessage(content)

    # -- hooks -----------------------------------------------------------------------
    async def on_reply(
        self, ctx: HookContext, request: ReplyRequest, next: ReplyNext
    ) -> AsyncIterator[Event]:
        if self.apply_to_input:
            cleaned = tuple(self._clean_user(m) for m in request.input)
            if cleaned != request.input:
                request = request.override(input=cleaned)
        async for event in next(request):
            yield event

    async def transform_context(self, ctx: HookContext, messages: list[Message]) -> list[Message]:
        if not self.apply_to_input or self.strategy == "block":
            return messages
        return [self._clean_user(m, block=False) for m in messages]

    async def after_model_response(self, ctx: HookContext, response: AssistantMessage) -> TurnAction | None:
        if not self.apply_to_output:
            return None
        content = self._clean_blocks(response.content, "the model's answer")
        if content == response.content:
            return None
        return TurnAction(response=AssistantMessage(content, response.usage, response.stop_reason))

    async def after_tool_call(self, ctx: ToolCallContext, result: ToolResult) -> AfterToolCallResult | None:
        if not self.apply_to_tool_results:
            return None
        content = self._clean_blocks(result.content, f"the result of {ctx.call.name}")
        return None if content == result.content else AfterToolCallResult(content=content)
