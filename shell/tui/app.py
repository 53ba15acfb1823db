"""The Textual app: conversation, prompt, status line, middleware panel, dialogs.

``AgentShellApp`` drives an :class:`~shell.agent.Agent` (through a ``ShellRuntime``
when the CLI gives one; a bare agent is wrapped in one). Each reply runs in a
Textual worker on the app's own event loop, so nothing blocks the UI, and
``ReplyRenderer`` turns its events into widgets. The app serves the agent's
``ask``: approval requests queue in one :class:`ApprovalScreen`. Audio plays
through one :class:`Playback`, so Esc or a new reply silences it.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

import anyio
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer

import themes
from shell.agent.approvals import ApprovalDecision, ApprovalRequest

from . import prefs, speech
from .entries import AssistantEntry, NoticeEntry, UserEntry
from .gcpolicy import GcPolicy
from .history import entries_from_messages
from .palette import ShellCommands
from .playback import Clip, Playback
from .renderer import ReplyRenderer
from .screens.approval import ApprovalScreen, PendingApproval
from .screens.help import HelpScreen
from .widgets.audio_block import AudioBlock
from .widgets.conversation import Conversation
from .widgets.middleware_panel import MiddlewarePanel
from .widgets.notice_line import NoticeLine
from .widgets.prompt_input import PromptInput
from .widgets.queue_bar import QueueBar
from .widgets.side_panel import TRACE_TAB, SidePanel
from .widgets.status_line import StatusLine
from .widgets.todo_list import TodoList
from .widgets.trace_view import TraceView

if TYPE_CHECKING:
    from shell.agent.loop import Agent
    from shell.runtime import ShellRuntime


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
        Binding("escape", "cancel_reply", "Cancel reply"),
        Binding("f2", "toggle_panel", "Middleware"),
        Binding("f1", "help", "Help"),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(
        self,
        agent: Agent | None = None,
        *,
        model_label: str | None = None,
        runtime: ShellRuntime | None = None,
    ) -> None:
        super().__init__()
        if runtime is None:
            if agent is None:
                raise TypeError("AgentShellApp needs an agent or a runtime")
            runtime = _wrap(agent)
            self._own_runtime = True
        else:
            self._own_runtime = False
        self.runtime = runtime
        self.agent: Agent = runtime.agent
        self.agent.ask = self.ask
        self.commands_registry = runtime.commands
        self._model_label = model_label
        self._queue: list[str] = []
        self._approvals: list[PendingApproval] = []
        self._approval_screen: ApprovalScreen | None = None
        self._busy = False
        self.renderer: ReplyRenderer | None = None
        self.gc_policy = GcPolicy()
        self.playback = Playback()
        self.playback.listeners.append(self._playback_changed)
        self.speak_mode = "off"
        """``/speak``: ``off``, ``on`` (TTS middleware on) or ``auto`` (and auto-play)."""
        self._choose_theme()

    # -- layout -------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="chat"):
                yield Conversation(id="conversation")
                yield TodoList(id="todos")
                yield QueueBar(id="queue")
                yield PromptInput(commands=self._command_names, id="prompt")
                yield StatusLine(id="status")
            yield SidePanel(self.agent.middleware, id="side")
        yield Footer()

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def status(self) -> StatusLine:
        return self.query_one(StatusLine)

    @property
    def panel(self) -> MiddlewarePanel:
        return self.query_one(MiddlewarePanel)

    @property
    def side(self) -> SidePanel:
        return self.query_one(SidePanel)

    @property
    def trace_view(self) -> TraceView:
        return self.query_one(TraceView)

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
        wanted = getattr(self.runtime.settings, "theme", None) if not self._own_runtime else None
        wanted = wanted or prefs.saved_theme() or themes.DEFAULT_THEME
        self.theme = wanted if wanted in self.available_themes else themes.DEFAULT_THEME

    async def on_mount(self) -> None:
        self.status.model_label = self.model_label
        saved_speak = prefs.saved_speak()
        if saved_speak is not None:
            speech.apply(self.agent.middleware, saved_speak)
        self.speak_mode = speech.current_mode(self.agent.middleware, saved_speak)
        self.prompt.focus()
        for problem in self.runtime.problems:
            await self.conversation.add(NoticeEntry("warning", problem))
        if self.agent.messages:  # a resumed session: show what was said
            await self.conversation.add_many(entries_from_messages(self.agent.messages))
        elif not self._own_runtime:
            await self.conversation.add(AssistantEntry(self._welcome()))
        if not self._own_runtime:  # MCP servers connect in the background; sessions close on exit
            self.runtime.on_mcp_change.append(self._mcp_status)
            self.run_worker(self._background(), group="background", exit_on_error=False)
        self.call_after_refresh(self.gc_policy.started_up)

    async def _background(self) -> None:
        async with self.runtime.running():
            await anyio.sleep_forever()

    def _mcp_status(self, status: Any) -> None:
        state = getattr(status, "state", "")
        if state not in ("ready", "failed", "exited"):
            return
        level = "info" if state == "ready" else "warning"
        tools = f" ({status.tools} tools)" if state == "ready" else ""
        note = f": {status.message}" if getattr(status, "message", "") else ""
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

    def our_theme_names(self) -> list[str]:
        return [t.name for t in themes.all_themes()]

    def _command_names(self) -> list[str]:
        ours = ["/theme", "/trace", "/speak"]
        return sorted([f"/{name}" for name in self.commands_registry.names()] + ours)

    def add_usage(self, tokens_in: int, tokens_out: int) -> None:
        self.status.tokens_in += tokens_in
        self.status.tokens_out += tokens_out

    # -- sending --------------------------------------------------------------------
    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        await self.submit(message.text)

    async def submit(self, text: str) -> None:
        """What Enter does: run a slash command, send, or queue while a reply runs."""
        from shell.commands import is_command

        if is_command(text.strip()):
            await self.run_command_line(text.strip())
        elif self._busy:
            self._queue.append(text)
            self._show_queue()
        else:
            self.start_reply(text)

    def _show_queue(self) -> None:
        self.query_one(QueueBar).show_queue(self._queue)
        self.status.queued = len(self._queue)

    def start_reply(self, text: str) -> None:
        self.playback.stop()  # a new reply silences the last one
        self._busy = True
        self.status.state = "thinking"
        self.run_worker(self._run_reply(text), group="reply", exit_on_error=False)

    async def _run_reply(self, text: str) -> None:
        await self.conversation.add(UserEntry(text))
        self.conversation.anchor()
        renderer = self.renderer = ReplyRenderer(self)
        self.gc_policy.reply_started()
        try:
            async with aclosing(self.runtime.reply(text)) as events:  # recorded into the session
                async for event in events:
                    await renderer.handle(event)
        except Exception as exc:  # the engine promises not to raise; show it if it does
            await self.conversation.add(NoticeEntry("error", f"{type(exc).__name__}: {exc}"))
        finally:
            await renderer.finish_all()
            self._busy = False
            self.renderer = None
            self.status.state = "idle"
            self.call_after_refresh(self.gc_policy.reply_finished)
        if self._queue:
            next_text = self._queue.pop(0)
            self._show_queue()
            self.start_reply(next_text)

    @property
    def busy(self) -> bool:
        return self._busy

    # -- approvals --------------------------------------------------------------------
    async def ask(self, request: Any) -> Any:
        """The agent's ``ask``: approvals go to the dialog (queued); others get None."""
        if not isinstance(request, ApprovalRequest):
            return None
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        item = PendingApproval(request, future)
        self._approvals.append(item)
        self.status.state = "approval"
        screen = self._approval_screen
        if screen is None:
            screen = self._approval_screen = ApprovalScreen(self._approvals)
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
            screen = self._approval_screen = ApprovalScreen(self._approvals)
            self.push_screen(screen, callback=self._approval_closed)

    # -- actions ----------------------------------------------------------------------
    def action_cancel_reply(self) -> None:
        """Esc: end the reply in flight at once (pending approvals are withdrawn) and
        silence any audio playing."""
        self.playback.stop()
        if self._busy:
            self.status.state = "cancelling"
            self.agent.cancel()
        elif self._queue:
            self._queue.clear()
            self._show_queue()

    def action_toggle_panel(self) -> None:
        self.side.toggle()

    # -- audio ------------------------------------------------------------------------
    def _playback_changed(self, key: str, playing: bool, note: str) -> None:
        for block in self.query(AudioBlock):
            block.playback_changed(key, playing, note)

    def audio_finished(self, clip: Clip) -> None:
        """A spoken reply's audio block is complete: play it if ``/speak auto``."""
        if self.speak_mode == "auto" and clip.data:
            self.playback.enqueue(clip)

    def action_help(self) -> None:
        rows = [(c.usage, c.summary) for c in self.commands_registry]
        rows.append(("/theme [NAME]", "List the themes, or switch (remembered)"))
        rows.append(("/trace", "Open the trace view: each reply's model calls and tools, timed"))
        rows.append((speech.USAGE, "Spoken replies: off, on, or on and played as they finish"))
        self.push_screen(HelpScreen(rows))

    def on_notice_line_disable_middleware(self, message: NoticeLine.DisableMiddleware) -> None:
        if message.name in self.agent.middleware:
            self.agent.middleware.set_enabled(message.name, False)
            self.panel.refresh_stats()
            self.notify(f"Middleware {message.name} switched off.")

    # -- slash commands ---------------------------------------------------------------
    async def run_command_line(self, line: str) -> None:
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
        result = await self.runtime.run_command(line)
        if result.action == "quit":
            self.exit(0)
            return
        if result.action in ("clear", "new", "resume"):
            await self.conversation.clear_entries()
            self.todos.set_todos([])
            if result.action == "new":
                self.status.tokens_in = self.status.tokens_out = 0
            if result.action == "resume":
                await self.conversation.add_many(entries_from_messages(self.agent.messages))
        if name == "model" and not result.error:
            self.status.model_label = self.model_label
        if result.text:
            entry = NoticeEntry("error", result.text) if result.error else AssistantEntry(result.text)
            await self.conversation.add(entry)
        self.panel.refresh_stats()

    async def _theme_command(self, name: str) -> None:
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


def run_tui(runtime: ShellRuntime) -> int:
    """The CLI's entry point: run the app until the user quits; the exit code."""
    app = AgentShellApp(runtime=runtime)
    code = app.run()
    return int(code or 0)
