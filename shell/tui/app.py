"""The Textual app: conversation, prompt, status line, middleware panel, dialogs.

``AgentShellApp`` drives an :class:`~shell.agent.Agent` (through a ``ShellRuntime``
when the CLI gives one; a bare agent is wrapped in one). Each reply runs in a
Textual worker on the app's own event loop, so nothing blocks the UI, and
``ReplyRenderer`` turns its events into widgets. The app serves the agent's
``ask``: approval requests queue in one :class:`ApprovalScreen`. Audio plays
through one :class:`Playback`, so Esc or a new reply silences it.

Start-up comes in two steps, because a shell opened many times a day must paint
at once. This module imports only what the first frame shows (the conversation
column, the prompt, the status line, the footer). Given a ``build`` function
instead of a runtime (the CLI does that), the app paints that frame first and
then, in a thread, builds the runtime (model, middleware discovery, tools) and
imports the engine and the heavier widgets. What the user types meanwhile is
queued and sent once the shell is ready; a configuration error ends the app
with exit code 2 and its one-line message on stderr (anything else: exit code 1
and the traceback).
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections.abc import Callable
from contextlib import aclosing
from functools import cached_property
from typing import TYPE_CHECKING, Any

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer

import themes
from shell.speech.playback import Clip, Playback

from . import messages as msg
from . import prefs
from .flow import STEER_KEYS, Flow, install_alt_enter
from .gcpolicy import GcPolicy
from .palette import ShellCommands
from .widgets.conversation import Conversation
from .widgets.prompt_input import PromptInput
from .widgets.queue_bar import QueueBar
from .widgets.status_line import StatusLine
from .widgets.todo_list import TodoList

if TYPE_CHECKING:
    from shell.agent.loop import Agent
    from shell.commands import CommandRegistry
    from shell.config import Settings
    from shell.context.attachments import Composed
    from shell.frontend.reply import ReplyState
    from shell.runtime import ShellRuntime

    from .renderer import ReplyRenderer
    from .screens.approval import ApprovalScreen, PendingApproval
    from .widgets.mention_picker import MentionPicker
    from .widgets.middleware_panel import MiddlewarePanel
    from .widgets.notice_line import NoticeLine
    from .widgets.side_panel import SidePanel
    from .widgets.trace_view import TraceView

GC_TICK_S = 0.25
"""How often the garbage-collection policy looks for an idle moment."""

FRAME_OUT_S = 0.03
"""How long the first frame gets to reach the terminal before the start-up thread
begins: Textual's writer thread needs the GIL, which a thread busy importing
would hold for most of its ~300 ms."""

AFTER_FIRST_FRAME = (
    "shell.tui.entries",
    "shell.tui.history",
    "shell.tui.renderer",
    "shell.tui.speech",
    "shell.tui.screens.approval",
    "shell.tui.screens.help",
    "shell.tui.widgets.side_panel",
    "textual.widgets._tabbed_content",
)
"""Imported in the start-up thread, after the first frame, so the event loop
never pays for them (the engine comes in with ``shell.tui.renderer``)."""


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
    AUTO_FOCUS = "#prompt"
    """Focus the prompt directly (the default focuses the conversation first, then
    moving focus restyles twice before the first frame)."""
    BINDINGS = [
        Binding("escape", "cancel_reply", "Cancel reply"),
        Binding("f2", "toggle_panel", "Middleware"),
        Binding("f1", "help", "Help"),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding(STEER_KEYS, "steer", "Steer", show=False, priority=True),
        Binding("ctrl+r", "search_history", "History", show=False),
        Binding("ctrl+g", "edit_prompt", "Editor", show=False),
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
        """Steering, rewind, notifications, prompt history, the editor, /copy."""
        self._own_runtime = runtime is None and build is None
        if self._own_runtime:
            if agent is None:
                raise TypeError("AgentShellApp needs an agent, a runtime or a build function")
            runtime = _wrap(agent)
        self._build = build
        self._settings = settings if settings is not None else getattr(runtime, "settings", None)
        self.runtime: ShellRuntime = runtime  # type: ignore[assignment]  # set by _boot when built
        self.agent: Agent = runtime.agent if runtime is not None else None  # type: ignore[assignment]
        self.ready = False
        """True once the runtime exists and the panel is mounted (at once with an agent)."""
        self.startup_error: str | None = None
        """Why the start-up failed, printed after the screen closes: a configuration
        error's one line, or for anything else the exception and its traceback."""
        self._model_label = model_label
        self._queue: list[str] = [initial] if initial else []
        self._approvals: list[PendingApproval] = []
        self._approval_screen: ApprovalScreen | None = None
        self._busy = False
        self._last_typed = 0.0
        self.renderer: ReplyRenderer | None = None
        self.last_reply: ReplyState | None = None
        """The last reply as the front-end core reduced it (how it ended, its calls)."""
        self.gc_policy = GcPolicy()
        self.playback = Playback()
        self.playback.listeners.append(self._playback_changed)
        self.speak_mode = "off"
        """``/speak``: ``off``, ``on`` (TTS middleware on) or ``auto`` (and auto-play)."""
        self._theme_problem = ""
        self._choose_theme()

    # -- layout -------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        """The first frame: the side panel joins once the runtime exists."""
        with Horizontal(id="main"), Vertical(id="chat"):
            yield Conversation(id="conversation")
            yield TodoList(id="todos")
            yield QueueBar(id="queue")
            prompt = PromptInput(commands=self._command_names, id="prompt")
            prompt.newline_sends = self._build is not None  # until ready (see PromptInput)
            yield prompt
            yield StatusLine(id="status")
        yield Footer()

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def side(self) -> SidePanel:
        from .widgets.side_panel import SidePanel

        return self.query_one(SidePanel)

    @property
    def panel(self) -> MiddlewarePanel:
        return self.side.middleware

    @property
    def trace_view(self) -> TraceView:
        return self.side.trace

    @property
    def todos(self) -> TodoList:
        return self.query_one(TodoList)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    def _choose_theme(self) -> None:
        """Before the DOM exists: choosing a theme later restyles every widget, the
        largest cost of the first frame."""
        for theme in themes.all_themes():
            self.register_theme(theme)
        wanted = getattr(self._settings, "theme", None) if not self._own_runtime else None
        if wanted and wanted not in self.available_themes:
            names = ", ".join(sorted(self.available_themes))
            self._theme_problem = (
                f"The config asks for theme {wanted!r}, which does not exist; using the default. "
                f"Themes: {names} (`/theme NAME` switches and remembers)."
            )
            wanted = None
        wanted = wanted or prefs.saved_theme() or themes.DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else themes.DEFAULT_THEME

    async def on_mount(self) -> None:
        if self._build is None:
            await self._attach_runtime()
            if self._queue:
                self.call_after_refresh(self.run_worker, self._send_queued(), group="queue")
        else:
            self.status.model_label = "agent-shell"
            self.status.state = "starting"
            self.call_after_refresh(self.set_timer, FRAME_OUT_S, self._start_boot)

    def _start_boot(self) -> None:
        self.run_worker(self._boot(), group="boot", exit_on_error=False)

    async def _boot(self) -> None:
        """After the first frame: build the runtime and import the rest in a thread."""
        build = self._build
        assert build is not None

        def in_thread() -> ShellRuntime:
            for name in AFTER_FIRST_FRAME:
                importlib.import_module(name)
            return build()

        try:
            self.runtime = await asyncio.to_thread(in_thread)
            self.agent = self.runtime.agent
            await self._attach_runtime()
        except Exception as exc:
            self._start_failed(exc)
            return
        await self._send_queued()  # what was typed while starting

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

    async def _attach_runtime(self) -> None:
        """The runtime exists: answer its approvals, mount the panel, greet."""
        from . import speech
        from .entries import AssistantEntry, NoticeEntry
        from .history import entries_from_messages
        from .widgets.attachment_bar import AttachmentBar
        from .widgets.mention_picker import MentionPicker
        from .widgets.middleware_panel import Switches
        from .widgets.side_panel import SidePanel

        self.agent.ask = self.ask
        switches = Switches(self.runtime.middleware_on, self.runtime.set_middleware)
        await self.query_one("#main").mount(SidePanel(self.agent.middleware, switches, id="side"))
        picker = MentionPicker(lambda: self.runtime.file_index if self.ready else None, id="picker")
        await self.query_one("#chat").mount(AttachmentBar(id="attachments"), picker, before=self.prompt)
        self.ready = True
        self.flow.attach()
        self.prompt.newline_sends = False
        self.status.model_label = self.model_label
        self.status.state = "idle"
        self.runtime.permissions.listeners.append(self._show_mode)
        self._show_mode()
        saved_speak = prefs.saved_speak()
        if saved_speak is not None:
            speech.apply(self.agent.middleware, saved_speak)
        self.speak_mode = speech.current_mode(self.agent.middleware, saved_speak)
        for problem in [*self.runtime.problems, *([self._theme_problem] if self._theme_problem else [])]:
            await self.conversation.add(NoticeEntry("warning", problem))
        if self.agent.messages:  # a resumed session: show what was said, and what it cost
            await self.conversation.add_many(entries_from_messages(self.agent.messages))
            self._show_usage()
        elif not self._own_runtime:
            await self.conversation.add(AssistantEntry(self._welcome()))
        if not self._own_runtime:  # MCP servers connect in the background; sessions close on exit
            self.runtime.on_mcp_change.append(self._mcp_status)
            self.run_worker(self._background(), group="background", exit_on_error=False)
        self.call_after_refresh(self.gc_policy.started_up)
        self.set_interval(GC_TICK_S, self.gc_policy.tick)

    async def _background(self) -> None:
        import anyio

        async with self.runtime.running():
            await self._ask_trust()
            await anyio.sleep_forever()

    async def _ask_trust(self) -> None:
        """A workspace with its own config (``.mcp.json``) that the user has not
        answered for: ask, showing everything it would run; its servers start once
        trusted. Declined before: one notice saying how to change that."""
        from .entries import NoticeEntry
        from .screens.trust import TrustScreen

        check = self.runtime.workspace_trust()
        if check.trusted or check.state == "none":
            return
        if check.needs_answer:
            screen = TrustScreen(str(check.config.root), self.runtime.describe_project(check))
            answer = await self.push_screen_wait(screen)
            if answer is not None:
                await self.runtime.decide_trust(check, answer)
            if answer:
                return
            check = self.runtime.workspace_trust()
            if check.trusted:
                return
        await self.conversation.add(NoticeEntry("warning", self.runtime.untrusted_notice(check)))

    def _mcp_status(self, status: Any) -> None:
        state = getattr(status, "state", "")
        if state not in ("ready", "failed", "exited"):
            return
        level = "info" if state == "ready" else "warning"
        tools = f" ({status.tools} tools)" if state == "ready" else ""
        note = f": {status.message}" if getattr(status, "message", "") else ""
        from .entries import NoticeEntry

        entry = NoticeEntry(level, f"MCP server {status.name} {state}{tools}{note}")
        self.call_later(self.conversation.add, entry)

    def _welcome(self) -> str:
        keys = "F1 help · F2 middleware · `/` commands · Esc cancels a reply · Ctrl+Q quits."
        if not self.runtime.is_demo:
            return f"**agent-shell** on `{self.runtime.model_label}`. {keys}"
        return (
            "**Welcome to agent-shell.** You are on the offline **demo model**: no key, no network, "
            "scripted answers that show how the shell works. Try *list the files here*, "
            "*read README.md*, *search for hello* or *run `ls -la`*, and approve or edit the calls.\n\n"
            "To talk to a real model, set `ANTHROPIC_API_KEY` or `OPENAI_API_KEY`, start Ollama, "
            f"or switch with `/model provider:name`. {keys}"
        )

    def on_unmount(self) -> None:
        self.playback.stop()
        self.gc_policy.shut_down()

    @property
    def model_label(self) -> str:
        if self._model_label:
            return self._model_label
        label = self.runtime.model_label
        return f"{label} (offline demo model)" if self.runtime.is_demo else label

    @cached_property
    def commands(self) -> CommandRegistry:
        """This app's slash commands (the shared ones; the TUI's own are handled in
        :meth:`run_command_line`)."""
        from shell.commands import default_commands

        return default_commands()

    def our_theme_names(self) -> list[str]:
        return [t.name for t in themes.all_themes()]

    def _command_names(self) -> list[str]:
        if not self.ready:
            return []
        ours = ["/theme", "/trace", "/speak"]
        return sorted([f"/{name}" for name in self.commands.names()] + ours)

    def _show_usage(self) -> None:
        """The status line's session tokens: the runtime's meter, the one count every
        front end shows (a resumed session's saved usage included; zero after /new)."""
        used = self.runtime.meter.session_usage
        self.status.tokens_in = used.input_tokens
        self.status.tokens_out = used.output_tokens
        self.status.tokens_unknown = used.unknown
        self.show_meter()

    def show_meter(self) -> None:
        """How full the context is and the cost, from the runtime's meter."""
        meter = self.runtime.meter
        self.status.context = meter.context_label()
        self.status.fullness = meter.fullness or 0.0
        self.status.cost = meter.cost_label()

    # -- what the reply renderer says ------------------------------------------------
    def on_phase_changed(self, message: msg.PhaseChanged) -> None:
        if self._busy or message.phase == "idle":
            self.status.state = message.phase

    def on_usage_reported(self, message: msg.UsageReported) -> None:
        self._show_usage()

    def on_middleware_failed(self, message: msg.MiddlewareFailed) -> None:
        self.panel.mark_failed(message.name, message.error)

    def on_todos_changed(self, message: msg.TodosChanged) -> None:
        self.todos.set_todos(message.todos)

    def on_trace_changed(self, message: msg.TraceChanged) -> None:
        self.trace_view.changed()

    def on_audio_finished(self, message: msg.AudioFinished) -> None:
        self.audio_finished(message.clip)

    # -- sending --------------------------------------------------------------------
    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        await self.submit(message.text)

    def on_prompt_input_mention(self, message: PromptInput.Mention) -> None:
        """The ``@`` word at the cursor changed: search, or close the picker."""
        picker = self._picker()
        if picker is None:
            return
        if message.query is None:
            picker.hide()
        else:
            picker.show_for(message.query)
        self.prompt.picking = picker.open

    def on_prompt_input_picker_key(self, message: PromptInput.PickerKey) -> None:
        picker = self._picker()
        if picker is None:
            return
        if message.action in ("up", "down"):
            picker.move(-1 if message.action == "up" else 1)
            return
        chosen = picker.chosen() if message.action in ("accept", "send") else None
        picker.hide()
        self.prompt.picking = False
        if chosen is not None:
            self.prompt.replace_mention(chosen.path, keep_open=chosen.is_dir)
        elif message.action == "send":  # Enter with nothing to pick (``@alice``): it sends
            self.prompt.action_submit()

    def _picker(self) -> MentionPicker | None:
        from .widgets.mention_picker import MentionPicker

        found = self.query(MentionPicker)
        return found.first() if found else None

    def show_staged(self) -> None:
        """The images waiting for the next message, as chips above the prompt."""
        from .widgets.attachment_bar import AttachmentBar

        for bar in self.query(AttachmentBar):
            bar.show_chips([a.chip for a in self.runtime.staged])

    def on_prompt_input_page(self, message: PromptInput.Page) -> None:
        if message.direction < 0:
            self.conversation.scroll_page_up(animate=False)
        else:
            self.conversation.scroll_page_down(animate=False)

    async def submit(self, text: str) -> None:
        """What Enter does: run a slash command, send, or queue while a reply runs
        (or while the shell is still starting)."""
        from shell.commands import is_command

        self.flow.remember(text)
        if not self.ready:
            self._queue.append(text)
            self._show_queue()
        elif is_command(text.strip()):
            await self.run_command_line(text.strip())
        elif self._busy:
            self._queue.append(text)
            self._show_queue()
        else:
            self.start_reply(text)

    def _show_queue(self) -> None:
        self.query_one(QueueBar).show_queue(self._queue)
        self.status.queued = len(self._queue)

    async def _send_queued(self) -> None:
        """Send (or run) what waits in the queue, until a reply starts."""
        while self._queue and not self._busy:
            text = self._queue.pop(0)
            self._show_queue()
            await self.submit(text)

    def start_reply(self, text: str) -> None:
        composed = self.runtime.compose(text)  # @ files and images; problems: nothing is sent
        self.show_staged()
        if composed.problems:
            self.run_worker(self._not_sent(text, composed.problems), group="reply", exit_on_error=False)
            return
        self.playback.stop()  # a new reply silences the last one
        self._busy = True
        self.status.state = "thinking"
        self.run_worker(self._run_reply(text, composed), group="reply", exit_on_error=False)

    async def _not_sent(self, text: str, problems: tuple[str, ...]) -> None:
        """Say why a message was not sent and give its text back to edit."""
        from .entries import NoticeEntry

        lines = "\n".join(f"- {p}" for p in problems)
        await self.conversation.add(NoticeEntry("error", f"Not sent:\n{lines}"))
        if not self.prompt.text:
            self.prompt.load_text(text)
            self.prompt.move_cursor(self.prompt.document.end)
        await self._send_queued()

    async def _run_reply(self, text: str, composed: Composed) -> None:
        from shell.frontend.paced import paced

        from .entries import NoticeEntry, UserEntry
        from .renderer import ReplyRenderer

        await self.conversation.add(UserEntry(text, chips=tuple(composed.chips)))
        for note in composed.notes:  # a file cut to fit, an @word that names no file
            await self.conversation.add(NoticeEntry("warning", note))
        self.conversation.anchor()
        renderer = self.renderer = ReplyRenderer(self.conversation, self.agent.middleware)
        self.last_reply = renderer.reply
        self.gc_policy.reply_started()
        try:
            async with aclosing(self.runtime.reply(composed.message)) as events:  # recorded into the session
                async for event in paced(events):  # keys (Esc) get their turn however fast it streams
                    await renderer.handle(event)
                    await self.flow.on_event(event)  # steered messages, notifications
        except Exception as exc:  # the engine promises not to raise; show it if it does
            await self.conversation.add(NoticeEntry("error", f"{type(exc).__name__}: {exc}"))
        finally:
            await renderer.finish_all()
            self._busy = False
            self.renderer = None
            self.status.state = "idle"
            self.gc_policy.reply_finished()  # collected once the user is idle
        left = self.flow.take_back()  # a steer the reply could not take: the next message
        if left:
            self._queue[:0] = left
            self._show_queue()
            await self.conversation.add(NoticeEntry("info", "The reply ended before your steering reached "
                                                    "it; it is sent as the next message."))
        await self._send_queued()

    @property
    def busy(self) -> bool:
        return self._busy

    # -- approvals --------------------------------------------------------------------
    async def ask(self, request: Any) -> Any:
        """The agent's ``ask``: approvals go to the dialog (queued); others get None."""
        from shell.core.approvals import ApprovalDecision, ApprovalRequest

        from .screens.approval import ApprovalScreen, PendingApproval

        if not isinstance(request, ApprovalRequest):
            return None
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        item = PendingApproval(request, future)
        self._approvals.append(item)
        self.status.state = "approval"
        screen = self._approval_screen
        if screen is None:
            screen = self._approval_screen = ApprovalScreen(self._approvals, typed_at=self._last_typed)
            self.push_screen(screen, callback=self._approval_closed)
        else:
            screen.show_current()
        try:
            return await future
        finally:
            if item in self._approvals:
                self._approvals.remove(item)
                if self._approval_screen is not None:
                    self._approval_screen.request_gone()

    def _approval_closed(self, _: None) -> None:
        self._approval_screen = None
        if self._approvals:  # asked again while the dialog was closing
            from .screens.approval import ApprovalScreen

            screen = self._approval_screen = ApprovalScreen(self._approvals)
            self.push_screen(screen, callback=self._approval_closed)

    # -- actions ----------------------------------------------------------------------
    def action_cancel_reply(self) -> None:
        """Esc: end the reply in flight at once (pending approvals are withdrawn) and
        silence any audio playing."""
        self.playback.stop()
        if self._busy:
            self.status.state = "cancelling"
            if self.renderer is not None:
                self.renderer.cancel()  # the screen stops at once, whatever is in flight
            self.agent.cancel()
        elif self._queue:
            self._queue.clear()
            self._show_queue()
        elif self.ready and self.screen is self.screen_stack[0]:
            self.flow.escape()  # Esc Esc on an empty prompt: the rewind dialog

    def action_steer(self) -> None:
        """Ctrl+Enter (Alt+Enter where the terminal cannot tell): while a reply runs, the
        prompt's text goes to it at its next tool boundary; otherwise Enter's job."""
        text = self.prompt.text
        if not text.strip() or not self.ready:
            return
        if self.flow.steer(text):
            self.prompt.clear()
        else:
            self.prompt.action_submit()

    def action_search_history(self) -> None:
        if self.ready and self.screen is self.screen_stack[0]:
            self.flow.search_history()

    def action_edit_prompt(self) -> None:
        if self.screen is self.screen_stack[0]:
            self.flow.edit_prompt()

    def _show_mode(self) -> None:
        if not self.ready or not self.screen_stack:
            return
        try:
            status = self.screen_stack[0].query_one(StatusLine)
        except Exception:  # shutting down
            return
        status.mode = self.runtime.mode_label
        status.mode_warning = self.runtime.mode_warning

    def action_cycle_mode(self) -> None:
        """Shift+Tab: the next permission mode (default, accept-edits, plan, auto)."""
        if not self.ready or self.screen is not self.screen_stack[0]:
            return
        from shell.permissions.modes import SUMMARY

        mode = self.runtime.permissions.cycle_mode()
        self.notify(f"{mode}: {SUMMARY[mode]}", title="Permission mode", timeout=2.5)

    def action_toggle_panel(self) -> None:
        if self.ready:
            self.side.toggle()
        else:
            self.notify("The middleware panel opens once the shell has started.")

    # -- audio ------------------------------------------------------------------------
    def _playback_changed(self, key: str, playing: bool, note: str) -> None:
        from .widgets.audio_block import AudioBlock

        for block in self.query(AudioBlock):
            block.playback_changed(key, playing, note)

    def audio_finished(self, clip: Clip) -> None:
        """A spoken reply's audio block is complete: play it if ``/speak auto``."""
        if self.speak_mode == "auto" and clip.data:
            self.playback.enqueue(clip)

    def action_help(self) -> None:
        from . import speech
        from .screens.help import HelpScreen

        if not self.ready:
            self.notify("Help opens once the shell has started.")
            return
        rows = [(c.usage, c.summary) for c in self.commands]
        rows.append(("/theme [NAME]", "List the themes, or switch (remembered)"))
        rows.append(("/trace", "Open the trace view: each reply's model calls and tools, timed"))
        rows.append((speech.USAGE, "Spoken replies: off, on, or on and played as they finish"))
        self.push_screen(HelpScreen(rows))

    def on_text_area_changed(self) -> None:
        self.gc_policy.activity()  # typing: a due collection waits for a pause
        self._last_typed = time.monotonic()  # a dialog opening now ignores keys a moment

    def on_notice_line_disable_middleware(self, message: NoticeLine.DisableMiddleware) -> None:
        if message.name in self.agent.middleware:
            self.runtime.set_middleware(message.name, False)
            self.panel.refresh_stats()
            self.notify(f"Middleware {message.name} switched off.", markup=False)

    # -- slash commands ---------------------------------------------------------------
    async def run_command_line(self, line: str) -> None:
        from .entries import AssistantEntry, NoticeEntry
        from .history import entries_from_messages
        from .widgets.side_panel import TRACE_TAB

        name, _, arg = line[1:].partition(" ")
        if name == "theme":
            await self._theme_command(arg.strip())
            return
        if name == "trace":
            self.side.open(TRACE_TAB)
            return
        if name == "speak":
            await self._speak_command(arg.strip().lower())
            return
        if name == "help" and not arg:
            self.action_help()
            return
        if name in ("rewind", "undo") and not arg.strip():
            self.flow.open_rewind()
            return
        result = await self.commands.run(self.runtime, line)
        if result.action == "quit":
            self.exit(0)
            return
        if result.action == "send" and isinstance(result.data, str):  # a custom command's message
            if self._busy:
                self._queue.append(result.data)
                self._show_queue()
            else:
                self.start_reply(result.data)
            return
        if result.action == "copy" and isinstance(result.data, str):
            copied = self.flow.copy(result.data)
            said = f"Copied {len(result.data):,} characters through {copied.how}. {copied.note}".strip()
            await self.conversation.add(NoticeEntry("info" if copied.ok else "warning",
                                                    said if copied.ok else copied.note))
            return
        rewound = result.action in ("rewind", "fork") and getattr(result.data, "conversation", False)
        if result.action in ("new", "resume") or rewound:
            await self.conversation.clear_entries()
            self.todos.set_todos([])
            if result.action in ("resume", "rewind", "fork"):
                await self.conversation.add_many(entries_from_messages(self.agent.messages))
            self._show_usage()
        if rewound and result.data.text and not self.prompt.text.strip():
            self.prompt.load_text(result.data.text)  # the message comes back, to send again or change
            self.prompt.move_cursor(self.prompt.document.end)
        if name == "model" and not result.error:
            self.status.model_label = self.model_label
        self.show_meter()
        self.show_staged()
        if result.text:
            entry = NoticeEntry("error", result.text) if result.error else AssistantEntry(result.text)
            await self.conversation.add(entry)
        self.panel.refresh_stats()

    async def _theme_command(self, name: str) -> None:
        from .entries import AssistantEntry, NoticeEntry

        names = self.our_theme_names()
        if not name:
            listing = ", ".join(f"**{n}**" if n == self.theme else n for n in names)
            await self.conversation.add(AssistantEntry(f"Themes: {listing}. `/theme NAME` switches."))
            return
        if name not in self.available_themes:
            await self.conversation.add(
                NoticeEntry("error", f"No theme {name!r}. Themes: {', '.join(names)}.")
            )
            return
        self.theme = name
        prefs.save_theme(name, None if self._own_runtime else self.runtime.settings)
        await self.conversation.add(NoticeEntry("info", f"Theme: {name} (remembered)."))

    async def _speak_command(self, mode: str) -> None:
        from . import speech
        from .entries import AssistantEntry, NoticeEntry

        stack = self.agent.middleware
        if not mode:
            await self.conversation.add(AssistantEntry(speech.describe(stack, self.speak_mode)))
            return
        if mode not in speech.MODES:
            await self.conversation.add(NoticeEntry("error", f"Usage: {speech.USAGE}"))
            return
        outcome = speech.set_mode(stack, mode)
        self.speak_mode = outcome.mode
        if outcome.mode == "off":
            self.playback.stop()
        self.panel.refresh_stats()
        await self.conversation.add(NoticeEntry(outcome.level, outcome.text))


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
