"""SIGTERM and SIGHUP while a headless run starts: the same end as a cancelled reply.

Why: ``timeout 3 agent-shell -p … --output-format json`` in CI, killed before the
request left (reading stdin, the config, the sandbox check, ``--resume``: seconds
on a loaded machine), ended with Python's default: exit 143, stdout and stderr
empty, no object for ``jq`` and no reason (finding B5). Killed a moment later,
during the reply, it printed the cancelled object (:func:`shell.headless.cancel_on_sigint`).

:func:`ending_at_start` is armed by the command line before anything slow; its
handler raises :class:`EndedAtStart` where the main thread stands (as Ctrl+C
raises ``KeyboardInterrupt``), and :meth:`EndedAtStart.report` prints what a
reply cancelled before its first word prints. :func:`taken_over` disarms it the
moment the headless run installs its own handling. A second TERM or HUP ends the
process at once, as its sender meant.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from .exits import END_SIGNALS, signal_exit_code

_previous: dict[int, Any] = {}
"""The handlers this module replaced, while it is armed."""


class EndedAtStart(BaseException):
    """TERM or HUP came before the reply's own handling was in place. A
    ``BaseException``, as ``KeyboardInterrupt``: no ``except Exception`` on the way
    swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    def report(self, output_format: str, out: IO[str], err: IO[str], model: str | None = None) -> int:
        """What a run cancelled before any answer prints (nothing was sent, so nothing
        is kept), and the shell's exit code for the signal (143, 129)."""
        from shell.core.events import ReplyEnd, to_jsonable
        from shell.core.textsafety import json_text

        if output_format == "json":
            result: dict[str, object] = {
                "answer": "", "stop_reason": "cancelled", "usage": None, "model": model,
                "session_id": None, "errors": [], "refused": [], "modified": [], "messages": [],
            }
            out.write(json_text(result) + "\n")
        elif output_format == "jsonl":  # the line a reply cancelled before its start ends with
            out.write(json_text(to_jsonable(ReplyEnd(None, "cancelled"))) + "\n")
        out.flush()
        err.write(f"agent-shell: reply cancelled ({self.name}) during start-up: nothing was sent\n")
        err.flush()
        return signal_exit_code(self.signum)


def _raise(signum: int, frame: Any) -> None:
    taken_over()
    signal.signal(signum, signal.SIG_DFL)  # a second one ends the process at once
    raise EndedAtStart(signum)


@contextmanager
def ending_at_start() -> Iterator[None]:
    """While inside (until :func:`taken_over`): TERM or HUP raise :class:`EndedAtStart`."""
    if threading.current_thread() is threading.main_thread():
        for signum in END_SIGNALS:
            try:
                _previous.setdefault(signum, signal.signal(signum, _raise))
            except (ValueError, OSError):
                pass
    try:
        yield
    finally:
        taken_over()


def taken_over() -> None:
    """The handlers as they were before :func:`ending_at_start` (a no-op when it is
    not armed): the reply's own handling takes it from here."""
    while _previous:
        signum, before = _previous.popitem()
        signal.signal(signum, before if before is not None else signal.SIG_DFL)
