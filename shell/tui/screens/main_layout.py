"""The main screen's layout and state: what every part of it builds on.

The main screen is one class (:class:`~.main.MainScreen`) put together in layers,
each in its own module and each adding one concern to the one below it: this
layout and its state; the keyboard that stays with the prompt
(:mod:`.main_keyboard`); sending and the reply worker (:mod:`.main_replies`); the
key actions (:mod:`.main_actions`); slash commands' results (:mod:`.main_commands`);
the runtime's arrival (:mod:`.main_startup`). Split so that no module holds it all,
not to be used apart: only ``MainScreen`` is ever built.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import TYPE_CHECKING, cast

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer

from ..replylog import ReplyLog
from ..widgets.conversation import Conversation
from ..widgets.prompt_input import PromptInput
from ..widgets.queue_bar import QueueBar
from ..widgets.status_line import StatusLine
from ..widgets.todo_list import TodoList
from .split_frame import SplitFrameScreen

if TYPE_CHECKING:
    from shell.frontend.reply import ReplyState
    from shell.runtime import ShellRuntime

    from ..app import AgentShellApp
    from ..renderer import ReplyRenderer
    from ..widgets.middleware_panel import MiddlewarePanel
    from ..widgets.side_panel import SidePanel
    from ..widgets.trace_view import TraceView


class MainLayout(SplitFrameScreen[None]):
    """The conversation, the prompt, the status line and (once ready) the side panel,
    with the state the other layers share: the queue, whether a reply runs, its renderer."""

    def __init__(self, initial: str | None = None, *, starting: bool = False) -> None:
        super().__init__()
        self._queue: list[str] = [initial] if initial else []
        self._starting = starting
        self._busy = False
        self._last_ctrl_c = 0.0
        self._held: ExitStack | None = None
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

    def set_busy(self, busy: bool) -> None:
        """A reply starts or ends: the footer shows "esc Cancel reply" only while one
        runs. Textual re-reads the bindings only when told (or when the focus moves), so
        the footer kept what it read last: a reply that moved the focus hid the key for
        that reply and every later one, and an idle prompt said "Cancel reply"."""
        self._busy = busy
        self.refresh_bindings()

    @property
    def queued(self) -> list[str]:
        return self._queue

    def _show_queue(self) -> None:
        self.query_one(QueueBar).show_queue(self._queue)
        self.status.queued = len(self._queue)

    def command_names(self) -> list[str]:
        if not self.shell.ready:
            return []
        return sorted(f"/{name}" for name in self.shell.commands.names())

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

    def show_staged(self) -> None:
        """The images waiting for the next message, as chips above the prompt."""
        from ..widgets.attachment_bar import AttachmentBar

        for bar in self.query(AttachmentBar):
            bar.show_chips([a.chip for a in self.runtime.staged])

    def give_back(self, text: str, *, before_draft: bool = False) -> None:
        """Put ``text`` in the prompt to send again or change (when it is empty; with
        ``before_draft``, also ahead of what the user has typed since, so neither is lost)."""
        draft = self.prompt.text
        if text and (before_draft or not draft.strip()):
            self.prompt.load_text(f"{text}\n\n{draft}" if draft.strip() else text)
            self.prompt.move_cursor(self.prompt.document.end)


    def focus_prompt(self) -> None:
        """The prompt takes the focus now (not after a refresh: the next key is its)."""
        if self.is_attached:
            self.set_focus(self.prompt)
