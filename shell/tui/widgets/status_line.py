"""The status line: permission mode, model (the demo clearly labelled), session
tokens, how full the context is and what the session cost, state. The mode is
always shown (bypass in the error colour): it says what runs without asking. The
meter turns the warning colour past 80% and the error colour past 95%; it and the
cost are left out when unknown (see :mod:`shell.context.meter`).

While the model is asked (thinking, streaming) and nothing has come for a few
seconds, the state says so and counts: ``waiting for the model (12 s) · Esc
cancels``. A stalled stream otherwise showed ``streaming…`` until the read timeout
(120 s), and the user could not tell it from a slow one. Once the model has ended a
text the screen is still drawing, the state is ``showing the reply…`` (no count: the
model is not what is waited for)."""

from __future__ import annotations

import re
import time

from rich.text import Text
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import Static

from shell.core.model import shown_label
from shell.core.textsafety import sanitize_line

STATES = {
    "starting": "starting…",
    "idle": "ready",
    "thinking": "thinking…",
    "streaming": "streaming…",
    "showing": "showing the reply…",
    "approval": "awaiting approval",
    "tool": "running tool…",
    "cancelling": "cancelling…",
}


_GGUF_PATH = re.compile(r"(?:~|\.{0,2})/(?:[^\s/]*/)*([^\s/]+\.gguf)\b", re.IGNORECASE)
"""A local model file as its id (llama-cpp-python's server): its name is enough."""

QUIET_S = 5.0
"""Seconds without an event from the model before the state says it is waiting."""
WAITING_STATES = frozenset({"thinking", "streaming"})


class StatusLine(Static):
    """One line under the prompt; every field is a reactive so updates are cheap."""

    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    model_label: reactive[str] = reactive("")
    state: reactive[str] = reactive("idle")
    tokens_in: reactive[int] = reactive(0)
    tokens_out: reactive[int] = reactive(0)
    tokens_unknown: reactive[bool] = reactive(False)
    """Some model call's usage was not reported by its server: the counts are a floor."""
    queued: reactive[int] = reactive(0)
    mode: reactive[str] = reactive("")
    context: reactive[str] = reactive("")
    """``ctx 12% of 200k`` (empty when unknown)."""
    fullness: reactive[float] = reactive(0.0)
    cost: reactive[str] = reactive("")
    """``$0.012 reply · $0.31 session`` (empty when no price is known)."""
    mode_warning: reactive[bool] = reactive(False)
    """The mode lets calls run that would ask (bypass, approvals off): shown as a warning."""
    waiting: reactive[int] = reactive(0)
    """Whole seconds nothing has come from the model (0 until ``QUIET_S`` have passed)."""

    clock = staticmethod(time.monotonic)
    _heard = 0.0
    _ticker: Timer | None = None

    def heard(self) -> None:
        """An event of the reply arrived (called for each: kept cheap)."""
        self._heard = self.clock()
        if self.waiting:
            self.waiting = 0

    def watch_state(self, state: str) -> None:
        """A 1 s tick runs only while the model is asked (none when idle)."""
        self._heard = self.clock()
        self.waiting = 0
        if state in WAITING_STATES and self._ticker is None and self.is_mounted:
            self._ticker = self.set_interval(1.0, self.tick)
        elif state not in WAITING_STATES and self._ticker is not None:
            self._ticker.stop()
            self._ticker = None

    def tick(self) -> None:
        if self.state not in WAITING_STATES:
            return
        quiet = self.clock() - self._heard
        self.waiting = int(quiet) if quiet >= QUIET_S else 0

    def render(self) -> Text:
        """Model · tokens · state · queue, fitted to the width: the state is what the
        user needs most, so the model's note and then the token counts give way."""
        state = STATES.get(self.state, self.state)
        if self.waiting and self.state in WAITING_STATES:
            state = f"waiting for the model ({self.waiting} s) · Esc cancels"
        queued = f"  ·  {self.queued} queued" if self.queued else ""
        mode = f"mode: {self.mode}  ·  " if self.mode else ""
        queued_room = len(queued) + len(mode)
        label = shown_label(sanitize_line(self.model_label))  # a model id can come from a server
        full, short = label, label.split(" (", 1)[0]  # "demo (offline …)"
        more = "+" if self.tokens_unknown else ""
        tokens = f"  ·  ↑{self.tokens_in:,}{more} ↓{self.tokens_out:,}{more} tokens"
        brief = f"  ·  ↑{_short(self.tokens_in)}{more} ↓{_short(self.tokens_out)}{more}"
        if self.tokens_unknown and not (self.tokens_in or self.tokens_out):
            tokens, brief = "  ·  tokens not reported", "  ·  ↑? ↓?"
        # the content's width: the padding is outside it (taking 2 more off it lost
        # two columns, and a field that fitted gave way)
        room = self.size.width - len(state) - queued_room - len("  ·  ")
        sep = "  ·  "
        ctx = f"{sep}{self.context}" if self.context else ""
        ctx_brief = f"{sep}{self.context.split(' of ', 1)[0]}" if self.context else ""
        cost = f"{sep}{self.cost}" if self.cost else ""
        session = f"{sep}{self.cost.rsplit(' · ', 1)[-1]}" if self.cost else ""
        total = f"{sep}{session.rsplit(' ', 1)[0].strip(' ·')}" if self.cost else ""
        layouts = [  # the first that fits: the model's note, the cost, the tokens give way first
            (full, tokens, ctx, cost), (short, tokens, ctx, cost), (short, brief, ctx, cost),
            (short, brief, ctx, session), (short, "", ctx, session), (short, "", ctx_brief, session),
            (short, "", ctx_brief, total), (short, "", ctx_brief, ""), (short, "", "", ""),
        ]
        fits = [layout for layout in layouts if len("".join(layout)) <= room]
        if fits:
            model, tokens, ctx, cost = fits[0]
        elif room >= MIN_CUT:  # a long id (a path): its ends say what it is
            model, tokens, ctx, cost = _middle(short, room), "", "", ""
        else:
            return self._narrow(short, state)
        text = Text()
        if mode:
            text.append(mode[:-5], style=self._mode_style())
            text.append("  ·  ")
        text.append(model, style="bold")
        text.append(tokens)
        if ctx:
            text.append("  ·  ")
            level = "bold red" if self.fullness >= 0.95 else "bold yellow" if self.fullness >= 0.8 else ""
            text.append(ctx[len(sep):], style=level)
        text.append(cost)
        text.append(f"  ·  {state}")
        text.append(queued)
        return text


    def _narrow(self, model: str, state: str) -> Text:
        """Too narrow for the usual layout: whole fields give way, least needed first
        (the model, the word ``mode:``, the queue), never a word cut in the middle
        (``mode: default  ·  de…mo  ·`` at 30 columns lost the state). The mode and
        the state stay longest: what runs without asking, and what is happening."""
        width = self.size.width  # the content's width: the padding is outside it
        if self.waiting and self.state in WAITING_STATES:
            states = [state, f"waiting {self.waiting} s"]
        else:
            states = [state]
        queued = f"{self.queued} queued" if self.queued else ""
        labelled = f"mode: {self.mode}" if self.mode else ""
        options = [
            (mode, shown, st, q)
            for st in states
            for mode, shown, q in ((labelled, model, queued), (self.mode, model, queued),
                                   (labelled, "", queued), (self.mode, "", queued), (self.mode, "", ""))
        ]
        # "default, approvals off (deny rules hold)": the note in brackets goes first, and
        # "approvals off" is never lost while it holds (the warning is the point)
        briefs = [self.mode.split(" (", 1)[0], self.mode.split(",", 1)[0]]
        if self.mode_warning and "approvals off" in self.mode and briefs[1] != "bypass":
            briefs[1] = "approvals off"  # "default" alone would hide it ("bypass" says it)
        for brief in dict.fromkeys(b for b in briefs if b != self.mode):
            options += [(brief, "", st, q) for st in states for q in (queued, "")]
        brief = briefs[-1]
        options.append((brief, "", "", "") if brief else ("", "", states[-1], ""))
        sep = " · "
        mode, model, state, queued = next(
            (o for o in options if len(sep.join(f for f in o if f)) <= width), options[-1]
        )
        text = Text()
        for i, (field, style) in enumerate(
            (f, st) for f, st in ((mode, self._mode_style()), (model, "bold"), (state, ""), (queued, "")) if f
        ):
            if i:
                text.append(sep)
            text.append(field, style=style)
        return text

    def _mode_style(self) -> str:
        return "bold reverse red" if self.mode_warning else "bold"


MIN_CUT = 12
"""Below this room a model id cut in the middle (``de…mo``) says nothing: it goes whole."""


def _middle(label: str, room: int) -> str:
    """A label cut in the middle to fit, so the state after it stays in view: a local
    server's model id is often a whole path, whose end (the file name) says the most."""
    if len(label) <= room:
        return label
    keep = max(room - 1, 8)
    head = keep // 3
    return label[:head] + "…" + label[len(label) - (keep - head) :]


def _short(count: int) -> str:
    """``1234`` -> ``1.2k``, ``2500000`` -> ``2.5M``."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"
