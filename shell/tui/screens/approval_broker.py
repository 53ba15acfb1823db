"""The agent's ``ask`` in the TUI: the queue of approval requests and the one
dialog (:class:`~.approval.ApprovalScreen`) that shows them. Kept apart from the
dialog, whose module is about what one question shows and how it is answered."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual.app import App

from shell.core.approvals import ApprovalDecision, ApprovalRequest

from .approval import ApprovalScreen
from .approval_queue import PendingApproval


class ApprovalBroker:
    """The agent's ``ask`` in the TUI: every approval request joins one queue, shown
    by one :class:`ApprovalScreen` (parallel calls say "2 of 3"); a request whose
    reply was cancelled leaves the queue; a request made while the dialog closes
    opens it again. ``typed_at`` says when the user last typed (the dialog's typing
    guard counts from then)."""

    def __init__(self, app: App[Any], typed_at: Callable[[], float] = lambda: 0.0) -> None:
        self.app = app
        self.typed_at = typed_at
        self.queue: list[PendingApproval] = []
        self.screen: ApprovalScreen | None = None
        self.listeners: list[Callable[[], None]] = []
        """Called when a request arrives (the status line says "awaiting approval")."""

    async def ask(self, request: Any) -> Any:
        """Approvals go to the dialog (queued); other requests get None."""
        if not isinstance(request, ApprovalRequest):
            return None
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        item = PendingApproval(request, future)
        self.queue.append(item)
        for listener in self.listeners:
            listener()
        if self.screen is None:
            self._open(self.typed_at())
        else:
            self.screen.show_current()
        try:
            return await future
        finally:
            if item in self.queue:
                self.queue.remove(item)
                if self.screen is not None:
                    self.screen.request_gone()

    def _open(self, typed_at: float = 0.0) -> None:
        self.screen = ApprovalScreen(self.queue, typed_at=typed_at)
        self.app.push_screen(self.screen, callback=self._closed)

    def _closed(self, _: None) -> None:
        self.screen = None
        if self.queue:  # asked again while the dialog was closing
            self._open()
