"""The main screen starts: the first frame, then the runtime arrives.

The first frame comes before the runtime exists (the prompt takes input at once);
once it is built the screen shows the mode, greets (or shows a resumed
conversation), and mounts what the first screen does not show.
"""

from __future__ import annotations

from typing import Any

from shell.core.model import shown_label

from .main_commands import CommandResults

AFTER_THE_WELCOME = (
    "shell.tui.widgets.side_panel",
    "textual.widgets._tabbed_content",
    "shell.tui.widgets.attachment_bar",
    "shell.tui.widgets.mention_picker",
    "shell.tui.screens.approval",
    "shell.tui.screens.approval_broker",
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



class StartUp(CommandResults):
    """The main screen's start: mounted, then attached to the runtime."""

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
        once that frame is out, build the switched-off middleware (see
        ``shell.runtime.middleware_later``; what goes wrong there is shown like the
        start's problems) and mount what the first screen does not show (the side
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
        self._hear_late_checks()
        for problem in self.shell.problems():
            await self.conversation.add(NoticeEntry("warning", problem))
        await self._greet()
        if self._starting:  # from the start-up worker: let that frame out first (in on_mount,
            # given a runtime, this screen's own message pump would be the one waited for)
            drawn = asyncio.Event()
            self.call_after_refresh(drawn.set)
            await drawn.wait()

        def after_the_welcome() -> list[str]:
            for name in AFTER_THE_WELCOME:
                importlib.import_module(name)
            return runtime.complete_middleware()  # the switched-off ones, for the side panel

        for problem in await asyncio.to_thread(after_the_welcome):
            await self.conversation.add(NoticeEntry("warning", problem))
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

            await self.conversation.add_many(entries_from_messages(messages, self.runtime.call_outcomes,
                                                                  self.runtime.call_notes,
                                                                  self.runtime.call_edits,
                                                                  self.runtime.call_editors))
            self.show_usage()
        elif not self.shell.own_runtime:
            await self.conversation.add(WelcomeEntry(self._welcome()))

    def _welcome(self) -> tuple[tuple[str, str], ...]:
        """The greeting, as ``(text, kind)`` parts (see :mod:`..widgets.welcome`)."""
        keys = (("F1 help · F2 middleware · ", ""), ("/", "code"),
                (" commands · Esc or Ctrl+C cancels a reply · Ctrl+Q quits.", ""))
        if not self.runtime.is_demo:
            label = shown_label(self.runtime.model_label)
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

    def _hear_late_checks(self) -> None:
        """What a check after a command finds once that command's result was given (it
        went past its time, or Esc ended the command): a warning in the conversation
        when it ends, not only with the next command's result (which the model still
        gets) or at exit. Told from the check's thread, so handed to the app's loop.

        Once the user has quit, a warning would be drawn on a screen nobody sees again:
        what ends then, or was handed to the loop and not shown before the screen went,
        is printed after the TUI exits (:func:`shell.tools.after_check.tell_at_exit`)."""
        import asyncio
        import threading

        from shell.tools import after_check

        loop = asyncio.get_running_loop()
        self._late_lock = threading.Lock()
        self._late_pending: list[list[str]] = []
        self._late_closed = False

        def found(notes: list[str]) -> bool:
            with self._late_lock:
                if self._late_closed or getattr(self.app, "quitting", False):
                    return False  # the exit says it (shell.cli.finish_checks)
                try:
                    loop.call_soon_threadsafe(self._late_check, notes)
                except RuntimeError:  # the app has ended
                    return False
                self._late_pending.append(notes)
                return True

        self._stop_hearing = after_check.listen(found)

    def on_unmount(self) -> None:
        stop = getattr(self, "_stop_hearing", None)
        if stop is None:
            return
        stop()
        from shell.tools import after_check

        with self._late_lock:
            self._late_closed = True
            unshown, self._late_pending = self._late_pending, []
        for notes in unshown:
            after_check.tell_at_exit(notes)

    def _late_check(self, notes: list[str]) -> None:
        from shell.tools.after_check import for_user

        from ..entries import NoticeEntry

        with self._late_lock:
            if self._late_closed or getattr(self.app, "quitting", False):
                return  # left pending: the unmount hands it to the exit
            self._late_pending = [n for n in self._late_pending if n is not notes]
        text = "\n".join(self.runtime.shown(for_user(note)) for note in notes)
        self.call_later(self.conversation.add, NoticeEntry("warning", text))

    def _mcp_status(self, status: Any) -> None:
        from ..entries import NoticeEntry

        state = getattr(status, "state", "")
        if state not in ("ready", "failed", "exited"):
            return
        level = "info" if state == "ready" else "warning"
        tools = f" ({status.tools} tools)" if state == "ready" else ""
        reason = getattr(status, "reason", "")
        note = f": {self.runtime.shown(reason)}" if reason else ""  # stderr too: redacted, the user's only
        entry = NoticeEntry(level, f"MCP server {status.name} {state}{tools}{note}")
        self.call_later(self.conversation.add, entry)

