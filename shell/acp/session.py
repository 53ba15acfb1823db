"""One ACP session: a :class:`ShellRuntime` (one agent, one conversation, one
session file) driven by an editor.

The session answers the questions the permission policy leaves to the user through
``session/request_permission`` (:mod:`shell.acp.permissions`), streams each reply as
session updates (:mod:`shell.acp.updates`), switches the mode, the model and the
middleware when the editor asks (:mod:`shell.acp.config_options`), and, when the
editor offers them, swaps in the tools that read, write and run through it
(:mod:`shell.acp.editor_tools`).
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable, Sequence
from contextlib import aclosing
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import anyio
from acp import RequestError, helpers
from acp.schema import (
    AudioContentBlock,
    ClientCapabilities,
    ConfigOptionUpdate,
    ElicitationFormSessionMode,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    PermissionOption,
    PromptResponse,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
    UsageUpdate,
)
from acp.schema import Usage as AcpUsage

from shell.core import events as ev
from shell.core.approvals import ApprovalDecision, ApprovalRequest, rest_rejection
from shell.core.messages import Block, DataBlock, TextBlock, Usage, UserMessage
from shell.core.textsafety import plain_id, sanitize_line
from shell.core.tools import Tool
from shell.runtime import ShellError, ShellRuntime
from shell.runtime.options import HITL

from . import config_options as co
from .editor_tools import editor_tools
from .permissions import AcpPermissions, approval_text, is_path_request
from .replay import history_updates
from .toolview import one_line
from .updates import ReplyUpdates, Update

log = logging.getLogger("agent_shell.acp")

PromptBlock = (
    TextContentBlock
    | ImageContentBlock
    | AudioContentBlock
    | ResourceContentBlock
    | EmbeddedResourceContentBlock
)
MCP_WAIT = 15.0
"""Seconds the first prompt waits for MCP servers still connecting."""
STOP_REASONS = {
    "end_turn": "end_turn",
    "stopped": "end_turn",
    "max_rounds": "max_turn_requests",
    "cancelled": "cancelled",
}


class AcpSession:
    """An editor's conversation with the agent.

    ``client`` is the SDK's agent-side connection (what we call the editor
    through); ``models()`` lists the model specs to offer.
    """

    def __init__(
        self,
        session_id: str,
        runtime: ShellRuntime,
        client: Any,
        capabilities: ClientCapabilities | None,
        *,
        models: Callable[[], Sequence[str]],
    ) -> None:
        self.id = session_id
        self.runtime = runtime
        self.client = client
        self.capabilities = capabilities or ClientCapabilities()
        self.models = models
        self.permissions = AcpPermissions(runtime.permissions, runtime.workspace.root)
        self.updates = ReplyUpdates(self.send, self.find_tool, runtime.workspace.root)
        runtime.ask = self.ask
        self.notes: list[str] = []
        """Problems to show at the start of the next reply (config, MCP servers)."""
        self.busy = False
        self.cancel_requested = False
        self.closed = False
        self._tools_settled = False
        self._waiting: anyio.CancelScope | None = None
        self._use_editor_tools()
        if self.approvals_off:  # set so by the config: said before the first reply
            self.notes.append(co.APPROVALS_OFF)

    # -- set-up ----------------------------------------------------------------------
    @property
    def boolean_options(self) -> bool:
        session = self.capabilities.session
        return bool(session and session.config_options and session.config_options.boolean is not None)

    def _use_editor_tools(self) -> None:
        fs = self.capabilities.fs
        read, write = bool(fs and fs.read_text_file), bool(fs and fs.write_text_file)
        terminal = bool(self.capabilities.terminal)
        if not (read or terminal):
            return
        runtime = self.runtime
        builtin = {t.name: t for t in runtime.builtin_tools}
        replacements = {
            t.name: t
            for t in editor_tools(
                runtime.workspace, self.client, self.id, builtin, read=read, write=write, terminal=terminal,
                sandbox=runtime.sandbox, changes=runtime.checkpoint_hook,
            )
        }
        runtime.builtin_tools = [replacements.get(t.name, t) for t in runtime.builtin_tools]
        runtime.agent.tools = [replacements.get(t.name, t) for t in runtime.agent.tools]

    def find_tool(self, name: str) -> Tool | None:
        for tool in self.runtime.agent.tools:
            if tool.name == name:
                return tool
        stack = self.runtime.agent.middleware
        for mw in stack:
            if stack.is_enabled(mw.name):
                for tool in mw.list_tools():
                    if tool.name == name:
                        return tool
        return None

    async def send(self, update: Update) -> None:
        if self.closed:
            return
        try:
            await self.client.session_update(session_id=self.id, update=update)
        except ConnectionError:
            self.closed = True  # the editor went away: stop what it can no longer see
            self.runtime.cancel()

    # -- what the editor shows and switches ------------------------------------------
    @property
    def approvals_off(self) -> bool:
        """Calls that would ask run unasked (the HumanInTheLoop switch is off): the
        editor is told in the mode's own name, as the other front ends say it."""
        runtime = self.runtime
        return any(mw.name == HITL for mw in runtime.agent.middleware) and not runtime.approvals_on

    def mode_state(self) -> Any:
        return co.mode_state(self.permissions.mode, self.approvals_off)

    def config_options(self) -> list[co.ConfigOption]:
        runtime = self.runtime
        options: list[co.ConfigOption] = [
            co.mode_option(self.permissions.mode, self.approvals_off),
            co.model_option(runtime.model_label, self.models()),
        ]
        stack = runtime.agent.middleware
        for mw in stack:
            options.append(
                co.middleware_option(
                    mw.name, mw.description, runtime.middleware_on(mw.name), boolean=self.boolean_options
                )
            )
        return options

    async def set_mode(self, mode: str) -> None:
        try:
            self.permissions.set_mode(mode)
        except ValueError as exc:
            raise invalid(str(exc)) from None
        await self.send(helpers.update_current_mode(mode))
        if self.approvals_off:  # the "approvals off" name moves to the new mode
            await self.send(ConfigOptionUpdate(session_update="config_option_update",
                                               config_options=self.config_options()))

    async def set_option(self, option_id: str, value: str | bool) -> None:
        if option_id == co.MODE_OPTION and isinstance(value, str):
            await self.set_mode(value)
        elif option_id == co.MODEL_OPTION and isinstance(value, str):
            if value != self.runtime.model_label:
                try:
                    self.runtime.switch_model(value)
                except ShellError as exc:
                    raise invalid(str(exc)) from None
                except Exception as exc:  # ConfigError: a spec that does not resolve
                    raise invalid(f"{value}: {exc}") from None
                missing = self.runtime.missing_key()
                if missing:  # said before the next reply, which would fail (round 21, E18)
                    self.notes.append(f"Model {self.runtime.model_label}: {missing}")
        elif option_id.startswith(co.MIDDLEWARE_PREFIX):
            name = option_id[len(co.MIDDLEWARE_PREFIX) :]
            on = co.as_switch(value)
            if on is None:
                raise invalid(f"{option_id} takes on or off, not {value!r}")
            was_off = self.approvals_off
            try:
                self.runtime.set_middleware(name, on)  # live: the next hook sees it
            except KeyError as exc:
                raise invalid(str(exc.args[0])) from None
            if self.approvals_off != was_off:  # the mode's name changes with it
                await self.send(ConfigOptionUpdate(session_update="config_option_update",
                                                   config_options=self.config_options()))
                if self.approvals_off:
                    self.notes.append(co.APPROVALS_OFF)
                elif co.APPROVALS_OFF in self.notes:
                    self.notes.remove(co.APPROVALS_OFF)
        else:
            raise invalid(f"no config option {option_id!r} takes {value!r}")

    # -- approvals -------------------------------------------------------------------
    async def ask(self, request: Any) -> Any:
        """``Agent.ask``: the policy said ``ask`` (or the workspace's fence asks): the
        user answers through the editor."""
        if not isinstance(request, ApprovalRequest):
            return None
        call = request.call
        await self.updates.announce(call.id, call.name, dict(call.args))
        view = self.updates.permission_view(call.id, approval_text(request))
        if is_path_request(request, self.runtime.workspace.root):
            view.title = one_line(request.own_words() or request.description, 300)
        options = [
            PermissionOption(option_id=i, name=one_line(label, 300), kind=kind)
            for i, label, kind in self.permissions.options(request)
        ]
        try:
            response = await self.client.request_permission(
                session_id=self.id, tool_call=view, options=options
            )
        except Exception as exc:  # the editor failed the request or went away
            log.warning("session/request_permission failed: %s", exc)
            return ApprovalDecision.reject(
                f"The editor could not ask the user about {call.name} ({exc}); it was not run."
            )
        outcome = response.outcome
        option_id = getattr(outcome, "option_id", None) if outcome.outcome == "selected" else None
        decision = self.permissions.decide(request, option_id, response.field_meta)
        said = ((response.field_meta or {}).get("agent-shell") or {}).get("message")
        rejected = option_id in ("reject_once", "reject_always", "reject_rest")
        if decision.type == "reject" and rejected and not said:
            reason = await self._reason(plain_id(call.id), call.name)
            if reason:
                rest = decision.rest
                decision = rest_rejection(request, reason) if rest else ApprovalDecision.reject(reason)
        return decision

    async def _reason(self, call_id: str, name: str) -> str | None:
        """Why the user rejected a call, asked through a form when the editor can show
        one (elicitation); the model reads it. Nothing when the user skips it."""
        elicitation = self.capabilities.elicitation
        if elicitation is None or elicitation.form is None:
            return None
        schema = ElicitationSchema(
            type="object",
            properties={
                "reason": ElicitationStringPropertySchema(
                    type="string",
                    title="Why?",
                    description="Optional: the model reads it and can do better.",
                )
            },
        )
        mode = ElicitationFormSessionMode(session_id=self.id, tool_call_id=call_id, requested_schema=schema)
        try:
            answer = await self.client.create_elicitation(
                message=f"You rejected {name}. Tell the agent why?", mode=mode
            )
        except Exception as exc:  # an editor that offered forms and then failed one: the plain answer stands
            log.warning("elicitation/create failed: %s", exc)
            return None
        content = getattr(answer, "content", None) if getattr(answer, "action", "") == "accept" else None
        reason = content.get("reason") if isinstance(content, dict) else None
        return reason.strip()[:2000] or None if isinstance(reason, str) else None

    # -- the conversation --------------------------------------------------------------
    async def prompt(self, blocks: Sequence[PromptBlock]) -> PromptResponse:
        if self.busy:
            raise RequestError(-32600, "this session is still answering the last prompt; cancel it or wait")
        self.busy = True
        self.cancel_requested = False
        end: ev.ReplyEnd | None = None
        errors: list[str] = []
        failed: list[str] = []  # every error of the reply: the JSON-RPC error's message names them
        try:
            if not self._tools_settled:  # the editor's MCP servers are there for the first prompt
                self._tools_settled = True
                with anyio.CancelScope() as self._waiting:
                    await self.runtime.wait_for_tools(MCP_WAIT)
                self._waiting = None
            for note in self.notes:
                await self.updates.message(f"> ⚠ {note}\n\n")
            self.notes.clear()
            async with aclosing(self.runtime.reply(prompt_input(blocks))) as events:
                async for event in events:
                    if self.cancel_requested:  # cancelled before the reply had begun
                        self.runtime.cancel()
                    if isinstance(event, ev.ErrorEvent) and event.source != "tool":
                        errors.append(f"{event.source}: {event.error}")
                        failed.append(errors[-1])
                        continue
                    if isinstance(event, ev.Notice) and event.level != "info":
                        await self.updates.message(f"\n\n> {event.level}: {event.text}\n\n")
                    if isinstance(event, ev.ReplyEnd):
                        end = event
                        continue
                    if errors:
                        # the reply carries on after the error: say so where the user reads
                        for error in errors:
                            await self.updates.message(f"\n\n> error ({error})\n\n")
                        errors.clear()
                    await self.updates.handle(event)
        finally:
            await self.updates.finish()
            self.busy = False
        stop = end.stop_reason if end is not None else "error"
        if errors and stop != "error":
            for error in errors:
                await self.updates.message(f"\n\n> error ({error})\n\n")
        if self.cancel_requested or stop == "cancelled":
            return PromptResponse(stop_reason="cancelled", usage=_usage(end.usage if end else None))
        if stop == "error":
            raise refused(-32603, "; ".join(failed) or "the reply failed", {"stopReason": "error"})
        await self._context_usage()
        return PromptResponse(
            stop_reason=STOP_REASONS.get(stop, "end_turn"),  # type: ignore[arg-type]
            usage=_usage(end.usage if end else None),
        )

    async def _context_usage(self) -> None:
        """``usage_update`` when the model says how large its context is."""
        size = getattr(self.runtime.agent.model, "max_input_tokens", None)
        usage = self.updates.last_usage
        if not isinstance(size, int) or size <= 0 or not isinstance(usage, Usage):
            return
        used = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens + usage.output_tokens
        await self.send(UsageUpdate(session_update="usage_update", used=min(used, size), size=size))

    def cancel(self) -> None:
        if self.busy:
            self.cancel_requested = True
            if self._waiting is not None:
                self._waiting.cancel()
            self.runtime.cancel()

    async def replay(self) -> None:
        """Send the loaded history to the editor (``session/load``)."""
        agent = self.runtime.agent
        for update in history_updates(
            agent.messages, agent.session_state, self.find_tool, self.runtime.workspace.root,
            self.runtime.call_outcomes,
        ):
            await self.send(update)

    async def close(self) -> None:
        self.cancel()
        self.closed = True
        await self.runtime.aclose()


def invalid(message: str) -> RequestError:
    """A request the user can correct: JSON-RPC "invalid params" with a message
    that says what (the SDK's helper puts only "Invalid params" in the message)."""
    return refused(-32602, message)


def refused(code: int, message: str, data: Any = None) -> RequestError:
    """A JSON-RPC error whose message is one safe line (:func:`sanitize_line`): it
    quotes the editor's ids and values and the errors of models and servers, and
    editors show it in a notification or their log as it comes."""
    return RequestError(code, sanitize_line(message), data)


def _usage(usage: Usage | None) -> AcpUsage | None:
    if usage is None or not usage.total_tokens:
        return None
    return AcpUsage(
        total_tokens=usage.total_tokens,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_read_tokens=usage.cache_read_tokens or None,
        cached_write_tokens=usage.cache_write_tokens or None,
    )


def prompt_input(blocks: Sequence[PromptBlock]) -> str | UserMessage:
    """The editor's prompt as our user message: text as text, images as images,
    files the user attached as their text (or a pointer the model can read)."""
    parts: list[Block] = []
    typed: list[bool] = []  # per part: the user's own text (not a marker of ours)
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(TextBlock(block.text))
        elif isinstance(block, ImageContentBlock):
            try:
                parts.append(DataBlock(block.mime_type, base64.b64decode(block.data, validate=True)))
            except ValueError:
                parts.append(TextBlock("[an image that could not be decoded was left out]"))
        elif isinstance(block, ResourceContentBlock):
            parts.append(TextBlock(f"[attached: {_where(block.uri)}]"))
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if isinstance(resource, TextResourceContents):
                from shell.context.attachments import fenced_file

                parts.append(TextBlock(f"\n{fenced_file(_where(resource.uri), resource.text)}\n"))
            else:
                parts.append(TextBlock(f"[attached: {_where(resource.uri)} (binary, not shown)]"))
        elif isinstance(block, AudioContentBlock):
            parts.append(TextBlock("[an audio clip was attached; this agent does not take audio]"))
        typed.extend([isinstance(block, TextContentBlock)] * (len(parts) - len(typed)))
    parts = _spaced(parts, typed)
    if all(isinstance(p, TextBlock) for p in parts):
        return "".join(p.text for p in parts if isinstance(p, TextBlock))
    return UserMessage(tuple(parts))


def _spaced(parts: list[Block], typed: list[bool]) -> list[Block]:
    """A space between the user's words and a marker of ours where neither has one:
    the model read ``look: link outside[attached: /tmp/outside.txt]`` (finding V7).
    The user's own text blocks stay joined as the editor split them."""
    out: list[Block] = []
    for i, part in enumerate(parts):
        before = out[-1] if out else None
        if (i and isinstance(part, TextBlock) and isinstance(before, TextBlock) and part.text
                and before.text and not (typed[i] and typed[i - 1])
                and not before.text[-1].isspace() and not part.text[0].isspace()):
            part = TextBlock(f" {part.text}")
        out.append(part)
    return out


def _where(uri: str) -> str:
    """A ``file://`` URI as a path (what the model's tools take); others as they are."""
    parsed = urlparse(uri)
    if parsed.scheme == "file":
        return str(Path(unquote(parsed.path)))
    return uri
