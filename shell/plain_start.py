"""The line mode's first prompt, up before the runtime is built.

Why: building the runtime (the agent, its tools and middleware, the permission
policy, the workspace) and loading the line mode's own modules cost more than
prompt-toolkit itself; a prompt that waits for all of it makes every start feel slow.
So ``agent-shell --plain`` shows its prompt first, takes keys at once, and builds the
rest in a worker thread after that prompt is on the screen (the TUI does the same
with its first frame).

When the runtime is ready the first prompt steps aside with what was typed (it is
erased, so the scrollback ends up as a slow start would have left it): the banner,
any trust question, then the full prompt (mode, meter, completion) holding the same
text. Enter before then sends the message as soon as the runtime exists. A runtime
that cannot be built (a bad ``--model``) ends the prompt and its error is raised, so
the command line reports it as it always did.

This module imports prompt-toolkit and nothing heavy. It knows the shell that takes
over only as :class:`LineShell` (:class:`shell.plain.PlainShell`, which imports this
module): the command line passes a ``build`` that also loads :mod:`shell.plain` (Rich,
the runtime) in the worker thread, and an ``open_shell`` that makes the shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from prompt_toolkit import PromptSession
from prompt_toolkit.history import History
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from .plain_signals import EndSignals

if TYPE_CHECKING:
    from .config import Settings
    from .frontend.prompt_history import PromptHistory

PROMPT = "\u203a "
"""The input prompt: a single right-pointing angle quote."""


class SharedHistory(History):
    """prompt-toolkit's history over the prompts kept across runs (shared with the TUI:
    0600, secrets redacted; Up walks it, Ctrl+R searches it). The file is opened the
    first time it is read (prompt-toolkit does that in a thread) or written."""

    def __init__(self, kept: Callable[[], PromptHistory]) -> None:
        super().__init__()
        self._make = kept
        self._kept: PromptHistory | None = None

    @property
    def kept(self) -> PromptHistory:
        if self._kept is None:
            self._kept = self._make()
        return self._kept

    def load_history_strings(self) -> Iterable[str]:
        return list(reversed(self.kept.entries()))  # newest first, as prompt-toolkit wants

    def store_string(self, string: str) -> None:
        self.kept.add(string)


def history_for(settings: Settings) -> SharedHistory:
    """The shared prompt history, redacted with the secrets of this environment and config."""

    def make() -> PromptHistory:
        from .core.secrets import Secrets
        from .frontend.prompt_history import PromptHistory

        return PromptHistory(redactor=Secrets.from_environment(settings))

    return SharedHistory(make)


@contextlib.contextmanager
def keys_held_for_the_prompt(own_input: bool = False) -> Iterator[None]:
    """Keys typed while no prompt is up (a reply streams, the shell starts) wait for
    the next prompt as typed.

    A cooked terminal would echo them into the output and turn Enter into a line
    feed, which the prompt reads as "new line" rather than "send". So echo, line
    editing and CR→LF are off whenever prompt-toolkit has not got the terminal (it
    restores this mode after each prompt); Ctrl+C still signals."""
    if own_input or not sys.stdin.isatty():
        yield
        return
    import termios

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    quiet = termios.tcgetattr(fd)
    quiet[0] &= ~termios.ICRNL
    quiet[3] &= ~(termios.ECHO | termios.ICANON)
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)


class LineShell(Protocol):
    """What the first prompt hands over to (:class:`shell.plain.PlainShell`)."""

    initial: str | None
    next_default: str
    interrupted: bool

    def note(self, text: str) -> None: ...

    def cycle_mode(self) -> None: ...

    async def run(self) -> int: ...


R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class _Ready:
    """The first prompt stepped aside: the runtime is ready (or failed); ``text`` was typed."""

    text: str


@dataclass(frozen=True, slots=True)
class _Interrupted:
    """Ctrl+C on the first prompt."""

    had_text: bool


def editing_keys() -> KeyBindings:
    """The editing keys both line-mode prompts have: Alt+Enter or Ctrl+J a new line,
    Ctrl+G the prompt in ``$VISUAL`` / ``$EDITOR`` (as readline's Ctrl+X Ctrl+E)."""
    kb = KeyBindings()

    @kb.add("escape", "enter")
    @kb.add("c-j")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    @kb.add("c-g")
    def _editor(event: KeyPressEvent) -> None:
        event.current_buffer.open_in_editor()

    return kb


def _first_keys(mode_presses: list[None]) -> KeyBindings:
    """The editing keys of the full prompt; Ctrl+C as there. Shift+Tab is counted in
    ``mode_presses`` (the modes come with the policy) and applied at the hand-over, so
    a quick Shift+Tab at start is not lost."""
    kb = editing_keys()

    @kb.add("s-tab")
    def _cycle_mode(event: KeyPressEvent) -> None:
        mode_presses.append(None)

    @kb.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        event.app.exit(result=_Interrupted(bool(event.current_buffer.text)))

    return kb


@contextlib.contextmanager
def _withdraw_on_sigint() -> Iterator[list[bool]]:
    """While the runtime is still being built after Enter, Ctrl+C withdraws the message
    (it comes back to the prompt) rather than ending the shell; a second one ends it.

    The loop's own signal handling (``add_signal_handler``: a wakeup descriptor) and
    not a bare ``signal.signal``: the loop sleeps in ``epoll`` until the build is done,
    and a signal that lands just before it goes to sleep only trips a flag that nothing
    reads until then. The first Ctrl+C was then seen only when the build ended, and a
    second one was taken as the first (seen under load: CI's test waited 30 s)."""
    seen: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield seen
        return
    loop = asyncio.get_running_loop()

    def first() -> None:
        seen.append(True)
        loop.remove_signal_handler(signal.SIGINT)  # Python's default: the second one ends the shell

    previous = signal.getsignal(signal.SIGINT)
    try:
        loop.add_signal_handler(signal.SIGINT, first)
    except (NotImplementedError, RuntimeError, ValueError):  # a loop without signals: Ctrl+C ends it
        yield seen
        return
    try:
        yield seen
    finally:
        if not seen:
            loop.remove_signal_handler(signal.SIGINT)
        signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)


async def run_plain_starting(
    build: Callable[[], R], open_shell: Callable[[R, History], LineShell], settings: Settings
) -> int:
    """``agent-shell --plain`` on a terminal: the prompt first; ``build`` (the runtime)
    runs in a worker thread once the prompt is drawn, then ``open_shell`` takes over."""
    loop = asyncio.get_running_loop()
    history = history_for(settings)
    mode_presses: list[None] = []
    first: PromptSession[Any] = PromptSession(
        history=history, key_bindings=_first_keys(mode_presses), erase_when_done=True
    )
    built: asyncio.Future[R] = loop.create_future()

    def ready(job: asyncio.Future[R]) -> None:
        if job.cancelled():
            return
        error = job.exception()
        if error is not None:
            built.set_exception(error)
        else:
            built.set_result(job.result())
        app = first.app
        if app.is_running and not app.is_done:
            app.exit(result=_Ready(app.current_buffer.text))

    def start(_: object) -> None:
        first.app.after_render -= start
        loop.run_in_executor(None, build).add_done_callback(ready)

    def hook() -> None:
        first.app.after_render += start  # the thread takes the GIL only once the prompt is drawn

    with keys_held_for_the_prompt():
        try:
            with EndSignals().installed() as ended:  # TERM or HUP: as Ctrl+D, the terminal put back
                answer: str | _Ready | _Interrupted = await first.prompt_async(PROMPT, pre_run=hook)
        except EOFError:  # Ctrl+D before anything was sent: the user left
            return ended.exit_code()
        with _withdraw_on_sigint() as withdrawn:
            runtime = await built  # a build error is raised here, for the command line to report
        shell = open_shell(runtime, history)
        for _ in mode_presses:
            shell.cycle_mode()
        if isinstance(answer, str) and answer.strip() and withdrawn:
            shell.next_default = answer
            shell.note("(not sent: Ctrl+C; your message is back at the prompt)")
        elif isinstance(answer, _Ready):
            shell.next_default = answer.text
        elif isinstance(answer, _Interrupted):
            if not answer.had_text:
                shell.interrupted = True
                shell.note("(Ctrl+C again to quit, or /quit)")
        elif answer.strip():
            shell.initial = answer  # sent first, echoed under the banner as if typed there
        return await shell.run()
