"""SIGTERM and SIGHUP in the line mode: quit as Ctrl+D does (finding Y5).

Why: at the prompt, prompt-toolkit holds the terminal in raw mode; by Python's default
a TERM or HUP (``timeout``, ``docker stop``, a closed window) ended the process there and
left the terminal with no echo and no line editing until ``reset``. Caught, the prompt
ends as if the user pressed Ctrl+D (prompt-toolkit puts the terminal back), and the exit
code is the shell's for the signal. During a reply :func:`shell.headless.cancel_on_sigint`
takes them like Ctrl+C (the reply is cancelled, what arrived is kept); the line mode then
quits instead of prompting again.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator
from typing import TYPE_CHECKING

from prompt_toolkit.application import get_app_or_none

from .frontend.exits import END_SIGNALS, signal_exit_code

if TYPE_CHECKING:  # (the first prompt imports this module before the engine)
    from .headless import Interrupt

_CANNOT = (NotImplementedError, RuntimeError, ValueError)
"""No signals here: not the main thread, or not a Unix loop."""


class EndSignals:
    """TERM and HUP while the line mode runs; ``signum`` is the first that came."""

    def __init__(self) -> None:
        self.signum: int | None = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[EndSignals]:
        loop = asyncio.get_running_loop()
        for signum in END_SIGNALS:
            with contextlib.suppress(*_CANNOT):
                loop.add_signal_handler(signum, self._came, signum)
        try:
            yield self
        finally:
            for signum in END_SIGNALS:
                with contextlib.suppress(*_CANNOT):
                    loop.remove_signal_handler(signum)

    def _came(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        with contextlib.suppress(*_CANNOT):
            asyncio.get_running_loop().remove_signal_handler(signum)  # a second one ends the process
        app = get_app_or_none()
        if app is not None and app.is_running and not app.is_done:
            app.exit(exception=EOFError())  # the prompt ends as at Ctrl+D, the terminal put back

    def seen_in(self, interrupt: Interrupt) -> None:
        """A reply that TERM or HUP cancelled (:func:`~shell.headless.cancel_on_sigint`)."""
        if interrupt.seen and interrupt.signum != signal.SIGINT and self.signum is None:
            self.signum = interrupt.signum

    def exit_code(self, code: int = 0) -> int:
        """``code``, or 143 / 129 once TERM / HUP came."""
        return code if self.signum is None else signal_exit_code(self.signum)
