"""An audio data block (text-to-speech), live: grows with each delta.

Shows the duration (from the WAV header or the PCM parameters; bytes otherwise),
a level line drawn from the PCM, and Play/Stop and Save buttons. Playback runs a
player subprocess through the app's one :class:`~shell.speech.playback.Playback`
(so clips never overlap and Esc silences them all); the UI never waits for it.
Deltas can arrive many times a second, so the head and level line are redrawn at
most every ``REDRAW_S``.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from shell.speech import audio
from shell.speech.playback import Clip, Playback

WAVE_WIDTH = 48
REDRAW_S = 0.1
_keys = itertools.count(1)


def new_key(block_id: str) -> str:
    """A key unique in this process (block ids repeat from reply to reply)."""
    return f"{block_id}#{next(_keys)}"


def describe_media(media_type: str) -> str:
    """``audio/pcm;rate=22050;channels=1`` as ``pcm 22.05 kHz``: short enough for one line."""
    base, _, params = media_type.partition(";")
    kind = base.strip().removeprefix("audio/") or media_type
    opts = dict(p.strip().split("=", 1) for p in params.split(";") if "=" in p)
    rate = opts.get("rate", "")
    if rate.isdigit():
        kind += f" {int(rate) / 1000:g} kHz"
    if opts.get("channels", "1") not in ("", "1"):
        kind += f", {opts['channels']} channels"
    return kind


class AudioBlock(Vertical):
    """One ``DataBlock`` of audio; ``data`` is kept so it can be played and saved."""

    DEFAULT_CSS = """
    AudioBlock { height: auto; margin: 1 0 0 0; padding: 0 1; border-left: outer $accent;
        background: $surface; }
    AudioBlock #audio-head { color: $foreground; }
    AudioBlock #audio-wave { color: $accent; }
    AudioBlock #audio-note { color: $text-muted; display: none; }
    AudioBlock.-noted #audio-note { display: block; }
    AudioBlock Horizontal { height: 1; }
    AudioBlock Button { height: 1; min-width: 8; margin: 0 1 0 0; }
    """

    def __init__(
        self,
        block_id: str,
        media_type: str,
        data: bytes = b"",
        *,
        done: bool = False,
        key: str | None = None,
    ) -> None:
        super().__init__()
        self.block_id = block_id
        self.key = key or new_key(block_id)
        self.media_type = media_type
        self.data = bytearray(data)
        self.done = done
        self.note = ""
        self._own_playback: Playback | None = None
        self._redraw_pending = False

    def compose(self) -> ComposeResult:
        yield Static(self._head(), id="audio-head")
        yield Static(self._wave(), id="audio-wave")
        with Horizontal():
            yield Button("▶ Play", id="audio-play", compact=True)
            yield Button("Save", id="audio-save", compact=True)
        yield Static("", id="audio-note")

    def _head(self) -> Text:
        fmt = audio.pcm_format(self.media_type, bytes(self.data[:4096]))
        if fmt is not None:
            size = f"{audio.duration_s(fmt, len(self.data)):.1f}s"
        else:
            size = f"{len(self.data):,} bytes"
        state = "" if self.done else " · receiving…"
        return Text(f"♪ audio ({describe_media(self.media_type)}) · {size}{state}")

    def _wave(self) -> str:
        fmt = audio.pcm_format(self.media_type, bytes(self.data[:4096]))
        if fmt is None:
            return ""
        return audio.level_line(fmt, bytes(self.data), WAVE_WIDTH)

    def on_mount(self) -> None:
        playback = self.playback
        if playback.current is not None and playback.current.key == self.key:
            self.show_playing(True, "playing…")  # mounted again while it plays

    def append(self, data: bytes) -> None:
        self.data.extend(data)
        if not self._redraw_pending and self.is_mounted:
            self._redraw_pending = True
            self.set_timer(REDRAW_S, self._refresh)

    def finish(self) -> None:
        self.done = True
        self._refresh()

    def _refresh(self) -> None:
        self._redraw_pending = False
        if self.is_mounted:
            self.query_one("#audio-head", Static).update(self._head())
            self.query_one("#audio-wave", Static).update(self._wave())

    def _say(self, note: str) -> None:
        self.note = note
        self.add_class("-noted")
        self.query_one("#audio-note", Static).update(Text(note))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "audio-play":
            self.toggle_play()
        elif event.button.id == "audio-save":  # not into the workspace, where it is easy to commit
            from shell.commands.saving import exports_folder

            try:
                folder = exports_folder()
            except OSError as exc:
                self._say(f"could not save: {exc}")
                return
            self.save(folder)

    @property
    def playback(self) -> Playback:
        """The app's player when it has one, else this block's own."""
        shared = getattr(self.app, "playback", None) if self.is_attached else None
        if isinstance(shared, Playback):
            return shared
        if self._own_playback is None:
            self._own_playback = Playback()
            self._own_playback.listeners.append(self.playback_changed)
        return self._own_playback

    @property
    def clip(self) -> Clip:
        return Clip(self.key, self.media_type, bytes(self.data))

    def toggle_play(self) -> None:
        playback = self.playback
        if playback.current is not None and playback.current.key == self.key:
            playback.stop()
            return
        playback.play(self.clip)

    def playback_changed(self, key: str, playing: bool, note: str) -> None:
        """The player started or ended ``key`` (ours or another block's)."""
        if key == self.key:
            self.show_playing(playing, note)

    def show_playing(self, playing: bool, note: str) -> None:
        if not self.is_mounted:
            return
        self.query_one("#audio-play", Button).label = "■ Stop" if playing else "▶ Play"
        if note:
            self._say(note)
        elif self.note == "playing…":
            self._say("played")

    def save(self, directory: Path) -> Path | None:
        try:
            path = audio.save(self.media_type, bytes(self.data), directory, f"audio-{self.block_id}")
        except OSError as exc:
            self._say(f"could not save: {exc}")
            return None
        self._say(f"saved to {path}")
        return path

    def on_unmount(self) -> None:
        if self._own_playback is not None:
            self._own_playback.stop()
