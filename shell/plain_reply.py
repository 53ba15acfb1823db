"""The line mode's reply printer: one reply into the terminal's scrollback, never redrawn.

:class:`PlainReply` takes the events of one reply (through the front-end core's
reducer) and prints them as they come: Markdown a completed line at a time
(:class:`MarkdownStream`), thinking folded, one line per tool call as it ends
(and one when a call runs long), notices and errors; :class:`Waiting` explains a
silent model with a spinner. The shell around it (:mod:`shell.plain`) owns the
prompt, the approvals (:mod:`shell.plain_approval`) and the audio.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.text import Text

from shell.core import events as ev

from .core.textsafety import StreamSanitizer, sanitize, sanitize_line
from .frontend.reply import WITHDRAWN_NOTE, CallView, ReplyState, call_head, call_lines, end_notice
from .headless import Interrupt
from .plain_start import PROMPT

if TYPE_CHECKING:
    from .runtime import ShellRuntime

_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SLOW_TOOL_S = 2.0
"""A tool still running after this long gets a "running" line, so a wait is explained."""
WAITING_S = 0.4
"""The model silent this long (a local server reading a long prompt) gets a spinner, so a
wait is explained; shorter waits show nothing, so fast replies do not flicker."""


class ReplyHost(Protocol):
    """What a reply needs of the shell it prints in (:class:`shell.plain.PlainShell`)."""

    console: Console
    runtime: ShellRuntime
    seen_approvals: dict[str, asyncio.Event]

    def show_audio(self, event: Any) -> None: ...


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
        self.partial: list[str] = []  # the unfinished line, in pieces
        self.block: list[str] = []
        self.kind: str | None = None  # "fence" | "table" | None
        self.fence = ""
        self.lexer = "text"
        self.closed = False
        self.blank = False
        self.printed = False
        self.safe = StreamSanitizer()

    def feed(self, text: str) -> None:
        """Each delta is scanned once: the unfinished line is kept as pieces and joined
        when its newline comes (``+=`` and a search over it per delta made a long line,
        a model's 1 MB without a newline, quadratic)."""
        text = self.safe.feed(text)
        if "\n" not in text:
            if text:
                self.partial.append(text)
            return
        lines = text.split("\n")
        if self.partial:
            lines[0] = "".join(self.partial) + lines[0]
        last = lines.pop()
        self.partial = [last] if last else []
        for line in lines:
            self._line(line)

    @property
    def unprinted(self) -> int:
        """Characters fed and not printed yet: the unfinished line, a table waiting for
        its last row."""
        table = sum(len(line) + 1 for line in self.block) if self.kind == "table" else 0
        return sum(map(len, self.partial)) + table + len(self.safe._held)

    def finish(self) -> None:
        rest = "".join(self.partial) + self.safe.flush()
        self.partial = []
        if rest:
            self._line(rest)
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
        self._emit(render_markdown(line.strip()), indent)

    def _code(self, line: str) -> None:
        """One line of a fenced code block, highlighted and shown at once."""
        from rich.syntax import Syntax  # pygments: loaded with the first code block

        code = Syntax(line, self.lexer, theme="monokai", background_color="default", word_wrap=True)
        self._emit(code, 1, keep_padding=True)

    def _flush_block(self) -> None:
        if self.block:
            self._emit(render_markdown("\n".join(self.block)), 0)
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


STATUS_STYLES = {"done": "green", "error": "red", "blocked": "yellow", "rejected": "yellow",
                 "cancelled": "yellow", "interrupted": "yellow"}


class PlainReply:
    """One reply printed into the scrollback, from the front-end core's reducer:
    Markdown a line at a time, thinking folded, a line per tool call as it ends (and
    one when a call runs long), notices and errors, audio announced."""

    def __init__(self, shell: ReplyHost) -> None:
        self.shell = shell
        self.console = shell.console
        self.reply = ReplyState()
        self.stream: MarkdownStream | None = None
        self.thinking: tuple[str, list[str]] | None = None
        """The thought being streamed (its block id, its parts), printed when it is over."""
        self.slow: dict[str, asyncio.TimerHandle] = {}
        self.stopped = False
        self.cancel_sent = False
        self.printed: dict[str, int] = {}
        """Characters received (and printed, but for :attr:`held`'s) of each text block still open."""
        self.text_block: str | None = None
        self.held: MarkdownStream | None = None
        """The open text block's printer (what it holds back was not printed)."""
        self.interrupt = Interrupt()
        """Set by Ctrl+C's signal handler the moment it comes: nothing more is printed."""
        self.waiting = Waiting(self.console)
        self._table: dict[type, Callable[[Any, CallView | None], None]] = {
            ev.TextBlockStart: self._text_start,
            ev.TextBlockDelta: self._text_delta,
            ev.TextBlockEnd: self._text_end,
            ev.ThinkingBlockStart: self._thinking_start,
            ev.AttemptWithdrawn: self._attempt_withdrawn,
            ev.ThinkingBlockEnd: self._thinking_end,
            ev.ToolCallStart: self._tool_call_start,
            ev.ApprovalRequested: self._approval,
            ev.PermissionChecking: self._checking,
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

    def hold(self) -> None:
        """Before the next event is asked for: once Ctrl+C came, the reply is cancelled
        here, with what was printed of each block (:meth:`shown`), so the history keeps
        what the user read (not the events pulled until the signal handler's own
        cancel ran, nor the line still being received)."""
        if self.interrupt.seen:
            self.cancel_reply()

    def cancel_reply(self) -> None:
        """Cancel the reply (once), keeping what was printed (:meth:`shown`)."""
        if not self.cancel_sent:
            self.cancel_sent = True
            self.shell.runtime.cancel(self.shown)

    def shown(self) -> dict[str, int]:
        """How many characters of each block of this reply were printed: a text block's
        unfinished last line (or a table waiting for its end) was not; a thought is
        printed only when it is over."""
        printed = dict(self.printed)
        if self.text_block is not None and self.text_block in printed and self.held is not None:
            printed[self.text_block] = max(0, printed[self.text_block] - self.held.unprinted)
        if self.thinking is not None:
            printed[self.thinking[0]] = 0
        return printed

    def handle(self, event: Any) -> None:
        call = self.reply.apply(event)
        handler = self._table.get(type(event))
        if handler is not None or self.reply.phase != "thinking":
            self.waiting.stop()  # before anything is printed (silent thinking deltas keep it)
        if (self.stopped or self.interrupt.seen) and not isinstance(event, ev.ReplyEnd):
            return
        if handler is not None:
            handler(event, call)
        elif type(event) is ev.ThinkingBlockDelta:  # kept quietly: the waiting line stays
            self._thinking_delta(event, call)
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
        self._flush_thinking()
        self.stream = self.held = MarkdownStream(self.console)
        self.text_block = event.block_id
        self.printed[event.block_id] = 0

    def _tool_call_start(self, event: ev.ToolCallStart, call: CallView | None) -> None:
        self._flush_thinking()

    def _text_delta(self, event: ev.TextBlockDelta, call: CallView | None) -> None:
        if self.stream is not None:
            self.stream.feed(event.delta)
            self.printed[event.block_id] = self.printed.get(event.block_id, 0) + len(event.delta)

    def _text_end(self, event: ev.TextBlockEnd, call: CallView | None) -> None:
        if self.stream is not None:
            self.stream.finish()
            self.stream = None
        self.printed.pop(event.block_id, None)  # printed whole
        self.text_block = self.held = None

    def _attempt_withdrawn(self, event: ev.AttemptWithdrawn, call: CallView | None) -> None:
        """A middleware retried a model call that failed part way: printed text cannot be
        taken back, so say it is not part of the answer (a thought not printed yet is dropped)."""
        if self.thinking is not None and self.thinking[0] in event.block_ids:
            self.thinking = None
        printed = [b for b in event.block_ids if b in self.printed]
        if self.text_block in event.block_ids:
            if self.stream is not None:
                self.stream.finish()
            self.stream = self.held = self.text_block = None
        for block_id in printed:
            self.printed.pop(block_id, None)
        if printed:
            self.console.print(Text(WITHDRAWN_NOTE, style="dim yellow"))

    def _thinking_start(self, event: ev.ThinkingBlockStart, call: CallView | None) -> None:
        self.console.print("[dim italic]thinking…[/dim italic]")
        self.thinking = (event.block_id, [])

    def _thinking_delta(self, event: ev.ThinkingBlockDelta, call: CallView | None) -> None:
        if self.thinking is not None and self.thinking[0] == event.block_id:
            self.thinking[1].append(event.delta)

    def _thinking_end(self, event: ev.ThinkingBlockEnd, call: CallView | None) -> None:
        if self.thinking is not None and self.thinking[0] == event.block_id:
            self.thinking = (event.block_id, [event.text])  # the block as it was kept
            self._flush_thinking()

    def _flush_thinking(self) -> None:
        """Print the thought once it is over. The loop holds a block's end event until the
        whole message is in the history, so the thought is printed when what follows it
        starts (text or a tool call), not after that text."""
        if self.thinking is None:
            return
        body = sanitize("".join(self.thinking[1])).strip()
        self.thinking = None
        if body:
            self.console.print(Text("┊ " + body.replace("\n", "\n┊ "), style="dim italic"))

    def _checking(self, event: ev.PermissionChecking, call: CallView | None) -> None:
        """A permission check still running after half a second (the TUI's span says
        "checking permission…"): one dim line, so a pause is not taken for a hang."""
        if event.checking and call is not None and call.status == "checking":
            _, name, summary, _ = call_head(call)
            self.console.print(Text(f"{name} {summary}: checking permission…", style="dim"))

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
        self.shell.show_audio(event)

    def _notice(self, event: ev.Notice, call: CallView | None) -> None:
        color = {"info": "dim", "warning": "yellow"}.get(event.level, "red")
        self.console.print(Text(f"{event.level}: {self.shell.runtime.shown(event.text)}", style=color))

    def _error(self, event: ev.ErrorEvent, call: CallView | None) -> None:
        error = f"error ({sanitize_line(event.source)}): {self.shell.runtime.shown(event.error)}"
        self.console.print(Text(error, style="red"))


def render_markdown(text: str) -> RenderableType:
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

    from .frontend.linkopen import unlink_asking
    from .frontend.markdown import markdown_parser

    class SafeMarkdown(Markdown):
        def __init__(self, markup: str) -> None:  # Markdown.__init__, on our parser
            self.markup = markup
            self.parsed = markdown_parser().parse(markup)
            unlink_asking(self.parsed)  # a terminal's Ctrl+click would open vscode://… unasked
            self.code_theme = "monokai"
            self.justify = None
            self.style = "none"
            self.hyperlinks = True
            self.inline_code_lexer = None
            self.inline_code_theme = self.code_theme

    _SAFE_MARKDOWN.append(SafeMarkdown)
    return SafeMarkdown
