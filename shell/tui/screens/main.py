"""The main screen: the conversation, the prompt, the status line, the side panel.

It owns the layout, what the user types (sent, queued while a reply runs or the
shell starts, run as a slash command through the app's one registry) and the
reply worker: each reply runs in a Textual worker, and a
:class:`~shell.tui.renderer.ReplyRenderer` draws it into the conversation and
posts what the rest of the screen shows (the phase, the usage, the todo list,
the trace, a failed middleware) as messages handled here.

The prompt keeps the keyboard: whatever else holds the focus (a switch in the
side panel, a tool span's header), a printable key goes to the prompt, hiding
the panel hands the focus back, and a clicked switch does not keep it. Ctrl+C
cancels the reply in flight; on an idle prompt it clears what was typed, and a
second press within :data:`QUIT_WINDOW_S` quits (the first says so).
"""

from __future__ import annotations

import time
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, cast

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer, TextArea

from .. import messages as msg
from ..flow import STEER_KEYS
from ..replylog import ReplyLog
from ..widgets.conversation import Conversation
from ..widgets.prompt_input import PromptInput
from ..widgets.queue_bar import QueueBar
from ..widgets.status_line import StatusLine
from ..widgets.todo_list import TodoList

if TYPE_CHECKING:
    from shell.commands import CommandResult
    from shell.context.attachments import Composed
    from shell.frontend.reply import ReplyState
    from shell.runtime import ShellRuntime

    from ..app import AgentShellApp
    from ..renderer import ReplyRenderer
    from ..widgets.mention_picker import MentionPicker
    from ..widgets.middleware_panel import MiddlewarePanel
    from ..widgets.notice_line import NoticeLine
    from ..widgets.side_panel import SidePanel
    from ..widgets.trace_view import TraceView

def _takes_text(widget: object) -> bool:
    """A text field (typing there is for it). Input is named, not imported: the main
    screen has none, and the first frame need not pay for its module."""
    return isinstance(widget, TextArea) or any(c.__name__ == "Input" for c in type(widget).__mro__)


def _typed(event: events.Key) -> bool:
    """A key the prompt always handles (so it never bubbles up from there)."""
    return event.is_printable or event.key in ("enter", "ctrl+j")


QUIT_WINDOW_S = 2.0
"""A second Ctrl+C on an idle, empty prompt within this long quits."""


AFTER_THE_WELCOME = (
    "shell.tui.widgets.side_panel",
    "textual.widgets._tabbed_content",
    "shell.tui.widgets.attachment_bar",
    "shell.tui.widgets.mention_picker",
    "shell.tui.screens.approval",
    "shell.tui.screens.help",
)
"""Imported in a thread once the welcome (or a resumed conversation) is drawn: the
first screen does not show them (the side panel is hidden until F2)."""

ONCE_READY = (
    "shell.tui.renderer",  # with the replies' Markdown (shell.tui.widgets.assistant_message)
    "shell.tui.highlight",  # Pygments, for the tool spans
    "anyio._backends._asyncio",  # the reply's task group (~15 ms, imported at its first use)
)
"""Imported in a thread once the shell is ready: what the first reply draws with.
A reply sent before they are in imports them itself (or waits for the thread's
import of the same module), so nothing is missing, only later."""


class MainScreen(Screen[None]):
    """The shell's one screen under its dialogs."""

    AUTO_FOCUS = "#prompt"
    BINDINGS = [
        Binding("escape", "cancel_reply", "Cancel reply"),
        Binding("f2", "toggle_panel", "Middleware"),
        Binding("f1", "help", "Help"),
        Binding("shift+tab", "cycle_mode", "Mode", priority=True),
        Binding(STEER_KEYS, "steer", "Steer", show=False, priority=True),
        Binding("ctrl+r", "search_history", "History", show=False),
        Binding("ctrl+g", "edit_prompt", "Editor", show=False),
    ]

    def __init__(self, initial: str | None = None, *, starting: bool = False) -> None:
        super().__init__()
        self._queue: list[str] = [initial] if initial else []
        self._starting = starting
        self._busy = False
        self._last_ctrl_c = 0.0
        self.renderer: ReplyRenderer | None = None
        self.last_reply: ReplyState | None = None
        """The last reply as the front-end core reduced it (how it ended, its calls)."""
        self.replies = ReplyLog()
        """Every reply sent here, numbered (the trace view lists them)."""

    @property
    def shell(self) -> AgentShellApp:
        return cast("AgentShellApp", self.app)

    @property
    def runtime(self) -> ShellRuntime:
        return self.shell.runtime

    # -- layout -------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        """The first frame: the side panel joins once the runtime exists."""
        with Horizontal(id="main"), Vertical(id="chat"):
            yield Conversation(id="conversation")
            yield TodoList(id="todos")
            yield QueueBar(id="queue")
            prompt = PromptInput(commands=self.command_names, id="prompt")
            prompt.newline_sends = self._starting  # until ready (see PromptInput)
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
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def todos(self) -> TodoList:
        return self.query_one(TodoList)

    @property
    def side(self) -> SidePanel:
        from ..widgets.side_panel import SidePanel

        return self.query_one(SidePanel)

    @property
    def panel(self) -> MiddlewarePanel:
        return self.side.middleware

    @property
    def trace_view(self) -> TraceView:
        return self.side.trace

    @property
    def busy(self) -> bool:
        return self._busy

    async def on_mount(self) -> None:
        """Starting (the runtime is built after the first frame): say so. Given a
        runtime: take it now, then send a first message if there is one."""
        if self._starting:
            self.status.model_label = "agent-shell"
            self.status.state = "starting"
            self.call_after_refresh(self.shell.first_frame_shown)
            return
        await self.shell.attach_runtime()
        if self._queue:
            self.call_after_refresh(self.run_worker, self.send_queued(), group="queue")

    # -- the runtime arrives --------------------------------------------------------
    async def attach(self) -> None:
        """The runtime exists: show the mode, greet (or show a resumed conversation);
        once that frame is out, mount what the first screen does not show (the side
        panel, the attachment bar, the ``@`` picker). The app is ready after that."""
        import asyncio
        import importlib

        from shell.core.messages import UserMessage

        from ..entries import NoticeEntry

        runtime = self.runtime
        self.replies.count = sum(isinstance(m, UserMessage) for m in runtime.agent.messages)  # resumed: go on
        self.shell.flow.attach()  # the prompt history, notifications, custom commands
        self.prompt.newline_sends = False
        self.status.model_label = self.shell.model_label
        self.status.state = "idle"
        runtime.permissions.listeners.append(self.show_mode)
        self.show_mode()
        for problem in self.shell.problems():
            await self.conversation.add(NoticeEntry("warning", problem))
        await self._greet()
        if self._starting:  # from the start-up worker: let that frame out first (in on_mount,
            # given a runtime, this screen's own message pump would be the one waited for)
            drawn = asyncio.Event()
            self.call_after_refresh(drawn.set)
            await drawn.wait()
        await asyncio.to_thread(lambda: [importlib.import_module(m) for m in AFTER_THE_WELCOME])
        from ..widgets.attachment_bar import AttachmentBar
        from ..widgets.mention_picker import MentionPicker
        from ..widgets.middleware_panel import Switches
        from ..widgets.side_panel import SidePanel

        switches = Switches(runtime.middleware_on, runtime.set_middleware)
        side = SidePanel(runtime.agent.middleware, switches, id="side", replies=self.replies)
        await self.query_one("#main").mount(side)
        picker = MentionPicker(lambda: runtime.file_index if self.shell.ready else None, id="picker")
        await self.query_one("#chat").mount(AttachmentBar(id="attachments"), picker, before=self.prompt)
        if not self.shell.own_runtime:  # MCP servers connect in the background; sessions close on exit
            runtime.on_mcp_change.append(self._mcp_status)
            self.run_worker(self._background(), group="background", exit_on_error=False)

    async def _greet(self) -> None:
        from ..entries import WelcomeEntry

        messages = self.runtime.agent.messages
        if messages:  # a resumed session: show what was said, and what it cost
            from ..history import entries_from_messages

            await self.conversation.add_many(entries_from_messages(messages, self.runtime.call_outcomes))
            self.show_usage()
        elif not self.shell.own_runtime:
            await self.conversation.add(WelcomeEntry(self._welcome()))

    def _welcome(self) -> tuple[tuple[str, str], ...]:
        """The greeting, as ``(text, kind)`` parts (see :mod:`..widgets.welcome`)."""
        keys = (("F1 help · F2 middleware · ", ""), ("/", "code"),
                (" commands · Esc or Ctrl+C cancels a reply · Ctrl+Q quits.", ""))
        if not self.runtime.is_demo:
            label = self.runtime.model_label
            return (("agent-shell", "strong"), (" on ", ""), (label, "code"), (". ", ""), *keys)
        return (
            ("Welcome to agent-shell.", "strong"), (" You are on the offline ", ""), ("demo model", "strong"),
            (": no key, no network, scripted answers that show how the shell works. Try ", ""),
            ("list the files here", "em"), (", ", ""), ("read README.md", "em"), (", ", ""),
            ("search for hello", "em"), (" or ", ""), ("run ", "em"), ("ls -la", "code"),
            (", and approve or edit the calls.\n\nTo talk to a real model, set ", ""),
            ("ANTHROPIC_API_KEY", "code"), (" or ", ""), ("OPENAI_API_KEY", "code"),
            (", start Ollama, or switch with ", ""), ("/model provider:name", "code"), (". ", ""), *keys,
        )

    async def _background(self) -> None:
        import anyio

        async with self.runtime.running():
            await self._ask_trust()
            await anyio.sleep_forever()

    async def _ask_trust(self) -> None:
        """A workspace with its own config (``.mcp.json``) that the user has not
        answered for: ask, showing everything it would run; its servers start once
        trusted. Declined before: one notice saying how to change that."""
        from ..entries import NoticeEntry
        from .trust import TrustScreen

        runtime = self.runtime
        check = runtime.workspace_trust()
        if check.trusted or check.state == "none":
            return
        if check.needs_answer:
            taken = self.shell.commands.names(custom=False)
            screen = TrustScreen(str(check.config.root), runtime.describe_project(check, taken))
            answer = await self.app.push_screen_wait(screen)
            if answer is not None:
                await runtime.decide_trust(check, answer)
            if answer:
                return
            check = runtime.workspace_trust()
            if check.trusted:
                return
        await self.conversation.add(NoticeEntry("warning", runtime.untrusted_notice(check)))

    def _mcp_status(self, status: Any) -> None:
        from ..entries import NoticeEntry

        state = getattr(status, "state", "")
        if state not in ("ready", "failed", "exited"):
            return
        level = "info" if state == "ready" else "warning"
        tools = f" ({status.tools} tools)" if state == "ready" else ""
        note = f": {status.message}" if getattr(status, "message", "") else ""
        entry = NoticeEntry(level, f"MCP server {status.name} {state}{tools}{note}")
        self.call_later(self.conversation.add, entry)

    # -- the status line ------------------------------------------------------------
    def show_mode(self) -> None:
        if not self.is_attached:
            return
        self.status.mode = self.runtime.mode_label
        self.status.mode_warning = self.runtime.mode_warning

    def show_usage(self) -> None:
        """The session's tokens, how full the context is and the cost: the runtime's
        meter, the one count every front end shows (zero after /new)."""
        meter = self.runtime.meter
        used = meter.session_usage
        status = self.status
        status.tokens_in, status.tokens_out, status.tokens_unknown = (
            used.input_tokens, used.output_tokens, used.unknown
        )
        status.context = meter.context_label()
        status.fullness = meter.fullness or 0.0
        status.cost = meter.cost_label()

    # -- what the reply renderer says -------------------------------------------------
    def on_phase_changed(self, message: msg.PhaseChanged) -> None:
        if self._busy or message.phase == "idle":
            self.status.state = message.phase

    def on_usage_reported(self, message: msg.UsageReported) -> None:
        self.show_usage()

    def on_middleware_failed(self, message: msg.MiddlewareFailed) -> None:
        self.panel.mark_failed(message.name, message.error)

    def on_todos_changed(self, message: msg.TodosChanged) -> None:
        self.todos.set_todos(message.todos)

    def on_trace_changed(self, message: msg.TraceChanged) -> None:
        self.trace_view.changed()

    def on_audio_finished(self, message: msg.AudioFinished) -> None:
        self.shell.audio_finished(message.clip)

    def on_notice_line_disable_middleware(self, message: NoticeLine.DisableMiddleware) -> None:
        if message.name in self.runtime.agent.middleware:
            self.runtime.set_middleware(message.name, False)
            self.panel.refresh_stats()
            self.notify(f"Middleware {message.name} switched off.", markup=False)

    # -- the keyboard stays with the prompt ---------------------------------------------
    def on_key(self, event: events.Key) -> None:
        """A printable key while something other than a text field has the focus
        goes to the prompt (a switch or a span header would swallow it). Keys that
        reach the screen itself while the prompt has (or has no one has) the focus
        were typed before the screen had composed: they go to the prompt, Enter
        included, in order."""
        if getattr(event, "forwarded_to_prompt", False):
            return  # came back from the prompt unhandled: once is enough
        focused = self.focused
        if focused is None or (isinstance(focused, PromptInput) and _typed(event)):
            self._to_prompt(event)
            return
        if _takes_text(focused) or not event.is_printable:
            return
        if event.key in ("space", "enter"):
            return  # the focused widget's own action (a switch toggles, a header opens)
        event.stop()
        event.prevent_default()
        self.focus_prompt()
        self.prompt.insert(event.character or "")

    def _to_prompt(self, event: events.Key) -> None:
        prompts = self.query(PromptInput)
        if not prompts:
            return
        prompt = prompts.first()
        event.stop()
        event.prevent_default()
        self.set_focus(prompt)  # at once: the next keys go straight to it
        again = events.Key(event.key, event.character)
        again.forwarded_to_prompt = True  # type: ignore[attr-defined]
        prompt.post_message(again)

    def focus_prompt(self) -> None:
        """The prompt takes the focus now (not after a refresh: the next key is its)."""
        if self.is_attached:
            self.set_focus(self.prompt)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        """Focus that would fall to nothing (a widget hidden or removed while it had
        it) comes back to the prompt."""
        self.call_after_refresh(self._refocus)

    def _refocus(self) -> None:
        if self.focused is None and self.app.screen is self:
            self.focus_prompt()

    def on_mouse_up(self, event: events.MouseUp) -> None:
        """A click on a switch, a tab or a button acts (a switch stops its own Click,
        so this listens for the button's release), then the prompt has the keys
        again: the next "ok go" must not toggle what was clicked."""
        self.call_after_refresh(self._refocus_after_click)

    def _refocus_after_click(self) -> None:
        if self.app.screen is self and not _takes_text(self.focused):
            self.focus_prompt()

    # -- sending --------------------------------------------------------------------
    def command_names(self) -> list[str]:
        if not self.shell.ready:
            return []
        return sorted(f"/{name}" for name in self.shell.commands.names())

    async def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
        await self.submit(message.text)

    async def submit(self, text: str) -> None:
        """What Enter does: run a slash command, send, or queue while a reply runs
        (or while the shell is still starting)."""
        from shell.commands import is_command

        self.shell.flow.remember(text)
        if not self.shell.ready or (self._busy and not is_command(text.strip())):
            self._queue.append(text)
            self._show_queue()
        elif is_command(text.strip()):
            await self.run_command_line(text.strip())
        else:
            self.start_reply(text)

    async def submit_message(self, text: str) -> None:
        """Send ``text`` as a message (never as a command), or queue it behind the reply."""
        if self._busy or not self.shell.ready:
            self._queue.append(text)
            self._show_queue()
        else:
            self.start_reply(text)

    def _show_queue(self) -> None:
        self.query_one(QueueBar).show_queue(self._queue)
        self.status.queued = len(self._queue)

    @property
    def queued(self) -> list[str]:
        return self._queue

    async def send_queued(self) -> None:
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
        self.shell.playback.stop()  # a new reply silences the last one
        self._busy = True
        self.status.state = "thinking"
        self.run_worker(self._run_reply(text, composed), group="reply", exit_on_error=False)

    async def _not_sent(self, text: str, problems: tuple[str, ...]) -> None:
        """Say why a message was not sent and give its text back to edit."""
        from ..entries import NoticeEntry

        lines = "\n".join(f"- {p}" for p in problems)
        await self.conversation.add(NoticeEntry("error", f"Not sent:\n{lines}"))
        self.give_back(text)
        await self.send_queued()

    def give_back(self, text: str) -> None:
        """Put ``text`` in the prompt to send again or change (when it is empty)."""
        if text and not self.prompt.text.strip():
            self.prompt.load_text(text)
            self.prompt.move_cursor(self.prompt.document.end)

    async def _run_reply(self, text: str, composed: Composed) -> None:
        from shell.frontend.paced import paced

        from ..entries import NoticeEntry, UserEntry
        from ..renderer import ReplyRenderer

        await self.conversation.add(UserEntry(text, chips=tuple(composed.chips)))
        for note in composed.notes:  # a file cut to fit, an @word that names no file
            await self.conversation.add(NoticeEntry("warning", note))
        self.conversation.anchor()
        flow = self.shell.flow
        renderer = self.renderer = ReplyRenderer(self.conversation, self.runtime.agent.middleware)
        self.last_reply = renderer.reply
        record = self.replies.start(text, renderer.reply)
        gc_policy = self.shell.gc_policy
        gc_policy.reply_started()
        try:
            async with aclosing(self.runtime.reply(composed.message)) as events:  # recorded into the session
                async for event in paced(events):  # keys (Esc) get their turn however fast it streams
                    await renderer.handle(event)
                    await flow.on_event(event)  # steered messages, notifications
        except Exception as exc:  # the engine promises not to raise; show it if it does
            said = self.runtime.shown(f"{type(exc).__name__}: {exc}")  # secrets redacted
            await self.conversation.add(NoticeEntry("error", said))
        finally:
            await renderer.finish_all()
            self._busy = False
            record.ended = time.time()
            self.renderer = None
            gc_policy.reply_finished()  # collected once the user is idle
            if self.is_attached and self.query(StatusLine):  # gone when the app quit mid-reply
                self.status.state = "idle"
        left = flow.take_back()  # a steer the reply could not take: the next message
        if left:
            self._queue[:0] = left
            self._show_queue()
            await self.conversation.add(NoticeEntry("info", "The reply ended before your steering reached "
                                                    "it; it is sent as the next message."))
        await self.send_queued()

    def show_staged(self) -> None:
        """The images waiting for the next message, as chips above the prompt."""
        from ..widgets.attachment_bar import AttachmentBar

        for bar in self.query(AttachmentBar):
            bar.show_chips([a.chip for a in self.runtime.staged])

    # -- the @ picker and paging --------------------------------------------------------
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
        from ..widgets.mention_picker import MentionPicker

        found = self.query(MentionPicker)
        return found.first() if found else None

    def on_prompt_input_page(self, message: PromptInput.Page) -> None:
        if message.direction < 0:
            self.conversation.scroll_page_up(animate=False)
        else:
            self.conversation.scroll_page_down(animate=False)

    def on_text_area_changed(self) -> None:
        self.shell.gc_policy.activity()  # typing: a due collection waits for a pause
        self.shell.last_typed = time.monotonic()  # a dialog opening now ignores keys a moment

    # -- actions ----------------------------------------------------------------------
    def action_cancel_reply(self) -> None:
        """Esc: end the reply in flight at once (pending approvals are withdrawn) and
        silence any audio playing; idle, it drops what waits in the queue."""
        self.shell.playback.stop()
        if self._busy:
            self.status.state = "cancelling"
            if self.renderer is not None:
                self.renderer.cancel()  # the screen stops at once, whatever is in flight
            self.runtime.cancel()
        elif self._queue:
            self._queue.clear()
            self._show_queue()
        elif self.shell.ready and self.app.screen is self:
            self.shell.flow.escape()  # Esc Esc on an empty prompt: the rewind dialog

    def action_steer(self) -> None:
        """Ctrl+Enter (Alt+Enter where the terminal cannot tell): while a reply runs, the
        prompt's text goes to it at its next tool boundary; otherwise Enter's job."""
        text = self.prompt.text
        if not text.strip() or not self.shell.ready:
            return
        if self.shell.flow.steer(text):
            self.prompt.clear()
        else:
            self.prompt.action_submit()

    def action_search_history(self) -> None:
        if self.shell.ready and self.app.screen is self:
            self.shell.flow.search_history()

    def action_edit_prompt(self) -> None:
        if self.app.screen is self:
            self.shell.flow.edit_prompt()

    def interrupt(self) -> None:
        """Ctrl+C: cancel the reply in flight; idle, clear the prompt; on an empty
        idle prompt, quit when pressed twice (the first press says so)."""
        if self._busy:
            self.action_cancel_reply()
            return
        prompt = self.prompt
        if prompt.selected_text:
            prompt.action_copy()
            return
        if prompt.text:
            prompt.clear()
            return
        now = time.monotonic()
        if now - self._last_ctrl_c <= QUIT_WINDOW_S:
            self.app.exit(0)
            return
        self._last_ctrl_c = now
        self.notify("Press Ctrl+C again to quit (or Ctrl+Q).", title="Quit?", timeout=QUIT_WINDOW_S)

    def action_cycle_mode(self) -> None:
        """Shift+Tab: the next permission mode (default, accept-edits, plan, auto)."""
        if not self.shell.ready or self.app.screen is not self:
            return
        from shell.permissions.modes import SUMMARY

        mode = self.runtime.permissions.cycle_mode()
        self.notify(f"{mode}: {SUMMARY[mode]}", title="Permission mode", timeout=2.5)

    def action_toggle_panel(self) -> None:
        if not self.shell.ready:
            self.notify("The middleware panel opens once the shell has started.")
            return
        side = self.side
        side.toggle()
        if not side.shown:
            self.focus_prompt()  # the focus was perhaps in the panel: typing goes on here

    def action_help(self) -> None:
        from .help import HelpScreen

        if not self.shell.ready:
            self.notify("Help opens once the shell has started.")
            return
        self.app.push_screen(HelpScreen([(c.usage, c.summary) for c in self.shell.commands]))

    # -- slash commands ---------------------------------------------------------------
    async def run_command_line(self, line: str) -> None:
        """Every slash command, the TUI's own included, through the app's one registry."""
        result = await self.shell.commands.run(self.runtime, line)
        await self.show_result(line, result)

    async def show_result(self, line: str, result: CommandResult) -> None:
        from ..entries import AssistantEntry, NoticeEntry
        from ..widgets.side_panel import TRACE_TAB

        if result.action == "quit":
            self.app.exit(0)
            return
        if result.action == "help":
            self.action_help()
            return
        if result.action == "trace":
            self.side.open(TRACE_TAB)
            return
        if result.action == "rewind_dialog":
            self.shell.flow.open_rewind()
            return
        if result.action == "send" and isinstance(result.data, str):  # a custom command's message
            await self.submit_message(result.data)
            return
        if result.action == "copy" and isinstance(result.data, str):
            copied = self.shell.flow.copy(result.data)
            said = f"Copied {len(result.data):,} characters through {copied.how}. {copied.note}".strip()
            await self.conversation.add(NoticeEntry("info" if copied.ok else "warning",
                                                    said if copied.ok else copied.note))
            return
        await self._apply(result)
        if line.startswith("/model") and not result.error:
            self.status.model_label = self.shell.model_label
        self.show_usage()
        self.show_staged()
        if result.text:
            if result.error:
                entry: Any = NoticeEntry("error", result.text)
            elif result.action == "notice":
                entry = NoticeEntry(str(result.data or "info"), result.text)
            else:
                entry = AssistantEntry(result.text)
            await self.conversation.add(entry)
        self.panel.refresh_stats()

    async def _apply(self, result: CommandResult) -> None:
        """What a command changed in the conversation: a new one, a resumed one, one
        rewound (its message back in the prompt)."""
        from ..history import entries_from_messages

        rewound = result.action in ("rewind", "fork") and getattr(result.data, "conversation", False)
        if result.action in ("new", "resume") or rewound:
            await self.conversation.clear_entries()
            self.todos.set_todos([])
            if result.action in ("resume", "rewind", "fork"):
                entries = entries_from_messages(self.runtime.agent.messages, self.runtime.call_outcomes)
                await self.conversation.add_many(entries)
        if rewound:
            self.give_back(result.data.text)
