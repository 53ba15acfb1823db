"""Opening a link the user clicked: the TUI side of :mod:`shell.frontend.linkopen`.

Every click that opens something comes here (a reply's Markdown, a kept chunk, a
command result), so the policy is applied once. A web address opens after its
notice is drawn (the notice used to arrive with the browser, too late to stop
it); anything else waits for :class:`OpenLinkScreen`'s answer.
"""

from __future__ import annotations

from textual.widget import Widget

from shell.frontend.linkopen import link_target

from .screens.open_link import OpenLinkScreen


def open_link(widget: Widget, href: str) -> None:
    """Open ``href`` as the policy says: at once with a notice, or after asking."""
    app = widget.app
    target = link_target(href)

    def opened(answer: bool | None = True) -> None:
        if not answer:
            app.notify(f"Not opened: {target.shown}", title="Link", markup=False)
            return
        app.notify(f"Opening the link's target: {target.shown}", title="Link", markup=False)
        app.call_after_refresh(app.open_url, target.href)

    if target.asks:
        app.push_screen(OpenLinkScreen(target), opened)
    else:
        opened()
