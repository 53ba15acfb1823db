"""The line mode (``agent-shell --plain``): prompt-toolkit for input, Rich for output.

Output goes into the terminal's own scrollback and is never redrawn: Markdown is
printed a completed line at a time as it streams (code blocks and tables once
they are complete, since they cannot be drawn in part), tool calls are one line
each, approvals are an inline prompt. That keeps the line mode usable in any
terminal, over ssh, in tmux and in a screen reader, where a full-screen app is not.

The reply printer is :mod:`shell.plain_reply`, the approval questions
:mod:`shell.plain_approval`; this module is the shell around them: the prompt,
commands, the trust question, audio.

Keys: Enter sends, Esc-Enter or Ctrl+J inserts a newline, Tab completes slash
commands; Ctrl+C cancels the reply in flight, and on an empty prompt a second
Ctrl+C quits (as does Ctrl+D or ``/quit``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.to_thread
from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from shell.core.approvals import ApprovalDecision, ApprovalRequest

from .commands import CommandResult, default_commands, is_command
from .core.textsafety import sanitize, sanitize_line
from .frontend.approval import APPROVE_ALL_KEY, decide
from .frontend.paced import paced
from .frontend.prompt_history import PromptHistory
from .frontend.reply import ReplyState, call_lines
from .headless import cancel_on_sigint
from .permissions.trust import TRUST_REASK, trust_answer
from .plain_approval import PlainPrompts, choice_keys, show_request
from .plain_audio import Audio, PlainAudio
from .plain_complete import SlashCompleter
from .plain_reply import PlainReply, render_markdown
from .plain_signals import EndSignals
from .plain_start import PROMPT, SharedHistory, editing_keys, keys_held_for_the_prompt
from .runtime import ShellRuntime

GATHER_STEP = 0.05
GATHER_MOST = 0.5
"""Seconds a question of a parallel batch waits for its neighbours' questions (see ``_gathered``)."""


class PlainShell(PlainAudio):
    """One line-mode session. ``input``/``output``/``console`` are for tests."""

    def __init__(
        self,
        runtime: ShellRuntime,
        *,
        console: Console | None = None,
        input: Input | None = None,
        output: Output | None = None,
        history: History | None = None,
    ) -> None:
        self.runtime = runtime
        self._own_input = input is not None  # a test's pipe: leave the real terminal alone
        self.initial: str | None = None
        """A first message to send before prompting (``agent-shell "MESSAGE"``)."""
        self.end_signals = EndSignals()
        self.console = console or Console(highlight=False)
        self.commands = default_commands()
        self.commands.add("play", "Play the last audio block", usage="/play")(self._play)
        self.commands.add("save", "Save the last audio block as a WAV file",
                          usage="/save [PATH] [--force] [--outside]")(self._save)
        self.session: PromptSession[Any] = PromptSession(
            input=input, output=output, history=history or _history(runtime),
            completer=SlashCompleter(runtime, self.commands), key_bindings=self._main_keys(),
            complete_while_typing=True, rprompt=self._meter,
        )
        self._io = (input, output)
        self._choice: PromptSession[Any] | None = None
        self._approval: PromptSession[Any] | None = None
        self.ask_lock = asyncio.Lock()
        self.waiting: list[ApprovalRequest] = []
        """Questions waiting for the one being asked (parallel calls): ``A`` may answer them."""
        self.approved_ahead: set[str] = set()
        self.seen_approvals: dict[str, asyncio.Event] = {}
        self.audio: dict[str, Audio] = {}
        self.last_audio: Audio | None = None
        self.interrupted = False
        self.next_default = ""
        """Text the next prompt starts with (a rewound message comes back)."""
        self.held_back = ""
        """A message that came back to the prompt unsent: a command typed after it is run
        as the command (the refusal's own advice, ``/image clear``, made ``describe
        it/image clear``, refused again: finding V6) and the message comes back again."""
        self.last_reply: ReplyState | None = None
        """The last reply as the front-end core reduced it (how it ended, its calls)."""
        self.drawing: PlainReply | None = None
        """The reply being printed, if any (its spinner stops before a question)."""
        runtime.ask = self.ask

    # Separate sessions: a PromptSession keeps the options of its last prompt. Each is
    # made when first asked (building one costs milliseconds the first prompt need not wait).
    @property
    def choice(self) -> PromptSession[Any]:
        """For one-key answers (trust, approval keys, rule scope)."""
        if self._choice is None:
            self._choice = PromptSession(input=self._io[0], output=self._io[1])
        return self._choice

    @property
    def approval(self) -> PromptSession[Any]:
        """For the words of an approval (edited arguments, a reason to reject)."""
        if self._approval is None:
            self._approval = PromptSession(input=self._io[0], output=self._io[1])
        return self._approval

    def note(self, text: str) -> None:
        """A dim line in the scrollback."""
        self.console.print(Text(text, style="dim"))

    # -- the main loop -----------------------------------------------------------
    async def run(self) -> int:
        self._banner()
        await self._ask_trust()
        self.runtime.on_mcp_change.append(self._mcp_status)
        with contextlib.suppress(Exception):  # so they complete; a broken file is said when used
            self.commands.refresh_custom(self.runtime)
        stop_hearing = self._hear_late_checks()
        try:
            with self._keys_typed_ahead(), self.end_signals.installed():
                async with self.runtime.running():
                    return await self._loop()
        finally:
            stop_hearing()
            hint = self.runtime.resume_hint()
            if hint:
                self.console.print(Text(hint, style="dim"))

    async def _ask_trust(self) -> None:
        """A workspace with its own config the user never answered for: show all it
        would run and ask (no answer, Ctrl+C or Ctrl+D: not now, asked next time)."""
        check = self.runtime.workspace_trust()
        if check.trusted or check.state == "none":
            return
        if check.needs_answer:
            root = escape(sanitize(str(check.config.root)))
            self.console.print(f"[bold yellow]{root} has its own agent-shell config.[/bold yellow] "
                               "None of it is used until you trust this workspace. Trusting it would apply "
                               "(or ignore), file by file:")
            for line in self.runtime.describe_project(check, self.commands.names(custom=False)):
                unasked = line.startswith("! ")  # would run with no question: read this first
                self.console.print(Text(f"  • {sanitize(line)}", style="bold yellow" if unasked else ""))
            self.console.print("[dim]Its servers would run as you. Asked again when any of these "
                               "files changes.[/dim]")
            trusted: bool | None = None
            while trusted is None:
                try:
                    answer = await self.choice.prompt_async("Trust this workspace? [y/N] ")
                except (EOFError, KeyboardInterrupt):
                    break
                trusted = trust_answer(answer)
                if trusted is None:
                    self.console.print(Text(f"{sanitize_line(answer)!r} is not an answer. {TRUST_REASK}",
                                            style="yellow"))
            if trusted is not None:
                await self.runtime.decide_trust(check, trusted)
                if trusted:
                    return
            check = self.runtime.workspace_trust()
        self.console.print(Text(f"! {self.runtime.untrusted_notice(check)}", style="yellow"))

    def _mcp_status(self, status: Any) -> None:
        if status.state == "connecting":
            return
        style = "dim" if status.state == "ready" else "yellow"
        detail = f"{status.tools} tools" if status.state == "ready" else self.runtime.shown(status.reason)
        if status.state == "ready" and status.message:  # tools it was refused
            detail += f"; {self.runtime.shown(status.message)}"
        line = Text(f"mcp {sanitize_line(status.name)}: {status.state} ({detail})", style=style)
        run_in_terminal(lambda: self.console.print(line))

    def _hear_late_checks(self) -> Callable[[], None]:
        """What a check after a command finds once that command's result was given
        (Esc, or past its time): printed when it ends, above the prompt being typed,
        not only at exit (the model gets it with its next command's result)."""
        from .tools import after_check

        loop = asyncio.get_running_loop()

        def show(notes: list[str]) -> None:
            for note in notes:
                said = self.runtime.shown(after_check.for_user(note))
                self.console.print(Text(f"! {said}", style="yellow"))

        def found(notes: list[str]) -> bool:
            try:
                loop.call_soon_threadsafe(run_in_terminal, lambda: show(notes))
            except RuntimeError:  # the loop has ended: the exit says it (shell.cli.finish_checks)
                return False
            return True

        return after_check.listen(found)

    def _prompt(self) -> FormattedText:
        """The permission mode, always in sight, then the prompt (bypass in red)."""
        label = self.runtime.mode_label
        style = "fg:ansired bold" if self.runtime.mode_warning else "fg:ansicyan"
        return FormattedText([(style, label), ("", " " + PROMPT)] if label else [("", PROMPT)])

    async def _loop(self) -> int:
        first, self.initial = self.initial, None
        while True:
            try:
                default, self.next_default = self.next_default, ""
                text = first if first is not None else await self.session.prompt_async(
                    self._prompt, default=default
                )
            except EOFError:
                return self.end_signals.exit_code()
            held, self.held_back = self.held_back, ""
            if held and isinstance(text, str) and text.startswith(held) and is_command(text[len(held):]):
                text, self.next_default, self.held_back = text[len(held):].lstrip(), held, held
            if first is not None:
                self.console.print(Text(f"{PROMPT}{sanitize(first)}", style="bold"))
                first = None
            if isinstance(text, _CtrlC):
                if text.had_text:
                    self.interrupted = False
                    continue
                if self.interrupted:
                    return 0
                self.interrupted = True
                self.console.print("[dim](Ctrl+C again to quit, or /quit)[/dim]")
                continue
            self.interrupted = False
            if not text.strip():
                continue
            if is_command(text) or text.strip() == "/":
                if await self._command(text):
                    return 0
            else:
                await self.reply(text)
            if self.end_signals.signum is not None:  # TERM or HUP cancelled a reply: quit
                return self.end_signals.exit_code()

    async def _command(self, text: str) -> bool:
        """Run a /command; True when it quits the shell."""
        result = await self.commands.run(self.runtime, text if text.strip() != "/" else "/help")
        result = await self._rewind_asked(result)
        if self._show_result(result):
            return True
        back = getattr(result.data, "text", None) if result.action in ("rewind", "fork") else None
        if isinstance(back, str) and back:
            self.next_default = back  # the message comes back to the prompt, said (T9)
            if result.action == "rewind":  # /fork's own text says it
                self.console.print(Text("Your message is back in the prompt: edit it, or Enter "
                                        "sends it again.", style="dim"))
        if result.action == "send" and isinstance(result.data, str):  # a custom command
            self.console.print(Text(f"{PROMPT}{sanitize(result.data)}", style="bold"))
            await self.reply(result.data)
        elif result.action == "copy" and isinstance(result.data, str):
            self._copy(result.data)
        return False

    def _banner(self) -> None:
        rt = self.runtime
        demo = " [yellow](offline demo model: no provider configured)[/yellow]" if rt.is_demo else ""
        where = escape(sanitize_line(str(rt.workspace.root)))
        label = escape(sanitize_line(rt.model_label))
        self.console.print(f"[bold]agent-shell[/bold] · {label}{demo} · {where}")
        self.console.print(
            "[dim]Enter sends · Esc-Enter or Ctrl+J for a new line · /help · Ctrl+C cancels[/dim]"
        )
        mode = rt.permissions.describe_mode()
        style = "red" if rt.mode_warning else "dim"
        self.console.print(Text(f"permissions: {mode} · Shift+Tab or /mode switches", style=style))
        for problem in rt.problems:
            self.console.print(Text(f"! {rt.shown(problem)}", style="yellow"))
        if rt.agent.messages:
            self._recap()

    def _recap(self, header: bool = True) -> None:
        """A resumed conversation: which session, and where it left off (the line
        mode's scrollback does not have it)."""
        from .frontend.recap import notes_again, recap

        rt = self.runtime
        seen = recap(rt.agent.messages, rt.call_outcomes)
        recorder = rt.session_recorder
        name = f" {recorder.session_id}" if recorder is not None else ""
        title = f" “{recorder.title}”" if recorder is not None and recorder.title else ""
        said = f"Resumed session{name}{title}: {seen.messages} messages. " if header else ""
        self.console.print(Text(sanitize_line(f"{said}Where it left off:"), style="dim"))
        if seen.said:
            self.console.print(Text(f"{PROMPT}{sanitize(seen.said)}", style="bold"))
        if seen.answer:
            self.console.print(render_markdown(sanitize(seen.answer)))
        if seen.left_out:
            self.console.print(Text(f"(… {seen.left_out} more lines; /export writes it all)", style="dim"))
        for call in seen.stopped:  # a call that never finished must not read as done
            self.console.print(Text("\n".join(call_lines(call)), style="yellow"))
        if seen.ended:
            self.console.print(Text(seen.ended, style="yellow"))
        for note in notes_again(rt.call_notes):
            self.console.print(Text(f"⚠ {sanitize_line(note)}", style="yellow"))

    def _copy(self, text: str) -> None:
        """``/copy``: OSC 52 on this terminal (or tmux, or a local tool: see
        :mod:`shell.frontend.clipboard`)."""
        from .frontend.clipboard import copy_text

        def write(seq: str) -> None:
            self.console.file.write(seq)
            self.console.file.flush()

        copied = copy_text(text, write if self.console.is_terminal else None)
        if copied.ok:
            said = f"Copied {len(text):,} characters through {copied.how}. {copied.note}".strip()
            self.console.print(Text(said, style="dim"))
        else:
            self.console.print(Text(copied.note, style="yellow"))

    async def _rewind_asked(self, result: CommandResult) -> CommandResult:
        """``/rewind N``: what it would change, then one question (the numbers the
        preview says), answered with one key; anything but b, c or f changes nothing.
        Other results as they are."""
        from .rewind import RewindPlan, ask_text, turns

        plan = result.data
        if not isinstance(plan, RewindPlan) or result.error:
            return result
        rows = turns(self.runtime)
        position = next((i for i, row in enumerate(rows, 1) if row.number == plan.turn.number), 0)
        self.console.print(render_markdown(sanitize(plan.describe(position or None))))
        self.console.print(Text(ask_text(plan, "both", rows[position - 1:], position), style="bold yellow"))
        keys = f"  [b] conversation and files  [c] conversation only  [f] files only  [n] no {PROMPT}"
        try:
            answer = await self.choice.prompt_async(keys, key_bindings=choice_keys(list("bcfny")),
                                                    handle_sigint=False)
        except (EOFError, KeyboardInterrupt):
            answer = ""
        # the answer is one key: an Enter typed with it would send the message this
        # rewind puts back in the prompt at once (finding T9)
        clear_typeahead(self.choice.input)
        what = {"b": "both", "y": "both", "c": "conversation", "f": "files"}.get(str(answer))
        if what is None:
            return CommandResult("Nothing changed: the conversation and the files are as they were.")
        return await self.commands.run(self.runtime, f"/rewind {position} {what}")

    def _show_result(self, result: CommandResult) -> bool:
        if result.action == "quit":
            return True
        if result.action == "new":  # /new or /clear: a clean screen for a new conversation
            self.console.clear()
        if result.text:  # model ids, session titles, MCP descriptions: outside text
            if result.error:
                self.console.print(Text(self.runtime.shown(result.text), style="red"))
            else:
                self.console.print(render_markdown(sanitize(result.text)))
                if result.action == "resume":
                    self._recap(header=False)
        return False

    # -- one reply ----------------------------------------------------------------
    def _keys_typed_ahead(self) -> contextlib.AbstractContextManager[None]:
        """Keys typed while no prompt is up wait for the next prompt (see
        :func:`shell.plain_start.keys_held_for_the_prompt`)."""
        return keys_held_for_the_prompt(self._own_input)

    def _meter(self) -> str:
        """How full the context is and the cost, right of the prompt (empty when unknown)."""
        meter = self.runtime.meter
        return " · ".join(p for p in (meter.context_label(), meter.cost_label()) if p)

    async def reply(self, text: str) -> str:
        """Stream one reply (with its ``@`` files and images); returns its stop reason."""
        with cancel_on_sigint(self.runtime.cancel):  # Ctrl+C stops a slow check of an @ file
            composed = await self.runtime.compose(text)
        if composed.problems:
            self.console.print(Text("Not sent:", style="red"))
            for problem in composed.problems:
                self.console.print(Text(f"  {sanitize_line(problem)}", style="red"))
            self.next_default = self.held_back = text  # back at the prompt, to fix
            return "error"
        for chip in composed.chips:
            self.console.print(Text(f"  ▤ {sanitize_line(chip)}", style="dim"))
        for note in composed.notes:
            self.console.print(Text(f"  {sanitize_line(note)}", style="yellow"))
        drawing = self.drawing = PlainReply(self)
        with cancel_on_sigint(drawing.cancel_reply, drawing.cancel, drawing.interrupt):
            async with aclosing(self.runtime.reply(composed.message)) as events:
                async for event in paced(events, hold=drawing.hold):  # Ctrl+C is seen within a few ms
                    drawing.handle(event)
        drawing.close()
        self.end_signals.seen_in(drawing.interrupt)
        self.drawing = None
        self.last_reply = drawing.reply
        if drawing.reply.withdrawn:  # it did not fit the context, or a policy refused it: back to edit
            self.next_default = self.held_back = text
            self.console.print(Text("Your message is back at the prompt.", style="dim"))
        return drawing.reply.stop_reason

    # -- approvals ------------------------------------------------------------------
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        """Approve (y), edit (e), reject with a reason (n), always (a), the rest of the
        reply (Y, N), every routine question waiting (A); Ctrl+C cancels."""
        self.waiting.append(request)
        try:
            seen = self.seen_approvals.setdefault(request.call.id, asyncio.Event())
            with anyio.move_on_after(1.0):  # let the text before the call print first
                await seen.wait()
            self.seen_approvals.pop(request.call.id, None)
            async with self.ask_lock:
                self.waiting.remove(request)
                decision = await self._answer(request)
        finally:
            if request in self.waiting:
                self.waiting.remove(request)
        if decision is None:
            self.runtime.cancel()
            return ApprovalDecision.reject("The user cancelled the reply.")
        return decision

    async def _answer(self, request: ApprovalRequest) -> ApprovalDecision | None:
        if request.call.id in self.approved_ahead:  # A, pressed on the question before it
            self.approved_ahead.discard(request.call.id)
            name = sanitize_line(request.call.name)
            self.console.print(Text(f"  {name}: approved with the question before it (A)", style="green"))
            return ApprovalDecision.approve()
        if self.drawing is not None:
            self.drawing.waiting.stop()
        if request.batch is not None and request.batch.size > 1:
            await self._gathered()
        show_request(self.console, request)
        together = [r for r in self.waiting if r.routine and "approve" in r.allowed_decisions]
        prompts = PlainPrompts(self)
        decision = await decide(request, prompts, len(together))
        if prompts.last_key == APPROVE_ALL_KEY and decision is not None:
            self.approved_ahead.update(r.call.id for r in together if r in self.waiting)
        return decision

    async def _gathered(self) -> None:
        """Let the questions of the calls running beside this one arrive before it is shown,
        so that ``A`` counts them: each call's permission check ends in a worker thread
        (a slow check must not freeze the prompt), a moment apart. Waits while more come,
        :data:`GATHER_STEP` at a time, :data:`GATHER_MOST` at most."""
        end = anyio.current_time() + GATHER_MOST
        count = -1
        while len(self.waiting) != count and anyio.current_time() < end:
            count = len(self.waiting)
            await anyio.sleep(GATHER_STEP)

    # -- keys -----------------------------------------------------------------------
    def cycle_mode(self) -> None:
        """Shift+Tab: the next permission mode (the prompt shows it when next drawn)."""
        self.runtime.permissions.cycle_mode()

    def _main_keys(self) -> KeyBindings:
        kb = editing_keys()

        @kb.add("s-tab")
        def _cycle_mode(event: KeyPressEvent) -> None:
            self.cycle_mode()
            event.app.invalidate()

        @kb.add("c-c")
        def _interrupt(event: KeyPressEvent) -> None:
            event.app.exit(result=_CtrlC(bool(event.current_buffer.text)))

        return kb


@dataclass(frozen=True, slots=True)
class _CtrlC:
    had_text: bool


def _history(runtime: ShellRuntime) -> History:
    return SharedHistory(lambda: PromptHistory(redactor=runtime.secrets))


async def run_plain(runtime: ShellRuntime, initial: str | None = None) -> int:
    """``agent-shell --plain [MESSAGE]``: ``initial`` is sent as if typed first."""
    shell = PlainShell(runtime)
    shell.initial = initial
    return await shell.run()
