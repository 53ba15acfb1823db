"""Handing a web address to the user's graphical browser, from a full-screen UI.

Python's :func:`webbrowser.open` runs a ``$BROWSER`` entry it does not know and
every console browser (``www-browser``, ``links``, ``elinks``, ``lynx``, ``w3m``:
all it finds when there is no ``DISPLAY``, i.e. over ssh, where a terminal agent
usually runs) with ``Popen`` and ``wait()``. Called from the TUI's event loop it
froze the whole screen for as long as that program ran, and a console browser
drew into the very terminal the TUI holds in raw mode (finding Y4); with no
browser at all it returned False and the TUI still said "Opening…".

So here: :func:`open_in_browser` blocks and is meant for a worker thread; a
console browser is never started (it names itself in the answer instead); a
command it does start gets no terminal (its input and output go nowhere, in a
session of its own) and is found on the safe search path; a command still running
after :data:`WAIT_S` took the address (a browser started directly stays open until
the user closes it). The answer is data: None when something took the address,
else one sentence on why nothing did, for the notice that offers the address.
"""

from __future__ import annotations

import os
import subprocess
import webbrowser

from shell.core.programs import host_environment
from shell.core.programs import which as find_program

CONSOLE_BROWSERS = frozenset(
    {"www-browser", "links", "links2", "elinks", "lynx", "w3m", "browsh", "carbonyl"}
)
"""Browsers that draw in the terminal they start in: inside a full-screen UI they would
draw over it and read its keys."""

WAIT_S = 5.0
"""Seconds a browser command may run before it counts as having taken the address."""


def open_in_browser(url: str) -> str | None:
    """Hand ``url`` to the first graphical browser that takes it (in ``$BROWSER``'s
    order, then the platform's). Blocking: call it from a worker thread. None when one
    took it, else why nothing did."""
    try:
        webbrowser.get()  # registers the platform's browsers and $BROWSER's, in order
    except webbrowser.Error:
        return "no browser was found (set BROWSER to one, or open it yourself)."
    skipped: list[str] = []
    failed: list[str] = []
    for name in _try_order():
        try:
            browser = webbrowser.get(name)
        except webbrowser.Error:
            continue
        program = os.path.basename(getattr(browser, "name", "") or name)
        if program in CONSOLE_BROWSERS:
            skipped.append(program)
            continue
        if isinstance(browser, webbrowser.GenericBrowser):
            why = _run_command(browser, url)
        else:  # the platform's own launchers (macOS, Windows, the Unix GUI browsers)
            try:
                why = None if browser.open(url) else f"{program} did not take it"
            except Exception as exc:  # a launcher's own failure: the address is offered instead
                why = f"{program} failed ({type(exc).__name__})"
        if why is None:
            return None
        failed.append(why)
    if failed:
        return "; ".join(failed) + "."
    if skipped:
        return (f"only a console browser was found ({', '.join(dict.fromkeys(skipped))}): it would draw "
                "over this screen.")
    return "no browser was found (set BROWSER to one, or open it yourself)."


def _try_order() -> list[str]:
    """The browser names :mod:`webbrowser` tries, first first. Its list is private
    (``_tryorder``); without it, only its first choice."""
    order = getattr(webbrowser, "_tryorder", None)
    if isinstance(order, list) and all(isinstance(name, str) for name in order):
        return list(order)
    return [""]


def _run_command(browser: webbrowser.GenericBrowser, url: str) -> str | None:
    """Run a command-line browser with no terminal; None when it took ``url``."""
    name: str = browser.name
    args: list[str] = list(getattr(browser, "args", ["%s"]))
    program = find_program(name)
    if program is None:
        return f"{os.path.basename(name)} was not found"
    argv = [program, *(arg.replace("%s", url) for arg in args)]
    try:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True, env=host_environment(),
        )
    except OSError as exc:
        return f"{os.path.basename(name)} could not start ({exc.strerror or type(exc).__name__})"
    if isinstance(browser, webbrowser.BackgroundBrowser):
        return None
    try:
        code = process.wait(timeout=WAIT_S)
    except subprocess.TimeoutExpired:
        return None  # still running: a browser window it opened
    return None if code == 0 else f"{os.path.basename(name)} ended with exit status {code}"


__all__ = ["CONSOLE_BROWSERS", "WAIT_S", "open_in_browser"]
