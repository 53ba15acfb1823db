"""The context meter and the bill: how full the model's window is, what a reply
and the session cost.

Fed the events of every reply (the runtime does it, so every front end shows the
same numbers): each ``ModelCallEnd`` carries the usage the provider reported for
one request. The prompt of that request (input + cache reads + cache writes) is
how full the context was, the closest thing to the truth there is, since the
provider counted it. A provider that reports no usage leaves the meter unknown,
never zero.

Costs use the :class:`~shell.providers.catalog.ModelInfo` current when the call
ended (a ``/model`` switch in the middle of a session prices each call at its own
model's rates). A call without known prices adds nothing and marks the session's
total as partial; with no known price at all there is no cost to show.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from shell.core.events import Event, ModelCallEnd, ReplyStart
from shell.core.messages import Usage
from shell.providers.catalog import ModelInfo


def prompt_tokens(usage: Usage) -> int:
    """The size of the request a usage was reported for (cached parts included)."""
    return usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens


@dataclass(slots=True)
class UsageMeter:
    """Usage and cost of the last call, the reply in flight (or last) and the session."""

    info: Callable[[], ModelInfo] = ModelInfo
    """The current model's facts (asked at each call's end)."""
    last_call: Usage | None = None
    reply_usage: Usage = field(default_factory=Usage)
    session_usage: Usage = field(default_factory=Usage)
    reply_cost: float | None = None
    session_cost: float | None = None
    unpriced_calls: int = 0
    """Calls whose cost is not known (the session total leaves them out)."""
    calls: int = 0

    def see(self, event: Event) -> None:
        if isinstance(event, ReplyStart):
            self.reply_usage, self.reply_cost = Usage(), None
        elif isinstance(event, ModelCallEnd):
            self.add(event.usage)

    def add(self, usage: Usage) -> None:
        """One model call's usage (also used to restore a resumed session's)."""
        self.calls += 1
        if prompt_tokens(usage) or usage.output_tokens:
            self.last_call = usage
        self.reply_usage = self.reply_usage + usage
        self.session_usage = self.session_usage + usage
        cost = self.info().cost(usage)
        if cost is None:
            self.unpriced_calls += 1
            return
        self.reply_cost = (self.reply_cost or 0.0) + cost
        self.session_cost = (self.session_cost or 0.0) + cost

    def reset(self) -> None:
        """A new conversation: nothing used yet."""
        self.last_call, self.reply_cost, self.session_cost = None, None, None
        self.reply_usage, self.session_usage = Usage(), Usage()
        self.unpriced_calls = self.calls = 0

    # -- what to show -------------------------------------------------------------------
    @property
    def context_tokens(self) -> int | None:
        """The last request's size as the provider counted it, or None (not reported)."""
        return prompt_tokens(self.last_call) if self.last_call is not None else None

    @property
    def window(self) -> int | None:
        return self.info().context_window

    @property
    def fullness(self) -> float | None:
        """How full the window was at the last request (0..1+), or None when unknown."""
        tokens, window = self.context_tokens, self.window
        if tokens is None or not window:
            return None
        return tokens / window

    def context_label(self) -> str:
        """``ctx 12% of 200k``; ``""`` while the window or the last request's size is
        unknown (how full something of unknown size is cannot be said)."""
        full = self.fullness
        if full is None:
            return ""
        return f"ctx {full * 100:.0f}% of {short_count(self.window or 0)}"

    def cost_label(self) -> str:
        """``$0.012 reply · $0.31 session`` where prices are known, else ``""``."""
        if self.session_cost is None:
            return ""
        partial = "≥" if self.unpriced_calls else ""
        reply = f"{money(self.reply_cost)} reply · " if self.reply_cost is not None else ""
        return f"{reply}{partial}{money(self.session_cost)} session"


def short_count(count: int) -> str:
    """``1234`` -> ``1.2k``, ``200000`` -> ``200k``, ``1047576`` -> ``1M``."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        value = count / 1000
        return f"{value:.0f}k" if value >= 100 or value == int(value) else f"{value:.1f}k"
    value = count / 1_000_000
    return f"{value:.0f}M" if value >= 10 or round(value, 1) == int(value) else f"{value:.1f}M"


def money(dollars: float | None) -> str:
    """Dollars with the precision small sums need: ``$0.0042``, ``$0.312``, ``$12.40``."""
    if dollars is None:
        return ""
    if dollars < 0.01:
        return f"${dollars:.4f}"
    if dollars < 1:
        return f"${dollars:.3f}"
    return f"${dollars:,.2f}"
