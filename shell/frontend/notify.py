"""Telling the user, when they look away, that the agent needs them or is done.

A reply that ends, or an approval that waits, while the terminal is not focused
raises a notification: the terminal's own where it has one (OSC 9 for iTerm2,
OSC 777 for VTE terminals, foot, WezTerm, Ghostty and urxvt, OSC 99 for kitty),
else the bell; and a desktop notification through ``notify-send`` when it is
installed and there is a desktop to show it. Inside tmux the terminal's
sequence is wrapped for passthrough (it reaches the terminal when tmux has
``set -g allow-passthrough on``; the bell always does).

Only while unfocused: the front end tells :class:`Notifier` when the terminal
gains or loses focus (Textual's ``AppFocus``/``AppBlur``, which need a terminal
that reports focus; tmux does with ``set -g focus-events on``). Off in headless
mode, which never makes a notifier.

What goes into a notification is outside text (a tool's name and arguments, the
model's words): it is made one plain line, without control characters or the
separators of the sequence, and short, so it can neither end the sequence early
nor smuggle another one in. ``notify-send`` gets it as arguments, never through
a shell, the body with its markup escaped (a link or an image in it is text).

Configuration (``config.toml``)::

    [notifications]
    enabled = true          # false: never
    method = "auto"         # auto | osc9 | osc777 | osc99 | bell
    desktop = true          # also notify-send, when installed
    on = ["approval", "reply"]
"""

from __future__ import annotations

import html
import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from shell.core.programs import host_environment
from shell.core.programs import which as find_program
from shell.core.secrets import redact
from shell.core.textsafety import sanitize_line

Method = Literal["osc9", "osc777", "osc99", "bell"]
Kind = Literal["approval", "reply"]
METHODS: tuple[str, ...] = ("auto", "osc9", "osc777", "osc99", "bell")
KINDS: tuple[str, ...] = ("approval", "reply")
MAX_TITLE = 60
MAX_BODY = 160
ESC = "\x1b"
BEL = "\x07"
ST = ESC + "\\"


@dataclass(frozen=True, slots=True)
class NotifySettings:
    enabled: bool = True
    method: str = "auto"
    desktop: bool = True
    on: tuple[str, ...] = KINDS

    @classmethod
    def from_config(cls, raw: Any, problems: list[str] | None = None) -> NotifySettings:
        """``[notifications]`` of the config; a wrong value is said and its default kept."""
        if not isinstance(raw, dict):
            return cls()
        said = problems if problems is not None else []
        enabled = raw.get("enabled", True)
        if not isinstance(enabled, bool):
            said.append("[notifications] enabled must be true or false; notifications stay on.")
            enabled = True
        method = raw.get("method", "auto")
        if method not in METHODS:
            said.append(f"[notifications] method {method!r} is not one of {', '.join(METHODS)}; using auto.")
            method = "auto"
        desktop = raw.get("desktop", True)
        if not isinstance(desktop, bool):
            said.append("[notifications] desktop must be true or false; using true.")
            desktop = True
        on = raw.get("on", list(KINDS))
        if not (isinstance(on, list) and all(k in KINDS for k in on)):
            said.append(f"[notifications] on must list some of {', '.join(KINDS)}; using both.")
            on = list(KINDS)
        return cls(enabled, str(method), desktop, tuple(on))


def clean(text: str, limit: int, *, markup: bool = False) -> str:
    """One short line with nothing a terminal or the sequence could act on, and no
    secret: a notification outlives the screen (the desktop's history on disk, the lock
    screen, tmux's passthrough), and it fires when the user is away, often on a call
    whose arguments carry a token the model read (finding L13). ``markup``: for a
    freedesktop notification's body, which daemons read as markup, so the model's
    ``<a href="https://…">`` would be a live link and ``<img src=…>`` drawn: ``&``,
    ``<`` and ``>`` are escaped (after the cut, so no entity is cut in half)."""
    line = redact(" ".join(str(text).split()))
    line = sanitize_line(line).replace(";", ",")  # ";" ends an OSC 777 field
    line = " ".join(line.split())
    line = line if len(line) <= limit else line[: limit - 1] + "…"
    return html.escape(line, quote=False) if markup else line


def detect_method(env: Mapping[str, str], outer_term: str = "") -> Method:
    """The terminal's own notification sequence, from what the environment says
    about it (``outer_term``: the terminal tmux runs in, when inside tmux)."""
    program = env.get("TERM_PROGRAM", "")
    term = outer_term or env.get("TERM", "")
    if env.get("KITTY_WINDOW_ID") or "kitty" in term:
        return "osc99"
    if program == "iTerm.app" or env.get("LC_TERMINAL") == "iTerm2":
        return "osc9"
    named = term.startswith(("foot", "rxvt-unicode", "xterm-ghostty", "wezterm"))
    if (program in ("WezTerm", "ghostty") or env.get("WEZTERM_PANE") or env.get("GHOSTTY_RESOURCES_DIR")
            or env.get("VTE_VERSION") or named):
        return "osc777"
    return "bell"


def sequence(method: Method, title: str, body: str) -> str:
    """The escape sequence for ``method`` (title and body already :func:`clean`)."""
    if method == "osc9":
        return f"{ESC}]9;{title}: {body}{BEL}"
    if method == "osc777":
        return f"{ESC}]777;notify;{title};{body}{BEL}"
    if method == "osc99":
        return f"{ESC}]99;i=agent-shell:d=0;{title}{ST}{ESC}]99;i=agent-shell:d=1:p=body;{body}{ST}"
    return BEL


def tmux_passthrough(seq: str) -> str:
    """``seq`` wrapped so tmux hands it to the terminal (its ESCs doubled); the
    bell needs no wrapping."""
    if seq == BEL:
        return seq
    return f"{ESC}Ptmux;{seq.replace(ESC, ESC + ESC)}{ST}"


class Notifier:
    """Raises notifications while the terminal is not focused.

    ``write`` puts text on the terminal (the front end's way: Textual's driver);
    ``env``, ``which`` and ``spawn`` are the outside world, for tests."""

    def __init__(
        self,
        settings: NotifySettings,
        write: Callable[[str], None],
        *,
        env: Mapping[str, str] | None = None,
        which: Callable[[str], str | None] = find_program,
        spawn: Callable[[Sequence[str]], Any] | None = None,
    ) -> None:
        self.settings = settings
        self.write = write
        self.env = dict(os.environ if env is None else env)
        self.which = which
        self.spawn = spawn or _spawn
        self.focused = True
        """False between the terminal's blur and focus reports."""
        self.sent: list[tuple[str, str, str]] = []
        """``(kind, title, body)`` of each notification raised (what the user saw)."""
        self._method: Method | None = None

    @property
    def method(self) -> Method:
        if self._method is None:
            chosen = self.settings.method
            if chosen == "auto":
                chosen = detect_method(self.env, _tmux_client_term() if self.in_tmux else "")
            self._method = chosen  # type: ignore[assignment]
        assert self._method is not None
        return self._method

    @property
    def in_tmux(self) -> bool:
        return bool(self.env.get("TMUX"))

    def notify(self, kind: Kind, title: str, body: str = "") -> bool:
        """Raise one notification if the terminal is not focused and the settings
        allow this kind; returns whether one was raised."""
        if self.focused or not self.settings.enabled or kind not in self.settings.on:
            return False
        title, body = clean(title, MAX_TITLE) or "agent-shell", clean(body, MAX_BODY)
        seq = sequence(self.method, title, body)
        self.write(tmux_passthrough(seq) if self.in_tmux else seq)
        if self.settings.desktop and self._desktop():
            command = self.which("notify-send")
            if command:
                try:
                    self.spawn([command, "--app-name=agent-shell", "--", title,
                                clean(body, MAX_BODY, markup=True)])  # the body is markup
                except OSError:
                    pass  # the terminal's notification went out; that is enough
        self.sent.append((kind, title, body))
        return True

    def _desktop(self) -> bool:
        return bool(self.env.get("DISPLAY") or self.env.get("WAYLAND_DISPLAY")
                    or self.env.get("DBUS_SESSION_BUS_ADDRESS"))


def _spawn(argv: Sequence[str]) -> Any:
    return subprocess.Popen(
        list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True, env=host_environment(),
    )


def _tmux_client_term() -> str:
    """The terminal tmux's client runs in (``xterm-kitty``, ``foot``…), or ''."""
    tmux = find_program("tmux")
    if not tmux:
        return ""
    try:
        done = subprocess.run([tmux, "display-message", "-p", "#{client_termname}"], capture_output=True,
                              text=True, timeout=2, stdin=subprocess.DEVNULL, env=host_environment())
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
