"""Opening a link the user clicked: the TUI side of :mod:`shell.frontend.linkopen`.

Every click that opens something comes here (a reply's Markdown, a kept chunk, a
command result), so the policy is applied once. A web address opens after its
notice is drawn (the notice used to arrive with the browser, too late to stop
it); anything else waits for :class:`OpenLinkScreen`'s answer.

The browser is started from a worker thread (:mod:`shell.frontend.browser`):
``App.open_url`` ran it on the event loop, and a ``$BROWSER`` script or a console
browser froze the screen until it ended, a console browser drawing into it
(finding Y4). When nothing takes the address the notice says so, and the address
is copied to the clipboard and shown, to open by hand.
"""

from __future__ import annotations

import asyncio

from textual.app import App
from textual.widget import Widget

from shell.frontend.browser import open_in_browser
from shell.frontend.linkopen import LinkTarget, link_target

from .screens.open_link import OpenLinkScreen

NOT_OPENED_S = 30.0
"""Seconds the "nothing opened it" notice stays: the address is in it, to copy by hand."""


def open_link(widget: Widget, href: str) -> None:
    """Open ``href`` as the policy says: at once with a notice, or after asking."""
    app = widget.app
    target = link_target(href)

    def opened(answer: bool | None = True) -> None:
        if not answer:
            app.notify(f"Not opened: {target.shown}", title="Link", markup=False)
            return
        app.notify(f"Opening the link's target: {target.shown}", title="Link", markup=False)
        app.call_after_refresh(app.run_worker, _open(app, target), group="links", exit_on_error=False)

    if target.asks:
        app.push_screen(OpenLinkScreen(target), opened)
    else:
        opened()


async def _open(app: App[object], target: LinkTarget) -> None:
    """Hand the target to a browser off the event loop; say so when nothing took it."""
    why = await asyncio.to_thread(open_in_browser, target.href)
    if why is None:
        return
    flow = getattr(app, "flow", None)
    copied = flow.copy(target.href) if flow is not None else None
    where = "It is copied to the clipboard: " if copied is not None and copied.ok else "Its address: "
    app.notify(
        f"Nothing opened the link: {why}\n{where}{target.shown}",
        title="Link not opened", severity="warning", timeout=NOT_OPENED_S, markup=False,
    )
