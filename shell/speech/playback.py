"""One audio player for the whole app: Play buttons and spoken-reply auto-play.

Why one: two spoken replies (or a Play press during auto-play) must not talk over
each other, and Esc or a new reply must be able to silence *everything* with one
call. Audio plays through a player subprocess (:mod:`shell.speech.audio`), which paces
it in real time by itself; this object only starts it, polls it from the event
loop a few times a second and starts the next queued clip, so nothing here ever
waits on audio. It knows no widgets: listeners hear ``(key, playing, note)`` and
the app redraws whichever audio block has that key, if it is mounted.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import audio

POLL_S = 0.2

Listener = Callable[[str, bool, str], None]


@dataclass(frozen=True, slots=True)
class Clip:
    key: str
    media_type: str
    data: bytes


class Playback:
    """Plays clips one at a time; ``enqueue`` waits its turn, ``play`` cuts in."""

    def __init__(self) -> None:
        self.queue: deque[Clip] = deque()
        self.current: Clip | None = None
        self.listeners: list[Listener] = []
        self.started = 0
        """How many clips were handed to a player (tests, and the status of auto-play)."""
        self._process: subprocess.Popen[bytes] | None = None
        self._poll: asyncio.TimerHandle | None = None

    @property
    def playing(self) -> bool:
        return self.current is not None

    def play(self, clip: Clip) -> str | None:
        """Stop everything and play ``clip`` now; an error message if it cannot play."""
        self.stop()
        return self._start(clip)

    def enqueue(self, clip: Clip) -> str | None:
        """Play ``clip`` after the ones before it (auto-play)."""
        if self.current is None:
            return self._start(clip)
        self.queue.append(clip)
        return None

    def stop(self) -> bool:
        """Silence the clip playing and drop the queue; whether anything was playing."""
        self.queue.clear()
        was = self.current is not None
        self._end("stopped" if was else "")
        return was

    def _start(self, clip: Clip) -> str | None:
        try:
            process = audio.start_playback(clip.media_type, clip.data)
        except OSError as exc:
            self.queue.clear()
            self._tell(clip.key, False, str(exc))
            return str(exc)
        self._process, self.current = process, clip
        self.started += 1
        self._tell(clip.key, True, "playing…")
        self._schedule()
        return None

    def _schedule(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop (plain calls in tests): nobody polls, stop() still works
            return
        self._poll = loop.call_later(POLL_S, self._check)

    def _check(self) -> None:
        self._poll = None
        process = self._process
        if process is not None and process.poll() is None:
            self._schedule()
            return
        self._end("")
        if self.queue:
            self._start(self.queue.popleft())

    def _end(self, note: str) -> None:
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None
        process, self._process = self._process, None
        clip, self.current = self.current, None
        if process is not None:
            if process.poll() is None:
                process.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(0.5)
            _remove_temp(process)
        if clip is not None:
            self._tell(clip.key, False, note)

    def _tell(self, key: str, playing: bool, note: str) -> None:
        for listener in list(self.listeners):
            listener(key, playing, note)


def _remove_temp(process: subprocess.Popen[bytes]) -> None:
    """The temporary file the player read (the last argument) is not needed any more."""
    args = process.args
    if isinstance(args, list) and args:
        path = Path(str(args[-1]))
        if path.name.startswith("agent-shell-") and os.path.realpath(path.parent) == os.path.realpath(
            tempfile.gettempdir()
        ):
            with contextlib.suppress(OSError):
                path.unlink()
