"""Audio blocks in the line mode: kept as they stream, announced when whole, and
``/play`` and ``/save`` for the last one.

Kept apart from the shell around the prompt (:mod:`shell.plain`): :class:`PlainAudio` is
the part of :class:`shell.plain.PlainShell` that holds a reply's audio.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from shell.core import events as ev

from .commands import CommandResult
from .runtime import ShellRuntime


@dataclass(slots=True)
class Audio:
    """An audio block of the reply, as received (its bytes grow while it streams)."""

    media_type: str
    data: bytes


class PlainAudio:
    """The audio part of the line mode (its state is the shell's)."""

    console: Console
    audio: dict[str, Audio]
    last_audio: Audio | None

    def show_audio(self, e: ev.DataBlockStart | ev.DataBlockDelta | ev.DataBlockEnd) -> None:
        """An audio block of the reply: kept (for /play and /save) and announced when whole."""
        if isinstance(e, ev.DataBlockStart):
            self.audio[e.block_id] = Audio(e.media_type, b"")
        elif isinstance(e, ev.DataBlockDelta) and e.block_id in self.audio:
            self.audio[e.block_id].data += e.data
        elif isinstance(e, ev.DataBlockEnd) and e.block_id in self.audio:
            audio = self.last_audio = self.audio.pop(e.block_id)
            self.console.print(Text(f"♪ {audio.media_type} · {audio_length(audio)} · /play · /save [PATH]",
                                    style="cyan"))

    def _play(self, runtime: ShellRuntime, arg: str) -> CommandResult:
        if self.last_audio is None:
            return CommandResult("No audio yet.", error=True)
        try:
            from .speech.audio import start_playback

            start_playback(self.last_audio.media_type, self.last_audio.data)
        except Exception as exc:
            return CommandResult(f"Cannot play: {exc}", error=True)
        return CommandResult("Playing.")

    def _save(self, runtime: ShellRuntime, arg: str) -> CommandResult:
        """``/save [PATH] [--force] [--outside]``: the last audio block as a WAV, by
        :mod:`shell.commands.saving`'s rules (as ``/export``: a file is never replaced or
        written outside the workspace unless the flag says so)."""
        from .commands.saving import target, write

        if self.last_audio is None:
            return CommandResult("No audio yet: /save writes the last audio block.", error=True)
        data = self.last_audio.data
        try:
            from .speech.audio import as_wav

            data = as_wav(self.last_audio.media_type, data)
        except Exception:
            pass
        chosen = target(runtime, arg, command="/save", stem="agent-shell-audio", suffix=".wav")
        if isinstance(chosen, CommandResult):
            return chosen
        failed = write(chosen, data, command="/save")
        if failed is not None:
            return failed
        where = chosen.where("/save", runtime.workspace.contains(chosen.path))
        return CommandResult(f"Saved {len(data)} bytes to `{chosen.path}`{where}.")


def audio_length(audio: Audio) -> str:
    try:
        from .speech.audio import duration_s, pcm_format

        fmt = pcm_format(audio.media_type, audio.data)
        if fmt is not None:
            return f"{duration_s(fmt, len(audio.data) - fmt.data_offset):.1f} s"
    except Exception:
        pass
    return f"{len(audio.data) // 1024} KiB"
