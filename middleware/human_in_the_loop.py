"""``HumanInTheLoop``: ask a person before a tool call runs (LangChain's
HumanInTheLoopMiddleware, on this shell's ``ctx.ask``).

Why a gate (``before_tool_call``) and not an onion: the decision has to happen
before anything runs, and the stack already knows how to turn the three answers
into outcomes. *approve* passes; *edit* returns new ``args``, which the policy judges
again (a deny rule blocks the edited call; what would ask was just approved) and the
stack re-validates against the tool's schema (invalid edits become an error result the
model reads, the tool never runs; the call id is kept); *reject* blocks with the
user's message, which the model reads as an error tool result.

Which calls ask: ``interrupt_on`` maps a tool name to ``True`` (ask, all
decisions), ``False`` (never ask) or ``{"allowed_decisions": [...],
"description": str | callable}``. A tool with no entry asks when it can change
something (``read_only=False``) and runs freely when it is read-only, so a bare
``HumanInTheLoop()`` is a safe default.

Given a ``policy`` (the shell gives it ``shell.permissions.PermissionPolicy``:
modes and rules), the policy decides each call: ``allow`` runs it, ``deny``
blocks it with the policy's reason (the model reads it), ``ask`` asks with the
policy's reason, the rule(s) "always" would remember and a preview (a diff for
file edits); "always" hands the chosen rules and scope back to the policy, and
``interrupt_on`` then shapes the question (decisions, description); the shell also
makes each tool it names with ``True`` or a dict an ``ask`` rule of its policy (see
:meth:`HumanInTheLoop.listed`). The policy lives above this package, so it comes in
as a :class:`ToolPolicy`.

Without a policy: "always allow" lives in ``ctx.session_state["always_allow"]``
(a JSON list of tool names), so it is saved with the session and survives
replies, not just the current one.

Each call's gate runs in its own task when tools run in parallel, so several
approvals can be pending at once; nothing here is shared between those tasks
except the session's allow-list, which is only appended to, and the batch's
standing answer (below), which is only written by an answer.

"The rest of this batch": a model turn with many calls that ask (five ``run_shell
echo N``, or 300) would be one dialog after another. Each question carries the
call's place in its batch (:class:`BatchPlace`: the calls of one model turn), and
an answer with ``rest=True`` stands for the calls after it in that batch, never
another turn's (kept in ``ctx.reply_state`` under the batch's key):

- *approve the rest* covers only the later calls to the same tool that the
  question listed (``BatchPlace.later_same``; every front end shows them before it
  takes the key), and each only with the arguments listed and only when
  everything that decides it would ask the same question again: the policy still judges every call first
  (a deny rule still refuses it, what the policy allows runs), and the call is
  covered only if the policy's ask is *routine* (``Verdict.routine``: the mode
  asks about every such call; not a rule that asks, a secret file, a file that runs
  later, a path outside the workspace, the network, a destructive or untrusted
  tool), for the same tool, in the same words as the question the user answered.
  Any other ask is asked on its own. The answer itself only counts as "the rest"
  when the question it answers was routine (a front end offers it only then).
- *reject the rest* refuses every later call of the batch, whatever the policy
  would say; the model reads a refusal for each.

A covered call is announced as answered (``ApprovalResolved`` with ``rest=True``),
so the conversation shows who decided.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, ClassVar, Literal, Protocol, TypeAlias, TypedDict, TypeVar

import anyio
import anyio.to_thread

from shell.core.approvals import (
    ALL_DECISIONS,
    ApprovalDecision,
    ApprovalRequest,
    BatchPlace,
    DecisionType,
    rejected_message,
    rest_refusal,
)
from shell.core.messages import ToolCallBlock
from shell.core.tools import Tool

from .asking_order import asking_order
from .base import Middleware
from .context import HookContext, ToolCallContext
from .tool_names import ToolNameCheck
from .types import BeforeToolCallResult

DescriptionFn: TypeAlias = Callable[[ToolCallBlock, Tool, dict[str, Any]], Any]
"""``(tool_call, tool, args) -> str`` (may be async): the text the approver reads."""


CONFIG_DECISIONS: tuple[str, ...] = (*ALL_DECISIONS, "always")
"""What ``allowed_decisions`` may list: the three answers, and "always" (remember a rule)."""


class InterruptConfig(TypedDict, total=False):
    """One tool's approval settings."""

    allowed_decisions: Sequence[DecisionType | Literal["always"]]
    """Which answers the approver is offered; "always" (remember a rule) is offered only
    when listed, or when this key is left out (every answer)."""
    description: str | DescriptionFn


InterruptOn: TypeAlias = Mapping[str, "bool | InterruptConfig"]

@dataclass(frozen=True, slots=True)
class Verdict:
    """A policy's answer for one call; ``reason`` is for the approver (``ask``) or
    for the model (``deny``)."""

    action: Literal["allow", "ask", "deny"]
    reason: str = ""
    routine: bool = False
    """An ``ask`` only because the mode asks about every call of this kind (nothing
    about this call's paths, command, network or rules): "approve the rest" may cover
    it (see :meth:`HumanInTheLoop.before_tool_call`)."""


@dataclass(frozen=True, slots=True)
class AskDetails:
    """What a policy adds to a question: the rules "always" would keep, a preview."""

    suggested_rules: tuple[str, ...] = ()
    preview: str = ""


class ToolPolicy(Protocol):
    """Decides every tool call (``shell.permissions.PermissionPolicy`` is one)."""

    def decide(self, tool: Tool, args: Mapping[str, Any]) -> Verdict:
        """The verdict for one call. Called in a worker thread (:func:`checked`), so it
        must be safe there while the loop calls the other methods; it may be abandoned
        half-way (Esc, :data:`CHECK_SECONDS`), so it must not leave state half-changed."""
        ...

    async def details(self, tool: Tool, args: Mapping[str, Any]) -> AskDetails: ...

    def remember(self, decision: ApprovalDecision, request: ApprovalRequest) -> str | None:
        """Keep an "always" as rules; returns a problem to report, or None."""
        ...

    def approved(self, decision: ApprovalDecision, request: ApprovalRequest) -> None:
        """The user approved (or edited) a call the policy asked about; what the
        question promised beyond this call (e.g. a path outside the workspace)."""
        ...

    def system_note(self) -> str | None: ...


Checked = TypeVar("Checked")

CHECK_SECONDS = 10.0
"""How long one policy decision may take before the call is refused (fail closed)."""


def too_long(name: str) -> str:
    """What the model reads (and the user sees) when the policy's check timed out."""
    return (f"The permission check for {name} took too long (over {CHECK_SECONDS:g} s); the call was not "
            "run. Do not retry it as it is; a shorter command or fewer paths may be checked in time.")


async def checked(policy: ToolPolicy, tool: Tool, args: Mapping[str, Any]) -> Verdict:
    """``policy.decide`` off the event loop. Its checks read files, run git and match
    patterns on text the model wrote; on the loop one slow check (a regex that
    backtracked, finding T5) froze the screen, Esc and Ctrl+Q for good. In a worker
    thread the screen keeps drawing, Esc cancels the turn at once (the thread is
    abandoned: its verdict is dropped, so nothing is half-approved) and a check past
    :data:`CHECK_SECONDS` refuses the call. The hop costs tens of microseconds a call
    (benchmarks/policy_hop.py). What it cannot do: a single call into C that keeps
    Python's lock (``re``'s matcher does, for the whole search) stalls every thread,
    the loop's too, so the checks' patterns must stay linear whatever the text."""
    verdict = await bounded(partial(policy.decide, tool, dict(args)))  # a copy: the loop may change ctx.args
    return verdict if verdict is not None else Verdict("deny", too_long(tool.name))


async def bounded(check: Callable[[], Checked]) -> Checked | None:
    """``check()`` in a worker thread, or None when it took longer than
    :data:`CHECK_SECONDS` (its thread is abandoned, as on a cancel): the one way a
    permission check runs off the loop, a tool call's (:func:`checked`) and an
    ``@`` file's in a message alike."""
    with anyio.move_on_after(CHECK_SECONDS):
        return await anyio.to_thread.run_sync(check, abandon_on_cancel=True)
    return None


SAY_CHECKING_AFTER = 0.5
"""Seconds a call's permission check runs before its span says so (a quick one says nothing)."""


@asynccontextmanager
async def checking_said(ctx: ToolCallContext) -> AsyncIterator[None]:
    """While the block runs: past :data:`SAY_CHECKING_AFTER`, ``PermissionChecking`` for
    the call (its span reads "checking permission…" instead of nothing), and once the block
    ends, that it ended. A cancelled block announces no end: the reply's end says it.
    On asyncio a loop timer (a few µs a call; a task group per check cost ~0.2 ms, paid by
    every tool call); elsewhere (trio) a task that sleeps."""
    from shell.core.events import PermissionChecking

    said = False

    def say() -> None:
        nonlocal said
        said = True
        ctx.emit(PermissionChecking(ctx.call.id))

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        async with anyio.create_task_group() as group:
            group.start_soon(_after, SAY_CHECKING_AFTER, say)
            try:
                yield
            finally:
                group.cancel_scope.cancel()
    else:
        timer = loop.call_later(SAY_CHECKING_AFTER, say)
        try:
            yield
        finally:
            timer.cancel()
    if said:
        ctx.emit(PermissionChecking(ctx.call.id, checking=False))


async def _after(seconds: float, then: Callable[[], None]) -> None:
    await anyio.sleep(seconds)
    then()


DEFAULT_DESCRIPTION_PREFIX = "Tool execution requires approval"
ALWAYS_ALLOW_KEY = "always_allow"
BATCH_KEY = "batch"
"""``ctx.reply_state``: the places of the current batch's calls, worked out once."""
REST_KEY = "rest"
"""``ctx.reply_state``: the standing "rest" answers of the current batch."""
class _Resolved:
    """A tool's config after defaults: which decisions, and how to describe it."""

    __slots__ = ("allowed", "always", "description")

    def __init__(
        self, allowed: tuple[DecisionType, ...], description: str | DescriptionFn | None, always: bool = True
    ) -> None:
        self.allowed = allowed
        self.description = description
        self.always = always
        """Whether "always" may be offered: a per-call sign-off the author asked for
        (``["approve", "reject"]``) must not become a standing rule with one key."""

    def rules(self, suggested: tuple[str, ...]) -> tuple[str, ...]:
        """What "always" would remember, or nothing (then no front end offers it)."""
        return suggested if self.always and "approve" in self.allowed else ()


def _check_config(name: str, value: bool | InterruptConfig) -> _Resolved | None:
    if value is True:
        return _Resolved(ALL_DECISIONS, None)
    if value is False:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"interrupt_on[{name!r}] must be True, False or a dict, not {value!r}")
    unknown = set(value) - {"allowed_decisions", "description"}
    if unknown:
        raise ValueError(f"interrupt_on[{name!r}]: unknown keys {sorted(unknown)}")
    listed = tuple(value.get("allowed_decisions", CONFIG_DECISIONS))
    allowed = tuple(d for d in ALL_DECISIONS if d in listed)
    bad = [d for d in listed if d not in CONFIG_DECISIONS]
    if bad or not allowed:
        raise ValueError(
            f"interrupt_on[{name!r}]['allowed_decisions'] must be a non-empty subset of "
            f"{list(CONFIG_DECISIONS)} naming approve, edit or reject, got {list(listed)}"
        )
    return _Resolved(allowed, value.get("description"), "always" in listed)


class HumanInTheLoop(Middleware):
    """Ask before tool calls run: approve, edit the arguments, or reject with a reason.

    Tools that can change things ask by default; read-only tools run freely.
    """

    builtin: ClassVar[bool] = True
    gate: ClassVar[bool] = True
    """It decides which calls may run: when it fails, the advice is not to switch it
    off (that would switch approvals off; the permission policy it carries still runs)."""

    def __init__(
        self,
        interrupt_on: InterruptOn | None = None,
        *,
        description_prefix: str = DEFAULT_DESCRIPTION_PREFIX,
        policy: ToolPolicy | None = None,
    ) -> None:
        self.interrupt_on: dict[str, _Resolved | None] = {
            name: _check_config(name, value) for name, value in (interrupt_on or {}).items()
        }
        self.description_prefix = description_prefix
        self.policy = policy
        """Who decides (see the module docstring); None: ``interrupt_on`` and read-only."""
        unknown = "that entry applies to nothing (the tool meant is asked about, or not, as by default)"
        self._names = ToolNameCheck("interrupt_on", self.interrupt_on, unknown)

    async def transform_system_prompt(self, ctx: HookContext, prompt: str) -> str:
        """The policy's word to the model (plan mode says it is planning)."""
        note = self.policy.system_note() if self.policy is not None else None
        return f"{prompt}\n\n{note}" if note else prompt

    def listed(self) -> dict[str, bool]:
        """Each tool ``interrupt_on`` names and whether it asks (``True`` or a dict) or
        never does (``False``): with a policy, the policy decides every call, so the shell
        turns the asking ones into ``ask`` rules of that policy (finding E8: ``read_file =
        true`` had no effect) and says that a ``False`` one cannot loosen it."""
        return {name: config is not None for name, config in self.interrupt_on.items()}

    def _config_for(self, tool: Tool) -> _Resolved | None:
        if tool.name in self.interrupt_on:
            return self.interrupt_on[tool.name]
        return None if tool.read_only else _Resolved(ALL_DECISIONS, None)

    async def _describe(self, ctx: ToolCallContext, config: _Resolved) -> str:
        description = config.description
        if callable(description):
            text = description(ctx.call, ctx.tool, dict(ctx.args))
            if inspect.isawaitable(text):
                text = await text
            return str(text)
        if isinstance(description, str):
            return description
        args = ", ".join(f"{k}={v!r}" for k, v in ctx.args.items())
        return f"{self.description_prefix}\n\nTool: {ctx.tool.name}\nArgs: {args or '(none)'}"

    @staticmethod
    def always_allowed(ctx: ToolCallContext) -> list[str]:
        """The session's "always allow" list (tool names)."""
        allowed = ctx.session_state.setdefault(ALWAYS_ALLOW_KEY, [])
        assert isinstance(allowed, list)
        return allowed

    async def before_tool_call(self, ctx: ToolCallContext) -> BeforeToolCallResult | None:
        self._names.missing(ctx, self.name)  # a typo: the tool meant is not asked about as set
        place = _place(ctx)
        if place is not None:  # at the gate: the calls after it wait for its question
            asking_order(ctx, place).reach(place.index)
        try:
            return await self._before(ctx, place)
        finally:
            if place is not None:  # asked, or needs no question: the next call's turn
                asking_order(ctx, place).take(place.index)

    async def _before(self, ctx: ToolCallContext, place: BatchPlace | None) -> BeforeToolCallResult | None:
        rest = _standing(ctx, place)
        if rest is not None and rest.get("reject"):  # "reject the rest": whatever the policy says
            return self._answered(ctx, None, ApprovalDecision.reject(rest_refusal(ctx.tool.name), rest=True))
        if self.policy is not None:
            return await self._with_policy(ctx, self.policy, place, rest)
        config = self._config_for(ctx.tool)
        name = ctx.tool.name
        if config is None or name in self.always_allowed(ctx):
            return None
        request = ApprovalRequest(
            ctx.call, ctx.tool, dict(ctx.args), config.allowed, "", suggested_rules=config.rules((name,)),
            batch=place, routine=True,  # without a policy, a tool asks for no reason but its config
        )
        if _covered(rest, request, ctx):
            return self._answered(ctx, request, ApprovalDecision.approve(rest=True))
        request = replace(request, description=await self._describe(ctx, config))
        return await self._ask(ctx, request, config.allowed)

    async def _with_policy(
        self, ctx: ToolCallContext, policy: ToolPolicy, place: BatchPlace | None, rest: dict[str, Any] | None
    ) -> BeforeToolCallResult | None:
        async with checking_said(ctx):
            judged = await self._judge(ctx, policy, place, rest)
        if isinstance(judged, ApprovalRequest):
            return await self._ask(ctx, judged, judged.allowed_decisions)
        return judged

    async def _judge(
        self, ctx: ToolCallContext, policy: ToolPolicy, place: BatchPlace | None, rest: dict[str, Any] | None
    ) -> BeforeToolCallResult | ApprovalRequest | None:
        """The policy's checks of one call (its verdict, then the question's rules and
        preview): what the call's span says it is checking while they take long."""
        verdict = await checked(policy, ctx.tool, ctx.args)
        if verdict.action == "allow":
            return None
        if verdict.action == "deny":
            return _block(verdict.reason or f"The call to {ctx.tool.name} is not allowed; it was not run.")
        config = self.interrupt_on.get(ctx.tool.name) or _Resolved(ALL_DECISIONS, None)
        request = ApprovalRequest(
            ctx.call, ctx.tool, dict(ctx.args), config.allowed, reason=verdict.reason, batch=place,
            routine=verdict.routine,
        )
        if _covered(rest, request, ctx):  # before the preview: a diff per covered call is work for no one
            return self._answered(ctx, request, ApprovalDecision.approve(rest=True))
        details = None
        with anyio.move_on_after(CHECK_SECONDS):  # the question's rules and diff: bounded as the check
            details = await policy.details(ctx.tool, ctx.args)
        if details is None:
            return _block(too_long(ctx.tool.name))
        description = await self._describe(ctx, config)
        if config.description is None and verdict.reason:
            own = self.description_prefix != DEFAULT_DESCRIPTION_PREFIX  # the author's words lead (E8)
            head = f"{self.description_prefix}\n\n{verdict.reason}" if own else verdict.reason
            description = f"{head}\n\n{description.split(chr(10) * 2, 1)[-1]}"
        return replace(
            request, description=description, suggested_rules=config.rules(details.suggested_rules),
            preview=details.preview,
        )

    def _answered(
        self, ctx: ToolCallContext, request: ApprovalRequest | None, decision: ApprovalDecision
    ) -> BeforeToolCallResult | None:
        """A call a standing "rest" answer decides: announced as answered (the
        conversation shows it), then approved (the policy told, as for an approval in
        the dialog) or refused."""
        from shell.core.events import ApprovalResolved

        ctx.emit(ApprovalResolved(ctx.call.id, decision))
        if decision.type == "reject":
            return _block(decision.message or rest_refusal(ctx.tool.name))
        if self.policy is not None and request is not None:
            self.policy.approved(decision, request)
        return None

    async def _ask(
        self, ctx: ToolCallContext, request: ApprovalRequest, allowed: tuple[DecisionType, ...]
    ) -> BeforeToolCallResult | None:
        name = ctx.tool.name
        place = request.batch
        if place is not None:
            order = asking_order(ctx, place)
            await order.wait_for(place.index)
            order.take(place.index)
        changed = ctx.edited_by
        if changed and changed != "you":  # the user approves what runs, and hears whose it is and what
            note = (f"Middleware {changed} changed the arguments the model gave "
                    f"({_changes(ctx.call.args, ctx.args)}); these are the ones that run.")
            request = replace(request, description=f"{note}\n\n{request.description}".strip())
        decision = await ctx.ask(request)
        if not isinstance(decision, ApprovalDecision):
            return _block(
                f"The approval for {name} got no usable answer ({decision!r}); the call was not run."
            )
        if decision.type not in allowed:
            return _block(
                f"The decision {decision.type!r} is not allowed for {name} "
                f"(allowed: {', '.join(allowed)}); the call was not run."
            )
        if decision.rest:
            _stand(ctx, decision, request)
        if decision.type == "reject":
            return _block(decision.message or rejected_message(name))
        if decision.type == "edit" and decision.args is not None and self.policy is not None:
            # the edited call is a new call: deny rules hold for it (it was approved, so
            # what would ask does not ask again)
            async with checking_said(ctx):
                verdict = await checked(self.policy, ctx.tool, decision.args)
            if verdict.action == "deny":
                return _block(f"The call as you edited it is denied: {verdict.reason}")
        if decision.always and request.suggested_rules:  # "always" only where it was offered
            self._remember(ctx, decision, request)
        if self.policy is not None:
            self.policy.approved(decision, request)
        if decision.type == "edit":
            if decision.args is None:
                return _block(f"The edit of the call to {name} carried no arguments; the call was not run.")
            return BeforeToolCallResult(args=dict(decision.args))
        return None

    def _remember(self, ctx: ToolCallContext, decision: ApprovalDecision, request: ApprovalRequest) -> None:
        if self.policy is None:
            if ctx.tool.name not in self.always_allowed(ctx):
                self.always_allowed(ctx).append(ctx.tool.name)
            return
        problem = self.policy.remember(decision, request)
        if problem:
            from shell.core.events import Notice

            ctx.emit(Notice("warning", problem, self.name))


def _block(reason: str) -> BeforeToolCallResult:
    return BeforeToolCallResult(block=True, reason=reason)


def _place(ctx: ToolCallContext) -> BatchPlace | None:
    """This call's place in its batch. The places of a batch are worked out once (a
    turn of 5,000 calls must not cost 5,000 scans of it) and kept for the reply; the
    later calls to the same tool are a slice of that tool's calls."""
    message = ctx.assistant_message
    key = f"{ctx.reply_id}:{ctx.round}:{id(message)}"
    cached = ctx.reply_state.get(BATCH_KEY)
    if cached is None or cached[0] != key:
        calls = message.tool_calls
        places: dict[str, tuple[int, str, int]] = {}
        by_tool: dict[str, list[tuple[int, ToolCallBlock]]] = {}
        for index, call in enumerate(calls):
            of_tool = by_tool.setdefault(call.name, [])
            places.setdefault(call.id, (index, call.name, len(of_tool)))
            of_tool.append((index, call))
        tools = {name: tuple(of_tool) for name, of_tool in by_tool.items()}
        cached = ctx.reply_state[BATCH_KEY] = (key, places, len(calls), tools)
    found = cached[1].get(ctx.call.id)
    if found is None:  # not a call of this message (a middleware made it up)
        return None
    index, name, nth = found
    return BatchPlace(key, index, cached[2], cached[3][name][nth + 1:])


def _standing(ctx: ToolCallContext, place: BatchPlace | None) -> dict[str, Any] | None:
    """The "rest" answers given earlier in this call's batch, or None."""
    rest = ctx.reply_state.get(REST_KEY)
    if place is None or not isinstance(rest, dict) or rest.get("key") != place.key:
        return None
    return rest


def _stand(ctx: ToolCallContext, decision: ApprovalDecision, request: ApprovalRequest) -> None:
    """Keep a "rest" answer for the calls after this one in its batch: a rejection
    always; an approval only of a routine question (else it approves this call alone)."""
    place = request.batch
    if place is None or decision.type == "edit" or (decision.type == "approve" and not request.routine):
        return
    rest = _standing(ctx, place)
    if rest is None:
        rest = ctx.reply_state[REST_KEY] = {"key": place.key, "reject": False, "approve": {}, "shown": {}}
    if decision.type == "reject":
        rest["reject"] = True
    else:
        rest["approve"].setdefault(request.call.name, []).append(request.reason)
        rest["shown"].update((call.id, dict(call.args)) for _, call in place.later_same)


def _covered(rest: dict[str, Any] | None, request: ApprovalRequest, ctx: ToolCallContext) -> bool:
    """Whether "approve the rest" answers this question: a call the answered question
    listed, with the arguments it listed (what is approved is what is seen: a later
    ``ls; rm -f x`` is not "like" an approved ``ls``, the user approved it having read
    it), routine, the same tool, and the same words the user read when they answered
    (a command that asks for the network, or runs unconfined, reads differently and is
    asked on its own). A grant given for the model's calls never covers arguments a
    middleware rewrote: the user did not see those."""
    if rest is None or not request.routine or ctx.edited_by not in ("", "you"):
        return False
    shown = rest["shown"].get(ctx.call.id)
    if shown is None or shown != dict(ctx.args):
        return False
    return request.reason in rest["approve"].get(request.call.name, ())


CHANGE_SHOWN = 60
"""Characters of each changed value quoted in "which layer changed what"."""


def _changes(asked: Mapping[str, Any], now: Mapping[str, Any]) -> str:
    """``command: 'ls' → 'rm calc.py'``: what a middleware changed in a call's
    arguments, each value cut to :data:`CHANGE_SHOWN` (the dialog shows them whole)."""

    def shown(value: Any) -> str:
        text = repr(value)
        return text if len(text) <= CHANGE_SHOWN else text[:CHANGE_SHOWN] + "…"

    missing = object()
    parts = [f"{key}: {'(none)' if asked.get(key, missing) is missing else shown(asked[key])} → "
             f"{'(removed)' if now.get(key, missing) is missing else shown(now[key])}"
             for key in dict.fromkeys([*asked, *now]) if asked.get(key, missing) != now.get(key, missing)]
    return "; ".join(parts) or "no visible change"
