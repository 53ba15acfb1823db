"""The main screen sends what the user types and runs the reply.

Enter sends, or queues while a reply runs or the shell starts, or runs a slash
command; each reply runs in a Textual worker, and a
:class:`~shell.tui.renderer.ReplyRenderer` draws it into the conversation and posts
what the rest of the screen shows (the phase, the usage, the todo list, the trace,
a failed middleware) as messages handled here.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from contextlib import ExitStack, aclosing
from typing import TYPE_CHECKING

from textual.css.query import NoMatches

from .. import messages as msg
from ..widgets.prompt_input import PromptInput
from ..widgets.status_line import StatusLine
from .main_keyboard import PromptKeepsKeys

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from shell.commands import CommandResult
    from shell.context.attachments import Composed

    from ..renderer import ReplyRenderer
    from ..widgets.notice_line import NoticeLine


HOLD_S = 0.5
"""Longest that Esc holds the screen's frames back (see :meth:`RepliesRun.hold_frames`):
a reply whose end takes longer (a tool slow to stop) shows "cancelling…" meanwhile."""


async def _wait_briefly(event: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(event.wait(), HOLD_S)


class RepliesRun(PromptKeepsKeys):
    """Sending, the queue and the reply worker, and what the renderer reports."""

    async def run_command_line(self, line: str) -> None:
        """Every slash command, the TUI's own included, through the app's one registry."""
        result = await self.shell.commands.run(self.runtime, line)
        if not self._still_shown():
            return  # the app quit while the command ran (a /rewind off the loop): nothing to show it on
        try:
            await self.show_result(line, result)
        except NoMatches:
            if self._still_shown():
                raise  # (a widget missing from a live screen is a bug, not a quit)

    def _still_shown(self) -> bool:
        """The screen is still up with its widgets (not torn down by a quit)."""
        return self.is_attached and bool(self.query(StatusLine))

    show_result: Callable[[str, CommandResult], Awaitable[None]]
    """Show what a command did: :class:`~.main_commands.CommandResults`, the layer above,
    defines it (sending and command results call each other; declared here, not stubbed)."""

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


    async def send_queued(self) -> None:
        """Send (or run) what waits in the queue, until a reply starts."""
        while self._queue and not self._busy:
            text = self._queue.pop(0)
            self._show_queue()
            await self.submit(text)

    def start_reply(self, text: str) -> None:
        """Busy from Enter on: the ``@`` files' permission checks run off the loop before
        the message is sent (the keys stay live, Esc stops them, what is typed meanwhile
        is queued), then the reply."""
        self.set_busy(True)
        self.status.state = "thinking"
        self.run_worker(self._compose_and_reply(text), group="reply", exit_on_error=False)

    async def _compose_and_reply(self, text: str) -> None:
        try:
            composed = await self.runtime.compose(text)  # @ files and images; problems: nothing is sent
        except BaseException:
            self.set_busy(False)
            raise
        self.show_staged()
        if composed.problems:
            self.set_busy(False)
            self.status.state = "idle"
            self.release_frames()  # (held by an Esc that stopped the checks)
            await self._not_sent(text, composed.problems)
            return
        self.shell.playback.stop()  # a new reply silences the last one
        await self._run_reply(text, composed)

    async def _not_sent(self, text: str, problems: tuple[str, ...]) -> None:
        """Say why a message was not sent and give its text back to edit."""
        from ..entries import NoticeEntry

        lines = "\n".join(f"- {p}" for p in problems)
        await self.conversation.add(NoticeEntry("error", f"Not sent:\n{lines}"))
        self.give_back(text, before_draft=True)  # typed while its @ files were checked: kept after it
        await self.send_queued()

    async def _run_reply(self, text: str, composed: Composed) -> None:
        from shell.core.textsafety import encodable
        from shell.frontend.paced import paced

        from ..entries import NoticeEntry, UserEntry
        from ..renderer import ReplyRenderer

        # as the history and the session keep it (a lone surrogate is U+FFFD), so resuming shows the same
        asked = UserEntry(encodable(text), chips=tuple(composed.chips))
        await self.conversation.add(asked)
        for note in composed.notes:  # a file cut to fit, an @word that names no file
            await self.conversation.add(NoticeEntry("warning", note))
        self.conversation.anchor()
        flow = self.shell.flow
        renderer = self.renderer = ReplyRenderer(self.conversation, self.runtime.agent.middleware)
        self.last_reply = renderer.reply
        stack = self.runtime.agent.middleware
        record = self.replies.start(text, renderer.reply,
                                    tracing_on="Tracing" in stack and bool(stack.is_enabled("Tracing")))
        gc_policy = self.shell.gc_policy
        gc_policy.reply_started()
        status = self.status
        try:
            async with aclosing(self.runtime.reply(composed.message)) as events:  # recorded into the session
                # keys (Esc) get their turn however fast it streams
                async for event in paced(events, hold=lambda: self._until_end_shown(renderer)):
                    status.heard()  # a stalled model is said after a few quiet seconds
                    await renderer.handle(event)
                    await flow.on_event(event)  # steered messages, notifications
        except Exception as exc:  # the engine promises not to raise; show it if it does
            said = self.runtime.shown(f"{type(exc).__name__}: {exc}")  # secrets redacted
            await self.conversation.add(NoticeEntry("error", said))
        finally:
            await renderer.finish_all()
            self.set_busy(False)
            record.ended = time.time()
            self.renderer = None
            gc_policy.reply_finished()  # collected once the user is idle
            if self.is_attached and self.query(StatusLine):  # gone when the app quit mid-reply
                self.status.state = "idle"
            self.release_frames()
        if renderer.reply.withdrawn:  # it did not fit the context, or a policy refused it: back to edit
            # its bubble goes with it: the history and the session no longer hold it, so a
            # resumed session does not show it, and a bubble left here read as sent
            await self.conversation.drop(asked)
            self.give_back(text, before_draft=True)
            await self.conversation.add(NoticeEntry("info", "Your message is back in the prompt."))
        left = flow.take_back()  # a steer the reply could not take: the next message
        if left and renderer.cancelled:  # stopped with Esc: back to the prompt, not sent
            self.give_back("\n\n".join(left), before_draft=True)
            await self.conversation.add(NoticeEntry("info", "The reply was stopped before your steering "
                                                    "reached it; it is back in the prompt."))
        elif left:
            self._queue[:0] = left
            self._show_queue()
            await self.conversation.add(NoticeEntry("info", "The reply ended before your steering reached "
                                                    "it; it is sent as the next message."))
        await self.send_queued()


    @staticmethod
    def _until_end_shown(renderer: ReplyRenderer) -> Awaitable[None] | None:
        """After Esc, the engine's next step ends the reply and saves all that was
        received (under a flood, 0.1-0.3 s of CPU in one go): it waits until the end
        Esc drew is on screen (``HOLD_S`` at most). Otherwise nothing to wait for."""
        if not renderer.ended_on_screen or renderer.end_shown.is_set():
            return None
        return _wait_briefly(renderer.end_shown)

    def hold_frames(self) -> None:
        """Esc: no frame is drawn until the reply's end is on screen (or ``HOLD_S`` has
        passed). The stream is already stopped, so such frames would show nothing new,
        and under load each costs a turn of 30-60 ms of CPU that the end then waited
        behind; the first frame drawn shows the end (F9)."""
        if self._held is None:
            held = self._held = ExitStack()
            held.enter_context(self.app.batch_update())
            self.set_timer(HOLD_S, self.release_frames)

    def release_frames(self) -> None:
        """Draw again (the reply ended, or it took longer than ``HOLD_S``)."""
        held, self._held = self._held, None
        if held is not None:
            held.close()

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

