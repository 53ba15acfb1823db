"""The status line: permission mode, model (the demo clearly labelled), session
tokens, state. The mode is always shown (bypass in the error colour): it says
what runs without asking."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from shell.core.textsafety import sanitize_line

STATES = {
    "starting": "starting…",
    "idle": "ready",
    "thinking": "thinking…",
    "streaming": "streaming…",
    "approval": "awaiting approval",
    "tool": "running tool…",
    "cancelling": "cancelling…",
}


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

    def render(self) -> Text:
        """Model · tokens · state · queue, fitted to the width: the state is what the
        user needs most, so the model's note and then the token counts give way."""
        state = STATES.get(self.state, self.state)
        queued = f"  ·  {self.queued} queued" if self.queued else ""
        mode = f"mode: {self.mode}  ·  " if self.mode else ""
        queued_room = len(queued) + len(mode)
        label = sanitize_line(self.model_label)  # a model id can come from a server
        full, short = label, label.split(" (", 1)[0]  # "demo (offline …)"
        more = "+" if self.tokens_unknown else ""
        tokens = f"  ·  ↑{self.tokens_in:,}{more} ↓{self.tokens_out:,}{more} tokens"
        brief = f"  ·  ↑{_short(self.tokens_in)}{more} ↓{_short(self.tokens_out)}{more}"
        if self.tokens_unknown and not (self.tokens_in or self.tokens_out):
            tokens, brief = "  ·  tokens not reported", "  ·  ↑? ↓?"
        room = self.size.width - 2 - len(state) - queued_room - len("  ·  ")  # 2: padding
        fits = [(m, t) for m, t in ((full, tokens), (short, tokens), (short, brief)) if len(m + t) <= room]
        model, tokens = fits[0] if fits else (_middle(short, room), "")
        text = Text()
        if mode:
            warn = self.mode.startswith("bypass")
            text.append(mode[:-5], style="bold reverse red" if warn else "bold")
            text.append("  ·  ")
        text.append(model, style="bold")
        text.append(tokens)
        text.append(f"  ·  {state}")
        text.append(queued)
        return text


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
