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
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import aclosing, contextmanager
from typing import IO, Any, Literal, TypeAlias

import anyio
import anyio.to_thread

from shell.core.approvals import ApprovalDecision, ApprovalRequest, parse_edited_args
from shell.core.events import (
    ErrorEvent,
    Event,
    Notice,
    ReplyEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    to_jsonable,
)

from .core.textsafety import json_text, sanitize, sanitize_line
from .frontend.approval import approval_lines, choices
from .frontend.paced import paced
from .runtime import ShellRuntime, editor_command, summarize_args

OutputFormat: TypeAlias = Literal["text", "json", "jsonl"]
ApprovePolicy: TypeAlias = Literal["ask", "never", "always"]

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130


def exit_code(stop_reason: str) -> int:
    """0 for an answer, 1 for a reply that ended in an error, 130 when cancelled."""
    return {"error": EXIT_ERROR, "cancelled": EXIT_INTERRUPTED}.get(stop_reason, EXIT_OK)


def edit_in_editor(text: str, command: list[str], streams: dict[str, Any] | None = None) -> str:
    """Open ``command`` on a temporary ``.json`` file holding ``text``; return the saved text.

    ``streams``: the editor's ``stdin``/``stdout``/``stderr`` (the terminal when
    ours are redirected); by default it inherits ours."""
    fd, path = tempfile.mkstemp(suffix=".json", prefix="agent-shell-args-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        subprocess.run([*command, path], check=False, **(streams or {}))
        with open(path, encoding="utf-8") as f:
            return f.read()
    finally:
        os.unlink(path)


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
            return await anyio.to_thread.run_sync(self._ask, request, abandon_on_cancel=True)

    def _ask(self, request: ApprovalRequest) -> ApprovalDecision:
        try:
            tty = _Tty()
        except OSError:
            return ApprovalDecision.reject(
                f"The call to {request.call.name} needs approval, but agent-shell runs headless with no "
                "terminal to ask; it was not run. The user can rerun with --approve always to allow it."
            )
        with tty:
            tty.write("\n" + "\n".join(sanitize(line) for line in approval_lines(request)) + "\n")
            offered = choices(request)
            keys = {c.key: c for c in offered}
            prompt = "/".join(f"{c.key}={c.label}" for c in offered)
            while True:
                tty.write(f"Allow? [{prompt}] ")
                tty.flush()
                answer = tty.readline()
                if not answer:
                    return ApprovalDecision.reject("The approval prompt was closed; the call was not run.")
                choice = keys.get(answer.strip().lower()[:1])
                if choice is None:
                    continue
                if choice.decision == "approve":
                    return ApprovalDecision.approve()
                if choice.decision == "always":
                    rules = request.suggested_rules
                    tty.write(f"Remember for this session: {', '.join(sanitize(r) for r in rules)}\n")
                    return ApprovalDecision.approve(always=True, rules=rules, scope="session")
                if choice.decision == "reject":
                    tty.write("Reason (optional, the model reads it): ")
                    tty.flush()
                    reason = tty.readline().strip()
                    default = f"The user rejected the call to {request.call.name}."
                    return ApprovalDecision.reject(reason or default)
                edited = self._edit(request, tty)
                if edited is not None:
                    return ApprovalDecision.edit(edited)

    def _edit(self, request: ApprovalRequest, tty: _Tty) -> dict[str, Any] | None:
        text = json_text(request.args, indent=2)
        command = editor_command()
        if command:
            text = edit_in_editor(text, command, tty.streams())
        else:
            now = json_text(request.args)
            tty.write(f"Arguments now: {now}\nNew arguments (JSON): ")
            tty.flush()
            text = tty.readline()
        try:
            return parse_edited_args(request, text)
        except ValueError as exc:
            tty.write(f"Not used: {exc}\n")
            return None


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
) -> int:
    """One reply to ``prompt``; returns the exit code."""
    out = out or sys.stdout
    err = err or sys.stderr
    runtime.ask = approver(approve, err)
    end: ReplyEnd | None = None
    errors: list[str] = []
    recorder = None
    show_tools = output_format == "text" and err.isatty()
    for problem in runtime.problems:  # a mistyped config, a damaged session: said once, never fatal
        err.write(f"agent-shell: warning: {runtime.shown(problem)}\n")
    check = runtime.workspace_trust()
    if check.config.exists and not check.trusted:  # never started, never asked: said once
        err.write(f"agent-shell: {runtime.untrusted_notice(check)}\n")
        err.flush()
    composed = runtime.compose(prompt)  # @ files and pasted image paths, as in the shell
    if composed.problems:
        for problem in composed.problems:
            err.write(f"agent-shell: not sent: {runtime.shown(problem)}\n")
        return 2
    cancelled = False

    def on_cancel() -> None:
        nonlocal cancelled
        cancelled = True  # from now on nothing is printed but the reply's end

    with cancel_on_sigint(runtime.cancel, on_cancel):
        async with runtime.running():
            await runtime.wait_for_tools()
            async with aclosing(runtime.reply(composed.message)) as events:
                async for event in paced(events):  # Ctrl+C is seen within a few ms
                    if cancelled and not isinstance(event, ReplyEnd):
                        pass  # what was in flight when Ctrl+C came: drained, not shown
                    elif output_format == "jsonl":
                        out.write(json_text(to_jsonable(event)) + "\n")
                        out.flush()
                    elif output_format == "text":
                        _report(event, err, show_tools, runtime.shown)
                    if isinstance(event, ErrorEvent):
                        errors.append(runtime.secrets.text(event.error))
                    elif isinstance(event, Notice) and event.level == "error":  # saving failed
                        errors.append(runtime.secrets.text(event.text))
                    if isinstance(event, ReplyEnd):
                        end = event
            recorder = runtime.session_recorder
    stop = end.stop_reason if end else "error"
    answer = end.message.text if end and end.message else ""
    shown_stop: str = stop
    if stop == "end_turn" and end and end.message and end.message.stop_reason == "max_tokens":
        shown_stop = "max_tokens"  # the answer was cut at the output limit: say so, not "end_turn"
    if output_format == "text":
        if answer and not cancelled:  # Ctrl+C: the partial answer is not printed after it
            text = sanitize(answer)
            out.write(text if text.endswith("\n") else text + "\n")
            out.flush()
    elif output_format == "json":
        result = {
            "answer": answer,
            "stop_reason": shown_stop,
            "usage": to_jsonable(end.usage) if end and not end.usage.unknown else None,
            "model": runtime.model_label,
            "errors": errors,
            "messages": to_jsonable(runtime.agent.messages),
        }
        out.write(json_text(result) + "\n")
        out.flush()
    code = exit_code(stop)
    if recorder is not None:  # closed now: its last attempt to save is made
        for notice in recorder.take_notices():  # what the stream could no longer carry
            err.write(f"{notice.level}: {runtime.shown(notice.text)}\n")
        if recorder.error is not None and code == EXIT_OK:  # the caller's script must know
            code = EXIT_ERROR
    return code


def _report(event: Event, err: IO[str], show_tools: bool, shown: Callable[[str], str]) -> None:
    """Text mode: what a person watching stderr should see (``shown``: an error or a
    notice with secrets redacted and controls neutralised)."""
    if isinstance(event, Notice) and event.level != "info":
        err.write(f"{event.level}: {shown(event.text)}\n")
    elif isinstance(event, ErrorEvent):
        err.write(f"error ({sanitize_line(event.source)}): {shown(event.error)}\n")
    elif isinstance(event, ToolExecutionEnd) and event.blocked:
        content = event.result.content if isinstance(event.result.content, str) else "blocked"
        err.write(f"tool call not run: {sanitize(content)}\n")
    elif show_tools and isinstance(event, ToolExecutionStart):
        err.write(f"· {sanitize_line(event.name)} {sanitize(summarize_args(event.args))}\n")
    else:
        return
    err.flush()


@contextmanager
def cancel_on_sigint(
    cancel: Callable[[], None], on_cancel: Callable[[], None] | None = None
) -> Iterator[None]:
    """While inside: Ctrl+C calls ``cancel`` (the reply then ends ``cancelled``); a
    second Ctrl+C interrupts at once (``KeyboardInterrupt``).

    asyncio's ``add_signal_handler`` runs the handler inside the event loop, where
    cancelling a scope is safe; a plain ``signal.signal`` handler would not be.
    """
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        loop = None

    def first() -> None:
        assert loop is not None
        loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        cancel()
        if on_cancel is not None:
            on_cancel()

    installed = False
    if loop is not None and threading.current_thread() is threading.main_thread():
        try:
            loop.add_signal_handler(signal.SIGINT, first)
            installed = True
        except (NotImplementedError, RuntimeError, ValueError):
            pass
    try:
        yield
    finally:
        if installed and loop is not None:
            loop.remove_signal_handler(signal.SIGINT)
            signal.signal(signal.SIGINT, signal.default_int_handler)
