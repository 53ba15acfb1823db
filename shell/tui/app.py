"""The Textual app: the runtime's life in the TUI, the theme, the one audio player.

``AgentShellApp`` drives an :class:`~shell.agent.Agent` (through a ``ShellRuntime``
when the CLI gives one; a bare agent is wrapped in one). What the user sees and
does is the :class:`~shell.tui.screens.main.MainScreen`'s (the layout, the
prompt, the reply worker, the slash commands through the one registry); the
approvals are the :class:`~shell.tui.screens.approval_broker.ApprovalBroker`'s, which
serves the agent's ``ask``. The app keeps what outlives a screen: the runtime,
the theme, the command registry, the audio player (Esc or a new reply silences
it) and the garbage-collection policy.

Start-up comes in two steps, because a shell opened many times a day must paint
at once. This module imports only what the first frame shows (the main screen's
conversation column, prompt, status line and footer). Given a ``build`` function
instead of a runtime (the CLI does that), the app paints that frame first and
then, in a thread, builds the runtime (model, middleware discovery, tools) and
imports the engine and the heavier widgets. What the user types meanwhile is
queued and sent once the shell is ready; a configuration error ends the app
with exit code 2 and its one-line message on stderr (anything else: exit code 1
and the traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import signal
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

import themes
from shell.frontend.exits import END_SIGNALS, signal_exit_code
from shell.speech.playback import Clip, Playback

from . import full_map, prefs, unlink
from .flow import Flow, install_alt_enter
from .gcpolicy import GcPolicy
from .palette import ShellCommands
from .screens.main import ONCE_READY, MainScreen

if TYPE_CHECKING:
    from rich.console import RenderableType

    from shell.agent.loop import Agent
    from shell.commands import CommandRegistry
    from shell.config import Settings
    from shell.frontend.reply import ReplyState
    from shell.runtime import ShellRuntime

    from .renderer import ReplyRenderer
    from .screens.approval_broker import ApprovalBroker
    from .widgets.conversation import Conversation
    from .widgets.middleware_panel import MiddlewarePanel
    from .widgets.prompt_input import PromptInput
    from .widgets.side_panel import SidePanel
    from .widgets.status_line import StatusLine
    from .widgets.todo_list import TodoList
    from .widgets.trace_view import TraceView

GC_TICK_S = 0.25
"""How often the garbage-collection policy looks for an idle moment."""

FRAME_OUT_S = 0.03
"""How long the first frame gets to reach the terminal before the start-up thread
begins: Textual's writer thread needs the GIL, which a thread busy importing
would hold for most of its ~300 ms."""

AFTER_FIRST_FRAME = (
    "shell.tui.entries",
    "shell.tui.commands",
)
"""Imported in the start-up thread, after the first frame, so the event loop
never pays for them. The reply's renderer and Markdown come once the shell is
ready (``screens.main.ONCE_READY``), or here too when a resumed conversation is
to be drawn (:data:`FOR_A_RESUMED_SESSION`)."""

FOR_A_RESUMED_SESSION = ("shell.tui.history", "shell.tui.widgets.assistant_message")


def _import_all(names: tuple[str, ...]) -> None:
    for name in names:
        importlib.import_module(name)


def _wrap(agent: Agent) -> ShellRuntime:
    """A runtime around a bare agent (tests, embedding), so slash commands work."""
    from shell.config import Settings
    from shell.runtime import RuntimeOptions, ShellRuntime
    from shell.tools.workspace import Workspace

    options = RuntimeOptions(record=False)  # an embedded agent saves no session of its own
    return ShellRuntime(agent, settings=Settings(), workspace=Workspace(None), options=options)


class AgentShellApp(App[int]):
    """The full-screen agent shell."""

    CSS_PATH = "app.tcss"
    TITLE = "agent-shell"
    COMMANDS = App.COMMANDS | {ShellCommands}
    BINDINGS = [
        Binding("ctrl+c", "interrupt", "Cancel reply", show=False, priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        agent: Agent | None = None,
        *,
        model_label: str | None = None,
        runtime: ShellRuntime | None = None,
        build: Callable[[], ShellRuntime] | None = None,
        settings: Settings | None = None,
        initial: str | None = None,
    ) -> None:
        """Give ``agent`` or ``runtime`` (ready at once), or ``build`` (called in a
        thread after the first frame; ``settings`` then choose the theme).
        ``initial`` is a first message, sent as soon as the shell is ready."""
        super().__init__()
        install_alt_enter()
        self.flow = Flow(self)
        """Steering, rewind, notifications, prompt history, the editor, /copy (the
        main screen wires them to its keys and to each reply)."""
        self.own_runtime = runtime is None and build is None
        """Around a bare agent: no session, no greeting, no MCP servers of its own."""
        if self.own_runtime:
            if agent is None:
                raise TypeError("AgentShellApp needs an agent, a runtime or a build function")
            runtime = _wrap(agent)
        self._build = build
        self._initial = initial
        self._settings = settings if settings is not None else getattr(runtime, "settings", None)
        self.runtime: ShellRuntime = runtime  # type: ignore[assignment]  # set by _boot when built
        self.agent: Agent = runtime.agent if runtime is not None else None  # type: ignore[assignment]
        self.ready = False
        """True once the runtime exists and the panel is mounted (at once with an agent)."""
        self.startup_error: str | None = None
        """Why the start-up failed, printed after the screen closes: a configuration
        error's one line, or for anything else the exception and its traceback."""
        self._model_label = model_label
        self.last_typed = 0.0
        """When the user last typed (an approval dialog opening then ignores keys a moment)."""
        self.gc_policy = GcPolicy()
        unlink.install()  # removed widgets freed by refcount, not by a full collection
        full_map.install()  # the compositor's full map not arranged again mid-frame
        self.playback = Playback()
        self.playback.listeners.append(self._playback_changed)
        self.speak_mode = "off"
        """``/speak``: ``off``, ``on`` (TTS middleware on) or ``auto`` (and auto-play)."""
        self._theme_problem = ""
        self._choose_theme()

    def get_default_screen(self) -> Screen[None]:
        return MainScreen(self._initial, starting=self._build is not None)

    @property
    def main(self) -> MainScreen:
        screen = self.screen_stack[0] if self.screen_stack else None
        assert isinstance(screen, MainScreen)
        return screen

    # What tests and embedders reach for is the main screen's.
    @property
    def conversation(self) -> Conversation:
        return self.main.conversation

    @property
    def status(self) -> StatusLine:
        return self.main.status

    @property
    def prompt(self) -> PromptInput:
        return self.main.prompt

    @property
    def todos(self) -> TodoList:
        return self.main.todos

    @property
    def side(self) -> SidePanel:
        return self.main.side

    @property
    def panel(self) -> MiddlewarePanel:
        return self.main.panel

    @property
    def trace_view(self) -> TraceView:
        return self.main.trace_view

    @property
    def busy(self) -> bool:
        return self.main.busy

    @property
    def renderer(self) -> ReplyRenderer | None:
        return self.main.renderer

    @property
    def last_reply(self) -> ReplyState | None:
        return self.main.last_reply

    async def submit(self, text: str) -> None:
        await self.main.submit(text)

    def start_reply(self, text: str) -> None:
        self.main.start_reply(text)

    async def run_command_line(self, line: str) -> None:
        await self.main.run_command_line(line)

    # -- theme --------------------------------------------------------------------
    def _choose_theme(self) -> None:
        """Before the DOM exists: choosing a theme later restyles every widget, the
        largest cost of the first frame."""
        for theme in themes.all_themes():
            self.register_theme(theme)
        wanted = getattr(self._settings, "theme", None) if not self.own_runtime else None
        if wanted and wanted not in self.available_themes:
            names = ", ".join(sorted(self.available_themes))
            self._theme_problem = (
                f"The config asks for theme {wanted!r}, which does not exist; using the default. "
                f"Themes: {names} (`/theme NAME` switches and remembers)."
            )
            wanted = None
        wanted = wanted or prefs.saved_theme() or themes.DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else themes.DEFAULT_THEME

    def our_theme_names(self) -> list[str]:
        return [t.name for t in themes.all_themes()]

    def problems(self) -> list[str]:
        """What to say once the shell is up: the runtime's problems, a bad theme."""
        return [*self.runtime.problems, *([self._theme_problem] if self._theme_problem else [])]

    # -- start-up -----------------------------------------------------------------
    def first_frame_shown(self) -> None:
        """The main screen has painted its first frame (see :meth:`MainScreen.on_mount`):
        with a build function, build the runtime once that frame is out. (The app's
        own mount comes before the screen has composed: starting the thread then
        would make the first frame wait for the GIL.)"""
        if self._build is not None:
            self.set_timer(FRAME_OUT_S, self._start_boot)

    def _start_boot(self) -> None:
        self.run_worker(self._boot(), group="boot", exit_on_error=False)

    async def _boot(self) -> None:
        """After the first frame: build the runtime and import the rest in a thread."""
        build = self._build
        assert build is not None

        def in_thread() -> ShellRuntime:
            _import_all(AFTER_FIRST_FRAME)
            runtime = build()
            if prefs.saved_speak() not in (None, "off"):  # speech as last chosen needs TTS at once
                runtime.complete_middleware()
            if runtime.agent.messages:
                _import_all(FOR_A_RESUMED_SESSION)
            return runtime

        try:
            self.runtime = await asyncio.to_thread(in_thread)
            self.agent = self.runtime.agent
            await self.attach_runtime()
        except Exception as exc:
            self._start_failed(exc)
            return
        await self.main.send_queued()  # what was typed while starting

    def _start_failed(self, exc: Exception) -> None:
        """End the app with the reason, printed once the terminal is restored."""
        from shell.config import ConfigError
        from shell.runtime import ShellError

        if isinstance(exc, (ConfigError, ShellError)):  # the user's to fix: one line
            self.startup_error = str(exc)
            self.exit(2, return_code=2)
        else:  # ours: the whole story, for a bug report
            import traceback

            trace = "".join(traceback.format_exception(exc)).rstrip()
            self.startup_error = f"could not start ({type(exc).__name__}: {exc}).\n{trace}"
            self.exit(1, return_code=1)

    async def attach_runtime(self) -> None:
        """The runtime exists: its approvals go to the broker, speech as last chosen,
        then the main screen takes it."""
        from . import speech

        self.agent.ask = self._ask
        saved_speak = prefs.saved_speak()
        if saved_speak is not None:
            speech.apply(self.agent.middleware, saved_speak)
        self.speak_mode = speech.current_mode(self.agent.middleware, saved_speak)
        await self.main.attach()
        self.ready = True  # after the screen has all its parts (see MainScreen.attach)
        runtime = self.runtime

        def warm_up() -> None:  # what the first message needs, made while the user reads
            from shell.tools.builtin import COMMAND_MODULES

            _import_all(ONCE_READY)
            _import_all(COMMAND_MODULES)  # the first command's (imported at its first use otherwise)
            from .highlight import warm_lexers
            from .widgets.chat_markdown import warm_links

            warm_links()  # linkify's expressions (~10 ms at the first link otherwise)
            warm_lexers()  # the code fences' (~22 ms for Python at the first fence otherwise)
            _ = runtime.secrets  # the prompt history redacts with it
            for tool in list(runtime.agent.tools):  # their schemas: pydantic and a model each
                with contextlib.suppress(Exception):  # (~90 ms on the loop at the first reply)
                    _ = tool.parameters

        self.run_worker(asyncio.to_thread(warm_up), group="boot", exit_on_error=False)
        self.call_after_refresh(self.gc_policy.started_up)
        self.set_interval(GC_TICK_S, self.gc_policy.tick)

    async def _ask(self, request: object) -> object:
        """The agent's questions go to the approval broker, made at the first one
        (its dialog's module loads after the welcome, not on the way to it)."""
        return await self.approvals.ask(request)

    @cached_property
    def approvals(self) -> ApprovalBroker:
        from .screens.approval_broker import ApprovalBroker

        broker = ApprovalBroker(self, typed_at=lambda: self.last_typed)
        broker.listeners.append(lambda: setattr(self.main.status, "state", "approval"))
        return broker

    @cached_property
    def commands(self) -> CommandRegistry:
        """The app's one slash-command registry: the shared commands and the TUI's own."""
        from .commands import tui_commands

        return tui_commands(self)

    @property
    def model_label(self) -> str:
        if self._model_label:
            return self._model_label
        label = self.runtime.model_label
        return f"{label} (offline demo model)" if self.runtime.is_demo else label

    quitting = False
    """Set once the app is asked to exit: a late notice is then printed after the TUI
    instead of drawn on a screen nobody sees (:meth:`MainScreen._hear_late_checks`)."""

    def exit(
        self, result: int | None = None, return_code: int = 0, message: RenderableType | None = None
    ) -> None:
        self.quitting = True
        super().exit(result, return_code, message)

    def on_mount(self) -> None:
        """SIGTERM and SIGHUP (a program stopping the shell, a closed terminal window)
        end the app as Ctrl+Q does: the reply in flight cancelled, the session's end
        written, the terminal given back. By Python's default they ended the process
        where it stood, and the terminal stayed in the alternate screen with mouse
        reports on and the cursor hidden (finding Y5)."""
        loop = asyncio.get_running_loop()
        for signum in END_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signum, self._ended_by, signum)

    def _ended_by(self, signum: int) -> None:
        """The first TERM or HUP: cancel the reply as Esc does and quit, exit code 143
        or 129 (queued to the app: a loop callback has no task to cancel the reply from,
        and it failed there, leaving the app up: finding Z6). A second one while that quit
        is under way gives the terminal back and ends the process at once."""
        code = signal_exit_code(signum)
        if self._signalled:
            self._end_now(signum)
            return
        self._signalled = True
        self.call_later(self._quit_for_signal, code)

    _signalled = False

    def _quit_for_signal(self, code: int) -> None:
        if self.runtime is not None and self.runtime.agent.busy:
            self.runtime.cancel()  # (here, in the app's task: the history keeps what arrived)
        self.exit(code, return_code=code)

    def _end_now(self, signum: int) -> None:
        """The terminal as it was (alternate screen left, mouse reports off, line mode),
        then the signal's own default: the process ends as its sender meant (143, 129).
        Python's default, taken at once, left the terminal raw."""
        driver = getattr(self, "_driver", None)  # (as flow.py reaches it)
        with contextlib.suppress(Exception):
            if driver is not None:
                driver.stop_application_mode()
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    def on_unmount(self) -> None:
        self.playback.stop()
        self.gc_policy.shut_down()
        loop = asyncio.get_running_loop()
        for signum in END_SIGNALS:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(signum)

    # -- keys everywhere ------------------------------------------------------------
    def action_interrupt(self) -> None:
        """Ctrl+C: cancel the reply in flight (a dialog's pending approvals with it);
        on the main screen, idle: see :meth:`MainScreen.interrupt`; in another
        dialog: copy what is selected, as Textual does."""
        main = self.main
        if main.busy or self.screen is main:
            main.interrupt()
        else:
            self.screen.action_copy_text()

    # -- audio ------------------------------------------------------------------------
    def _playback_changed(self, key: str, playing: bool, note: str) -> None:
        from .widgets.audio_block import AudioBlock

        for block in self.query(AudioBlock):
            block.playback_changed(key, playing, note)

    def audio_finished(self, clip: Clip) -> None:
        """A spoken reply's audio block is complete: play it if ``/speak auto``."""
        if self.speak_mode == "auto" and clip.data:
            self.playback.enqueue(clip)

    def action_cancel_reply(self) -> None:
        """Esc anywhere (the approval dialog's "cancel reply" too)."""
        self.main.action_cancel_reply()

    def deliver_screenshot(
        self, filename: str | None = None, path: str | None = None, time_format: str | None = None
    ) -> str | None:
        """Textual saves a screenshot into the Downloads folder, and said only "Failed to
        save screenshot" where there is none (a server, a container). Then it goes to
        agent-shell's data folder, and the notice says where. Overridden here, not in
        ``action_screenshot``: the palette's "Screenshot" calls this directly."""
        if path is None:
            from pathlib import Path

            from platformdirs import user_downloads_dir

            from shell.core.dirs import data_dir

            downloads = Path(user_downloads_dir())
            if not downloads.is_dir():
                downloads = data_dir(create=True) / "screenshots"
                downloads.mkdir(parents=True, exist_ok=True)
            path = str(downloads)
        return super().deliver_screenshot(filename, path, time_format)

def run_tui(
    runtime: ShellRuntime | None = None,
    *,
    build: Callable[[], ShellRuntime] | None = None,
    settings: Settings | None = None,
    initial: str | None = None,
) -> int:
    """The CLI's entry point: run the app until the user quits; the exit code.

    With ``build`` the first frame comes before the runtime exists (see the module
    docstring); a configuration error it raises is printed here, after the
    terminal is restored, and gives exit code 2."""
    import sys

    app = AgentShellApp(runtime=runtime, build=build, settings=settings, initial=initial)
    code = app.run()
    if app.startup_error is not None:
        print(f"agent-shell: {app.startup_error}", file=sys.stderr)
    elif app.runtime is not None and app.runtime.resume_hint():  # the session, and how to come back
        print(app.runtime.resume_hint(), file=sys.stderr)
    return int(code or 0)
