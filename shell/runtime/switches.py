"""The switches front ends show: the middleware, and HumanInTheLoop's "ask me" that
rides on the policy."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from middleware.base import Middleware


from .model import ModelPart
from .options import HITL, MiddlewareInfo


class SwitchesPart(ModelPart):
    """The switches front ends show: the middleware, and HumanInTheLoop's "ask me" that
rides on the policy."""

    # -- permissions -----------------------------------------------------------------
    @property
    def permissions_gate(self) -> Middleware | None:
        """HumanInTheLoop when it is the gate of this runtime's policy, else None."""
        stack = self.agent.middleware
        gate = stack.get(HITL) if HITL in stack else None
        return gate if gate is not None and getattr(gate, "policy", None) is self.permissions else None

    @property
    def policy_enforced(self) -> bool:
        """Whether the permission policy judges tool calls at all: HumanInTheLoop
        (its one gate) is in the stack and its slot is on. The front ends' switch
        never turns that slot off (see :meth:`set_middleware`); only code that
        disables it in the stack directly leaves calls unjudged."""
        stack = self.agent.middleware
        return HITL in stack and stack.is_enabled(HITL)

    @property
    def approvals_on(self) -> bool:
        """Whether calls the policy asks about wait for a person (the HumanInTheLoop
        switch); off, they run unasked while deny rules and plan mode still hold."""
        return self.policy_enforced and self.permissions.asking

    @property
    def mode_label(self) -> str:
        """The mode as the status line shows it, with what is off beside it; empty
        for an agent without HumanInTheLoop, whose policy is its own."""
        if HITL not in self.agent.middleware:
            return ""
        if not self.policy_enforced:
            return "no policy (HumanInTheLoop disabled in the stack)"
        mode = self.permissions.mode
        if not self.permissions.asking and mode != "bypass":
            return f"{mode}, approvals off (deny rules hold)"
        if mode == "bypass" and self.permissions.mode_origin:  # set in a file, perhaps long ago
            return f"bypass, approvals off (from {self.permissions.mode_origin})"
        return mode

    @property
    def mode_warning(self) -> bool:
        """The mode label is a warning: calls run that would have asked."""
        return not self.approvals_on or self.permissions.mode == "bypass"

    # -- middleware and tools ------------------------------------------------------
    def complete_middleware(self) -> list[str]:
        """Build the switched-off middleware left for after the first screen
        (``RuntimeOptions.middleware_later``), so the stack lists every one; the
        problems found on the way, also added to :attr:`problems`. Front ends call
        it before they list or toggle middleware; once done, it costs nothing."""
        later = self.middleware_later
        if later is None:
            return []
        found = later.complete(self.agent.middleware, self.workspace)
        self.middleware_later = None
        self.problems.extend(found)
        return found

    def find_middleware(self, name: str) -> str:
        """The stack's spelling of ``name`` (matched without regard to case); a class
        name stands for its one instance whose stack name carries a suffix (``PII`` for
        ``PII[email]``, as the middleware panel shows it: round 21, E9)."""
        self.complete_middleware()
        names = self.agent.middleware.names()
        for n in names:
            if n.lower() == name.lower():
                return n
        kinds = [n for n in names if n.split("[", 1)[0].lower() == name.lower()]
        if len(kinds) == 1:  # ``PII`` for ``PII[email]``: the name the panel shows
            return kinds[0]
        if kinds:
            raise KeyError(f"More than one middleware is a {name}: name one of {', '.join(kinds)}.")
        raise KeyError(f"No middleware named {name!r}. In the stack: {', '.join(names) or 'none'}.")

    def middleware_on(self, name: str) -> bool:
        """A middleware's switch as front ends show it (HumanInTheLoop's is whether
        calls wait for approval, see :meth:`set_middleware`)."""
        if name == HITL and self.permissions_gate is not None:
            return self.approvals_on
        return self.agent.middleware.is_enabled(name)

    def set_middleware(self, name: str, on: bool) -> str:
        """Switch a middleware on or off from a front end (the panel, ``/middleware``,
        an editor's config option). HumanInTheLoop is the policy's one gate, so its
        switch means "ask me": off, what would ask runs unasked (bypass), and deny
        rules and plan mode keep holding; the gate itself stays on."""
        found = self.find_middleware(name)
        if found == HITL and self.permissions_gate is not None:
            self.agent.middleware.set_enabled(found, True)
            self.permissions.asking = on
        else:
            self.agent.middleware.set_enabled(found, on)
        return found

    def middleware_info(self) -> list[MiddlewareInfo]:
        self.complete_middleware()
        stack = self.agent.middleware
        rows = []
        for mw in stack:
            st = stack.stats(mw.name)
            rows.append(
                MiddlewareInfo(
                    mw.name, self.middleware_on(mw.name), mw.description, st.calls, st.time_s, st.errors,
                    st.last_error,
                )
            )
        return rows
