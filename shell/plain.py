"""The line mode (``agent-shell --plain``): prompt-toolkit for input, Rich for output.

Output goes into the terminal's own scrollback and is never redrawn: Markdown is
printed a completed line at a time as it streams (code blocks and tables once
they are complete, since they cannot be drawn in part), tool calls are one line
each, approvals are an inline prompt. That keeps the line mode usable in any
terminal, over ssh, in tmux and in a screen reader, where a full-screen app is not.

Keys: Enter sends, Esc-Enter or Ctrl+J inserts a newline, Tab completes slash
commands; Ctrl+C cancels the reply in flight, and on an empty prompt a second
Ctrl+C quits (as does Ctrl+D or ``/quit``).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio.to_thread
from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import History
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output
from rich.console import Console, RenderableType
from rich.markup import escape
from rich.segment import Segment
from rich.text import Text

from shell.core import events as ev
from shell.core.approvals import ApprovalDecision, ApprovalRequest, RuleScope

from .commands import CommandRegistry, CommandResult, default_commands, is_command
from .core.textsafety import StreamSanitizer, json_text, sanitize, sanitize_line
from .frontend.approval import WARNING_MARK, Choice, approval_lines, argument_lines, decide, is_diff
from .frontend.paced import paced
from .frontend.prompt_history import PromptHistory
from .frontend.reply import CallView, ReplyState, call_head, call_lines, end_notice
from .headless import Interrupt, cancel_on_sigint, edit_in_editor
from .plain_start import PROMPT, SharedHistory, editing_keys, keys_held_for_the_prompt
from .runtime import ShellRuntime, editor_command

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SLOW_TOOL_S = 2.0
"""A tool still running after this long gets a "running" line, so a wait is explained."""
WAITING_S = 0.4
"""The model silent this long (a local server reading a long prompt) gets a spinner, so a
wait is explained; shorter waits show nothing, so fast replies do not flicker."""


class Waiting:
    """A transient "waiting for the model" spinner, on a terminal only, while the model
    has not started answering. Stopped (and erased) before anything else is printed,
    and before a question, so it never mixes with output or an approval prompt."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._timer: asyncio.TimerHandle | None = None
        self._status: Any = None

    def start(self) -> None:
        if self._timer is None and self._status is None and self.console.is_terminal:
            self._timer = asyncio.get_running_loop().call_later(WAITING_S, self._show)

    def _show(self) -> None:
        self._timer = None
        self._status = self.console.status("[dim]waiting for the model…  Ctrl+C cancels[/dim]",
                                           spinner="dots")
        self._status.start()

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._status is not None:
            self._status.stop()
            self._status = None


class MarkdownStream:
    """Streamed Markdown into a console, a completed line at a time, never redrawn.

    Ordinary lines (paragraph text, list items, headings, quotes) are rendered as
    soon as their newline arrives, and so is each line of a fenced code block
    (highlighted on its own: a 400-line file being written shows as it comes, not
    after a silent minute); a table is held until it is complete (its column widths
    need every row) and rendered once. Indentation is kept by rendering the line
    without it and indenting the result, so a nested list item stays nested.
    """

    def __init__(self, console: Console) -> None:
        self.console = console
        self.partial = ""
        self.block: list[str] = []
        self.kind: str | None = None  # "fence" | "table" | None
        self.fence = ""
        self.lexer = "text"
        self.closed = False
        self.blank = False
        self.printed = False
        self.safe = StreamSanitizer()

    def feed(self, text: str) -> None:
        self.partial += self.safe.feed(text)
        while "\n" in self.partial:
            line, self.partial = self.partial.split("\n", 1)
            self._line(line)

    def finish(self) -> None:
        self.partial += self.safe.flush()
        if self.partial:
            self._line(self.partial)
            self.partial = ""
        self._flush_block()

    def _line(self, line: str) -> None:
        if self.kind == "fence":
            if line.strip().startswith(self.fence) and not line.strip().strip(self.fence[0]):
                self.kind = None
                self.blank = True
                return
            self._code(line)
            return
        if self.kind == "table":
            if line.strip().startswith("|"):
                self.block.append(line)
                return
            self._flush_block()
        match = _FENCE.match(line)
        if match:
            self.kind, self.fence = "fence", match.group(1)
            self.lexer = line.strip()[len(self.fence) :].strip().split(" ")[0] or "text"
            if self.printed:
                self.blank = True
            return
        if line.strip().startswith("|"):
            self.kind, self.block, self.closed = "table", [line], False
            return
        if not line.strip():
            self.blank = True
            return
        indent = len(line) - len(line.lstrip(" "))
        self._emit(_markdown(line.strip()), indent)

    def _code(self, line: str) -> None:
        """One line of a fenced code block, highlighted and shown at once."""
        from rich.syntax import Syntax  # pygments: loaded with the first code block

        code = Syntax(line, self.lexer, theme="monokai", background_color="default", word_wrap=True)
        self._emit(code, 1, keep_padding=True)

    def _flush_block(self) -> None:
        if self.block:
            self._emit(_markdown("\n".join(self.block)), 0)
        self.block = []
        if self.kind == "table":
            self.kind = None

    def _emit(self, renderable: RenderableType, indent: int, *, keep_padding: bool = False) -> None:
        options = self.console.options.update(width=max(20, self.console.width - indent))
        lines = self.console.render_lines(renderable, options, pad=False)
        if not keep_padding:
            while lines and not "".join(s.text for s in lines[0]).strip():
                lines.pop(0)
            while lines and not "".join(s.text for s in lines[-1]).strip():
                lines.pop()
        if self.blank and self.printed:
            self.console.print()
        self.blank = False
        for segments in lines:
            pad = [Segment(" " * indent)] if indent else []
            line = Text()
            for seg in [*pad, *segments]:
                line.append(seg.text, seg.style)
            if not keep_padding:  # Rich pads paragraphs to the width; the scrollback needs no spaces
                line.rstrip()
            self.console.print(line, end="\n")
        self.printed = self.printed or bool(lines)


@dataclass(slots=True)
class Audio:
    media_type: str
    data: bytes


class SlashCompleter(Completer):
    """Slash commands, then their arguments (middleware names, on/off); and after
    ``@``, the workspace's files (the same index and search as the TUI's picker)."""

    def __init__(self, runtime: ShellRuntime, commands: CommandRegistry) -> None:
        self.runtime = runtime
        self.commands = commands

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        mention = MENTION_AT_CURSOR.search(text)
        if mention is not None:
            for match in self.runtime.file_index.search(mention.group(1), 30):
                path = match.path
                shown = f'@"{path}"' if any(c.isspace() or c == '"' for c in path) else f"@{path}"
                yield Completion(shown, start_position=-len(mention.group(0)),
                                 display=sanitize_line(shown), display_meta="folder" if match.is_dir else "")
            return
        word = text.rsplit(" ", 1)[-1] if " " in text else text
        for value, meta in self.commands.completions(self.runtime, text):
            yield Completion(value, start_position=-len(word), display_meta=meta)


MENTION_AT_CURSOR = re.compile(r'(?:^|(?<=\s))@([^\s"]*)$')


class PlainShell:
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
        self.console = console or Console(highlight=False)
        self.commands = default_commands()
        self.commands.add("play", "Play the last audio block", usage="/play")(self._play)
        self.commands.add("save", "Save the last audio block to a file", usage="/save PATH")(self._save)
        self.session: PromptSession[Any] = PromptSession(
            input=input, output=output, history=history or _history(runtime),
            completer=SlashCompleter(runtime, self.commands), key_bindings=self._main_keys(),
            complete_while_typing=True, rprompt=self._meter,
        )
        self._io = (input, output)
        self._choice: PromptSession[Any] | None = None
        self._approval: PromptSession[Any] | None = None
        self.ask_lock = asyncio.Lock()
        self.seen_approvals: dict[str, asyncio.Event] = {}
        self.audio: dict[str, Audio] = {}
        self.last_audio: Audio | None = None
        self.interrupted = False
        self.next_default = ""
        """Text the next prompt starts with (a rewound message comes back)."""
        self.last_reply: ReplyState | None = None
        self.drawing: PlainReply | None = None
        """The reply being printed, if any (its spinner stops before a question)."""
        """The last reply as the front-end core reduced it (how it ended, its calls)."""
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
        try:
            with self._keys_typed_ahead():
                async with self.runtime.running():
                    return await self._loop()
        finally:
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
            try:
                answer = await self.choice.prompt_async("Trust this workspace? [y/N] ")
            except (EOFError, KeyboardInterrupt):
                answer = None
            if answer is not None:
                trusted = answer.strip().lower() in ("y", "yes")
                await self.runtime.decide_trust(check, trusted)
                if trusted:
                    return
            check = self.runtime.workspace_trust()
        self.console.print(Text(f"! {self.runtime.untrusted_notice(check)}", style="yellow"))

    def _mcp_status(self, status: Any) -> None:
        if status.state == "connecting":
            return
        style = "dim" if status.state == "ready" else "yellow"
        detail = f"{status.tools} tools" if status.state == "ready" else self.runtime.shown(status.message)
        line = Text(f"mcp {sanitize_line(status.name)}: {status.state} ({detail})", style=style)
        run_in_terminal(lambda: self.console.print(line))

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
                return 0
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
                result = await self.commands.run(self.runtime, text if text.strip() != "/" else "/help")
                if self._show_result(result):
                    return 0
                back = getattr(result.data, "text", None) if result.action in ("rewind", "fork") else None
                if isinstance(back, str):
                    self.next_default = back  # the message comes back to the prompt
                if result.action == "send" and isinstance(result.data, str):  # a custom command
                    self.console.print(Text(f"{PROMPT}{sanitize(result.data)}", style="bold"))
                    await self.reply(result.data)
                elif result.action == "copy" and isinstance(result.data, str):
                    self._copy(result.data)
                continue
            await self.reply(text)

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

    def _show_result(self, result: CommandResult) -> bool:
        if result.action == "quit":
            return True
        if result.action == "new":  # /new or /clear: a clean screen for a new conversation
            self.console.clear()
        if result.text:  # model ids, session titles, MCP descriptions: outside text
            if result.error:
                self.console.print(Text(self.runtime.shown(result.text), style="red"))
            else:
                self.console.print(_markdown(sanitize(result.text)))
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
        composed = self.runtime.compose(text)
        if composed.problems:
            self.console.print(Text("Not sent:", style="red"))
            for problem in composed.problems:
                self.console.print(Text(f"  {sanitize_line(problem)}", style="red"))
            self.next_default = text  # back at the prompt, to fix
            return "error"
        for chip in composed.chips:
            self.console.print(Text(f"  ▤ {sanitize_line(chip)}", style="dim"))
        for note in composed.notes:
            self.console.print(Text(f"  {sanitize_line(note)}", style="yellow"))
        drawing = self.drawing = PlainReply(self)
        with cancel_on_sigint(self.runtime.cancel, drawing.cancel, drawing.interrupt):
            async with aclosing(self.runtime.reply(composed.message)) as events:
                async for event in paced(events):  # Ctrl+C is seen within a few ms
                    drawing.handle(event)
        drawing.close()
        self.drawing = None
        self.last_reply = drawing.reply
        return drawing.reply.stop_reason

    # -- approvals ------------------------------------------------------------------
    async def ask(self, request: ApprovalRequest) -> ApprovalDecision:
        """Approve (y), edit (e), reject with a reason (n), always (a); Ctrl+C cancels."""
        seen = self.seen_approvals.setdefault(request.call.id, asyncio.Event())
        with anyio.move_on_after(1.0):  # let the text before the call print first
            await seen.wait()
        self.seen_approvals.pop(request.call.id, None)
        async with self.ask_lock:
            if self.drawing is not None:
                self.drawing.waiting.stop()
            self._show_request(request)
            decision = await decide(request, _PlainPrompts(self))
        if decision is None:
            self.runtime.cancel()
            return ApprovalDecision.reject("The user cancelled the reply.")
        return decision

    def _show_request(self, request: ApprovalRequest) -> None:
        head, *body = approval_lines(request)
        self.console.print(Text.assemble(("? ", "bold yellow"), (sanitize(head), "bold")))
        words = len(approval_lines(request)) - len(argument_lines(request)) - 1
        preview_start = 1 + words + len(argument_lines(request))
        for i, line in enumerate(body, 1):
            style = "dim" if i <= words else ""
            if i <= words and line.lstrip().startswith(WARNING_MARK):
                style = "bold yellow"
            if i >= preview_start:
                style = _diff_style(line.strip()) if is_diff(request.preview) else "cyan"
            self.console.print(Text(sanitize(line), style=style), soft_wrap=False, overflow="fold")

    # -- audio ----------------------------------------------------------------------
    def _audio(self, e: ev.DataBlockStart | ev.DataBlockDelta | ev.DataBlockEnd) -> None:
        if isinstance(e, ev.DataBlockStart):
            self.audio[e.block_id] = Audio(e.media_type, b"")
        elif isinstance(e, ev.DataBlockDelta) and e.block_id in self.audio:
            self.audio[e.block_id].data += e.data
        elif isinstance(e, ev.DataBlockEnd) and e.block_id in self.audio:
            audio = self.last_audio = self.audio.pop(e.block_id)
            self.console.print(Text(f"♪ {audio.media_type} · {_audio_length(audio)} · /play · /save PATH",
                                    style="cyan"))

    def _play(self, runtime: ShellRuntime, arg: str) -> CommandResult:
        if self.last_audio is None:
            return CommandResult("No audio yet.", error=True)
        try:
            from .speech.audio import start_playback

            start_playback(self.last_audio.media_type, self.last_audio.data)
        except Exception as exc:
            return CommandResult(f"Cannot play: {exc}", error=True)
        return CommandResult("Playing.")

    def _save(self, runtime: ShellRuntime, arg: str) -> CommandResult:
        if self.last_audio is None or not arg:
            return CommandResult("Usage: /save PATH (after an audio block).", error=True)
        data = self.last_audio.data
        try:
            from .speech.audio import as_wav

            data = as_wav(self.last_audio.media_type, data)
        except Exception:
            pass
        path = Path(arg).expanduser()
        try:
            path.write_bytes(data)
        except OSError as exc:
            return CommandResult(f"Cannot save: {exc}", error=True)
        return CommandResult(f"Saved {len(data)} bytes to {path}.")

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


STATUS_STYLES = {"done": "green", "error": "red", "blocked": "yellow", "rejected": "yellow",
                 "cancelled": "yellow"}


class PlainReply:
    """One reply printed into the scrollback, from the front-end core's reducer:
    Markdown a line at a time, thinking folded, a line per tool call as it ends (and
    one when a call runs long), notices and errors, audio announced."""

    def __init__(self, shell: PlainShell) -> None:
        self.shell = shell
        self.console = shell.console
        self.reply = ReplyState()
        self.stream: MarkdownStream | None = None
        self.slow: dict[str, asyncio.TimerHandle] = {}
        self.stopped = False
        self.interrupt = Interrupt()
        """Set by Ctrl+C's signal handler the moment it comes: nothing more is printed."""
        self.waiting = Waiting(self.console)
        self._table: dict[type, Callable[[Any, CallView | None], None]] = {
            ev.TextBlockStart: self._text_start,
            ev.TextBlockDelta: self._text_delta,
            ev.TextBlockEnd: self._text_end,
            ev.ThinkingBlockStart: self._thinking_start,
            ev.ThinkingBlockEnd: self._thinking_end,
            ev.ApprovalRequested: self._approval,
            ev.ToolExecutionStart: self._exec_start,
            ev.ToolExecutionEnd: self._exec_end,
            ev.DataBlockStart: self._audio,
            ev.DataBlockDelta: self._audio,
            ev.DataBlockEnd: self._audio,
            ev.Notice: self._notice,
            ev.ErrorEvent: self._error,
            ev.Steered: self._steered,
        }

    def cancel(self) -> None:
        """Ctrl+C: what was in flight is not printed after it."""
        self.stopped, self.stream = True, None
        self.waiting.stop()
        self.reply.cancel()
        self.console.print("[dim]cancelling…[/dim]")

    def handle(self, event: Any) -> None:
        call = self.reply.apply(event)
        handler = self._table.get(type(event))
        if handler is not None or self.reply.phase != "thinking":
            self.waiting.stop()  # before anything is printed (silent thinking deltas keep it)
        if (self.stopped or self.interrupt.seen) and not isinstance(event, ev.ReplyEnd):
            return
        if handler is not None:
            handler(event, call)
        if self.reply.phase == "thinking" and self.stream is None and not self.stopped:
            self.waiting.start()

    def close(self) -> None:
        self.waiting.stop()
        for handle in self.slow.values():
            handle.cancel()
        if self.stream is not None:
            self.stream.finish()
        said = end_notice(self.reply.stop_reason)
        if said:
            self.console.print(Text(said, style="yellow"))

    def _steered(self, event: ev.Steered, call: CallView | None) -> None:
        said = f"{PROMPT}{sanitize(event.message.text)} (steered)"
        self.console.print(Text(said, style="bold"))

    def _text_start(self, event: ev.TextBlockStart, call: CallView | None) -> None:
        self.stream = MarkdownStream(self.console)

    def _text_delta(self, event: ev.TextBlockDelta, call: CallView | None) -> None:
        if self.stream is not None:
            self.stream.feed(event.delta)

    def _text_end(self, event: ev.TextBlockEnd, call: CallView | None) -> None:
        if self.stream is not None:
            self.stream.finish()
            self.stream = None

    def _thinking_start(self, event: ev.ThinkingBlockStart, call: CallView | None) -> None:
        self.console.print("[dim italic]thinking…[/dim italic]")

    def _thinking_end(self, event: ev.ThinkingBlockEnd, call: CallView | None) -> None:
        body = sanitize(event.text).strip()
        if body:
            self.console.print(Text("┊ " + body.replace("\n", "\n┊ "), style="dim italic"))

    def _approval(self, event: ev.ApprovalRequested, call: CallView | None) -> None:
        self.shell.seen_approvals.setdefault(event.call_id, asyncio.Event()).set()

    def _exec_start(self, event: ev.ToolExecutionStart, call: CallView | None) -> None:
        if call is not None:
            loop = asyncio.get_running_loop()
            self.slow[call.call_id] = loop.call_later(SLOW_TOOL_S, self._running, call)

    def _running(self, call: CallView) -> None:
        icon, name, summary, tail = call_head(call)
        self.console.print(Text(f"{icon} {name} {summary}{tail}", style="dim"))

    def _exec_end(self, event: ev.ToolExecutionEnd, call: CallView | None) -> None:
        handle = self.slow.pop(event.call_id, None)
        if handle:
            handle.cancel()
        if call is None:
            return
        style = STATUS_STYLES.get(call.status, "")
        _, *rest = call_lines(call)
        icon, name, summary, tail = call_head(call)
        head = Text.assemble((f"{icon} ", style), (name, "bold"), " ", (summary, "dim"), (tail, "dim"))
        self.console.print(head)
        for line in rest:
            self.console.print(Text(line, style=style))

    def _audio(self, event: Any, call: CallView | None) -> None:
        self.shell._audio(event)

    def _notice(self, event: ev.Notice, call: CallView | None) -> None:
        color = {"info": "dim", "warning": "yellow"}.get(event.level, "red")
        self.console.print(Text(f"{event.level}: {self.shell.runtime.shown(event.text)}", style=color))

    def _error(self, event: ev.ErrorEvent, call: CallView | None) -> None:
        error = f"error ({sanitize_line(event.source)}): {self.shell.runtime.shown(event.error)}"
        self.console.print(Text(error, style="red"))


class _PlainPrompts:
    """The approval questions on the line mode's own prompts (one key answers)."""

    def __init__(self, shell: PlainShell) -> None:
        self.shell = shell
        self.console = shell.console

    async def key(self, request: ApprovalRequest, offered: list[Choice]) -> str | None:
        labels = "  ".join(f"[{c.key}] {c.label}" for c in offered)
        keys = [c.key for c in offered]
        key = await self.shell.choice.prompt_async(
            "  " + labels + " " + PROMPT, key_bindings=_choice_keys(keys), handle_sigint=False,
        )
        return None if key == "cancel" else str(key)

    async def reason(self, request: ApprovalRequest) -> str:
        return str(await self.shell.approval.prompt_async(
            "  reason (the model reads it; Enter for none) " + PROMPT, multiline=False, handle_sigint=False,
        ))

    async def edited(self, request: ApprovalRequest) -> str | None:
        text = json_text(request.args, indent=2)
        command = editor_command()
        if command:
            return await anyio.to_thread.run_sync(edit_in_editor, text, command)
        self.console.print("[dim]  edit the JSON arguments; Esc then Enter to accept[/dim]")
        edited = self.shell.approval.prompt_async("  ", default=text, multiline=True, handle_sigint=False)
        return str(await edited)

    async def rules(self, request: ApprovalRequest) -> tuple[tuple[str, ...], RuleScope] | None:
        """"Always": the proposed rule(s), editable, then where to keep them."""
        self.console.print("[dim]  rule(s) to remember, one per line; Esc then Enter to accept[/dim]")
        text = await self.shell.approval.prompt_async(
            "  ", default="\n".join(request.suggested_rules), multiline=True, handle_sigint=False
        )
        rules = tuple(line.strip() for line in str(text).splitlines() if line.strip())
        if not rules:
            return rules, "session"
        self.console.print("  keep it for [bold]s[/bold] this session · [bold]p[/bold] this project · "
                           "[bold]u[/bold] everywhere (user config)")
        scope = await self.shell.choice.prompt_async(
            "  [s/p/u] " + PROMPT, key_bindings=_choice_keys(["s", "p", "u"]), handle_sigint=False,
        )
        where: dict[str, RuleScope] = {"s": "session", "p": "project", "u": "user"}
        return (rules, where[scope]) if scope in where else None

    def say(self, text: str, level: str = "info") -> None:
        style = {"ok": "green", "warning": "yellow", "error": "red"}.get(level, "dim")
        self.console.print(Text(f"  {sanitize(text)}", style=style), overflow="fold")


@dataclass(frozen=True, slots=True)
class _CtrlC:
    had_text: bool


def _choice_keys(keys: list[str]) -> KeyBindings:
    kb = KeyBindings()
    for key in keys:
        kb.add(key)(lambda event, key=key: event.app.exit(result=key))
    kb.add("c-c")(lambda event: event.app.exit(result="cancel"))
    kb.add("escape", eager=True)(lambda event: event.app.exit(result="n") if "n" in keys else None)
    kb.add("<any>")(lambda event: None)  # other keys do nothing: the answer is one key
    return kb


def _diff_style(line: str) -> str:
    if line.startswith(("+++", "---", "@@")):
        return "dim"
    return "green" if line.startswith("+") else "red" if line.startswith("-") else ""


def _audio_length(audio: Audio) -> str:
    try:
        from .speech.audio import duration_s, pcm_format

        fmt = pcm_format(audio.media_type, audio.data)
        if fmt is not None:
            return f"{duration_s(fmt, len(audio.data) - fmt.data_offset):.1f} s"
    except Exception:
        pass
    return f"{len(audio.data) // 1024} KiB"


def _markdown(text: str) -> RenderableType:
    """Rich's Markdown, imported at first use: it pulls in markdown-it and Pygments,
    which the first prompt does not need (see benchmarks/startup.py)."""
    return _safe_markdown()(text)


_SAFE_MARKDOWN: list[Callable[[str], RenderableType]] = []


def _safe_markdown() -> Callable[[str], RenderableType]:
    """Rich's ``Markdown`` parsed by :func:`shell.frontend.markdown.markdown_parser`
    instead of its own parser: raw HTML shows as the text it is (``List<String>``,
    ``<module>``), and a link whose text is not its target shows the target after
    it (an OSC 8 link hides it). The parser is shared; Rich builds one per call."""
    if _SAFE_MARKDOWN:
        return _SAFE_MARKDOWN[0]
    from rich.markdown import Markdown

    from .frontend.markdown import markdown_parser

    class SafeMarkdown(Markdown):
        def __init__(self, markup: str) -> None:  # Markdown.__init__, on our parser
            self.markup = markup
            self.parsed = markdown_parser().parse(markup)
            self.code_theme = "monokai"
            self.justify = None
            self.style = "none"
            self.hyperlinks = True
            self.inline_code_lexer = None
            self.inline_code_theme = self.code_theme

    _SAFE_MARKDOWN.append(SafeMarkdown)
    return SafeMarkdown


def _history(runtime: ShellRuntime) -> History:
    return SharedHistory(lambda: PromptHistory(redactor=runtime.secrets))


async def run_plain(runtime: ShellRuntime, initial: str | None = None) -> int:
    """``agent-shell --plain [MESSAGE]``: ``initial`` is sent as if typed first."""
    shell = PlainShell(runtime)
    shell.initial = initial
    return await shell.run()
