"""An audio data block (text-to-speech), live: grows with each delta.

Shows the duration (from the WAV header or the PCM parameters; bytes otherwise),
a level line drawn from the PCM, and Play/Stop and Save buttons. Playback runs a
player subprocess (see ``shell.tui.audio``), so the UI never waits for it.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Button, Static

from .. import audio

WAVE_WIDTH = 48


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

    def __init__(self, block_id: str, media_type: str, data: bytes = b"", *, done: bool = False) -> None:
        super().__init__()
        self.block_id = block_id
        self.media_type = media_type
        self.data = bytearray(data)
        self.done = done
        self._player: subprocess.Popen[bytes] | None = None
        self.note = ""
        self._poll: Timer

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
        return Text(f"♪ audio ({self.media_type}) · {size}{state}")

    def _wave(self) -> str:
        fmt = audio.pcm_format(self.media_type, bytes(self.data[:4096]))
        if fmt is None:
            return ""
        return audio.level_line(fmt, bytes(self.data), WAVE_WIDTH)

    def append(self, data: bytes) -> None:
        self.data.extend(data)
        self._refresh()

    def finish(self) -> None:
        self.done = True
        self._refresh()

    def _refresh(self) -> None:
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
        elif event.button.id == "audio-save":
            self.save(Path.cwd())

    def toggle_play(self) -> None:
        button = self.query_one("#audio-play", Button)
        if self._player is not None and self._player.poll() is None:
            self._player.terminate()
            self._player = None
            button.label = "▶ Play"
            self._say("stopped")
            return
        try:
            self._player = audio.start_playback(self.media_type, bytes(self.data))
        except OSError as exc:
            self._say(str(exc))
            return
        button.label = "■ Stop"
        self._say("playing…")
        self._poll = self.set_interval(0.5, self._poll_player)

    def _poll_player(self) -> None:
        if self._player is not None and self._player.poll() is None:
            return
        self._player = None
        self._poll.stop()
        self.query_one("#audio-play", Button).label = "▶ Play"

    def save(self, directory: Path) -> Path | None:
        try:
            path = audio.save(self.media_type, bytes(self.data), directory, f"audio-{self.block_id}")
        except OSError as exc:
            self._say(f"could not save: {exc}")
            return None
        self._say(f"saved to {path}")
        return path

    def on_unmount(self) -> None:
        if self._player is not None and self._player.poll() is None:
            self._player.terminate()
