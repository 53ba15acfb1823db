"""Audio data blocks without a widget: their format and length, a level line, playback.

Playback goes through whatever player exists (paplay, pw-play, aplay, afplay,
ffplay) as a subprocess, so the UI never blocks and no audio library is needed.
PCM that arrives without a header (``audio/pcm``, ``audio/L16``) is wrapped in a
WAV header before it is handed to a player or saved.

``AGENT_SHELL_AUDIO_PLAYER`` names the player command instead (split like a shell
line, the file appended), e.g. ``aplay -q -D null`` to play into nothing.
"""

from __future__ import annotations

import os
import shlex
import struct
import subprocess
import tempfile
from pathlib import Path

from shell.core.programs import host_environment, which

from .wav import PcmFormat, parse_header

PLAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("paplay", ()),
    ("pw-play", ()),
    ("aplay", ("-q",)),
    ("afplay", ()),
    ("ffplay", ("-nodisp", "-autoexit", "-loglevel", "quiet")),
)
LEVELS = " ▁▂▃▄▅▆▇█"


def pcm_format(media_type: str, data: bytes) -> PcmFormat | None:
    """How to read ``data``: from its WAV header, from media-type parameters, or None."""
    base, _, params = media_type.partition(";")
    base = base.strip().lower()
    if base in ("audio/wav", "audio/wave", "audio/x-wav", "audio/vnd.wave"):
        return parse_header(data)
    if base in ("audio/pcm", "audio/l16", "audio/x-pcm", "audio/raw"):
        opts = dict(p.strip().split("=", 1) for p in params.split(";") if "=" in p)
        return PcmFormat(int(opts.get("channels", 1)), int(opts.get("rate", 24000)), 16)
    return None


def duration_s(fmt: PcmFormat, size: int) -> float:
    return max(0, size - fmt.data_offset) / fmt.bytes_per_second


def level_line(fmt: PcmFormat, data: bytes, width: int) -> str:
    """A waveform as block characters: the peak of 16-bit samples in ``width`` slices."""
    pcm = data[fmt.data_offset :]
    if fmt.bits != 16 or len(pcm) < 2 or width <= 0:
        return ""
    count = len(pcm) // 2
    step = max(1, count // width)
    samples = memoryview(pcm[: count * 2]).cast("h")
    out = []
    for i in range(0, count, step):
        window = samples[i : i + step : max(1, step // 64)]
        peak = max((abs(s) for s in window), default=0)
        out.append(LEVELS[min(len(LEVELS) - 1, peak * len(LEVELS) // 32768)])
        if len(out) >= width:
            break
    return "".join(out)


def as_wav(media_type: str, data: bytes) -> bytes:
    """The bytes a player or a ``.wav`` file wants (a header added to bare PCM)."""
    fmt = pcm_format(media_type, data)
    if fmt is None or fmt.data_offset:
        return data
    block = fmt.channels * fmt.bits // 8
    header = struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + len(data),
        b"WAVE",
        b"fmt ",
        16,
        1,
        fmt.channels,
        fmt.rate,
        fmt.rate * block,
        block,
        fmt.bits,
        b"data",
        len(data),
    )
    return header + data


def suffix_for(media_type: str) -> str:
    base = media_type.split(";")[0].strip().lower()
    return {"audio/mpeg": ".mp3", "audio/ogg": ".ogg", "audio/opus": ".opus", "audio/flac": ".flac"}.get(
        base, ".wav"
    )


PLAYER_ENV = "AGENT_SHELL_AUDIO_PLAYER"


def find_player() -> list[str] | None:
    """The player command (the file is appended), or None when there is none."""
    override = os.environ.get(PLAYER_ENV, "").strip()
    if override:
        words = shlex.split(override)
        path = which(words[0])
        return [path, *words[1:]] if path else None
    for name, args in PLAYERS:
        path = which(name)
        if path:
            return [path, *args]
    return None


def no_player_message() -> str:
    override = os.environ.get(PLAYER_ENV, "").strip()
    if override:
        return f"The audio player {override!r} ({PLAYER_ENV}) was not found; use Save instead."
    names = ", ".join(n for n, _ in PLAYERS)
    return f"No audio player found (tried {names}); use Save instead."


def start_playback(media_type: str, data: bytes) -> subprocess.Popen[bytes]:
    """Write the audio to a temporary file and start a player on it (non-blocking).

    Raises ``FileNotFoundError`` with a readable message when no player exists.
    """
    player = find_player()
    if player is None:
        raise FileNotFoundError(no_player_message())
    with tempfile.NamedTemporaryFile(prefix="agent-shell-", suffix=suffix_for(media_type), delete=False) as f:
        f.write(as_wav(media_type, data))
    return subprocess.Popen(
        [*player, f.name], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env=host_environment(),
    )


def save(media_type: str, data: bytes, directory: Path, stem: str) -> Path:
    """Write the clip to a new file in ``directory``: ``stem``, or ``stem-2`` … when that
    name is taken, never over an existing file or through a link (O_EXCL)."""
    directory.mkdir(parents=True, exist_ok=True)
    suffix = suffix_for(media_type)
    for n in range(1, 1000):
        path = directory / f"{stem}{'' if n == 1 else f'-{n}'}{suffix}"
        try:
            with path.open("xb") as f:
                f.write(as_wav(media_type, data))
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"{directory / stem}{suffix} and 998 numbered names after it exist")
