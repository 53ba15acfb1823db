"""Per-middleware statistics the side panel shows live."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class HookStats:
    calls: int = 0
    time_s: float = 0.0
    """Time spent in the middleware's own code (inner layers' time excluded)."""
    errors: int = 0


@dataclass(slots=True)
class MiddlewareStats:
    hooks: dict[str, HookStats] = field(default_factory=dict)
    last_error: str | None = None
    last_error_hook: str | None = None
    waiting_s: float = 0.0
    """Time its hooks spent waiting for an answer to ``ctx.ask`` (the user), kept
    out of ``time_s``: a dialog left open is not the middleware's cost."""

    @property
    def calls(self) -> int:
        return sum(h.calls for h in self.hooks.values())

    @property
    def time_s(self) -> float:
        return max(0.0, sum(h.time_s for h in self.hooks.values()) - self.waiting_s)

    @property
    def errors(self) -> int:
        return sum(h.errors for h in self.hooks.values())
