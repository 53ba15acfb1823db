"""Headless mode (``agent-shell -p PROMPT``): one reply, no screen, fit for scripts.

stdout carries only the result: the final answer (``text``), one JSON object at
the end (``json``), or every event as it happens, one JSON object per line,
flushed per line (``jsonl``), so a pipe reader sees events live. Everything meant
for a person (notices, errors, approval questions) goes to stderr or the
terminal, never into the result.

Approvals follow ``--approve``: ``always`` approves, ``never`` rejects with a
message the model reads (so it can explain instead of retrying), and ``ask``
asks on the controlling terminal (``/dev/tty``, as ``ssh`` and ``sudo`` do, so it
works with stdin and stdout redirected) and rejects with a clear message when
there is no terminal to ask.

A workspace's own config (``.mcp.json``) is used only when the user trusted the
workspace (``agent-shell trust``, or ``--trust-workspace`` for one run); headless
never asks, and says in one line on stderr what it left unused.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import aclosing, contextmanager
from typing import IO, Any, Literal, TypeAlias

import anyio
import anyio.to_thread

from shell.core.approvals import ApprovalDecision, ApprovalRequest, RuleScope
from shell.core.events import (
    ErrorEvent,
    Event,
    Notice,
    ReplyEnd,
    TextBlockDelta,
    TextBlockStart,
    ThinkingBlockDelta,
    ThinkingBlockStart,
    ToolExecutionEnd,
    ToolExecutionUpdate,
    to_jsonable,
)

from .core.textsafety import encodable_value, json_text, sanitize, sanitize_line
from .frontend.approval import Choice, approval_lines, decide
from .frontend.editor import edit_in_editor
from .frontend.exits import (
    END_SIGNALS,
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PIPE,
    EXIT_USAGE,
    exit_code,
    signal_exit_code,
)
from .frontend.paced import paced
from .frontend.reply import CallView, ReplyState, call_lines
from .frontend.startsignals import taken_over
from .runtime import ShellRuntime, editor_command

__all__ = ["EXIT_ERROR", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_PIPE", "EXIT_USAGE", "approver",
           "cancel_on_sigint", "edit_in_editor", "exit_code", "run_headless"]

OutputFormat: TypeAlias = Literal["text", "json", "jsonl"]
ApprovePolicy: TypeAlias = Literal["ask", "never", "always"]

class _Tty:
    """The controlling terminal, for reading answers while stdin/stdout are redirected.

    Two handles, because a text file opened ``r+`` on a terminal cannot be used
    (it is not seekable)."""

    def __init__(self) -> None:
        self.reader = open("/dev/tty", encoding="utf-8")  # noqa: SIM115
        try:
            self.writer = open("/dev/tty", "w", encoding="utf-8")  # noqa: SIM115
        except OSError:
            self.reader.close()
            raise

    def write(self, text: str) -> None:
        self.writer.write(text)
        self.writer.flush()

    def flush(self) -> None:
        self.writer.flush()

    def readline(self) -> str:
        return self.reader.readline()

    def streams(self) -> dict[str, Any]:
        return {"stdin": self.reader, "stdout": self.writer, "stderr": self.writer}

    def __enter__(self) -> _Tty:
        return self

    def __exit__(self, *exc: object) -> None:
        self.reader.close()
        self.writer.close()


class TerminalApprover:
    """``--approve ask``: questions on ``/dev/tty``; rejects when there is none."""

    def __init__(self, err: IO[str]) -> None:
        self.err = err
        self.lock = anyio.Lock()  # parallel tool calls ask one at a time

    async def __call__(self, request: ApprovalRequest) -> ApprovalDecision:
        async with self.lock:
            try:
                tty = _Tty()
            except OSError:
                return ApprovalDecision.reject(
                    f"The call to {request.call.name} needs approval, but agent-shell runs headless with no "
                    "terminal to ask; it was not run. The user can rerun with --approve always to allow it."
                )
            with tty:
                tty.write("\n" + "\n".join(sanitize(line) for line in approval_lines(request)) + "\n")
                decision = await decide(request, _TtyPrompts(tty))
        return decision or ApprovalDecision.reject("The approval prompt was closed; the call was not run.")


def _key_of(answer: str, offered: list[Choice]) -> str:
    """The key a typed answer chooses: one character is the key as typed (``Y`` approves
    the rest, ``y`` this call, as in the other front ends, finding E16); a word is read by
    its first letter in lower case, so ``Yes`` or ``No`` never answers for the rest."""
    if len(answer) == 1 and answer in {c.key for c in offered}:
        return answer
    return answer[:1].lower()


class _TtyPrompts:
    """The approval questions, asked on the terminal (reads in a thread: a Ctrl+C
    cancel does not wait for a line)."""

    def __init__(self, tty: _Tty) -> None:
        self.tty = tty

    async def _ask(self, question: str) -> str:
        self.tty.write(question)
        return await anyio.to_thread.run_sync(self.tty.readline, abandon_on_cancel=True)

    async def key(self, request: ApprovalRequest, offered: list[Choice]) -> str | None:
        answer = await self._ask(f"Allow? [{'/'.join(f'{c.key}={c.label}' for c in offered)}] ")
        return _key_of(answer.strip(), offered) if answer else None

    async def reason(self, request: ApprovalRequest) -> str:
        return (await self._ask("Reason (optional, the model reads it): ")).strip()

    async def edited(self, request: ApprovalRequest) -> str | None:
        text = json_text(request.args, indent=2)
        command = editor_command()
        if command:
            return await anyio.to_thread.run_sync(edit_in_editor, text, command, self.tty.streams())
        return await self._ask(f"Arguments now: {json_text(request.args)}\nNew arguments (JSON): ")

    async def rules(self, request: ApprovalRequest) -> tuple[tuple[str, ...], RuleScope] | None:
        return request.suggested_rules, "session"

    def say(self, text: str, level: str = "info") -> None:
        self.tty.write(f"{sanitize(text)}\n")


def approver(policy: ApprovePolicy, err: IO[str]) -> Callable[[ApprovalRequest], Any]:
    if policy == "always":

        async def always(request: ApprovalRequest) -> ApprovalDecision:
            return ApprovalDecision.approve()

        return always
    if policy == "never":

        async def never(request: ApprovalRequest) -> ApprovalDecision:
            return ApprovalDecision.reject(
                f"Tool calls that need approval are not allowed in this run (--approve never): "
                f"{request.call.name} was not run. Do not retry it; say what you would have done."
            )

        return never
    return TerminalApprover(err)


async def run_headless(
    runtime: ShellRuntime,
    prompt: str,
    *,
    output_format: OutputFormat = "text",
    approve: ApprovePolicy = "ask",
    out: IO[str] | None = None,
    err: IO[str] | None = None,
    piped: str = "",
) -> int:
    """One reply to ``prompt`` (and ``piped``, what stdin held, after it as words: a file
    or another program's output is data, so its ``@`` mentions attach nothing); returns
    the exit code (see :mod:`shell.frontend.exits`)."""
    out = out or sys.stdout
    err = err or sys.stderr
    runtime.ask = approver(approve, err)
    run = _HeadlessReply(runtime, output_format, out, err)
    taken_over()  # the command line's start-up handling of TERM and HUP ends here
    with cancel_on_sigint(run.cancel_reply, run.cancel, run.interrupt):  # from the start (B5)
        _preamble(runtime, err)
        from .commands import default_commands
        from .context.attachments import path_mentions

        command = await default_commands().message_of(runtime, prompt, "-p")  # /review src/mod.py (B9)
        if command.error or not isinstance(command.data, str):
            err.write(f"agent-shell: {runtime.shown(command.text)}\n")
            return EXIT_USAGE
        composed = await runtime.compose(command.data, typed=False, piped=piped)  # its @ files
        if path_mentions(piped):
            err.write("agent-shell: @ mentions in piped input are sent as words and attach nothing "
                      "(put the ones you mean in -p \"…\")\n")
        if composed.problems and not run.stopped:
            for problem in composed.problems:
                err.write(f"agent-shell: not sent: {runtime.shown(problem)}\n")
            return EXIT_USAGE
        async with runtime.running():
            if not run.stopped:
                with anyio.CancelScope() as run.starting:  # Ctrl+C ends the wait for MCP servers
                    await runtime.wait_for_tools(MCP_WAIT)
            run.starting = None
            if run.stopped:  # Ctrl+C before the reply began: nothing is sent, no tool runs
                run.handle(ReplyEnd(None, "cancelled"))
            else:
                _mcp_report(runtime, err)
                async with aclosing(runtime.reply(composed.message)) as events:
                    async for event in paced(events, hold=run.hold):  # Ctrl+C is seen within a few ms
                        run.handle(event)
            recorder = runtime.session_recorder
    run.result()
    if run.closed:  # the reader went away (`| head`): nothing more to say, anywhere
        return EXIT_PIPE
    run.report_cancelled()
    run.report_refused()
    code = run.interrupt.exit_code(run.reply.exit_code)
    if recorder is not None:  # closed now: its last attempt to save is made
        for notice in recorder.take_notices():  # what the stream could no longer carry
            err.write(f"{notice.level}: {runtime.shown(notice.text)}\n")
        if recorder.error is not None and code == EXIT_OK:  # the caller's script must know
            code = EXIT_ERROR
    return code


def _preamble(runtime: ShellRuntime, err: IO[str]) -> None:
    """What is said once before the reply: a mistyped config, a damaged session, a
    workspace config left unused (never fatal, never asked)."""
    for problem in runtime.problems:
        err.write(f"agent-shell: warning: {runtime.shown(problem)}\n")
    if not runtime.permissions.asking:  # switching "a middleware" off must not silently mean bypass
        err.write("agent-shell: warning: approvals are off (HumanInTheLoop is disabled): every call that "
                  "would ask runs unasked, as in bypass mode; deny rules and plan mode still hold\n")
    check = runtime.workspace_trust()
    if check.config.exists and not check.trusted:
        err.write(f"agent-shell: {runtime.untrusted_notice(check)}\n")
    err.flush()


def _mcp_report(runtime: ShellRuntime, err: IO[str]) -> None:
    """One line on stderr for each MCP server whose tools this run lacks (it failed,
    exited or is still connecting) or that had tools refused: the model only sees
    "Unknown tool", so the person running the script must hear why."""
    if runtime.mcp is None:
        return
    for status in runtime.mcp.statuses():
        why = runtime.shown(_one_line(status.reason)) if status.reason else "no reason given"
        name = runtime.shown(status.name)
        if status.state in ("failed", "exited"):
            err.write(f"agent-shell: MCP server {name} {status.state}: {why}; its tools are not in this "
                      "run. Check its entry in mcp_servers (`agent-shell config` shows it), or run its "
                      "command by hand to see the error.\n")
        elif status.state == "connecting":
            err.write(f"agent-shell: MCP server {name} is still connecting after {MCP_WAIT:g} s; its tools "
                      "are not in this run. Run its command by hand to see why it is slow to start.\n")
        elif status.state == "ready" and status.message:
            err.write(f"agent-shell: MCP server {name}: {why}\n")
    err.flush()


MCP_WAIT = 30.0
"""Seconds a headless run waits for its MCP servers before it starts without the slow ones."""


def _one_line(message: str) -> str:
    """A server's status on one line: its first, and the last line its process wrote
    on stderr when the status carries them (why it exited, most often)."""
    first, _, rest = message.partition("\n")
    said = [line.strip() for line in rest.splitlines()[1:] if line.strip()]
    return f"{first} (its stderr ends: {said[-1][:200]})" if said else first


class _HeadlessReply:
    """One reply on stdout (the result) and stderr (what a person watching should see)."""

    def __init__(
        self, runtime: ShellRuntime, output_format: OutputFormat, out: IO[str], err: IO[str]
    ) -> None:
        self.runtime = runtime
        self.format = output_format
        self.out, self.err = out, err
        self.show_tools = output_format == "text" and err.isatty()
        self.reply = ReplyState()
        self.interrupt = Interrupt()
        """Set by Ctrl+C's signal handler: from then on nothing is printed but the reply's end."""
        self.cancelled = False
        self.cancel_sent = False
        self.starting: anyio.CancelScope | None = None
        """The wait for MCP servers before the reply, while it lasts: Ctrl+C there
        cancels it (there is no reply to cancel yet), and the reply is not begun."""
        self.printed: dict[str, int] = {}
        """``jsonl``: characters printed of each text and thinking block."""
        self.closed = False
        """stdout or stderr was closed by its reader (``| head``): the reply is cancelled
        and nothing more is written (as a filter killed by SIGPIPE writes nothing)."""

    def cancel(self) -> None:
        self.cancelled = True

    @property
    def stopped(self) -> bool:
        return self.cancelled or self.interrupt.seen

    def hold(self) -> None:
        """Before the next event is asked for: once Ctrl+C came, the reply is cancelled
        here, so the partial message holds exactly the events printed before it (the
        signal handler's own cancel runs a turn of the loop later, and the events
        pulled meanwhile were kept but never printed)."""
        if self.interrupt.seen:
            self.cancel_reply()

    def cancel_reply(self) -> None:
        """Cancel the reply (once). ``jsonl`` says what it printed of each block: an
        event pulled after the Ctrl+C, before this ran, is not printed, so not kept."""
        if self.starting is not None:
            self.starting.cancel()
        if not self.cancel_sent and self.runtime.agent.busy:  # else hold() sends it once the reply runs
            self.cancel_sent = True
            self.runtime.cancel(self.printed.copy if self.format == "jsonl" else None)

    def handle(self, event: Event) -> None:
        call = self.reply.apply(event)
        if self.closed or (self.stopped and not isinstance(event, ReplyEnd)):
            return  # what was in flight when Ctrl+C came: drained, not shown
        stream = self.out if self.format == "jsonl" else self.err
        try:
            if self.format == "jsonl":
                self.out.write(_json_line(to_jsonable(event)) + "\n")
                self.out.flush()
                if isinstance(event, (TextBlockDelta, ThinkingBlockDelta)):
                    self.printed[event.block_id] = self.printed.get(event.block_id, 0) + len(event.delta)
                elif isinstance(event, (TextBlockStart, ThinkingBlockStart)):
                    self.printed[event.block_id] = 0
            elif self.format == "text":
                self._report(event, call)
            elif isinstance(event, Notice) and event.level == "warning":  # json: a fallback, a retry
                self._report(event, call)  # said on stderr as it happens; stdout keeps its one object
        except BrokenPipeError:
            self._reader_gone(stream)

    def _reader_gone(self, stream: IO[str]) -> None:
        """The pipe's reader went away: stop the reply (its tools too: nobody reads what
        they do) and point the stream at /dev/null, so neither this run nor Python's
        last flush at exit prints a traceback."""
        if not self.closed:
            self.closed = True
            self.runtime.cancel()
        _to_devnull(stream)

    def _report(self, event: Event, call: CallView | None) -> None:
        """Text mode, on stderr: notices, errors, calls a gate stopped, and (on a
        terminal) each call as it ends."""
        shown = self.runtime.shown
        if isinstance(event, Notice) and event.level != "info":
            self.err.write(f"{event.level}: {shown(event.text)}\n")
        elif isinstance(event, ErrorEvent):
            self.err.write(f"error ({sanitize_line(event.source)}): {shown(event.error)}\n")
        elif isinstance(event, ToolExecutionUpdate) and isinstance(event.progress, dict) and \
                "waiting" in event.progress:  # a call that has waited long (an MCP server's): say so
            self.err.write(f"{shown(str(event.progress.get('message', '')))}\n")
        elif isinstance(event, ToolExecutionEnd) and call is not None and (self.show_tools or event.blocked):
            # the call's arguments as the model sent them: a URL the egress check refused holds the key
            self.err.write(self.runtime.secrets.text("\n".join(call_lines(call))) + "\n")
        else:
            return
        self.err.flush()

    def report_cancelled(self) -> None:
        """After Ctrl+C, one line on stderr: the reply was cancelled, and what the
        answer printed (``text``) or ``answer`` (``json``) holds: what had arrived
        before it, the same text the history and the saved session keep, so a
        ``--continue`` carries on from what the user read."""
        if not self.stopped:
            return
        answered = bool(self.reply.answer)
        where = {"text": "the answer above", "json": "`answer`", "jsonl": "the ReplyEnd line's message"}
        said = (f"{where[self.format]} is what had arrived before it" if answered
                else "no answer had arrived")
        kept = "; the session keeps the same" if self._session_id() else ""
        if self.reply.withdrawn:  # Reply.withdraw_unanswered: --continue will not send it
            said, kept = "no answer had arrived, so your message was taken back", (
                "; the session does not keep it" if self._session_id() else "")
        self.err.write(f"agent-shell: reply cancelled ({self.interrupt.by}): {said}{kept}\n")
        self.err.flush()

    @property
    def refused(self) -> list[CallView]:
        """The calls that did not run because a rule, a hook or ``--approve`` said no."""
        return [call for call in self.reply.calls.values()
                if call.status in ("blocked", "rejected") or call.decision == "reject"]

    def report_refused(self) -> None:
        """One line on stderr naming the refused calls. They do not change the exit code:
        a refusal is the policy working (``--approve never`` in CI), and the model read
        why and answered; the script that must know finds them here and in ``json``'s
        ``refused``."""
        refused = self.refused
        if not refused or self.stopped:
            return
        names = ", ".join(dict.fromkeys(sanitize_line(call.name) for call in refused))
        count = f"{len(refused)} tool call{'s' if len(refused) > 1 else ''}"
        asked = [call for call in refused if call.decision == "reject"]
        why = ("an approval answered no (--approve always lets calls that ask run; deny rules still refuse)"
               if len(asked) == len(refused) else
               "a deny rule, a middleware (TodoList, a limit) or an approval said no; the results say which")
        self.err.write(f"agent-shell: {count} refused and not run ({names}); the model was told why. "
                       f"Exit code 0 all the same: {why}.\n")
        self.err.flush()

    def result(self) -> None:
        """The answer (``text``) or the one JSON object (``json``) on stdout."""
        if self.closed:
            return
        try:
            self._result()
        except BrokenPipeError:
            self._reader_gone(self.out)

    def _session_id(self) -> str | None:
        """The saved session's id (its file may be closed already), None when none was saved."""
        recorder = self.runtime.session_recorder
        if recorder is not None and (recorder.started or recorder.path.exists()):
            return recorder.session_id
        return self.runtime.last_session or None

    def _result(self) -> None:
        reply, out = self.reply, self.out
        if self.format == "text":
            # after Ctrl+C too: the answer as far as it came, as the history and the
            # session keep it (cut to CANCELLED_KEEP with a marker), and stderr says so
            if reply.answer:
                text = sanitize(reply.answer)
                out.write(text if text.endswith("\n") else text + "\n")
        elif self.format == "json":
            usage = reply.end.usage if reply.end is not None else None
            result = {
                "answer": reply.answer,
                "stop_reason": reply.shown_stop,
                "usage": to_jsonable(usage) if usage is not None and not usage.unknown else None,
                "model": reply.model or self.runtime.model_label,  # the one that answered (E5)
                "session_id": self._session_id(),  # what `--resume` takes (null: --no-session)
                "errors": [self.runtime.secrets.text(text) for _, text in reply.errors],
                "refused": [
                    {"call_id": call.call_id, "name": call.name,
                     "reason": self.runtime.secrets.text(call.first_result_line(1000))}
                    for call in self.refused
                ],
                # the calls that ran with arguments other than the model's (`messages` holds
                # what the model asked for): what ran, and who changed it
                "modified": [
                    {"call_id": call.call_id, "name": call.name,
                     "args": self.runtime.secrets.json(to_jsonable(call.args)),
                     "asked_for": self.runtime.secrets.json(to_jsonable(call.asked_args)),
                     "by": call.modified_by or "you"}
                    for call in self.reply.calls.values() if call.modified
                ],
                "messages": to_jsonable(self.runtime.agent.messages),
            }
            out.write(_json_line(result) + "\n")
        out.flush()


def _to_devnull(stream: IO[str]) -> None:
    """Point ``stream``'s file descriptor at /dev/null (when it has one: a closed pipe
    does; a test's StringIO does not): what is left in its buffer goes nowhere."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class Interrupt:
    """Whether Ctrl+C came (or SIGTERM/SIGHUP, which end a reply the same way: see
    :func:`cancel_on_sigint`). Set by the signal handler itself, the moment the signal
    arrives (before the event loop gets its turn to cancel the reply), so a loop that
    checks it before printing prints nothing after the Ctrl+C."""

    __slots__ = ("seen", "signum")

    def __init__(self) -> None:
        self.seen = False
        self.signum: int = signal.SIGINT
        """The signal that came (SIGINT unless TERM or HUP did)."""

    @property
    def by(self) -> str:
        """How the user or a program said stop, as the cancel note names it."""
        return "Ctrl+C" if self.signum == signal.SIGINT else signal.Signals(self.signum).name

    def exit_code(self, code: int) -> int:
        """``code`` (what the reply's end means), or the shell's 128 + signal for a
        reply TERM or HUP ended (143, 129: what ``timeout`` and a CI runner expect)."""
        return code if not self.seen or self.signum == signal.SIGINT else signal_exit_code(self.signum)


@contextmanager
def cancel_on_sigint(
    cancel: Callable[[], None],
    on_cancel: Callable[[], None] | None = None,
    interrupt: Interrupt | None = None,
) -> Iterator[Interrupt]:
    """While inside: Ctrl+C sets ``interrupt`` (yielded; a new one by default) at once,
    then calls ``cancel`` (the reply then ends ``cancelled``) and ``on_cancel`` in the
    event loop, where cancelling a scope and printing are safe; a second Ctrl+C
    interrupts at once (``KeyboardInterrupt``).

    SIGTERM and SIGHUP do the same (``timeout``, a CI job's cancel, ``docker stop``, a
    closed terminal): by Python's default they ended the process at once, and what had
    arrived was never printed nor the session's end written (finding Y5). A second one
    of them ends the process as its sender meant (the default is back).

    The handler is Python's own (``signal.signal``: it runs in the main thread
    between two bytecodes, however busy the loop is); it only sets the flag and
    hands the rest to the loop (``call_soon_threadsafe``). asyncio's
    ``add_signal_handler`` would run nothing until the loop's next turn: events
    printed meanwhile (hundreds, from a fast provider) came after the Ctrl+C.
    """
    interrupt = interrupt or Interrupt()
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None

    def in_loop() -> None:
        cancel()
        if on_cancel is not None:
            on_cancel()

    def handler(signum: int, frame: Any) -> None:
        assert loop is not None
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the second one interrupts
        if signum != signal.SIGINT:
            signal.signal(signum, signal.SIG_DFL)  # a second TERM or HUP ends the process
        if not interrupt.seen:
            interrupt.signum = signum
        interrupt.seen = True
        loop.call_soon_threadsafe(in_loop)

    previous: dict[int, Any] = {}
    if loop is not None and threading.current_thread() is threading.main_thread():
        for signum in _ENDING:
            try:
                previous[signum] = signal.signal(signum, handler)
            except (ValueError, OSError):
                pass
    try:
        yield interrupt
    finally:
        for signum, before in previous.items():
            default = signal.default_int_handler if signum == signal.SIGINT else signal.SIG_DFL
            signal.signal(signum, before if before is not None else default)


_ENDING = (signal.SIGINT, *END_SIGNALS)


def _json_line(value: Any) -> str:
    """``value`` as one JSON line whose strings are all Unicode: a lone surrogate from a
    model (``\\ud800``) is valid JSON, but Python's writer of the decoded string and
    serde_json refuse it, so it becomes U+FFFD, as in the session file."""
    text = json_text(value)
    return json_text(encodable_value(value)) if "\\ud" in text else text
